"""10,000 random single-field mutations of honest mental-poker transcripts: how many are rejected, how fast, and
which check caught them — for v3 (unsigned messages) and v4 (signed envelopes, signed records) in the same run.

Transcripts: four real hands (bots play, the mental-poker source proves every step). A mutation picks a
transcript, a message uniformly, then one leaf field of it uniformly, and changes it (an integer moved, one hex
digit changed, a string extended). In v4 the leaves are the envelope's (sender, kind, hand, body, prev,
signature), and one mutation in five goes instead to a leaf of the hand's record (score lines included) or of its
signed record statements. The verifier checks messages in order and stops at the first failure; with
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
from fairdeal.errors import MentalPokerError, SignedMessageError
from fairdeal.protocols.mental_poker.protocol import Checkpoints, TableSetup, verify_hand
from fairdeal.protocols.mental_poker.signing import Opened, Seating, open_message
from fairdeal.protocols.mental_poker.source import MentalPokerSource, hand_setup
from fairdeal.protocols.mental_poker.statements import check_record_statements
from fairdeal.protocols.mental_poker.tamper import leaves, mutate, random_mutations, with_field_changed
from fairdeal.protocols.table import TableSpec
from fairdeal.rules import SOCHI
from fairdeal.systems import get_convention

PLAYERS = ("north", "east", "west")
SPEC = TableSpec("mutations", "night", 4, PLAYERS, SOCHI)


def honest_evening(version: int) -> MentalPokerSource:
    convention = get_convention("sochi")
    source = MentalPokerSource(SPEC, version=version)
    play_match(convention, PLAYERS, [HeuristicBot() for _ in PLAYERS], source=source, max_hands=SPEC.hands)
    return source


# Envelopes already opened, by object: a mutated transcript shares every unchanged message object with the honest
# one, so only the changed envelope's signature is checked again (the checkpoints' idea, for signatures).
OPENED: dict[int, tuple[dict, Opened]] = {}


def verify_signed(setup: TableSetup, seating: Seating, envelopes: list, checkpoints: Checkpoints) -> str:
    """What ``fairdeal verify`` does with a v4 hand's messages: open every envelope in order (signature, hand,
    link), then the state machine, resuming after the verified prefix; returns the chain head."""
    head, messages, digests = setup.genesis(), [], []
    for envelope in envelopes:
        known = OPENED.get(id(envelope))
        if known is not None and known[0] is envelope and known[1].message["prev"] == head:
            opened = known[1]
        else:
            opened = open_message(envelope, seating, setup.context.hand, head, "transcript")
            OPENED[id(envelope)] = (envelope, opened)
        messages.append(opened.message)
        digests.append(opened.digest)
        head = opened.digest
    verify_hand(setup, messages, checkpoints, digests)
    return head


def run_v3(count: int, rng: random.Random) -> None:
    docs = honest_evening(3).transcripts
    setups = [hand_setup(SPEC, doc["hand"], doc["dealer"]) for doc in docs]
    checkpoints = Checkpoints()
    start = time.perf_counter()
    for setup, doc in zip(setups, docs):
        verify_hand(setup, doc["messages"], checkpoints)
    honest_time = (time.perf_counter() - start) / len(docs)
    caught: collections.Counter[str] = collections.Counter()
    accepted = []
    start = time.perf_counter()
    for _ in range(count):
        which = rng.randrange(len(docs))
        index, path, changed = next(random_mutations(docs[which]["messages"], 1, rng))
        try:
            verify_hand(setups[which], changed, checkpoints)
            accepted.append((which, "messages", index, path))
        except MentalPokerError as error:
            caught[error.step or "transcript"] += 1
    report("v3", docs, honest_time, count, time.perf_counter() - start, caught, accepted)


def run_v4(count: int, rng: random.Random) -> None:
    source = honest_evening(4)
    docs, seating = source.transcripts, source.seating
    assert seating is not None
    setups = [hand_setup(SPEC, doc["hand"], doc["dealer"], seating, doc["attempt"]) for doc in docs]
    checkpoints = Checkpoints()
    start = time.perf_counter()
    heads = [verify_signed(setup, seating, doc["messages"], checkpoints) for setup, doc in zip(setups, docs)]
    honest_time = (time.perf_counter() - start) / len(docs)
    caught: collections.Counter[str] = collections.Counter()
    accepted = []
    start = time.perf_counter()
    for _ in range(count):
        which = rng.randrange(len(docs))
        doc, setup = docs[which], setups[which]
        target = rng.choice(["messages"] * 8 + ["record", "statements"])
        if target == "messages":
            index, path, changed = next(random_mutations(doc["messages"], 1, rng))
            try:
                verify_signed(setup, seating, changed, checkpoints)
                accepted.append((which, target, index, path))
            except SignedMessageError as error:
                caught[f"envelope {error.check}"] += 1
            except MentalPokerError as error:
                caught[error.step or "transcript"] += 1
            continue
        record, statements = doc["record"], doc["statements"]
        if target == "record":
            path = rng.choice(list(leaves(record)))
            record = with_field_changed([record], 0, path, lambda old: mutate(old, rng))[0]
        else:
            index = rng.randrange(len(statements))
            path = rng.choice(list(leaves(statements[index])))
            statements = with_field_changed(statements, index, path, lambda old: mutate(old, rng))
        findings = check_record_statements(statements, seating, doc["hand"], record, heads[which])
        if findings:
            caught[f"{target}: {findings[0][1]}"] += 1
        else:
            accepted.append((which, target, 0, path))
    report("v4", docs, honest_time, count, time.perf_counter() - start, caught, accepted)


def report(
    version: str,
    docs: list[dict],
    honest_time: float,
    count: int,
    elapsed: float,
    caught: collections.Counter[str],
    accepted: list,
) -> None:
    print(
        f"{version}: honest transcripts: {len(docs)} hands, {sum(len(d['messages']) for d in docs)} messages, "
        f"full verification {honest_time * 1e3:.0f} ms a hand"
    )
    print(
        f"{version}: mutations: {count}, rejected: {count - len(accepted)}, accepted: {len(accepted)}  "
        f"({elapsed:.1f} s, {elapsed / count * 1e3:.2f} ms each with checkpoints)"
    )
    print(f"{version}: caught at: " + ", ".join(f"{step} {n}" for step, n in caught.most_common()))
    for which, target, index, path in accepted[:10]:
        print(f"  ACCEPTED: hand {docs[which]['hand']} {target} {index} field {path}")


def main(count: int) -> None:
    run_v3(count, random.Random(2026))
    run_v4(count, random.Random(2026))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
