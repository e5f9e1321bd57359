"""Calibration of `fairdeal audit` at alpha = 1%: the family-wise false-alarm rate on honest simulated tables, and
power against a dealer who stacks an ace into the talon in 25% of his deals.

Each honest table runs the whole statistical pipeline as ``fairdeal audit`` runs it on a file of this size (log
lines -> bulk reader -> shuffle replay -> shuffle quality -> targeting against same-effort shuffles -> the shuffle's
tells -> tests -> Holm): the measured rate of tables with
any flag must be at most alpha. Two kinds of honest table: seed 004's card-by-card runs and a cut
(``audit.simulate``), and six logged GSR riffles and a cut (``tricks.honest``, where the lazy-shuffle test applies).
Run: .venv/bin/python benchmarks/bench_audit_calibration.py
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np

from fairdeal.audit.scan import scan_log
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.audit.summary import BlockContext
from fairdeal.audit.verdict import build_verdict
from fairdeal.log.writer import encode_record
from fairdeal.tricks.table import quick_records

ALPHA = 0.01


def verdict_of(data: bytes):
    merged = scan_log(
        io.BytesIO(data),
        lambda h: BlockContext(h.pattern_name, len(h.players), False, tells=True, targeting=True, per_hand=True),
    )
    return build_verdict(merged, ALPHA)


def audit(evening: Evening, hands: int, seed: int):
    return verdict_of(b"".join(fast_evening_lines(np.random.default_rng(seed), evening, hands)))


def riffled_table(hands: int, seed: int):
    records = quick_records(Evening().players, hands, np.random.default_rng(seed))
    return verdict_of(b"".join(encode_record(r) for r in records))


def false_alarms(label: str, tables: int, hands: int, verdict_for) -> None:
    started = time.perf_counter()
    family = cusum = eprocess = targeting = hands_named = 0
    worst: list[float] = []
    for table in range(tables):
        verdict = verdict_for(table)
        family += not verdict.clean
        cusum += any(p.cusum_alarm is not None for p in verdict.paths)
        eprocess += any(p.eprocess_alarm is not None for p in verdict.paths)
        worst.append(min(t.holm for t in verdict.tests))
        targeting += any(t.holm <= ALPHA for t in verdict.tests if "same effort" in t.test)
        hands_named += verdict.finding_counts.get("targeted-hand", 0) > 0
    seconds = time.perf_counter() - started
    se = np.sqrt(ALPHA * (1 - ALPHA) / tables)
    print(
        f"honest tables ({label}): {tables} x {hands} hands = {tables * hands:,} hands, full pipeline, "
        f"{seconds:.1f} s ({tables * hands / seconds:,.0f} hands/s)"
    )
    print(f"family-wise false alarms at alpha {ALPHA:.0%} (target <= {ALPHA:.0%}, s.e. {se:.2%}):")
    print(f"  Holm family (any test or certain finding; the exit code) {family / tables:6.2%}")
    print(f"  CUSUM alarm (calibrated by simulation per horizon)        {cusum / tables:6.2%}")
    print(f"  e-process alarm (Ville, no calibration)                    {eprocess / tables:6.2%}")
    print(f"  of which a targeting test (same effort, Fisher)          {targeting / tables:6.2%}")
    print(f"  tables with a hand named by BH across hands (q <= {ALPHA:.0%}; not a flag) {hands_named / tables:6.2%}")
    print(f"  median smallest Holm-adjusted p per table: {np.median(worst):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--riffle-tables", type=int, default=300)
    parser.add_argument("--hands", type=int, default=150, help="hands per honest table")
    parser.add_argument("--power-runs", type=int, default=60)
    args = parser.parse_args()

    false_alarms("runs and a cut", args.tables, args.hands, lambda t: audit(Evening(), args.hands, 10_000 + t))
    false_alarms(
        "six riffles and a cut", args.riffle_tables, args.hands, lambda t: riffled_table(args.hands, 20_000 + t)
    )

    started = time.perf_counter()
    delays_c, delays_e, flagged = [], [], 0
    for run in range(args.power_runs):
        verdict = audit(Evening(cheater=1, rate=0.25), 900, 50_000 + run)
        boris = next(p for p in verdict.paths if p.dealer == "Boris")
        flagged += verdict.suspects() == ("Boris",)
        # Boris deals hands 2, 5, 8, ...: his k-th deal is hand 3k - 1.
        delays_c.append((boris.cusum_alarm + 1) // 3 if boris.cusum_alarm else np.nan)
        delays_e.append((boris.eprocess_alarm + 1) // 3 if boris.eprocess_alarm else np.nan)
    print(
        f"\npower: Boris stacks an ace into the talon in 25% of his deals ({args.power_runs} runs of 900 hands, "
        f"{time.perf_counter() - started:.1f} s)"
    )
    print(f"  named as the only suspect after 300 of his deals: {flagged / args.power_runs:.0%} of runs")
    for label, delays in (("CUSUM", delays_c), ("e-process", delays_e)):
        d = np.array(delays, dtype=float)
        caught = d[~np.isnan(d)]
        print(
            f"  {label:<9} first alarm after his deal: median {np.median(caught):.0f}, quartiles "
            f"{np.percentile(caught, 25):.0f}-{np.percentile(caught, 75):.0f}, caught in {len(caught)}/{len(d)} runs"
        )


if __name__ == "__main__":
    main()
