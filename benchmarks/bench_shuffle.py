"""Replaying a logged 8-action shuffle on a million decks: composed vs step-by-step vs a per-deck loop.

Run: .venv/bin/python benchmarks/bench_shuffle.py   (about 10 s on one core)
"""

from __future__ import annotations

import time

import numpy as np

from fairdeal.cards import DeckKind
from fairdeal.shuffle import apply_order, parse_notation

PATTERN = "LRRLLRLRRLLRLRLRRLRLLRRLLRLRRLLR"  # 16 L and 16 R, a plausible hand riffle
LOGGED = f"2 4 overhand 3,5,2,6,4,2,5,5 riffle 16 {PATTERN} 6 cut 12 2 cut@1 9"
DECKS = 1_000_000
LOOP_DECKS = 10_000
REPEATS = 3


def best_seconds(job, repeats: int = REPEATS) -> tuple[float, np.ndarray]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = job()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    sequence = parse_notation(LOGGED)
    assert len(sequence) == 8
    deck = DeckKind.PIQUET32.codes()
    n = len(deck)
    rng = np.random.default_rng(2024)
    orders = rng.permuted(np.tile(deck, (DECKS, 1)), axis=1)
    steps = sequence.steps(n)

    def composed() -> np.ndarray:
        return orders[:, sequence.permutation(n)]

    def step_by_step() -> np.ndarray:
        result = orders
        for p in steps:
            result = result[:, p]
        return result

    step_lists = [p.tolist() for p in steps]
    loop_rows = [row.tolist() for row in orders[:LOOP_DECKS]]

    def python_loop() -> list[list[int]]:
        replayed = []
        for row in loop_rows:
            for p in step_lists:
                row = [row[i] for i in p]
            replayed.append(row)
        return replayed

    def numpy_per_deck() -> list[np.ndarray]:
        return [apply_order(row, sequence) for row in orders[:LOOP_DECKS]]

    t_composed, out_composed = best_seconds(composed)
    t_steps, out_steps = best_seconds(step_by_step)
    t_loop, out_loop = best_seconds(python_loop, repeats=1)
    t_np_loop, out_np_loop = best_seconds(numpy_per_deck, repeats=1)
    assert out_composed.dtype == np.uint8
    assert (out_composed == out_steps).all()
    assert (out_composed[:LOOP_DECKS] == np.array(out_loop, dtype=np.uint8)).all()
    assert (out_composed[:LOOP_DECKS] == np.stack(out_np_loop)).all()

    rates = {
        f"composed, one fancy index ({DECKS:,} decks)": DECKS / t_composed,
        f"step by step, 8 fancy indexes ({DECKS:,} decks)": DECKS / t_steps,
        f"per-deck Python lists ({LOOP_DECKS:,} decks, baseline)": LOOP_DECKS / t_loop,
        f"per-deck apply_order ({LOOP_DECKS:,} decks)": LOOP_DECKS / t_np_loop,
    }
    baseline = LOOP_DECKS / t_loop
    print(f"replaying: {LOGGED}")
    for label, rate in rates.items():
        print(f"  {label:<52} {rate:>14,.0f} decks/s   x{rate / baseline:,.1f} vs baseline")


if __name__ == "__main__":
    main()
