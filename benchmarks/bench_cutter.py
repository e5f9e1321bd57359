"""The cutter as a suspect (issue 17, item 2): power and false alarms over simulated evenings, and the pass's cost.

Each evening is 300 hands at three players (``audit.simulate``: honest dealers run a few card-by-card packets,
the right neighbour cuts). In the cheating evenings one cutter, in 25% of his cuts, reads the deck and cuts at
the legal depth that gives his own hand the most high-card points. Printed: how often the whole audit names him
alone (as cutter, and nobody else as dealer, cutter or rule breaker), how often an honest evening raises any
alarm, and the CPU time of the audit with and without the cutter pass in the same run (the ratio is the pass's
cost), per evening and on a large log in the array pass alone. CPU time (``time.process_time``): the machine
is shared.

Run: .venv/bin/python benchmarks/bench_cutter.py [--evenings 200] [--hands 300] [--rate 0.25] [--bulk 100000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from unittest import mock

import numpy as np

import fairdeal.audit.block as block
from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.audit.verdict import Verdict

OPTIONS = RunOptions(legality=False)  # the simulated records carry no play to replay
BASELINE = 20  # honest evenings audited twice, with and without the cutter pass


def audited(folder: Path, evening: Evening, seed: int, hands: int) -> tuple[Verdict, float]:
    path = folder / f"evening-{seed}.jsonl"
    path.write_bytes(b"".join(fast_evening_lines(np.random.default_rng(seed), evening, hands)))
    started = time.process_time()
    verdict = run_audit(path, OPTIONS).verdict
    return verdict, time.process_time() - started


def named_alone(verdict: Verdict, cutter: str) -> bool:
    return verdict.cutters() == (cutter,) and not verdict.suspects() and not verdict.rule_breakers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evenings", type=int, default=200)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--rate", type=float, default=0.25)
    parser.add_argument("--bulk", type=int, default=100_000, help="hands of the log the array pass is timed on")
    args = parser.parse_args()
    players = Evening().players
    cheat = 1
    alone = flagged_as_lucky_only = alarms = 0
    cpu_with = cpu_without = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for k in range(args.evenings):
            verdict, _ = audited(folder, Evening(cheating_cutter=cheat, cutter_rate=args.rate), 10_000 + k, args.hands)
            alone += named_alone(verdict, players[cheat])
            flagged_as_lucky_only += players[cheat] in verdict.beneficiaries() and not verdict.cutters()
            honest, cpu_honest = audited(folder, Evening(), 20_000 + k, args.hands)
            if k % 20 == 19:
                print(f"... {k + 1} evenings: named alone {alone}, honest alarms {alarms}", flush=True)
            alarms += not honest.clean
            if k < BASELINE:  # the baseline: the same audit of the same honest log without the cutter pass
                with mock.patch.object(block, "fold_cutter", lambda *a, **kw: None):
                    _, cpu_bare = audited(folder, Evening(), 20_000 + k, args.hands)
                cpu_with += cpu_honest
                cpu_without += cpu_bare
        bulk = folder / "bulk.jsonl"
        bulk.write_bytes(b"".join(fast_evening_lines(np.random.default_rng(1), Evening(), args.bulk)))
        bulk_with, bulk_without = bulk_cpu(bulk)
    n = args.evenings
    base = min(n, BASELINE)
    print(f"evenings: {n} cheating + {n} honest, {args.hands} hands each, cutter cheats in {args.rate:.0%} of cuts")
    print(f"cheating cutter named alone (as cutter): {alone}/{n} = {alone / n:.1%}")
    print(f"cheating cutter only listed as a lucky player: {flagged_as_lucky_only}/{n}")
    print(f"honest evenings with any alarm (flagged test or certain finding): {alarms}/{n} = {alarms / n:.1%}")
    print(
        f"CPU per honest evening (first {base}): {cpu_with / base * 1e3:.0f} ms with the cutter pass, "
        f"{cpu_without / base * 1e3:.0f} ms without it (baseline); ratio {cpu_with / cpu_without:.2f}"
    )

    print(
        f"CPU of the bulk pass over {args.bulk:,} hands (no tells, no targeting): {bulk_with:.2f} s with the cutter "
        f"pass, {bulk_without:.2f} s without it (baseline); ratio {bulk_with / bulk_without:.2f}"
    )


def bulk_cpu(path: Path) -> tuple[float, float]:
    """CPU seconds of the array pass with and without the cutter pass, after one warm-up run."""
    options = RunOptions(workers=1, legality=False, tells=False, targeting=False)
    run_audit(path, options)
    started = time.process_time()
    run_audit(path, options)
    with_pass = time.process_time() - started
    with mock.patch.object(block, "fold_cutter", lambda *a, **kw: None):
        started = time.process_time()
        run_audit(path, options)
    return with_pass, time.process_time() - started


if __name__ == "__main__":
    main()
