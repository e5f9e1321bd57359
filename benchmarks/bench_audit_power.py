"""Power of the auditor's model of benefit, and the family-wise false-alarm rate, on simulated 300-hand evenings.

Scenarios (``audit.simulate``): honest evenings, with perfect logs and with logs where 2% of the hands miss one
logged action (``--misses``; written hand by hand, as bench_imperfect_logs does); a dealer (Boris) who, in 25% of
his deals, feeds his partner (the player to his left) three aces, or a long suit of six headed by its ace, or gives
the talon two of the lowest cards; and one who stacks an ace into the talon in 5% and 10% of his deals
(``stack-5``, ``stack-10``). An evening's cheat is "named alone" when the verdict's suspects are exactly the cheat
and a flagged test names him as actor with the right beneficiary and direction (Vera fed; the buyer's talon sunk;
for stacking, any flagged test of his deals). The false-alarm rate is the share of honest evenings with any flag
or certain finding (alpha = 1%). Rates are given with their binomial standard errors. The bulk pass is run (no
per-hand targeting or tells) unless ``--full``. CPU seconds are measured with ``time.process_time``.

    python benchmarks/bench_audit_power.py [--evenings N] [--hands H] [--full] [--misses M] [--cheats [CHEAT ...]]
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np

from fairdeal.audit.benefit.family import TALON
from fairdeal.audit.benefit.fold import fold_benefit
from fairdeal.audit.fastpath import layout_for
from fairdeal.audit.features.fold import fold_features
from fairdeal.audit.scan import scan_log
from fairdeal.audit.simulate import Evening, fast_evening_lines, simulated_records
from fairdeal.audit.summary import BlockContext, Sums
from fairdeal.audit.verdict import Verdict, build_verdict
from fairdeal.log.writer import encode_record

ALPHA = 0.01
CHEATER = 1  # Boris; his partner, the player to his left, is Vera
EXPECTED = {
    "aces": ("Vera", "fed"),
    "long-suit": ("Vera", "fed"),
    "junk-talon": (TALON, "sunk"),
    "stack-5": (None, None),
    "stack-10": (None, None),
}


def evening_of(cheat: str, rate: float) -> Evening:
    if cheat.startswith("stack-"):
        return Evening(cheater=CHEATER, rate=int(cheat.split("-")[1]) / 100, cheat="talon-ace")
    return Evening(cheater=CHEATER, rate=rate, cheat=cheat)


def verdict_of(evening: Evening, hands: int, seed: int, full: bool) -> Verdict:
    rng = np.random.default_rng(seed)
    if evening.log_misses:  # the fast writer logs every action: miss them hand by hand
        data = b"".join(encode_record(r) for r in simulated_records(rng, evening, hands))
    else:
        data = b"".join(fast_evening_lines(rng, evening, hands))
    merged = scan_log(
        io.BytesIO(data),
        lambda h: BlockContext(
            h.pattern_name, len(h.players), False, tells=full, targeting=full, per_hand=full, system=h.system
        ),
    )
    return build_verdict(merged, ALPHA)


def named_alone(verdict: Verdict, cheat: str) -> bool:
    beneficiary, direction = EXPECTED[cheat]
    cheater = Evening().players[CHEATER]
    right = any(
        (t.actor == cheater and t.beneficiary == beneficiary and t.direction == direction)
        or (beneficiary is None and t.dealer == cheater)
        for t in verdict.flagged()
    )
    return right and verdict.suspects() == (cheater,)


def fold_cost(deals: int = 100_000) -> None:
    """CPU seconds of the steered-feature fold against the whole benefit fold (which includes it), same deals."""
    layout = layout_for("russian", 3)
    rng = np.random.default_rng(0)
    dealers = rng.integers(0, 3, deals)
    order = np.argsort(rng.random((deals, 32)), axis=1)
    recv = np.full((deals, 32), -1, dtype=np.int64)
    codes = layout.pattern.deck.codes()[order].astype(np.int64)
    np.put_along_axis(recv, codes, layout.template[dealers].astype(np.int64), axis=1)
    cutters = np.full(deals, 3)
    fold_benefit(Sums.empty(3, 2, 32), recv[:10], dealers[:10], cutters[:10], layout, "sochi")  # the honest null
    started = time.process_time()
    fold_features(Sums.empty(3, 2, 32), recv, dealers, layout)
    features = time.process_time() - started
    started = time.process_time()
    fold_benefit(Sums.empty(3, 2, 32), recv, dealers, cutters, layout, "sochi")
    whole = time.process_time() - started
    print(
        f"fold of {deals:,} deals: steered features {features:.2f} s CPU, the whole benefit fold (baseline, "
        f"including them) {whole:.2f} s CPU: {features / whole:.0%} of it"
    )


def rate(count: int, n: int) -> str:
    return f"{count}/{n} = {count / n:.3f} (se {np.sqrt(max(count, 1) * (n - count) / n) / n:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evenings", type=int, default=200)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--rate", type=float, default=0.25)
    parser.add_argument("--full", action="store_true", help="also the per-hand passes (targeting, tells)")
    parser.add_argument("--misses", type=float, default=0.02, help="share of hands missing an action (0: skip)")
    parser.add_argument("--cheats", nargs="*", default=list(EXPECTED), choices=list(EXPECTED))
    args = parser.parse_args()
    fold_cost()
    print(f"{args.evenings} evenings of {args.hands} hands per scenario, alpha = {ALPHA}, cheat rate {args.rate}")
    se = np.sqrt(ALPHA * (1 - ALPHA) / args.evenings)
    total = 0
    for misses in (0.0, args.misses) if args.misses else (0.0,):
        started = time.process_time()
        alarms = sum(
            not verdict_of(Evening(log_misses=misses), args.hands, 10_000 + k, args.full).clean
            for k in range(args.evenings)
        )
        total += alarms
        print(
            f"honest, {misses:.0%} of hands miss a logged action: family-wise false alarms "
            f"{rate(alarms, args.evenings)} (alpha {ALPHA}, se at alpha {se:.3f}); "
            f"{time.process_time() - started:.1f} s CPU"
        )
    if args.misses:
        print(f"honest, both logs: family-wise false alarms {rate(total, 2 * args.evenings)}")
    for cheat in args.cheats:
        started = time.process_time()
        caught = alone = 0
        evening = evening_of(cheat, args.rate)
        for k in range(args.evenings):
            verdict = verdict_of(evening, args.hands, 20_000 + k, args.full)
            caught += Evening().players[CHEATER] in verdict.suspects()
            alone += named_alone(verdict, cheat)
        print(
            f"{cheat}: named alone (right beneficiary and direction) {rate(alone, args.evenings)}; "
            f"named at all {caught / args.evenings:.3f}; {time.process_time() - started:.1f} s CPU"
        )


if __name__ == "__main__":
    main()
