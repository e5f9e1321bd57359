"""Shared by the commit-reveal tests: an honest session of hands dealt by the protocol and played by bots."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from fairdeal.cards import from_ascii_list
from fairdeal.deal import deal_from_seats
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.driver import play_hand
from fairdeal.engine.hand import result
from fairdeal.engine.record import to_record
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.sheet import new_sheet
from fairdeal.protocols import identity
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal import DealerService, Player
from fairdeal.protocols.commit_reveal4 import check as check_v4
from fairdeal.protocols.deal_source import CommitRevealSource
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import seat_deal
from fairdeal.systems import get_convention


def fixed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def honest_session(
    hands: int = 3,
    players: tuple[str, ...] = ("ann", "bob", "cyril"),
    system: str = "sochi",
    with_records: bool = True,
    label: str = "honest",
) -> list[dict]:
    """Transcripts of ``hands`` hands; every deal comes from the protocol and, with records, is played out.

    Keys and seeds come from fixed labels (``label``), so a failing property test replays the same session.
    """
    spec = TableSpec("table-1", "evening-1", hands, players, get_convention(system))
    service = DealerService(spec, SigningKey(fixed(f"{label}/service")), fixed(f"{label}/tail"))
    parties = [
        Player(
            name,
            seat,
            SigningKey(fixed(f"{label}/key/{name}")),
            lambda hand, name=name: fixed(f"{label}/seed/{name}/{hand}"),
        )
        for seat, name in enumerate(players)
    ]
    source = CommitRevealSource(spec, service, parties)
    convention = get_convention(system)
    sheet = new_sheet(convention, len(players))
    pattern = spec.pattern
    docs = []
    for hand in range(1, hands + 1):
        dealer = (hand - 1) % len(players)
        dealt = source.deal(hand, dealer)
        record = None
        if with_records:
            seats = seat_deal(dealt.order, pattern.name, dealer, len(players))
            deal = deal_from_seats(
                [from_ascii_list(h) for h in seats["hands"]],
                [from_ascii_list(t) for t in seats["talons"]],
                pattern,
                dealer,
                len(players),
            )
            bots = [HeuristicBot() for _ in players]
            state = play_hand(convention, len(players), dealer, deal, bots, sheet.raspasy_streak)
            sheet, lines = score_hand(sheet, result(state), convention)
            record = {"hand": hand, **to_record(state), "score": [line.to_record() for line in lines]}
        docs.append(source.finish(hand, record))
    return docs


def leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every scalar in a decoded document (what a single-leaf mutation changes)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaves(v, (*path, i))]
    return [path]


def written(docs: Sequence[Mapping[str, Any]], folder: Path, name: str = "hand-{:04d}.json") -> list[Path]:
    """Each document's canonical bytes in a file of ``folder`` (numbered from 1), as ``fairdeal verify`` reads them."""
    folder.mkdir(exist_ok=True)
    paths = []
    for number, doc in enumerate(docs, start=1):
        paths.append(folder / name.format(number))
        paths[-1].write_bytes(encode(dict(doc)))
    return paths


def mutated(value: Any, rng: random.Random) -> Any:
    """Another value of the same kind: a hex digit moved on, a number off by one, a flag flipped, text lengthened."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([-1, 1])
    if isinstance(value, str):
        if value and all(c in "0123456789abcdef" for c in value):
            i = rng.randrange(len(value))
            return value[:i] + "0123456789abcdef"[("0123456789abcdef".index(value[i]) + 1) % 16] + value[i + 1 :]
        return value + "x"
    return 0


@contextmanager
def every_signature() -> Iterator[None]:
    """Every v4 message's signature checked in order, as before a whole hand was taken on each party's last one."""
    saved = check_v4._attested
    check_v4._attested = lambda *args: None
    try:
        yield
    finally:
        check_v4._attested = saved


@contextmanager
def counted() -> Iterator[list[int]]:
    """The number of Ed25519 verifications made inside, in a one-item list (the remembered ones forgotten first)."""
    saved, calls = identity._verified, [0]

    def counting(*args: Any) -> bool:
        calls[0] += 1
        return saved(*args)

    identity._remembered.cache_clear()
    identity._verified = counting
    try:
        yield calls
    finally:
        identity._verified = saved
