"""Input anywhere: files, directories, globs, stdin, gzip and zstd for `fairdeal audit` and `fairdeal log validate`."""

import gzip
import json
import re
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.errors import LogError
from fairdeal.log.sources import expand, plain_copy

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
HONEST = SAMPLES / "sochi-3p-honest.jsonl"
MALFORMED = SAMPLES / "malformed-lines.jsonl"


@pytest.fixture()
def folder(tmp_path):
    data = HONEST.read_bytes()
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(data))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.log.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    (tmp_path / "notes.txt").write_text("not a log")
    (tmp_path / "rotated.1").write_bytes(gzip.compress(data))
    return tmp_path


def test_a_directory_gives_its_logs_sorted_and_recognises_compression(folder):
    sources = expand([str(folder)])
    assert [Path(s.name).name for s in sources] == ["a.jsonl.gz", "b.log.zst"]
    assert [s.compression for s in sources] == ["gzip", "zstd"]
    assert all(s.open().read() == HONEST.read_bytes() for s in sources)


def test_compression_is_read_from_the_magic_bytes_not_the_name(folder):
    (source,) = expand([str(folder / "rotated.1")])
    assert source.compression == "gzip" and not source.seekable
    assert plain_copy(source, folder).read_bytes() == HONEST.read_bytes()


def test_globs_and_missing_names(folder):
    assert len(expand([str(folder / "**" / "*.zst")])) == 1
    with pytest.raises(LogError, match="no file matches"):
        expand([str(folder / "*.nothing")])
    with pytest.raises(LogError, match="no game log at"):
        expand([str(folder / "absent.jsonl")])
    with pytest.raises(LogError, match="only once"):
        expand(["-", "-"])


def test_a_corrupt_compressed_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(HONEST.read_bytes())[:200])
    result = CliRunner().invoke(cli, ["audit", str(bad), "--workers", "1"])
    assert result.exit_code == 2 and "cannot decompress" in result.output and "Traceback" not in result.output


def test_audit_reads_stdin_and_compressed_files_with_the_plain_verdict(folder):
    plain = CliRunner().invoke(cli, ["audit", str(HONEST), "--json", "--workers", "1"])
    piped = CliRunner().invoke(cli, ["audit", "-", "--json", "--workers", "1"], input=HONEST.read_bytes())
    many = CliRunner().invoke(cli, ["audit", str(folder), "--json", "--workers", "1"])
    assert plain.exit_code == piped.exit_code == many.exit_code == 0, many.output

    def core(report):
        report["summary"].pop("seconds")
        report["summary"].pop("hands_per_second")
        report["legality"].pop("seconds", None)
        return report

    expected = core(json.loads(plain.output))
    assert core(json.loads(piped.output)) == expected
    reports = json.loads(many.output)["logs"]
    assert [Path(r.pop("source")).name for r in reports] == ["a.jsonl.gz", "b.log.zst"]
    assert all(core(r) == expected for r in reports)


def test_validate_takes_many_inputs_and_names_each(folder):
    result = CliRunner().invoke(cli, ["log", "validate", str(folder), str(MALFORMED)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert any(line.startswith(f"{folder / 'a.jsonl.gz'}: valid") for line in lines)
    assert any(line.startswith(f"{MALFORMED}:") and "INVALID" in line for line in lines)
    assert any(re.match(rf"{re.escape(str(MALFORMED))}:\d+: \S+: ", line) for line in lines)
    piped = CliRunner().invoke(cli, ["log", "validate", "-"], input=gzip.compress(HONEST.read_bytes()))
    assert piped.exit_code == 0 and piped.output.startswith("<stdin>: valid")
