"""What following a hand from public information costs (``fairdeal.engine.public_hand``), against the engine
replaying the same hand on the true deal, measured in the same run.

For each table of every convention, hands are played by random-legal bots on a true deal; the service (who holds
no card) and each seat (who holds its own) follow every action, told only what the rules open. Printed per table:
the parties' CPU time per hand over the plain replay's (one replay per party, so the ratio is per party), the
deals rebuilt per hand and party, and the slowest single action a party took (the delay a player would feel).

Run: .venv/bin/python benchmarks/bench_public_hand.py [HANDS per table, default 20]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from public_table import TABLES, PublicTable

from fairdeal.engine.actions import Phase
from fairdeal.engine.hand import apply


def _followed(system: str, players: int, seed: int) -> PublicTable:
    table = PublicTable(system, players, seed)
    while table.true.phase is not Phase.DONE and not table.stopped:
        table.step()
    return table


def _replay_seconds(table: PublicTable) -> float:
    """CPU seconds of the engine applying the hand's actions to the true deal, once."""
    started = time.process_time()
    state = table.start
    for action in table.actions:
        state = apply(state, action)
    return time.process_time() - started


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print(f"{hands} random-legal hands per table; ratio = one party's CPU per hand / the plain replay's")
    print(f"{'table':32} {'replay µs':>10} {'party µs':>10} {'ratio':>7} {'rebuilt':>8} {'slowest ms':>11}")
    ratios = []
    for system, players in TABLES:
        replay = party = slowest = 0.0
        rebuilt = parties = 0
        for seed in range(hands):
            table = _followed(system, players, seed)
            seen_by = len(table.parties)
            replay += sum(_replay_seconds(table) for _ in range(seen_by))
            party += table.seconds
            rebuilt += sum(hand.rebuilt for hand in table.parties.values())
            parties += seen_by
            slowest = max(slowest, table.slowest)
        ratio = party / replay
        ratios.append(ratio)
        print(
            f"{system + '-' + str(players):32} {replay / parties * 1e6:10.0f} {party / parties * 1e6:10.0f} "
            f"{ratio:7.1f} {rebuilt / parties:8.2f} {slowest * 1e3:11.1f}"
        )
    ratios.sort()
    print(f"median ratio {ratios[len(ratios) // 2]:.1f}, worst {ratios[-1]:.1f}")


if __name__ == "__main__":
    main()
