"""A simulated evening per convention: whole pulyas back to back (3 players, heuristic bots), through play_match.

Prints hands per second, how many pulyas closed and how long they took, and the rates of raspasy, misère and
failed contracts. Baseline in the same run: bare hands (play_hand, no sheet, no log), and the cost of the
streamed, validated game log. The full 10,000-hand evening for all four conventions takes 3-4 minutes on one
core, so the default is 2,500 hands each (about a minute) with the projected time for 10,000 printed;
``--hands 10000`` runs the whole evening.

Run: .venv/bin/python benchmarks/bench_evening.py [--hands N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.driver import play_hand
from fairdeal.engine.match import HandSummary, play_match, seeded_source
from fairdeal.engine.outcome import HandKind
from fairdeal.rules import SOCHI
from fairdeal.systems import conventions

PLAYERS = ("Anna", "Boris", "Vera")
FULL_EVENING = 10_000


def evening(
    convention, hands: int, seed: int, log_dir: Path | None = None, players: Sequence[str] = PLAYERS
) -> tuple[list[HandSummary], int, float]:
    """Play pulyas until ``hands`` hands are played; returns the hands, the pulyas closed and the seconds taken."""
    played: list[HandSummary] = []
    closed = 0
    start = time.perf_counter()
    while len(played) < hands:
        log = None if log_dir is None else log_dir / f"pulya-{closed}.jsonl"
        result = play_match(
            convention,
            players,
            [HeuristicBot() for _ in players],
            source=seeded_source(seed + closed, convention),
            max_hands=hands - len(played),
            log=log,
        )
        played.extend(result.hands)
        closed += result.finished
    return played, closed, time.perf_counter() - start


def bare_hands_per_second(hands: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    bots = [HeuristicBot() for _ in PLAYERS]
    start = time.perf_counter()
    for number in range(hands):
        play_hand(SOCHI, 3, number % 3, None, bots, rng=rng)
    return hands / (time.perf_counter() - start)


def rates(hands: list[HandSummary]) -> dict[str, float]:
    counts = Counter(h.kind for h in hands)
    contracts = [h for h in hands if h.kind is not HandKind.RASPASY]
    total = len(hands)
    return {
        "raspasy": counts[HandKind.RASPASY] / total,
        "misere": counts[HandKind.MISERE] / total,
        "failed": sum(h.failed for h in contracts) / total,
        "failed_of_contracts": sum(h.failed for h in contracts) / max(1, len(contracts)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2500, help="hands per convention (10000 = the full evening)")
    args = parser.parse_args()
    bare_hands_per_second(100, seed=0)  # warm-up: imports, caches
    baseline = bare_hands_per_second(600, seed=1)
    print(f"baseline: bare hands (play_hand, no sheet, no log), sochi: {baseline:,.0f} hands/s")
    print(f"evening of {args.hands:,} hands per convention, 3 players, heuristic bots, no log:")
    header = (
        f"{'convention':<10} {'hands/s':>8} {'vs bare':>8} {'pulyas':>7} {'hands/pulya':>12} "
        f"{'raspasy':>8} {'misère':>7} {'failed':>7} {'failed/contracts':>17} {'10k hands':>10}"
    )
    print(header)
    for name in ("sochi", "leningrad", "rostov", "mailru"):
        hands, closed, seconds = evening(conventions()[name], args.hands, seed=100)
        speed = len(hands) / seconds
        share = rates(hands)
        per_pulya = f"{len(hands) / closed:.1f}" if closed else "-"
        print(
            f"{name:<10} {speed:>8,.0f} {speed / baseline:>7.2f}x {closed:>7} {per_pulya:>12} "
            f"{share['raspasy']:>8.1%} {share['misere']:>7.1%} {share['failed']:>7.1%} "
            f"{share['failed_of_contracts']:>17.1%} {FULL_EVENING / speed:>9.0f}s"
        )
    logged_hands = max(1, args.hands // 3)
    with tempfile.TemporaryDirectory() as folder:
        hands, _, seconds = evening(SOCHI, logged_hands, seed=100, log_dir=Path(folder))
        size = sum(p.stat().st_size for p in Path(folder).iterdir())
    print(
        f"with the streamed, validated log (sochi, {len(hands):,} hands): {len(hands) / seconds:,.0f} hands/s, "
        f"{size / len(hands) / 1024:.1f} KiB of log per hand"
    )


if __name__ == "__main__":
    main()
