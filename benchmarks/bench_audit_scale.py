"""Scale of `fairdeal audit`: a 1,000,000-hand log (one dealer stacks aces) audited with 2 worker processes,
against the per-hand baseline; and the legality replay's own rate on a pulya played by the engine's bots.

Prints hands/s and wall times; the generated logs live in a temporary folder that is deleted afterwards.
Run: .venv/bin/python benchmarks/bench_audit_scale.py [--hands 1000000]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from fairdeal.audit.legality import check_legality
from fairdeal.audit.run import TARGETING_AUTO_HANDS, RunOptions, run_audit
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.audit.targeting import CROSS_DRAWS, DRAWS, MORE_DRAWS
from fairdeal.audit.tells import TOGETHER_DRAWS

BASELINE_HANDS = 1_500


def _cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (the worker pool is joined before we read it)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def write_log(path: Path, hands: int, seed: int) -> float:
    started = time.perf_counter()
    with open(path, "wb") as stream:
        for block in fast_evening_lines(np.random.default_rng(seed), Evening(cheater=1, rate=0.25), hands):
            stream.write(block)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--legality-hands", type=int, default=1_500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fairdeal-audit-") as folder:
        big = Path(folder) / "big.jsonl"
        seconds = write_log(big, args.hands, 1)
        size = big.stat().st_size
        print(
            f"generated {args.hands:,} hands (order, shuffle, deal; Boris stacks an ace in 25% of his deals): "
            f"{size / 1e6:,.0f} MB, {size / (args.hands + 1):.0f} bytes/line, {seconds:.1f} s"
        )

        small = Path(folder) / "small.jsonl"
        write_log(small, BASELINE_HANDS, 2)
        started = time.perf_counter()
        run_audit(small, RunOptions(workers=1, legality=False, tells=True))
        baseline = BASELINE_HANDS / (time.perf_counter() - started)
        print(
            f"baseline: the same pass with the shuffle's tells (same-effort Monte Carlo, {TOGETHER_DRAWS} draws a "
            f"hand; on by default up to 32 MB) on {BASELINE_HANDS:,} hands, 1 worker: {baseline:,.0f} hands/s -> "
            f"{args.hands / baseline:,.0f} s for the big log"
        )

        rates = {}
        for targeting in (False, True):
            started = time.perf_counter()
            run_audit(small, RunOptions(workers=1, legality=False, tells=False, targeting=targeting))
            rates[targeting] = BASELINE_HANDS / (time.perf_counter() - started)
        cost = 1 / rates[True] - 1 / rates[False]
        print(
            f"targeting (same-effort Monte Carlo, {DRAWS} draws a hand and {MORE_DRAWS} more for a low p; "
            f"cross-match against up to {CROSS_DRAWS} of the dealer's other shuffles) on {BASELINE_HANDS:,} hands, "
            f"1 worker: {rates[True]:,.0f} hands/s against {rates[False]:,.0f} without it ({cost * 1e6:,.0f} us a "
            f"hand) -> {TARGETING_AUTO_HANDS / rates[True]:,.0f} s for {TARGETING_AUTO_HANDS:,} hands, where it "
            "stops being on by default"
        )

        load = os.getloadavg()[0]
        cpu_before = _cpu_seconds()
        started = time.perf_counter()
        result = run_audit(big, RunOptions(alpha=0.01, workers=args.workers))  # the default mode on a large log
        wall = time.perf_counter() - started
        cpu = _cpu_seconds() - cpu_before
        v = result.verdict
        boris = next(p for p in v.paths if p.dealer == "Boris")
        print(
            f"default mode (tells, targeting and legality off by the size rules; shuffle quality per dealer), "
            f"{args.workers} workers: {v.hands:,} hands in {wall:.1f} s "
            f"({v.hands / wall:,.0f} hands/s, {size / wall / 1e6:.0f} MB/s; reading {result.scan_seconds:.1f} s, "
            f"verdict {wall - result.scan_seconds:.1f} s) -> {'meets' if wall <= 30 else 'MISSES'} the 30 s target"
        )
        print(
            f"  CPU time of all processes: {cpu:.1f} s ({cpu / v.hands * 1e6:.0f} us/hand); machine load before the "
            f"run {load:.1f} on {os.cpu_count()} cores; on {args.workers} idle cores the pass would take about "
            f"{cpu / args.workers:.1f} s"
        )
        print(
            f"  suspects: {', '.join(v.suspects()) or 'none'}; Boris's e-process alarm at hand {boris.eprocess_alarm}, "
            f"CUSUM at hand {boris.cusum_alarm}; {v.malformed_count} malformed; findings {dict(v.finding_counts)}"
        )
        big.unlink()

        played = Path(folder) / "played.jsonl"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "fairdeal",
                "play",
                "--hands",
                str(args.legality_hands),
                "--seed",
                "7",
                "--bots",
                "random",
                "--pulya",
                "100000",
                "--out",
                str(played),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for workers in (1, args.workers):
            cpu_before = _cpu_seconds()
            report = check_legality(played, workers)
            cpu = _cpu_seconds() - cpu_before
            print(
                f"legality replay (engine + score lines), {workers} worker(s): {report.replayed:,} hands in "
                f"{report.seconds:.1f} s ({report.rate:,.0f} hands/s, CPU {cpu / report.replayed * 1e3:.2f} ms/hand) "
                f"-> {args.hands / report.rate / 60:,.0f} min for {args.hands:,} hands; findings: "
                f"{len(report.findings)}; machine load {os.getloadavg()[0]:.1f}"
            )


if __name__ == "__main__":
    main()
