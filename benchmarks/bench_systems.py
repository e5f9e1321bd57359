"""A simulated evening per system of issue 4: Classic (3, 4, 5 players), Sochi at five, Hussar, Gusarik, Croatian,
the Austrian pots and Illustrated Preference, and 19th-century preferans.

Heuristic bots play whole pulyas back to back through ``play_match`` (no log). Prints hands per second against a
baseline measured in the same run (bare 3-player Sochi hands through ``play_hand``: no sheet, no log), the pulyas
closed, and the rates of raspasy, redeals, misère and failed contracts, with the projected time of a
10,000-hand evening. The default of 300 hands per system keeps the whole run under two minutes on one core.

Run: .venv/bin/python benchmarks/bench_systems.py [--hands N]
"""

from __future__ import annotations

import argparse
from collections import Counter

from bench_evening import bare_hands_per_second, evening  # the same evening loop and baseline, in this folder

from fairdeal.engine.match import HandSummary
from fairdeal.engine.outcome import HandKind
from fairdeal.systems import conventions

FULL_EVENING = 10_000
TABLES = (
    ("classic", 3),
    ("classic", 4),
    ("classic", 5),
    ("sochi", 5),
    ("hussar", 2),
    ("gusarik-sochi", 2),
    ("gusarik-leningrad", 2),
    ("gusarik-rostov", 2),
    ("croatian", 3),
    ("austrian", 3),
    ("austrian", 4),
    ("austrian-unlimited", 3),
    ("austrian-limited", 3),
    ("austrian-styrian", 3),
    ("austrian-illustrated", 3),
    ("austrian-sans-atout", 3),
    ("austrian-nachgehen", 3),
    ("preferans-1800s", 3),
    ("preferans-1800s-kadili", 4),
    ("preferans-1800s-talon", 5),
    ("preferans-1800s-mixed", 3),
    ("preferans-1800s-mixed-full", 3),
    ("preferans-1800s-mixed-full-kadili", 4),
)


def rates(hands: list[HandSummary]) -> dict[str, float]:
    counts = Counter(h.kind for h in hands)
    total = len(hands)
    contracts = [h for h in hands if h.declarer is not None]
    return {
        "raspasy": counts[HandKind.RASPASY] / total,
        "redeal": counts[HandKind.REDEAL] / total,
        "misere": counts[HandKind.MISERE] / total,
        "failed/contracts": sum(h.failed for h in contracts) / max(1, len(contracts)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300, help="hands per system (10000 = a full evening)")
    args = parser.parse_args()
    bare_hands_per_second(60, seed=0)  # warm-up: imports, caches
    baseline = bare_hands_per_second(400, seed=1)
    print(f"baseline: bare hands (play_hand, no sheet, no log), sochi 3 players: {baseline:,.0f} hands/s")
    print(f"evening of {args.hands:,} hands per system, heuristic bots, no log:")
    print(
        f"{'system':<34} {'seats':>5} {'hands/s':>8} {'vs bare':>8} {'pulyas':>7} {'raspasy':>8} "
        f"{'redeal':>7} {'misère':>7} {'failed/contracts':>17} {'10k hands':>10}"
    )
    for name, seats in TABLES:
        players = [f"P{s}" for s in range(seats)]
        hands, closed, seconds = evening(conventions()[name], args.hands, seed=200, players=players)
        speed = len(hands) / seconds
        r = rates(hands)
        print(
            f"{name:<34} {seats:>5} {speed:>8,.0f} {speed / baseline:>7.2f}x {closed:>7} {r['raspasy']:>8.1%} "
            f"{r['redeal']:>7.1%} {r['misere']:>7.1%} {r['failed/contracts']:>17.1%} "
            f"{FULL_EVENING / speed:>9.0f}s"
        )


if __name__ == "__main__":
    main()
