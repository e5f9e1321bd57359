"""The offline verifier page's JavaScript (run under Node from the built page) against ``fairdeal verify`` on the
same v4 evening: hands per CPU second of each, and their ratio.

Python is timed in this process (``time.process_time``), Node as the child's CPU time (``RUSAGE_CHILDREN``) minus
that of a run given no files (start-up, reading the page and booting its engine), so both count the verification
only and neither counts the neighbours on a shared machine. The page replays the records with the engine itself
(Pyodide); ``--no-replay`` runs it as a browser whose engine did not start. The engine's boot is printed apart, in
wall seconds (the child's CPU counts the threads V8 compiles WebAssembly on).

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


def node_cpu(node: str, page: Path, cases: Path, *flags: str) -> tuple[float, list[dict[str, object]]]:
    return node_run(node, page, cases, *flags)[:2]


def node_run(node: str, page: Path, cases: Path, *flags: str) -> tuple[float, list[dict[str, object]], float]:
    """CPU seconds, the reports and wall seconds of one run of the page under Node."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    command = [node, str(RUNNER), str(page), *flags, "--batch", str(cases)]
    done = subprocess.run(command, capture_output=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, json.loads(done.stdout), wall


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
        bare_runs = [node_run(node, page, empty, "--no-replay") for _ in range(3)]
        engine_runs = [node_run(node, page, empty) for _ in range(3)]
        bare_start, start_up = min(r[0] for r in bare_runs), min(r[0] for r in engine_runs)
        boot_wall = min(r[2] for r in engine_runs) - min(r[2] for r in bare_runs)
        js_cpu, reports = node_cpu(node, page, full)
        js_log_cpu, log_reports = node_cpu(node, page, with_log)
        bare_cpu, bare_reports = node_cpu(node, page, full, "--no-replay")
        assert reports[0]["ok"] and log_reports[0]["ok"] and bare_reports[0]["ok"], (reports, log_reports)
        deal_only = python_cpu(lambda: verify_paths(files, replay_records=False))
        replayed = python_cpu(lambda: verify_paths(files))
        logged = python_cpu(lambda: verify_log(log))
    js = js_cpu - start_up
    js_log = js_log_cpu - start_up
    bare = bare_cpu - bare_start
    print(f"one v4 evening of {hands} hands (Sochi, 3 players), CPU seconds; page {len(page_bytes()) / 1e6:.1f} MB")
    print(f"{'fairdeal verify --no-replay (Python, the baseline)':<62} {hands / deal_only:>9,.0f} hands/s")
    print(f"{'fairdeal verify (Python, the records replayed)':<62} {hands / replayed:>9,.0f} hands/s")
    print(f"{'fairdeal verify --log (Python)':<62} {hands / logged:>9,.0f} hands/s")
    print(f"{'the page under Node (records replayed by its engine)':<62} {hands / js:>9,.0f} hands/s")
    print(f"{'the page under Node with the game log':<62} {hands / js_log:>9,.0f} hands/s")
    print(f"{'the page under Node, engine not started (no replay)':<62} {hands / bare:>9,.0f} hands/s")
    print(f"{'Node start-up, the page read and its engine booted (subtracted)':<62} {start_up:>9.3f} s")
    print(f"{'the boot of the engine alone, wall':<62} {boot_wall:>9.3f} s")
    print(f"ratio page / Python, both replaying: {replayed / js:.2f}; without replay: {deal_only / bare:.2f}")


if __name__ == "__main__":
    main()
