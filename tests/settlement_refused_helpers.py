"""Shared by the refused-settlement tests of both protocols: `fairdeal deal` stopped by the refusal, `fairdeal
verify --log` judging it, and the offline page declining to take the evening as settled."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from fairdeal.cli import cli
from fairdeal.protocols.verify import verify_log, verify_paths


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def refused_evening(out: Path, protocol: str) -> Result:
    """Two hands dealt and played with `--seed 5`; the settlement refused: exit 2, no settlement line in the log,
    the refused settlement beside the transcripts."""
    result = run("deal", "--protocol", protocol, "--hands", "2", "--seed", "5", "--out", str(out))
    assert result.exit_code == 2, result.output
    lines = [json.loads(line) for line in (out / "evening.log").read_text(encoding="utf-8").splitlines()]
    assert [line["type"] for line in lines] == ["table", "hand", "hand"]  # no settlement line
    assert (out / "evening.log.transcripts" / "settlement.json").exists()
    return result


def blamed(out: Path) -> tuple[set[tuple[str, str]], dict[str, Any]]:
    """`fairdeal verify --json --log` of the refused evening: the (party, check) pairs it fails on, and the report."""
    checked = run("verify", "--json", "--log", str(out / "evening.log"))
    report = json.loads(checked.output)
    assert checked.exit_code == 1 and not report["ok"]
    assert any("refused the settlement: the evening did not settle" in note for note in report["notes"])
    return {(f["party"], f["check"]) for f in report["failures"]}, report


def page_report(page: Path, files: list[Path]) -> Any:
    """The offline page's report on ``files``, run in Node."""
    runner = Path(__file__).parent / "js" / "run_verifier_page.cjs"
    done = subprocess.run(
        ["node", str(runner), str(page), *map(str, files)], capture_output=True, text=True, timeout=300
    )
    return json.loads(done.stdout)


def settled_and_cut_short(out: Path, protocol: str) -> None:
    """An evening every seat settled verifies; with its settlement line dropped it was cut short."""
    result = run("deal", "--protocol", protocol, "--hands", "2", "--seed", "5", "--out", str(out))
    assert result.exit_code == 0, result.output
    log = out / "evening.log"
    assert run("verify", "--log", str(log)).exit_code == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    cut = run("verify", "--log", str(log))
    assert cut.exit_code == 1 and "without its settlement line: the evening was cut short" in cut.output


def page_judges_as_verify(page: Path, out: Path) -> list[tuple[Any, Any]]:
    """The refused evening in ``out`` given to the offline page with its log and without it: neither verdict ok,
    none handed off, the same (party, check) lines as fairdeal verify's; the page's and verify's reports."""
    folder = out / "evening.log.transcripts"
    judged = []
    for files in ([out / "evening.log", *sorted(folder.iterdir())], sorted(folder.iterdir())):
        report = page_report(page, files)
        python = verify_log(files[0]) if files[0].suffix == ".log" else verify_paths(files)
        assert not report["ok"] and report["usage"] is None
        assert {(f["party"], f["check"]) for f in report["failures"]} == {(f.party, f.check) for f in python.failures}
        judged.append((report, python))
    return judged
