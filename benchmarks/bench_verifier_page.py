"""The offline verifier page's JavaScript (run under Node from the built page) against ``fairdeal verify`` on the
same v4 evening: hands per CPU second of each, and their ratio.

Python is timed in this process (``time.process_time``), Node as the child's CPU time (``RUSAGE_CHILDREN``) minus
that of a run given no files (start-up and reading the page's 150 kB of script), so both count the verification
only and neither counts the neighbours on a shared machine.

Run: ``.venv/bin/python benchmarks/bench_verifier_page.py [--hands N]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.protocols.verify import verify_log, verify_paths
from fairdeal.web.verifier_page import page_bytes

RUNNER = Path(__file__).resolve().parents[1] / "tests" / "js" / "run_verifier_page.cjs"


def deal(folder: Path, hands: int) -> list[Path]:
    args = ["deal", "--protocol", "commit-reveal", "--hands", str(hands), "--pulya", "1000", "--seed", "5"]
    result = CliRunner().invoke(cli, [*args, "--out", str(folder)])
    if result.exit_code != 0:
        raise SystemExit(result.output)
    return sorted((folder / "evening.log.transcripts").glob("*.json"))


def node_cpu(node: str, page: Path, cases: Path) -> tuple[float, list[dict[str, object]]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([node, str(RUNNER), str(page), "--batch", str(cases)], capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, json.loads(done.stdout)


def python_cpu(fn: object) -> float:
    start = time.process_time()
    report = fn()  # type: ignore[operator]
    assert report.ok, report.failures[:3]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        raise SystemExit("Error: node is needed")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = deal(folder / "evening", args.hands)
        hands = len(files) - 1
        page = folder / "verifier.html"
        page.write_bytes(page_bytes())
        log = folder / "evening" / "evening.log"
        empty, full, with_log = (folder / name for name in ("empty.json", "full.json", "log.json"))
        empty.write_text(json.dumps([{"files": [], "pins": []}]))
        full.write_text(json.dumps([{"files": [str(f) for f in files], "pins": []}]))
        with_log.write_text(json.dumps([{"files": [str(f) for f in files] + [str(log)], "pins": []}]))
        start_up = min(node_cpu(node, page, empty)[0] for _ in range(3))
        js_cpu, reports = node_cpu(node, page, full)
        js_log_cpu, log_reports = node_cpu(node, page, with_log)
        assert reports[0]["ok"] and log_reports[0]["ok"], (reports, log_reports)
        deal_only = python_cpu(lambda: verify_paths(files, replay_records=False))
        replayed = python_cpu(lambda: verify_paths(files))
        logged = python_cpu(lambda: verify_log(log))
    js = js_cpu - start_up
    js_log = js_log_cpu - start_up
    print(f"one v4 evening of {hands} hands (Sochi, 3 players), CPU seconds")
    print(f"{'fairdeal verify --no-replay (Python, the baseline)':<58} {hands / deal_only:>9,.0f} hands/s")
    print(f"{'fairdeal verify (Python, the records replayed)':<58} {hands / replayed:>9,.0f} hands/s")
    print(f"{'fairdeal verify --log (Python)':<58} {hands / logged:>9,.0f} hands/s")
    print(f"{'the page under Node (JS, card conservation, no replay)':<58} {hands / js:>9,.0f} hands/s")
    print(f"{'the page under Node with the game log':<58} {hands / js_log:>9,.0f} hands/s")
    print(f"{'Node start-up and the page read (subtracted)':<58} {start_up:>9.3f} s")
    print(f"ratio JS / Python --no-replay: {deal_only / js:.2f}; JS / Python with replay: {replayed / js:.2f}")


if __name__ == "__main__":
    main()
