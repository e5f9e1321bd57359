"""Mental poker on one core: keys + three proven 32-card shuffles + verification, with scalar multiplications counted.

Goals from issue 6: a verified 3-player 32-card deal in <= 150 ms, whole-hand verification <= 50 ms.
Baseline in the same run: libsodium's own cost per operation, so "count x unit cost" shows how much of each
figure is the group arithmetic floor and how much is Python around it.

Run: .venv/bin/python benchmarks/bench_mental_poker.py   (about 15 s)
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Callable

from fairdeal.cards import DeckKind
from fairdeal.deal import get_pattern
from fairdeal.protocols.mp_elgamal import joint_key, make_key_share, open_deck
from fairdeal.protocols.mp_fiat_shamir import HandContext
from fairdeal.protocols.mp_group import MULTS, Point, Scalar, base_mult
from fairdeal.protocols.mp_protocol import TableSetup, play_hand, verify_hand
from fairdeal.protocols.mp_shuffle import shuffle_deck, verify_shuffle

PLAYERS = ("north", "east", "west")
REPEATS = 5


def measure(job: Callable[[], object], repeats: int = REPEATS) -> tuple[float, int, int, object]:
    """Median seconds over ``repeats`` runs, with the variable / fixed-base multiplications of one run."""
    times, result = [], None
    for _ in range(repeats):
        MULTS.reset()
        start = time.perf_counter()
        result = job()
        times.append(time.perf_counter() - start)
    return statistics.median(times), MULTS.variable, MULTS.fixed_base, result


def unit_costs() -> tuple[float, float, float]:
    scalar, point = Scalar.random(), base_mult(Scalar.random())
    n = 2000
    var, _, _, _ = measure(lambda: [point * scalar for _ in range(n)], 3)
    fixed, _, _, _ = measure(lambda: [base_mult(scalar) for _ in range(n)], 3)
    valid, _, _, _ = measure(lambda: [Point.decode(point.data) for _ in range(n)], 3)
    return var / n, fixed / n, valid / n


def keys_and_shuffles(context: HandContext) -> tuple:
    shares = [make_key_share(context, p) for p in PLAYERS]
    joint = joint_key(context, [s for _, s in shares])
    decks, proofs, deck = [open_deck(DeckKind.PIQUET32, joint)], [], None
    for player in PLAYERS:
        deck, proof = shuffle_deck(context, player, joint, decks[-1])
        decks.append(deck)
        proofs.append(proof)
    return joint, decks, proofs


def verify_shuffles(context: HandContext, joint, decks, proofs) -> None:
    for player, before, after, proof in zip(PLAYERS, decks, decks[1:], proofs):
        verify_shuffle(context, player, joint, before, after, proof)


def row(label: str, seconds: float, var: int, fixed: int, units: tuple[float, float, float], goal: str = "") -> None:
    floor = var * units[0] + fixed * units[1]
    print(f"{label:<44} {seconds * 1e3:8.1f} ms   var {var:5d}  base {fixed:4d}   "
          f"mult floor {floor * 1e3:6.1f} ms  {goal}")


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    units = unit_costs()
    print(f"baseline (libsodium via pynacl): variable-base mult {units[0] * 1e6:.0f} us, "
          f"fixed-base mult {units[1] * 1e6:.0f} us, point validation {units[2] * 1e6:.0f} us")
    context = HandContext("bench-table", 1)

    t_prove, v_prove, f_prove, (joint, decks, proofs) = measure(lambda: keys_and_shuffles(context))
    row("keys + 3 proven 32-card shuffles (provers)", t_prove, v_prove, f_prove, units)
    t_check, v_check, f_check, _ = measure(lambda: verify_shuffles(context, joint, decks, proofs))
    row("verification of the 3 shuffle proofs", t_check, v_check, f_check, units)
    row("= verified 3-player 32-card deal", t_prove + t_check, v_prove + v_check, f_prove + f_check, units,
        "(goal <= 150 ms)")

    setup = TableSetup(context, get_pattern("russian"), PLAYERS)
    t_play, v_play, f_play, (_, messages) = measure(lambda: play_hand(setup), 3)
    row("whole hand, 3 players each verifying others", t_play, v_play, f_play, units)
    t_hand, v_hand, f_hand, _ = measure(lambda: verify_hand(setup, messages))
    row("whole-hand verification (observer)", t_hand, v_hand, f_hand, units, "(goal <= 50 ms)")


if __name__ == "__main__":
    main()
