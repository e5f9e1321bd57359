"""The cardsharp's catalogue: how fast the weak server falls, and what each technique costs to plan.

1. The weak-server brute force (``fairdeal.audit.seeds``, which the cheat and the auditor share): seeds per second of
   the vectorised search with early rejection, against two baselines in the same run — the plain-integer reference
   shuffle one seed at a time, and the vectorised search that checks the hand only after the whole shuffle — and the
   projected time for all 2^32 seeds on one core.
2. Planning: milliseconds per plan for every technique, on random gathered orders.
3. Simulated tables: hands per second of a quick (unplayed) evening with a cheat, and of the engine-played one.

Run: .venv/bin/python benchmarks/bench_tricks.py [--bits 22]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fairdeal.audit.seeds import SEED_SPACE, _search_batch, search_seeds, server_deck
from fairdeal.tricks.catalogue import TRICKS
from fairdeal.tricks.plan import RUSSIAN
from fairdeal.tricks.power import PLAYERS
from fairdeal.tricks.table import Cheat, play_evening, quick_records, right_neighbour


def weak_server(bits: int) -> None:
    seed = 3_000_000_123
    deck = server_deck(seed)
    positions = RUSSIAN.hand_positions[0].tolist()
    known = {p: int(deck[p]) for p in positions}
    start = seed - (1 << (bits - 1))

    began = time.perf_counter()
    found = search_seeds(known, start, start + (1 << bits))
    pruned = (1 << bits) / (time.perf_counter() - began)
    assert found == [seed]

    reference_seeds = 20_000
    began = time.perf_counter()
    for s in range(start, start + reference_seeds):
        server_deck(s)
    reference = reference_seeds / (time.perf_counter() - began)

    late_seeds = 1 << 18
    began = time.perf_counter()
    _search_batch({0: known[0]}, start, start + late_seeds, RUSSIAN.deck.size)  # rejection only at the end
    late = late_seeds / (time.perf_counter() - began)

    print(f"weak server, {1 << bits:,} seeds searched from hand 0's ten cards:")
    print(f"  vectorised, early rejection : {pruned:>14,.0f} seeds/s  (all 2^32: {SEED_SPACE / pruned / 60:7.1f} min)")
    print(f"  vectorised, check at the end: {late:>14,.0f} seeds/s  (all 2^32: {SEED_SPACE / late / 60:7.1f} min)")
    print(
        f"  reference, one seed at a time: {reference:>13,.0f} seeds/s  "
        f"(all 2^32: {SEED_SPACE / reference / 3600:7.1f} h)"
    )
    print(f"  speed-up over the reference: {pruned / reference:,.0f}x")


def planning(orders: int = 40) -> None:
    print(f"planning, ms per plan over {orders} random gathered orders (3 players, seat 1 deals):")
    rng = np.random.default_rng(0)
    for name, trick in TRICKS.items():
        goal = trick.table_goal(1, 3, right_neighbour(1, 3), 0)
        count = 4 if name == "weak-server" else orders
        began = time.perf_counter()
        lengths = [len(trick.plan(rng.permutation(32), goal, rng).actions) for _ in range(count)]
        ms = (time.perf_counter() - began) / count * 1000
        print(f"  {name:<15} {ms:8.2f} ms   actions per deal: mean {np.mean(lengths):4.1f}, max {max(lengths)}")


def tables(hands: int = 300) -> None:
    cheat = Cheat(1, TRICKS["talon-runs"], 0.5)
    began = time.perf_counter()
    records = list(quick_records(PLAYERS, hands, np.random.default_rng(1), cheat=cheat))
    quick = hands / (time.perf_counter() - began)
    began = time.perf_counter()
    play_evening(PLAYERS, hands, seed=1, cheat=cheat)
    played = hands / (time.perf_counter() - began)
    print(
        f"simulated tables, {hands} hands with a talon-runs cheat: quick records {quick:,.0f} hands/s, "
        f"played by the engine's bots {played:,.0f} hands/s ({len(records) - 1} records)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bits", type=int, default=22, help="search 2^bits seeds (default 22)")
    args = parser.parse_args()
    weak_server(args.bits)
    planning()
    tables()


if __name__ == "__main__":
    main()
