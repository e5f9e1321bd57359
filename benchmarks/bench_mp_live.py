"""What a live mental-poker hand costs (``mental_poker/live.py``, ``seat.py``): the host that holds no card, and
every seat, against ``fairdeal verify``'s check of the same transcript, measured in the same run.

For a few tables, hands are played live by heuristic bots, every seat a separate party; the CPU time (one core)
is split into the host's (checking each message and following the game on an imputed deal) and the seats' (their
own proofs, checks of the others' messages and their own run of the game). The baseline is ``check_document`` on
the finished transcript: what anyone verifying the hand afterwards spends.

Run: .venv/bin/python benchmarks/bench_mp_live.py [HANDS per table, default 6]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from live_hands import live_hand

from fairdeal.errors import IllegalAction
from fairdeal.protocols.mental_poker.source import transcript_document
from fairdeal.protocols.mental_poker.verify import check_document

TABLES = [("sochi", 3), ("rostov", 4), ("leningrad", 5), ("gusarik-sochi", 2), ("hussar", 2), ("croatian", 3)]


def _one(system: str, players: int, seed: int) -> tuple[float, float, float] | None:
    """(host, seats, verify) CPU seconds for one hand, or ``None`` for a hand mental poker does not cover."""
    hand, seats, spec, seating, _ = live_hand(system, players, seed)
    host = others = 0.0
    try:
        while (due := hand.due()) is not None:
            started = time.process_time()
            answer = seats[due.player].answer(due)
            middle = time.process_time()
            hand.message(answer)
            ended = time.process_time()
            for name, seat in seats.items():
                if name != due.player and seat.player is not None:
                    seat.receive(answer)
            others += middle - started + time.process_time() - ended
            host += ended - middle
    except IllegalAction:
        return None
    started = time.process_time()
    record, order, _ = hand.record()
    host += time.process_time() - started
    statements = [seats[name].sign(record, hand.protocol.head) for name in spec.players]
    v4 = {"attempt": 1, "aborts": [], "statements": statements}
    doc = transcript_document(spec, seating, 1, hand.dealer, hand.messages, record, order, None, v4)
    started = time.process_time()
    assert check_document("bench", doc).findings == []
    return host, others, time.process_time() - started


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    print(f"{hands} live hands per table (heuristic bots); CPU ms per hand; ratios to verify's check of the same hand")
    print(f"{'table':20} {'host':>8} {'seats':>8} {'verify':>8} {'host/verify':>12} {'seats/verify':>13}")
    for system, players in TABLES:
        runs = [r for seed in range(0, 2 * hands, 2) if (r := _one(system, players, seed)) is not None]
        host, seats, verify = (sum(r[i] for r in runs) / len(runs) * 1e3 for i in range(3))
        print(
            f"{system + '-' + str(players):20} {host:8.1f} {seats:8.1f} {verify:8.1f} "
            f"{host / verify:12.2f} {seats / verify:13.2f}"
        )


if __name__ == "__main__":
    main()
