"""Imperfect logs are not evidence of cheating: the family-wise false-alarm rate on honest evenings whose logs miss
one action in 2% of hands, and the power left against a stacking dealer.

Honest evenings of 300 hands at three seats, in each shuffling style of ``audit.simulate.STYLES`` (runs and a
cut, Pemantle overhands, GSR riffles logged in full, riffles logged without details), each audited twice: with
2% of the hands missing one logged action, and — the baseline of the same run — with the perfect log of the same
shuffles. An evening is flagged when anyone is named (a suspect dealer, a beneficiary, a rule breaker); a
"certain" finding is one the verdict treats as proof. Then the ace-stacking dealer of ``simulate`` (25% of his
deals), caught with and without the missing actions. CPU time (``time.process_time``) per audit.

Run: .venv/bin/python benchmarks/bench_imperfect_logs.py [--evenings N] [--cheats N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.simulate import STYLES, Evening, simulated_records
from fairdeal.audit.verdict import Verdict
from fairdeal.log.writer import write_log

HANDS = 300
MISSES = 0.02


def audit(folder: Path, evening: Evening, seed: int) -> tuple[Verdict, float]:
    path = folder / "evening.jsonl"
    write_log(path, simulated_records(np.random.default_rng(seed), evening, HANDS))
    started = time.process_time()
    verdict = run_audit(path, RunOptions(seed=seed)).verdict
    return verdict, time.process_time() - started


def named(verdict: Verdict) -> bool:
    return bool(verdict.suspects() or verdict.beneficiaries() or verdict.rule_breakers())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evenings", type=int, default=50, help="honest evenings per style (default 50)")
    parser.add_argument("--cheats", type=int, default=50, help="evenings with the stacking dealer (default 50)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        total = {"imperfect": [0, 0, 0], "perfect": [0, 0, 0]}  # evenings, flagged, with a certain finding
        seconds = {"imperfect": 0.0, "perfect": 0.0}
        print(f"honest evenings of {HANDS} hands, {args.evenings} per style; imperfect: {MISSES:.0%} of hands miss")
        print("one logged action; perfect: the same shuffles logged in full (the baseline)")
        print(f"{'style':<10} {'log':<10} {'flagged':>8} {'certain':>8} {'explained mismatches':>22}  log errors")
        for s, style in enumerate(STYLES):
            for log in ("imperfect", "perfect"):
                flagged = certain = mismatches = 0
                errors: Counter[str] = Counter()
                for e in range(args.evenings):
                    evening = Evening(style=style, log_misses=MISSES if log == "imperfect" else 0.0)
                    verdict, cpu = audit(folder, evening, 1000 * s + e)
                    seconds[log] += cpu
                    flagged += named(verdict)
                    certain += bool(verdict.certain())
                    for q in verdict.log_quality:
                        mismatches += sum(q.explained.values())
                        errors.update(q.explained)
                total[log][0] += args.evenings
                total[log][1] += flagged
                total[log][2] += certain
                common = ", ".join(f"{k} {v}" for k, v in errors.most_common(3)) or "-"
                print(f"{style:<10} {log:<10} {flagged:>8} {certain:>8} {mismatches:>22}  {common}", flush=True)
        for log, (evenings, flagged, certain) in total.items():
            print(
                f"all styles, {log}: {flagged}/{evenings} evenings flagged ({flagged / evenings:.1%}), "
                f"{certain} with a certain finding; {seconds[log] / evenings:.2f} s CPU per audit"
            )
        ratio = (total["imperfect"][1] + 1) / (total["perfect"][1] + 1)
        print(f"flagged, imperfect vs perfect logs (add-one ratio): {ratio:.2f}")
        print(f"\nthe stacking dealer (seat 1, 25% of his deals), {args.cheats} evenings:")
        for log in ("imperfect", "perfect"):
            alone = caught = 0
            for e in range(args.cheats):
                evening = Evening(cheater=1, log_misses=MISSES if log == "imperfect" else 0.0)
                verdict, _ = audit(folder, evening, 50_000 + e)
                caught += "Boris" in verdict.suspects()
                alone += verdict.suspects() == ("Boris",)
            print(f"  {log:<10} caught in {caught}/{args.cheats} ({caught / args.cheats:.0%}), named alone in {alone}")


if __name__ == "__main__":
    main()
