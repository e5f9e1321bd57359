"""`fairdeal --help` start-up time against `python -c "import click"`, both measured in this run.

Run: ``.venv/bin/python benchmarks/bench_cli.py [--runs N]``. Each command is started ``N`` times as a fresh
process; the figure is the median wall time. The aim (issue 19): at most 0.3 s and at most 5x the click baseline.
Exit 1 when the aim is missed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BASELINE = [sys.executable, "-c", "import click"]
COMMANDS = {
    "fairdeal --help": [sys.executable, "-m", "fairdeal", "--help"],
    "fairdeal --version": [sys.executable, "-m", "fairdeal", "--version"],
    "fairdeal log --help": [sys.executable, "-m", "fairdeal", "log", "--help"],
    "fairdeal audit --help": [sys.executable, "-m", "fairdeal", "audit", "--help"],
}
LIMIT_SECONDS, LIMIT_RATIO = 0.3, 5.0


def median_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    base = median_seconds(BASELINE, args.runs)
    print(f"baseline  python -c 'import click'   {base * 1000:7.1f} ms")
    missed = False
    for name, argv in COMMANDS.items():
        seconds = median_seconds(argv, args.runs)
        print(f"{name:<34} {seconds * 1000:7.1f} ms   {seconds / base:5.2f}x baseline")
        if name == "fairdeal --help" and (seconds > LIMIT_SECONDS or seconds / base > LIMIT_RATIO):
            missed = True
    print(
        f"aim for fairdeal --help: <= {LIMIT_SECONDS} s and <= {LIMIT_RATIO:.0f}x baseline: "
        f"{'MISSED' if missed else 'met'}"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
