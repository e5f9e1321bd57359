"""Power of the auditor's model of benefit, and the family-wise false-alarm rate, on simulated 300-hand evenings.

Scenarios (``audit.simulate``): honest evenings; a dealer (Boris) who, in 25% of his deals, feeds his partner (the
player to his left) three aces, or a long suit of six headed by its ace, or gives the talon two of the lowest cards.
An evening's cheat is "named alone" when the verdict's suspects are exactly the cheat and a flagged test of benefit
names him as actor with the right beneficiary and direction (Vera fed; the buyer's talon sunk). The false-alarm
rate is the share of honest evenings with any flag or certain finding (alpha = 1%). The bulk pass is run (no
per-hand targeting or tells) unless ``--full``. CPU seconds are measured with ``time.process_time``.

    python benchmarks/bench_audit_power.py [--evenings N] [--hands H] [--full] [--cheats [CHEAT ...]]
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np

from fairdeal.audit.benefit.family import TALON
from fairdeal.audit.scan import scan_log
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.audit.summary import BlockContext
from fairdeal.audit.verdict import Verdict, build_verdict

ALPHA = 0.01
CHEATER = 1  # Boris; his partner, the player to his left, is Vera
EXPECTED = {"aces": ("Vera", "fed"), "long-suit": ("Vera", "fed"), "junk-talon": (TALON, "sunk")}


def verdict_of(evening: Evening, hands: int, seed: int, full: bool) -> Verdict:
    data = b"".join(fast_evening_lines(np.random.default_rng(seed), evening, hands))
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
        t.actor == cheater and t.beneficiary == beneficiary and t.direction == direction for t in verdict.flagged()
    )
    return right and verdict.suspects() == (cheater,)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evenings", type=int, default=200)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--rate", type=float, default=0.25)
    parser.add_argument("--full", action="store_true", help="also the per-hand passes (targeting, tells)")
    parser.add_argument("--cheats", nargs="*", default=list(EXPECTED), choices=list(EXPECTED))
    args = parser.parse_args()
    print(f"{args.evenings} evenings of {args.hands} hands per scenario, alpha = {ALPHA}, cheat rate {args.rate}")
    started = time.process_time()
    alarms = 0
    for k in range(args.evenings):
        alarms += not verdict_of(Evening(), args.hands, 10_000 + k, args.full).clean
    se = np.sqrt(ALPHA * (1 - ALPHA) / args.evenings)
    print(
        f"honest: family-wise false alarms {alarms}/{args.evenings} = {alarms / args.evenings:.3f} "
        f"(alpha {ALPHA}, se {se:.3f}); {time.process_time() - started:.1f} s CPU"
    )
    for cheat in args.cheats:
        started = time.process_time()
        caught = alone = 0
        evening = Evening(cheater=CHEATER, rate=args.rate, cheat=cheat)
        for k in range(args.evenings):
            verdict = verdict_of(evening, args.hands, 20_000 + k, args.full)
            caught += Evening().players[CHEATER] in verdict.suspects()
            alone += named_alone(verdict, cheat)
        print(
            f"{cheat}: named alone (right beneficiary and direction) {alone}/{args.evenings} = "
            f"{alone / args.evenings:.3f}; named at all {caught / args.evenings:.3f}; "
            f"{time.process_time() - started:.1f} s CPU"
        )


if __name__ == "__main__":
    main()
