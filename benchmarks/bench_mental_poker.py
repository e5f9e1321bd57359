"""Mental poker on one core: a verified 3-player 32-card deal and a whole hand's verification, with the scalar
multiplications counted next to every time.

Goals from issue 6: a verified 3-player 32-card deal (keys, three proven shuffles, private deal, talon) in
<= 150 ms; whole-hand verification <= 50 ms. Baseline in the same run: libsodium's own cost per operation, so
"count x unit cost" shows how much of each figure is the group arithmetic floor and how much is Python around it.

Run: .venv/bin/python benchmarks/bench_mental_poker.py   (about 20 s)
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Callable

from fairdeal.deal import get_pattern
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.protocols.commit_reveal import TableSpec
from fairdeal.protocols.mp_fiat_shamir import HandContext
from fairdeal.protocols.mp_group import MULTS, Point, Scalar, base_mult
from fairdeal.protocols.mp_player import Player, Table, play_hand
from fairdeal.protocols.mp_protocol import TableSetup, verify_hand
from fairdeal.protocols.mp_source import MentalPokerSource, hand_setup
from fairdeal.protocols.mp_verify import check_document
from fairdeal.rules import get_convention

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


def unit_costs() -> tuple[float, float, float, float]:
    scalar, point = Scalar.random(), base_mult(Scalar.random())
    n = 2000
    var, _, _, _ = measure(lambda: [point * scalar for _ in range(n)], 3)
    fixed, _, _, _ = measure(lambda: [base_mult(scalar) for _ in range(n)], 3)
    valid, _, _, _ = measure(lambda: [Point.decode(point.data) for _ in range(n)], 3)
    add, _, _, _ = measure(lambda: [point + point for _ in range(n)], 3)
    return var / n, fixed / n, valid / n, add / n


class TrustingPlayer(Player):
    """A prover only: applies the others' messages without checking them (the verifier is timed separately)."""

    def receive(self, message) -> None:
        self.state.apply(message, check_proofs=False)


def provers(setup: TableSetup) -> list:
    """Keys, three proven shuffles, the private deal and the talon, as the three players compute them."""
    table = Table([TrustingPlayer(setup, name) for name in setup.players])
    table.deal(open_talon=True)
    return table.messages


def played_hands(count: int) -> list[dict]:
    """Transcripts of real hands: bots play, the mental-poker source proves every step."""
    convention = get_convention("sochi")
    source = MentalPokerSource(TableSpec("bench", "night", count, PLAYERS, system=convention.name))
    play_match(convention, PLAYERS, [HeuristicBot() for _ in PLAYERS], source=source, max_hands=count)
    return source.transcripts


def row(label: str, seconds: float, var: int, fixed: int, units, goal: str = "") -> None:
    floor = var * units[0] + fixed * units[1]
    print(f"{label:<50} {seconds * 1e3:7.1f} ms   var {var:5d}  base {fixed:4d}   "
          f"mult floor {floor * 1e3:6.1f} ms  {goal}")


def main() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    units = unit_costs()
    print(f"baseline (libsodium ristretto255 via rbcl): variable-base mult {units[0] * 1e6:.0f} us, fixed-base "
          f"{units[1] * 1e6:.0f} us, point validation {units[2] * 1e6:.1f} us, point addition {units[3] * 1e6:.1f} us")
    setup = TableSetup(HandContext("bench-table", 1), get_pattern("russian"), PLAYERS)

    t_prove, v_prove, f_prove, messages = measure(lambda: provers(setup))
    row("provers: keys, 3 shuffles, private deal, talon", t_prove, v_prove, f_prove, units)
    t_check, v_check, f_check, _ = measure(lambda: verify_hand(setup, messages))
    row("verification of all of it (3 shuffles batched)", t_check, v_check, f_check, units)
    row("= verified 3-player 32-card deal", t_prove + t_check, v_prove + v_check, f_prove + f_check, units,
        "(goal <= 150 ms)")
    t_play, v_play, f_play, _ = measure(lambda: play_hand(setup), 3)
    row("same deal, each of 3 players verifying the others", t_play, v_play, f_play, units)

    hands = played_hands(4)
    for doc in hands:
        hand_table = hand_setup(TableSpec("bench", "night", 4, PLAYERS, system="sochi"), doc["hand"], doc["dealer"])
        label = f"whole hand {doc['hand']} ({len(doc['messages'])} messages): messages"
        t_hand, v_hand, f_hand, _ = measure(lambda: verify_hand(hand_table, doc["messages"]))
        row(label, t_hand, v_hand, f_hand, units, "(goal <= 50 ms)")
        t_doc, v_doc, f_doc, _ = measure(lambda: check_document("bench", doc))
        row("    + record against the messages and the deal", t_doc, v_doc, f_doc, units)
    print("Analysis: every multiplication is one libsodium call (no multi-scalar multiplication in its API), so the "
          "floor is count x unit cost; batching merges repeated points (generators, joint key, the decks shared by "
          "consecutive shuffles) but each distinct point still costs one full multiplication and one addition.")


if __name__ == "__main__":
    main()
