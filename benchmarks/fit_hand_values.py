"""Fit the auditor's hand-value table (``fairdeal/data/hand_values.npz``) from double-dummy solves of random deals.

For each geometry (the piquet 32 dealt to three hands of ten, the Hussar 24 to two), deals are drawn uniformly
with a fixed seed and every hand is solved by the native solver as declarer in each trump suit, at no trumps and
at misère, the first hand on lead. A hand's tricks in a strain are then fitted as a sum of per-suit holding values
(a holding is the set of ranks held in a suit: 256 of them), with separate tables for the trump suit, a side suit
and no trumps, and one for the tricks taken at misère. The last part of the deals is held out and the fit is
checked on it (correlation and mean error of the best contract's tricks; the figures go to stdout).

    python benchmarks/fit_hand_values.py [--deals N] [--held-out M] [--seed S] [--solves FILE]

Solves are kept in ``--solves`` (default ``benchmarks/results/hand_value_solves.npz``) so a refit does not solve
again. Defaults (the shipped table): seed 17, 4,000 deals fitted and 1,000 held out per geometry.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from fairdeal.audit.benefit.model import GEOMETRIES, Geometry, fit_tables, holdings_of, predict_tricks
from fairdeal.cards import NUM_CODES
from fairdeal.resources import data
from fairdeal.solver.dds import solve_batch

STRAINS = 5  # trumps in suits 0..3, then no trumps


def solve_deals(geometry: Geometry, deals: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``holdings (deals, hands, 4)``, ``tricks (deals, hands, 5)`` and ``misere (deals, hands)`` of random deals."""
    hands, size = geometry.hands, geometry.cards_per_hand
    deck = np.array(geometry.deck_codes)
    cards = np.stack([rng.permutation(deck)[: hands * size].reshape(hands, size) for _ in range(deals)])
    masks = np.zeros((deals, hands), dtype=np.uint32)
    for h in range(hands):
        masks[:, h] = (np.uint32(1) << cards[:, h, :].astype(np.uint32)).sum(axis=1, dtype=np.uint32)
    tricks = np.zeros((deals, hands, STRAINS), dtype=np.int8)
    misere = np.zeros((deals, hands), dtype=np.int8)
    lead = np.zeros(deals, dtype=np.int8)
    for h in range(hands):
        declarer = np.full(deals, h)
        for strain in range(STRAINS):
            trump = np.full(deals, -1 if strain == 4 else strain)
            tricks[:, h, strain] = solve_batch(masks, lead, declarer, trump, np.zeros(deals, bool))
        misere[:, h] = solve_batch(masks, lead, declarer, np.full(deals, -1), np.ones(deals, bool))
    held = np.zeros((deals * hands, NUM_CODES), dtype=bool)
    np.put_along_axis(held, cards.reshape(deals * hands, size).astype(np.int64), True, axis=1)
    return {"holdings": holdings_of(held).reshape(deals, hands, 4), "tricks": tricks, "misere": misere}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4000)
    parser.add_argument("--held-out", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--solves", type=Path, default=Path(__file__).parent / "results" / "hand_value_solves.npz")
    parser.add_argument("--out", type=Path, default=data("hand_values.npz"))
    args = parser.parse_args()
    total = args.deals + args.held_out
    solves: dict[str, Any] = dict(np.load(args.solves)) if args.solves.is_file() else {}
    tables: dict[str, Any] = {}
    for g, geometry in enumerate(GEOMETRIES):
        key = f"{geometry.name}_tricks"
        if key not in solves or len(solves[key]) < total:
            start = time.process_time()
            solved = solve_deals(geometry, total, np.random.default_rng([args.seed, g]))
            print(f"{geometry.name}: {total:,} deals solved in {time.process_time() - start:.0f} s CPU")
            for name, values in solved.items():
                solves[f"{geometry.name}_{name}"] = values
            args.solves.parent.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(args.solves, **solves)
        holdings, tricks, misere = (solves[f"{geometry.name}_{n}"][:total] for n in ("holdings", "tricks", "misere"))
        fitted = fit_tables(holdings[: args.deals], tricks[: args.deals], misere[: args.deals])
        for name, values in fitted.items():
            tables[f"{geometry.name}_{name}"] = values
        test = slice(args.deals, total)
        hands = holdings.shape[1]
        predicted = predict_tricks(fitted, holdings[test].reshape(-1, 4), np.tile(np.arange(hands), args.held_out))
        best = tricks[test].max(axis=2).reshape(-1).astype(float)
        mis_pred = predicted[1]
        mis = misere[test].reshape(-1).astype(float)
        print(
            f"{geometry.name}: held-out {args.held_out:,} deals ({len(best):,} hands): best contract's tricks "
            f"r = {np.corrcoef(predicted[0], best)[0, 1]:.3f}, mean error {np.mean(predicted[0] - best):+.3f}, "
            f"mean |error| {np.mean(np.abs(predicted[0] - best)):.3f}; misère tricks r = "
            f"{np.corrcoef(mis_pred, mis)[0, 1]:.3f}, mean |error| {np.mean(np.abs(mis_pred - mis)):.3f}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, seed=np.array(args.seed), deals=np.array(args.deals), **tables)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
