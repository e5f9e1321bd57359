"""Complete hands per second (one core) with random-legal and heuristic bots, and how the heuristic evenings look:
rates of raspasy, misère and failed contracts per convention.

The baseline, measured in the same run, is a minimal deal-and-random-play loop: 32 cards shuffled and dealt, three
passes, ten tricks of random cards that follow suit. The engine's random-legal rate over the baseline's is the
figure that says how much the full rules (auction ladder, views, legality checks) cost; the rounds alternate the two
loops, so machine load hits both alike. Then random-legal play at every table of every convention, against the same
baseline.

Every figure is hands per CPU-second (``time.process_time``), so the neighbours' load on a shared machine slows
both loops alike instead of the wall clock's.

Run: .venv/bin/python benchmarks/bench_engine.py   (about two minutes)
     .venv/bin/python benchmarks/bench_engine.py --profile   (only: where a random-legal Sochi hand's time goes)
"""

from __future__ import annotations

import collections
import cProfile
import pstats
import sys
import time

import numpy as np

from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.driver import play_hand
from fairdeal.engine.hand import result
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.record import replay_record, to_record
from fairdeal.rules import SOCHI
from fairdeal.systems import conventions

SPEED_HANDS = 1000
MINIMAL_HANDS = 4000
ROUNDS = 3
TABLE_HANDS = 200
RATE_HANDS = 2000
GOAL_RATIO = 5000 / 8800


