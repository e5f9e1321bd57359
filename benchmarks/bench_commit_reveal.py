"""Commit-reveal dealing: deals generated and verified per second, and transcript size per hand.

Run: ``.venv/bin/python benchmarks/bench_commit_reveal.py [--deals N]``. The batch deck verifier (one
SHAKE256 per deal, Fisher-Yates vectorised over the batch) is compared with the one-deal-at-a-time path in
the same run; full transcripts (ed25519 signatures, chain, deck, deal, engine replay) are timed separately.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from commit_reveal_helpers import honest_session

from fairdeal.cards import DeckKind
from fairdeal.protocols.deal_source import CommitRevealSource
from fairdeal.protocols.deck import derive_order, derive_orders, orders_match
from fairdeal.protocols.derive import DeckInputs, deck_input
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import transcript_bytes
from fairdeal.protocols.verify import verify_documents
from fairdeal.rules import SOCHI

DECK = DeckKind.PIQUET32
NAMES = ("north", "east", "south")


def seeds_for(count: int) -> list[tuple[bytes, list[tuple[str, bytes]]]]:
    """Service and player seeds for ``count`` hands (fixed, so runs compare)."""
    out = []
    for hand in range(count):
        base = hashlib.sha256(hand.to_bytes(8, "big")).digest()
        players = [(name, hashlib.sha256(base + name.encode()).digest()) for name in NAMES]
        out.append((base, players))
    return out


def timed(label: str, count: int, unit: str, fn):
    start = time.perf_counter()
    value = fn()
    elapsed = time.perf_counter() - start
    print(f"{label:<58} {count / elapsed:>14,.0f} {unit}/s   ({count:,} in {elapsed:.2f} s)")
    return value, count / elapsed


def bench_decks(deals: int) -> None:
    seeds = seeds_for(deals)
    framed_seeds = [(s, [seed for _, seed in p]) for s, p in seeds]
    build = DeckInputs("table-1", "s", DECK.value, NAMES)
    timed(
        "baseline: frame deck inputs field by field",
        deals,
        "deals",
        lambda: [deck_input("table-1", "s", h + 1, DECK.value, s, p) for h, (s, p) in enumerate(seeds)],
    )
    inputs, _ = timed(
        "frame deck inputs, session fields framed once",
        deals,
        "deals",
        lambda: [build(h + 1, s, p) for h, (s, p) in enumerate(framed_seeds)],
    )
    published = derive_orders(inputs, DECK)
    small = min(deals, 20_000)
    _, scalar = timed(
        "baseline: derive + compare one deal at a time",
        small,
        "deals",
        lambda: [np.array_equal(derive_order(d, DECK), o) for d, o in zip(inputs[:small], published)],
    )
    ok, batch = timed(
        "batch verify: SHAKE256 per deal + vectorised Fisher-Yates",
        deals,
        "deals",
        lambda: orders_match(inputs, published, DECK),
    )
    assert ok.all()
    tampered = published.copy()
    tampered[::1000, [0, 1]] = tampered[::1000, [1, 0]]
    caught = orders_match(inputs, tampered, DECK)
    assert (~caught).sum() == len(range(0, deals, 1000))
    _, framed = timed(
        "batch verify including framing the inputs",
        deals,
        "deals",
        lambda: orders_match([build(h + 1, s, p) for h, (s, p) in enumerate(framed_seeds)], published, DECK),
    )
    print(f"{'speed-up of the batch verifier over one-at-a-time':<58} {batch / scalar:>14.1f} x")
    print(
        f"{'target >= 200,000 verified deals/s (batch, with framing)':<58} "
        f"{'met' if framed >= 200_000 else 'NOT met':>14}"
    )


def bench_protocol(hands: int) -> None:
    spec = TableSpec("table-1", "bench", hands, NAMES, SOCHI)

    def run():
        source = CommitRevealSource(spec)
        for hand in range(1, hands + 1):
            source.deal(hand, (hand - 1) % 3)
            source.finish(hand)
        return source.transcripts

    docs, _ = timed("generate: full protocol hands (3 players, ed25519)", hands, "hands", run)
    _, _ = timed(
        "verify: full transcripts without game record",
        hands,
        "hands",
        lambda: verify_documents([(str(i), d) for i, d in enumerate(docs)]),
    )
    played = honest_session(min(hands, 40))
    report, _ = timed(
        "verify: full transcripts with engine replay + scores",
        len(played),
        "hands",
        lambda: verify_documents([(str(i), d) for i, d in enumerate(played)]),
    )
    assert report.ok
    sizes = [len(transcript_bytes(d)) for d in docs]
    played_sizes = [len(transcript_bytes(d)) for d in played]
    zipped = [len(gzip.compress(transcript_bytes(d))) for d in played]
    print(f"{'transcript size per hand, deal only (canonical bytes)':<58} {np.mean(sizes):>14,.0f} B")
    print(f"{'transcript size per hand, with game record':<58} {np.mean(played_sizes):>14,.0f} B")
    print(f"{'  ... gzip-compressed':<58} {np.mean(zipped):>14,.0f} B")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=400_000)
    parser.add_argument("--hands", type=int, default=200)
    args = parser.parse_args()
    print(f"commit-reveal benchmark ({DECK.value}, one core)")
    bench_decks(args.deals)
    bench_protocol(args.hands)


if __name__ == "__main__":
    main()
