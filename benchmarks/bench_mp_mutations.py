"""10,000 random single-field mutations of honest mental-poker transcripts: how many are rejected, how fast, and
which check caught them.

Transcripts: four real hands (bots play, the mental-poker source proves every step). A mutation picks a
transcript, a message uniformly, then one leaf field of it uniformly, and changes it (an integer moved, one hex
digit changed, a string extended). The verifier checks messages in order and stops at the first failure; with
``Checkpoints`` it resumes after the unchanged prefix (identified by its hash chain), so each mutation costs the
verification of the changed message and what follows it up to the failure.

Run: .venv/bin/python benchmarks/bench_mp_mutations.py [count]   (about a minute for 10,000)
"""

from __future__ import annotations

import collections
import random
import sys
import time

from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.protocol import Checkpoints, verify_hand
from fairdeal.protocols.mental_poker.source import MentalPokerSource, hand_setup
from fairdeal.protocols.mental_poker.tamper import random_mutations
from fairdeal.protocols.table import TableSpec
from fairdeal.rules import SOCHI
from fairdeal.systems import get_convention

PLAYERS = ("north", "east", "west")
SPEC = TableSpec("mutations", "night", 4, PLAYERS, SOCHI)


def honest_transcripts() -> list[dict]:
    convention = get_convention("sochi")
    source = MentalPokerSource(SPEC)
    play_match(convention, PLAYERS, [HeuristicBot() for _ in PLAYERS], source=source, max_hands=SPEC.hands)
    return source.transcripts


def main(count: int) -> None:
    docs = honest_transcripts()
    setups = [hand_setup(SPEC, doc["hand"], doc["dealer"]) for doc in docs]
    checkpoints = Checkpoints()
    start = time.perf_counter()
    for setup, doc in zip(setups, docs):
        verify_hand(setup, doc["messages"], checkpoints)
    honest_time = (time.perf_counter() - start) / len(docs)
    rng = random.Random(2026)
    caught: collections.Counter[str] = collections.Counter()
    accepted = []
    start = time.perf_counter()
    for _ in range(count):
        which = rng.randrange(len(docs))
        index, path, changed = next(random_mutations(docs[which]["messages"], 1, rng))
        try:
            verify_hand(setups[which], changed, checkpoints)
            accepted.append((which, index, path))
        except MentalPokerError as error:
            caught[error.step or "transcript"] += 1
    elapsed = time.perf_counter() - start
    print(
        f"honest transcripts: {len(docs)} hands, {sum(len(d['messages']) for d in docs)} messages, "
        f"full verification {honest_time * 1e3:.0f} ms a hand"
    )
    print(
        f"mutations: {count}, rejected: {count - len(accepted)}, accepted: {len(accepted)}  "
        f"({elapsed:.1f} s, {elapsed / count * 1e3:.2f} ms each with checkpoints)"
    )
    print("caught at: " + ", ".join(f"{step} {n}" for step, n in caught.most_common()))
    for which, index, path in accepted[:10]:
        print(f"  ACCEPTED: hand {docs[which]['hand']} message {index} field {path}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
