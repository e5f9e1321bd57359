"""Calibration and power of the play signals (``fairdeal audit --play``) on evenings of the project's bots.

Honest evenings: every seat the heuristic ("easy") bot, fixed seeds. Colluding evenings: seat 0 helps seat 2 —
as a defender, at a rate, he plays a card that gives a trick away double dummy when one exists (he knows his
partner's cards); or as a whister he always passes when his partner's game could be whisted. A play test is
flagged at Holm-adjusted p <= alpha within the play family alone (in ``fairdeal audit`` the family also holds the
dealing tests, so Holm is only stricter there). "Named alone": the flagged (actor, beneficiary) pairs are exactly
(seat 0, seat 2). Speed: CPU time (``time.process_time``) of the play pass against the engine's replay of the same
hands (the legality pass's own work) in the same run.
Run: .venv/bin/python benchmarks/bench_audit_play.py [--evenings 40 --hands 300 --power-evenings 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import beta

from fairdeal.audit.play.report import analyse_records
from fairdeal.audit.play.simulate import Collusion, evening
from fairdeal.audit.stats import holm
from fairdeal.engine.match import with_pulya_size
from fairdeal.engine.record import replay_record
from fairdeal.systems import get_convention

ALPHA = 0.01


def flagged(report) -> set[tuple[str | None, str | None]]:
    if not report.tests:
        return set()
    adjusted = holm(np.array([max(t.pvalue, 1e-300) for t in report.tests]))
    return {(t.actor, t.beneficiary) for t, h in zip(report.tests, adjusted) if h <= ALPHA}


def run(convention, players, hands, seeds, collusion):
    names = [f"p{i}" for i in range(players)]
    flags, cpu_play, cpu_replay, done = [], 0.0, 0.0, 0
    for seed in seeds:
        records = evening(convention, players, hands, seed, collusion)
        started = time.process_time()
        for fields in records:
            replay_record({k: v for k, v in fields.items() if k not in ("result", "score")}, convention, players)
        cpu_replay += time.process_time() - started
        report = analyse_records(records, convention, names)
        cpu_play += report.cpu_seconds
        done += report.hands
        flags.append(flagged(report))
    return flags, cpu_play, cpu_replay, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="sochi")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--evenings", type=int, default=40, help="honest evenings")
    parser.add_argument("--power-evenings", type=int, default=20, help="evenings per collusion setting")
    parser.add_argument("--rates", default="1.0,0.5,0.25", help="the defender's rates of giving a trick away")
    args = parser.parse_args()
    convention = with_pulya_size(get_convention(args.system), 100_000)
    names = [f"p{i}" for i in range(args.players)]
    target = {(names[0], names[2])}
    print(f"{args.system}, {args.players} players, {args.hands} hands an evening, alpha {ALPHA}, easy bots")

    flags, cpu_play, cpu_replay, hands = run(convention, args.players, args.hands, range(args.evenings), None)
    alarms = sum(bool(f) for f in flags)
    upper = float(beta.ppf(0.95, alarms + 1, args.evenings - alarms))  # one-sided 95% Clopper-Pearson bound
    print(
        f"honest: {alarms} of {args.evenings} evenings flagged (false-alarm rate {alarms / args.evenings:.3f}, "
        f"95% upper bound {upper:.3f}); play pass {hands / cpu_play:,.0f} hands/s CPU, engine replay alone "
        f"{hands / cpu_replay:,.0f} hands/s: the play pass costs {cpu_play / cpu_replay:.1f}x the replay"
    )
    rates = [float(r) for r in args.rates.split(",")]
    settings = [(f"defender gives a trick away at rate {r:g}", Collusion(0, 2, r)) for r in rates]
    settings.append(("whister always passes on his partner's games", Collusion(0, 2, 0.0, passes=True)))
    for label, collusion in settings:
        seeds = range(10_000, 10_000 + args.power_evenings)
        started = time.process_time()
        flags, _, _, _ = run(convention, args.players, args.hands, seeds, collusion)
        named = sum(bool(f & target) for f in flags)
        alone = sum(f == target for f in flags)
        wrong = sum(bool(f - target) for f in flags)
        print(
            f"{label}: named with the right beneficiary in {named} of {args.power_evenings}, alone in {alone}; "
            f"someone else named in {wrong} ({time.process_time() - started:.0f} s CPU)"
        )


if __name__ == "__main__":
    main()
