"""A whole commit-reveal v4 hand is verified on each party's last signature (issue 13): the service's hand-close and
every seat's countersignature, each covering the chain of digests before it. Anything amiss sends the hand through
the message-by-message walk, which names the first fault as before; a bad signature on an earlier message stands
only when every party signed after it — on every registered system and table size."""

from __future__ import annotations

import copy
import functools
import random
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from commit_reveal_helpers import counted, every_signature, leaves, mutated
from commit_reveal_parties import TABLES, fixed_source, key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from settlement_refused_helpers import page_report
from test_commit_reveal_v4_aborts import evening

from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import SERVICE, Context, parse, seal
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents
from fairdeal.systems import get_convention


def played(cell: tuple[str, int], hands: int) -> list[dict[str, Any]]:
    """An honest evening's hand transcripts (the settlement left out: the hands are what is measured)."""
    name, players = cell
    spec = TableSpec("club", "night", hands, tuple(f"p{i}" for i in range(players)), get_convention(name))
    return evening(fixed_source(spec, b"\x05" * 32, "attested", None), hands)[:-1]


def verify(docs: Sequence[Mapping[str, Any]]) -> Report:
    return verify_documents([(f"doc{i}", d) for i, d in enumerate(docs)])


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_whole_hand_is_checked_on_each_partys_last_signature(cell: tuple[str, int]) -> None:
    docs = played(cell, 2)
    seats = cell[1]
    with counted() as calls:
        assert verify(docs).ok
    # The roster (the service and every seat), the opening (its open and every acceptance), then per hand the
    # hand-close and every countersignature.
    assert calls[0] == 2 * (seats + 1) + 2 * (seats + 1)
    assert all(len(d["messages"]) == 3 * seats + 3 for d in docs)  # no aborted attempt: 3n + 3 messages a hand


def resealed(doc: dict[str, Any], forged: int, upto: int) -> dict[str, Any]:
    """``doc`` with message ``forged`` carrying another key's signature, and every later message before ``upto``
    signed again by its sender's real key over the new chain (the parties colluding); the rest left as they were."""
    doc = copy.deepcopy(doc)
    roster = Roster.from_json(doc["roster"], "$.roster")
    names = {seat: s.name for seat, s in enumerate(roster.seats)}
    ctx = Context(roster.table, roster.session, doc["hand"], roster.hash)
    messages = doc["messages"]
    original = parse(messages[forged])
    stranger = seal(key("stranger"), ctx, original.sender, original.kind, original.body, original.prev)
    messages[forged] = stranger.to_json()
    prev = stranger.digest
    for index in range(forged + 1, upto):
        envelope = parse(messages[index])
        signer = key("s") if envelope.sender == SERVICE else key(names[envelope.sender])
        again = seal(signer, ctx, envelope.sender, envelope.kind, envelope.body, prev)
        messages[index] = again.to_json()
        prev = again.digest
    return doc


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_forged_signature_is_named_as_the_walk_names_it(cell: tuple[str, int]) -> None:
    """The forged commitment breaks the next message's link: the hand goes through the walk, which names the
    forged signature itself (the publisher's fault)."""
    (doc,) = played(cell, 1)
    commit = next(i for i, e in enumerate(doc["messages"]) if e["kind"] == m.COMMIT)
    report = verify([resealed(doc, commit, commit + 1)])
    assert [(f.party, f.check) for f in report.failures] == [("service", "signature")]
    assert f"$.messages[{commit}]" in report.failures[0].detail


@pytest.mark.parametrize("cell", TABLES, ids=lambda cell: f"{cell[0]}-{cell[1]}p")
def test_a_forged_signature_stands_only_under_every_partys_later_signature(cell: tuple[str, int]) -> None:
    """Every party signing again after the forgery (all of them colluding) leaves no one wronged: the hand stands.
    One seat whose countersignature was made over the honest chain (an honest seat) is enough to reject it."""
    (doc,) = played(cell, 1)
    messages = doc["messages"]
    commit = next(i for i, e in enumerate(messages) if e["kind"] == m.COMMIT)
    assert verify([resealed(doc, commit, len(messages))]).ok
    report = verify([resealed(doc, commit, len(messages) - 1)])
    assert not report.ok and [(f.party, f.check) for f in report.failures] == [("service", "signature")]


EVENING = played(("sochi", 3), 2)
LEAVES = [(which, path) for which, doc in enumerate(EVENING) for path in leaves(doc)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LEAVES), st.integers(0, 2**32 - 1))
def test_no_single_change_is_judged_otherwise_than_by_the_full_walk(leaf: tuple[int, Any], seed: int) -> None:
    """Any one value changed anywhere in an evening: the same failures, party, check and detail, as when every
    signature is checked in order."""
    which, path = leaf
    docs = copy.deepcopy(EVENING)
    *parents, last = path
    holder = functools.reduce(lambda value, step: value[step], parents, docs[which])
    holder[last] = mutated(holder[last], random.Random(seed))
    quick = verify(docs)
    with every_signature():
        full = verify(docs)
    assert not quick.ok and quick.failures == full.failures


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the offline page's JavaScript")
def test_the_offline_page_takes_a_hand_as_verify_does(page: Path, tmp_path: Path) -> None:
    (doc,) = played(("sochi", 3), 1)
    messages = doc["messages"]
    commit = next(i for i, e in enumerate(messages) if e["kind"] == m.COMMIT)
    for name, changed in {
        "honest": doc,
        "forged": resealed(doc, commit, commit + 1),
        "all-signed-after": resealed(doc, commit, len(messages)),
        "one-seat-honest": resealed(doc, commit, len(messages) - 1),
    }.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(encode(changed))
        report = page_report(page, [path])
        python = verify([changed])
        assert report["ok"] == python.ok, name
        assert [(f["party"], f["check"]) for f in report["failures"]] == [(f.party, f.check) for f in python.failures]