def minimal_hand(rng: np.random.Generator) -> list[int]:
    """One raspasy-like hand with the plainest rules: every seat passes, then ten tricks in which each card
    follows suit when it can; one random choice per decision, as the random-legal bots make. Tricks per seat."""
    order = rng.permutation(32).tolist()
    hands = [sorted(order[0:10]), sorted(order[10:20]), sorted(order[20:30])]
    for _ in range(3):
        rng.integers(1)  # the pass, the only call of this auction
    won = [0, 0, 0]
    leader = 0
    for _ in range(10):
        plays = []
        for k in range(3):
            seat = (leader + k) % 3
            hand = hands[seat]
            legal = [c for c in hand if c // 8 == plays[0][1] // 8] if plays else hand
            card = (legal or hand)[int(rng.integers(len(legal or hand)))]
            hand.remove(card)
            plays.append((seat, card))
        suit = plays[0][1] // 8
        leader = max((c, s) for s, c in plays if c // 8 == suit)[1]
        won[leader] += 1
    return won


def minimal_hands_per_second(hands: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    start = time.process_time()
    for _ in range(hands):
        minimal_hand(rng)
    return hands / (time.process_time() - start)


def hands_per_second(make_bots, hands: int, seed: int, convention=SOCHI, seats: int = 3) -> float:
    rng = np.random.default_rng(seed)
    start = time.process_time()
    for number in range(hands):
        play_hand(convention, seats, number % seats, None, make_bots(rng), rng=rng)
    return hands / (time.process_time() - start)


def replays_per_second(hands: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    records = [to_record(play_hand(SOCHI, 3, n % 3, None, [HeuristicBot()] * 3, rng=rng)) for n in range(hands)]
    start = time.process_time()
    for record in records:
        replay_record(record, SOCHI, 3)
    return hands / (time.process_time() - start)


def evening_rates(convention, hands: int, seed: int) -> dict[str, float]:
    """Share of hands that were raspasy, misère, failed contracts (played games the declarer lost)."""
    rng = np.random.default_rng(seed)
    seats = convention.players[0]  # the smallest table the convention plays (two for Hussar, Gusarik)
    bots = [HeuristicBot() for _ in range(seats)]
    counts: collections.Counter = collections.Counter()
    streak = 0
    for number in range(hands):
        outcome = result(play_hand(convention, seats, number % seats, None, bots, raspasy_streak=streak, rng=rng))
        streak = streak + 1 if outcome.kind is HandKind.RASPASY else 0
        counts[outcome.kind.value] += 1
        if outcome.kind is HandKind.GAME:
            if outcome.conceded_undertricks is not None:
                counts["conceded"] += 1
            elif not outcome.played:
                counts["unplayed"] += 1
            elif outcome.tricks[outcome.declarer] < outcome.contract.level:
                counts["failed"] += 1
        if outcome.kind is HandKind.MISERE and outcome.tricks[outcome.declarer] > 0:
            counts["misere caught"] += 1
    return {
        key: counts[key] / hands
        for key in ("raspasy", "redeal", "misere", "misere caught", "game", "failed", "unplayed", "conceded")
    }


def table_rates(hands: int, minimal_rate: float) -> None:
    """Random-legal hands per second at every table of every convention, against the minimal loop."""
    print(f"\nrandom-legal bots, {hands} hands per table (x = against the minimal loop)")
    for seed, (name, convention) in enumerate(sorted(conventions().items())):
        cells = []
        for seats in convention.players:
            rate = hands_per_second(
                lambda rng, seats=seats: [RandomBot(rng)] * seats, hands, 200 + seed, convention, seats
            )
            cells.append(f"{seats}p {rate:6.0f}/s {rate / minimal_rate:5.2f}x")
        print(f"{name:<34}" + "   ".join(cells))


def profile(hands: int = 2000, top: int = 25) -> None:
    """cProfile's top functions by own time over random-legal Sochi hands, each with its share of the total."""
    rng = np.random.default_rng(4)
    profiler = cProfile.Profile()
    profiler.enable()
    for number in range(hands):
        play_hand(SOCHI, 3, number % 3, None, [RandomBot(rng)] * 3, rng=rng)
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows = stats.stats  # type: ignore[attr-defined]  # {(file, line, name): (calls, primitive, own, cumulative, callers)}
    total = sum(own for _, _, own, _, _ in rows.values())
    print(f"random-legal Sochi, {hands} hands under cProfile: the top {top} functions by own time")
    print(f"{'share':>6} {'calls/hand':>10}  function")
    for (path, line, name), (calls, _, own, _, _) in sorted(rows.items(), key=lambda row: -row[1][2])[:top]:
        where = f"{path.split('fairdeal/')[-1]}:{line}" if path != "~" else ""
        print(f"{own / total:6.1%} {calls / hands:10.1f}  {name} {where}")


def main() -> None:
    if "--profile" in sys.argv[1:]:
        profile()
        return
    # Rounds alternate the loops so that both see the same machine load; each figure is its best round.
    minimal_rate = random_rate = 0.0
    for round_ in range(ROUNDS):
        minimal_rate = max(minimal_rate, minimal_hands_per_second(MINIMAL_HANDS, round_))
        random_rate = max(random_rate, hands_per_second(lambda rng: [RandomBot(rng)] * 3, SPEED_HANDS, 1))
    heuristic_rate = hands_per_second(lambda rng: [HeuristicBot()] * 3, SPEED_HANDS // 4, 2)
    replay_rate = replays_per_second(SPEED_HANDS // 4, 3)
    print("Sochi, 3 players, one core; baseline = the minimal loop measured in this run")
    print(f"minimal loop      : {minimal_rate:8.0f} hands/s  (deal, three passes, ten tricks following suit)")
    print(
        f"random-legal bots : {random_rate:8.0f} hands/s  ({random_rate / minimal_rate:.2f}x the minimal loop; "
        f"issue 12 asks for {GOAL_RATIO:.2f}x: 5,000 where it does 8,800)"
    )
    print(
        f"heuristic bots    : {heuristic_rate:8.0f} hands/s  ({heuristic_rate / minimal_rate:.2f}x the minimal loop, "
        f"{heuristic_rate / random_rate:.2f}x random-legal)"
    )
    print(
        f"replay of records : {replay_rate:8.0f} hands/s  ({replay_rate / minimal_rate:.2f}x the minimal loop, "
        f"{replay_rate / random_rate:.2f}x random-legal)"
    )
    table_rates(TABLE_HANDS, minimal_rate)
    print(f"\nheuristic evenings, {RATE_HANDS} hands per convention, raspasy streak carried from hand to hand")
    header = ("raspasy", "redeal", "misere", "misere caught", "game", "failed", "unplayed", "conceded")
    print(f"{'convention':<18}" + "".join(f"{h:>15}" for h in header))
    for seed, (name, convention) in enumerate(sorted(conventions().items())):
        rates = evening_rates(convention, RATE_HANDS, 100 + seed)
        print(f"{name:<18}" + "".join(f"{rates[h]:>15.1%}" for h in header))


if __name__ == "__main__":
    main()
