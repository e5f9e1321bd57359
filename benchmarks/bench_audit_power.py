"""Power of the auditor's model of benefit, and the family-wise false-alarm rate, on simulated 300-hand evenings.

Scenarios (``audit.simulate``): honest evenings, with perfect logs and with logs where 2% of the hands miss one
logged action (``--misses``; written hand by hand, as bench_imperfect_logs does); a dealer (Boris) who, in 25% of
his deals, feeds his partner (the player to his left) three aces, or a long suit of six headed by its ace, or gives
the talon two of the lowest cards; and one who stacks an ace into the talon in 5%, 10% and 25% of his deals
(``stack-5``, ``stack-10``, ``stack-25``) for the cut his accomplice makes at a fixed depth. An evening's cheat is
"named alone" when the verdict's suspects are exactly the cheat and a flagged test names him as actor with the
right beneficiary and direction (Vera fed; the buyer's talon sunk; for stacking, any flagged test of his deals).
The false-alarm rate is the share of honest evenings with any flag or certain finding (alpha = 1%), over
``--honest-evenings`` per kind of log. The information bounds are the powers of the most powerful tests against
the simulated stacker (``stats.mixture_power_bound``). Rates are given with their binomial standard errors. The
bulk pass is run (no per-hand targeting or tells) unless ``--full``. CPU seconds are measured with
``time.process_time``.

    python benchmarks/bench_audit_power.py [--evenings N] [--honest-evenings N] [--hands H] [--full]
        [--misses M] [--cheats [CHEAT ...]]
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np
from scipy.stats import binom

from fairdeal.audit.benefit.family import TALON
from fairdeal.audit.benefit.fold import fold_benefit
from fairdeal.audit.fastpath import layout_for
from fairdeal.audit.features.fold import fold_features
from fairdeal.audit.scan import scan_log
from fairdeal.audit.simulate import Evening, fast_evening_lines, simulated_records
from fairdeal.audit.stats import hypergeometric_null, mixture_power_bound
from fairdeal.audit.summary import BlockContext, Sums
from fairdeal.audit.verdict import Verdict, build_verdict
from fairdeal.log.writer import encode_record

ALPHA = 0.01
DEPTH_KIND = "talon-aces-depth"
CHEATER = 1  # Boris; his partner, the player to his left, is Vera
EXPECTED = {
    "aces": ("Vera", "fed"),
    "long-suit": ("Vera", "fed"),
    "junk-talon": (TALON, "sunk"),
    "stack-5": (None, None),
    "stack-10": (None, None),
    "stack-25": (None, None),
}
STACKED_TALON = np.array([0.0, 28 / 31, 3 / 31])  # the simulated stacker's talon: his ace and any other card


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


def information_bounds(hands: int, seats: int = 3) -> None:
    """The most powerful tests against the simulated stacker (``stats.mixture_power_bound``), for his deals."""
    deals = hands // seats
    honest = hypergeometric_null(32, 4, 2).pmf
    depths = len(range(4, 29))  # the simulator's honest cutter: uniform over depths 4..28
    with_depth = np.append(honest / depths, 1 - 1 / depths)
    stacked_depth = np.append(STACKED_TALON, 0.0)
    print(f"information bounds over one dealer's {deals} deals (Neyman-Pearson, exact; the cheat and rate known):")
    for pct in (5, 10, 25):
        r = pct / 100
        talon = [mixture_power_bound(honest, STACKED_TALON, r, deals, level) for level in (ALPHA, ALPHA / seats)]
        depth = mixture_power_bound(with_depth, stacked_depth, r, deals, ALPHA / seats)
        given = given_depths_bound(honest, r, deals, depths, ALPHA / seats)
        print(
            f"  stack-{pct}: talon aces only {talon[0]:.3f} at alpha, {talon[1]:.3f} at alpha/{seats} (dealer "
            f"unknown); knowing also his cut depth and that honest depths are uniform {depth:.3f} at alpha/{seats}; "
            f"given the depths (any cutter's habits), knowing his depth {given:.3f} at alpha/{seats}"
        )


def given_depths_bound(honest: np.ndarray, rate: float, deals: int, depths: int, level: float) -> float:
    """The most powerful test that takes the depths as given (so no cutter's habit moves it), knowing the
    stacker's depth: its deals there are a mixture with the stacked share ``q``, their number binomial."""
    at_depth = rate + (1 - rate) / depths
    q = rate / at_depth
    chances = binom.pmf(np.arange(deals + 1), deals, at_depth)
    return float(
        sum(
            chance * mixture_power_bound(honest, STACKED_TALON, q, n, level)
            for n, chance in enumerate(chances)
            if n and chance > 1e-12
        )
    )


def rate(count: int, n: int) -> str:
    return f"{count}/{n} = {count / n:.3f} (se {np.sqrt(max(count, 1) * (n - count) / n) / n:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evenings", type=int, default=200, help="evenings per cheat")
    parser.add_argument("--honest-evenings", type=int, default=1000, help="honest evenings per kind of log")
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--rate", type=float, default=0.25)
    parser.add_argument("--full", action="store_true", help="also the per-hand passes (targeting, tells)")
    parser.add_argument("--misses", type=float, default=0.02, help="share of hands missing an action (0: skip)")
    parser.add_argument("--cheats", nargs="*", default=list(EXPECTED), choices=list(EXPECTED))
    args = parser.parse_args()
    fold_cost()
    information_bounds(args.hands)
    print(
        f"{args.honest_evenings} honest evenings per log kind, {args.evenings} per cheat, of {args.hands} hands; "
        f"alpha = {ALPHA}, cheat rate {args.rate}"
    )
    se = np.sqrt(ALPHA * (1 - ALPHA) / args.honest_evenings)
    total = 0
    for misses in (0.0, args.misses) if args.misses else (0.0,):
        started = time.process_time()
        alarms = depth_alarms = 0
        for k in range(args.honest_evenings):
            verdict = verdict_of(Evening(log_misses=misses), args.hands, 10_000 + k, args.full)
            alarms += not verdict.clean
            depth_alarms += any(t.kind == DEPTH_KIND for t in verdict.flagged())
        total += alarms
        print(
            f"honest, {misses:.0%} of hands miss a logged action: family-wise false alarms "
            f"{rate(alarms, args.honest_evenings)} (alpha {ALPHA}, se at alpha {se:.3f}); of which the depth test "
            f"{depth_alarms}; {time.process_time() - started:.1f} s CPU"
        )
    if args.misses:
        print(f"honest, both logs: family-wise false alarms {rate(total, 2 * args.honest_evenings)}")
    for cheat in args.cheats:
        started = time.process_time()
        caught = alone = by_depth = 0
        evening = evening_of(cheat, args.rate)
        for k in range(args.evenings):
            verdict = verdict_of(evening, args.hands, 20_000 + k, args.full)
            caught += Evening().players[CHEATER] in verdict.suspects()
            alone += named_alone(verdict, cheat)
            by_depth += any(t.kind == DEPTH_KIND and t.dealer == "Boris" for t in verdict.flagged())
        print(
            f"{cheat}: named alone (right beneficiary and direction) {rate(alone, args.evenings)}; "
            f"named at all {caught / args.evenings:.3f}; by the depth test {by_depth / args.evenings:.3f}; "
            f"{time.process_time() - started:.1f} s CPU"
        )


if __name__ == "__main__":
    main()
