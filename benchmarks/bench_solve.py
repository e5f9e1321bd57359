"""Double-dummy solver speed on full 10-card three-hand layouts, against the pure-Python search of the same rules
(tests/solver_reference.py: alpha-beta memoised at trick boundaries) on the same layouts in the same run.

Prints per-layout median and 99th percentile for a trump contract and for misère, the speed-up over Python on
the layouts both solved, and the throughput of a batch of 10,000 layouts. Times are the process's CPU time (one
core: the solver is one thread), so other work on a shared machine does not inflate them.
A few minutes, nearly all of it the Python baseline (seconds to a minute a layout)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from solver_reference import make_alphabeta

from fairdeal.solver.dds import Position, declarer_tricks, solve_batch


def layouts(rng: np.random.Generator, count: int) -> list[tuple[tuple[int, ...], ...]]:
    out = []
    for _ in range(count):
        deck = rng.permutation(32)
        out.append(tuple(tuple(sorted(int(c) for c in deck[s * 10 : (s + 1) * 10])) for s in range(3)))
    return out


def time_solver(deals, goal: str, rng: np.random.Generator) -> tuple[np.ndarray, list[int], list[tuple]]:
    times, values, cases = [], [], []
    for hands in deals:
        trump = int(rng.integers(4)) if goal == "tricks" else None
        declarer, leader = int(rng.integers(3)), int(rng.integers(3))
        started = time.process_time()
        values.append(declarer_tricks(Position(hands, leader, trump=trump), declarer, goal).value)
        times.append(time.process_time() - started)
        cases.append((hands, leader, trump, declarer))
    return np.array(times), values, cases


def time_python(cases, goal: str, values: list[int]) -> float:
    started = time.process_time()
    for (hands, leader, trump, declarer), expected in zip(cases, values):
        count = frozenset([declarer])
        maximisers = count if goal == "tricks" else frozenset({0, 1, 2} - count)
        got = make_alphabeta(trump, count, maximisers)(hands, leader)
        if got != expected:
            raise SystemExit(f"disagreement on {hands}: C {expected}, Python {got}")
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layouts", type=int, default=1000)
    parser.add_argument("--python", type=int, default=3, help="layouts per goal also solved in pure Python")
    parser.add_argument("--batch", type=int, default=10_000)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    for goal in ("tricks", "misere"):
        times, values, cases = time_solver(layouts(rng, args.layouts), goal, rng)
        python = time_python(cases[: args.python], goal, values)
        ours = float(times[: args.python].sum())
        label = "trump contract" if goal == "tricks" else "misère"
        print(
            f"{label:15s} {args.layouts} layouts: median {np.median(times) * 1e3:.2f} ms, "
            f"p99 {np.percentile(times, 99) * 1e3:.2f} ms, max {times.max() * 1e3:.1f} ms"
        )
        print(
            f"{'':15s} same {args.python} layouts: pure Python {python / args.python * 1e3:.0f} ms a layout, "
            f"compiled {ours / args.python * 1e3:.2f} ms: {python / ours:.0f}x"
        )
    deals = layouts(rng, args.batch)
    hands = np.array([[sum(1 << c for c in h) for h in d] for d in deals], dtype=np.uint32)
    trumps = rng.integers(-1, 4, args.batch)
    misere = trumps < 0
    started = time.process_time()
    solve_batch(hands, rng.integers(0, 3, args.batch), rng.integers(0, 3, args.batch), trumps, misere)
    took = time.process_time() - started
    print(f"batch of {args.batch} layouts (a fifth misère): {took:.2f} s, {args.batch / took:.0f} layouts/s")


if __name__ == "__main__":
    main()
