"""Writes to --out (issue 19): atomic, no overwrite without --force, one writer at a time, an output folder that
must be empty."""

import os

import pytest
from fuzz_helpers import run

from fairdeal.errors import OutputError
from fairdeal.files import OutputFile, require_empty_folder, write_file


def test_the_file_appears_only_when_committed(tmp_path):
    target = tmp_path / "log.jsonl"
    out = OutputFile(target)
    out.stream.write(b"half")
    assert not target.exists()
    out.commit()
    assert target.read_bytes() == b"half" and sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl"]


def test_an_aborted_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "log.jsonl"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), OutputFile(target, force=True) as out:
        out.stream.write(b"new")
        raise RuntimeError("stop")
    assert target.read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_an_existing_file_is_replaced_only_with_force(tmp_path):
    target = tmp_path / "log.jsonl"
    target.write_bytes(b"old")
    with pytest.raises(OutputError, match="already exists"):
        OutputFile(target)
    write_file(target, b"new", force=True)
    assert target.read_bytes() == b"new"


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    target = tmp_path / "log.jsonl"
    first = OutputFile(target)
    with pytest.raises(OutputError, match="another process is writing it"):
        OutputFile(target, force=True)
    first.commit()
    OutputFile(target, force=True).abort()  # the lock is free again, and its file gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.jsonl"]


def test_the_lock_is_held_across_processes(tmp_path):
    target = tmp_path / "log.jsonl"
    first = OutputFile(target)
    child = os.fork()
    if child == 0:
        try:
            OutputFile(target, force=True)
            os._exit(0)
        except OutputError:
            os._exit(3)
    _, status = os.waitpid(child, 0)
    first.abort()
    assert os.waitstatus_to_exitcode(status) == 3


def test_a_missing_folder_or_a_folder_as_target_is_one_clear_error(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        OutputFile(tmp_path / "no" / "log.jsonl")
    with pytest.raises(OutputError, match="is a folder"):
        OutputFile(tmp_path)


def test_an_output_folder_must_be_new_or_empty(tmp_path):
    assert require_empty_folder(tmp_path / "new").is_dir()
    require_empty_folder(tmp_path / "new")
    (tmp_path / "new" / "old.json").write_text("{}")
    with pytest.raises(OutputError, match="not empty"):
        require_empty_folder(tmp_path / "new")


def test_play_out_refuses_to_overwrite_and_reports_a_missing_folder(tmp_path):
    log = tmp_path / "evening.jsonl"
    args = ["play", "--hands", "2", "--seed", "1", "--out", str(log)]
    assert run(args).code == 0
    first = log.read_bytes()
    again = run(args)
    assert again.code == 2 and again.err == f"Error: {log}: already exists (use --force to replace it)\n"
    assert log.read_bytes() == first
    assert run([*args, "--force", "--seed", "2"]).code == 0 and log.read_bytes() != first
    missing = run(["play", "--hands", "1", "--out", str(tmp_path / "none" / "x.jsonl")])
    assert missing.code == 2 and "does not exist" in missing.err and missing.err.count("\n") == 1


def test_deal_out_refuses_a_used_folder(tmp_path):
    (tmp_path / "hand-0001.json").write_text("{}")
    outcome = run(["deal", "--hands", "1", "--out", str(tmp_path)])
    assert outcome.code == 2 and "not empty" in outcome.err
    assert [p.name for p in tmp_path.iterdir()] == ["hand-0001.json"]
