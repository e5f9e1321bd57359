"""The commit-reveal protocol (protocols/commit-reveal.md): honest runs verify, every hole is closed, and any
single-field change to a transcript is rejected naming the party responsible."""

from __future__ import annotations

import copy
import functools
import itertools
import json

import pytest
from commit_reveal_helpers import honest_session
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import to_ascii_list
from fairdeal.errors import ProtocolError
from fairdeal.protocols.commit_reveal import DealerService, Player
from fairdeal.protocols.deal_source import CommitRevealSource
from fairdeal.protocols.derive import seed_commitment
from fairdeal.protocols.encoding import u64
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import transcript_hash
from fairdeal.protocols.verify import verify_documents
from fairdeal.rules import SOCHI


@functools.cache
def _session(players: int, with_records: bool) -> tuple[dict, ...]:
    names = ("ann", "bob", "cyril", "dora")[:players]
    return tuple(honest_session(4, names, with_records=with_records))


def session(players: int = 3, with_records: bool = True) -> list[dict]:
    return copy.deepcopy(list(_session(players, with_records)))


def verify(docs):
    return verify_documents([(f"hand{d.get('hand') if isinstance(d, dict) else '?'}.json", d) for d in docs])


# ---- honest runs ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_honest_session_verifies_with_game_records(players):
    report = verify(session(players))
    assert report.ok, [f.line() for f in report.failures]
    assert report.notes == ()


def test_four_players_dealer_sits_out():
    for doc in session(4):
        assert doc["deal"]["hands"][doc["dealer"]] == []
        assert sum(len(h) for h in doc["deal"]["hands"]) == 30


def test_without_records_the_deal_verifies_and_play_is_noted_unchecked():
    report = verify(session(3, with_records=False))
    assert report.ok and len(report.notes) == 4 and "play and score not checked" in report.notes[0]


def test_a_lone_transcript_from_mid_session_verifies_but_its_score_is_noted_unchecked():
    report = verify(session()[2:3])
    assert report.ok and any("score lines not checked" in n for n in report.notes)


# ---- single-field changes: rejected, naming the right party ------------------------------------------------------


def _flip_hex(text: str) -> str:
    return ("0" if text[0] != "0" else "1") + text[1:]


def _swap_first_cards(doc, path):
    cards = functools.reduce(lambda d, k: d[k], path, doc)
    cards[0], cards[1] = cards[1], cards[0]


def _move_a_card_to_talon(doc):
    hand = next(h for h in doc["deal"]["hands"] if h)
    hand[0], doc["deal"]["talons"][0][0] = doc["deal"]["talons"][0][0], hand[0]


def _first_trick_card(doc):
    if not doc["record"]["tricks"]:
        raise NotApplicable
    trick = doc["record"]["tricks"][0]
    played = set(trick["cards"])
    lead_hand = doc["record"]["deal"]["hands"][trick["lead"]]
    other = next(c for c in lead_hand if c not in played)
    trick["cards"][0] = other


def _score_point(doc):
    doc["record"]["score"][0]["points"] += 1


def _result_tricks(doc):
    tricks = doc["record"]["result"]["tricks"]
    if not any(tricks):
        raise NotApplicable
    i = next(k for k, t in enumerate(tricks) if t > 0)
    j = next(k for k in range(len(tricks)) if k != i and doc["record"]["deal"]["hands"][k])
    tricks[i] -= 1
    tricks[j] += 1


def _trick_winner(doc):
    if not doc["record"]["tricks"]:
        raise NotApplicable
    trick = doc["record"]["tricks"][0]
    trick["winner"] = next(
        s
        for s in range(len(doc["record"]["deal"]["hands"]))
        if s != trick["winner"] and doc["record"]["deal"]["hands"][s]
    )


def _set(path, value_of):
    def mutate(doc):
        target = functools.reduce(lambda d, k: d[k], path[:-1], doc)
        target[path[-1]] = value_of(target[path[-1]], doc)

    return mutate


SEAT = 1  # the seat whose contribution is changed; player "bob"
MUTATIONS = {
    "player seed": (_set(["players", SEAT, "seed"], lambda v, d: _flip_hex(v)), "player bob"),
    "player seed commitment": (
        _set(["players", SEAT, "statement", "seed_commitment"], lambda v, d: _flip_hex(v)),
        "player bob",
    ),
    "player seed signature": (_set(["players", SEAT, "signature"], lambda v, d: _flip_hex(v)), "player bob"),
    "player session countersignature": (
        _set(["session", "player_signatures", SEAT], lambda v, d: _flip_hex(v)),
        "player bob",
    ),
    "service session signature": (_set(["session", "service_signature"], lambda v, d: _flip_hex(v)), "service"),
    "session anchor": (_set(["session", "statement", "anchor"], lambda v, d: _flip_hex(v)), "service"),
    "service commitment": (_set(["service", "commitment"], lambda v, d: _flip_hex(v)), "service"),
    "service seed": (_set(["service", "seed"], lambda v, d: _flip_hex(v)), "service"),
    "deck card": (lambda d: _swap_first_cards(d, ["deck_order"]), "service"),
    "deal card": (_move_a_card_to_talon, "service"),
    "previous transcript hash": (_set(["previous"], lambda v, d: "0" * 64 if v is None else _flip_hex(v)), "service"),
    "hand number": (_set(["hand"], lambda v, d: v + 7), "service"),
    "dealer": (_set(["dealer"], lambda v, d: (v + 1) % len(d["deal"]["hands"])), "service"),
    "record trick card": (_first_trick_card, "record"),
    "record trick winner": (_trick_winner, "record"),
    "record result": (_result_tricks, "record"),
    "record score line": (_score_point, "record"),
}


class NotApplicable(Exception):
    """The mutation needs something this hand lacks (e.g. tricks in an unplayed hand)."""


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_any_single_field_change_is_rejected_naming_the_party(name, players):
    """Every mutation, on every hand of the session: rejected, and only the responsible party is named."""
    tried = 0
    for index in range(4):
        docs = session(players)
        mutate, party = MUTATIONS[name]
        try:
            mutate(docs[index])
        except NotApplicable:
            continue
        tried += 1
        report = verify(docs)
        assert not report.ok
        here = [f for f in report.failures if f.source == f"hand{docs[index]['hand']}.json"]
        assert here and {f.party for f in here} == {party}, [f.line() for f in report.failures]
        # Elsewhere only the broken links to the changed document may show (the next hand's "previous").
        elsewhere = [f for f in report.failures if f not in here]
        assert all(
            f.party == "service" and f.check in ("transcript chain", "chain link", "hand sequence") for f in elsewhere
        ), [f.line() for f in elsewhere]
    assert tried >= 2


def test_failure_lines_name_file_hand_party_and_check():
    docs = session()
    docs[1]["players"][0]["seed"] = _flip_hex(docs[1]["players"][0]["seed"])
    line = verify(docs).failures[0].line()
    assert line == "hand2.json: hand 2: player ann: seed opening: the seed does not open the player's commitment"


# ---- the holes, one by one ---------------------------------------------------------------------------------------


def _table(hands: int = 3) -> tuple[TableSpec, DealerService, list[Player]]:
    spec = TableSpec("t", "s", hands, ("ann", "bob", "cyril"), SOCHI)
    service = DealerService(spec)
    players = [Player(n, i) for i, n in enumerate(spec.players)]
    service.open_session(players)
    return spec, service, players


def _committed(service, players, hand, dealer=0):
    """Begin ``hand``: every player's signed seed commitment, accepted by the service."""
    commitment = service.begin_hand(hand, dealer)
    signed = [p.commit(hand, dealer, commitment) for p in players]
    for s in signed:
        service.accept_commitment(s)
    return signed


def _dealt(service, players, hand, dealer=0):
    """``hand`` committed, every seed opened, and the deck dealt; the signed commitments."""
    signed = _committed(service, players, hand, dealer)
    for p in players:
        service.accept_seed(p.seat, p.open_seed(hand, signed))
    service.deal()
    return signed


def source_round(service, players, hand):
    _dealt(service, players, hand)
    link = service.reveal()
    for p in players:
        p.accept_reveal(hand, link)


def test_players_give_no_seed_before_countersigning_the_session():
    with pytest.raises(ProtocolError, match="no session countersigned"):
        Player("ann", 0).commit(1, 0, "00" * 32)


def test_service_commitment_must_be_the_anchored_chain_link():
    _, service, players = _table()
    with pytest.raises(ProtocolError, match="not the chain's next link"):
        players[0].commit(1, 0, service.commitment(2))
    players[0].commit(1, 0, service.begin_hand(1, 0))


def test_next_commitment_is_fixed_before_this_hands_seeds_by_the_anchor():
    """Hand 2's commitment is hand 1's reveal, and both hash back to the anchor signed before any seed."""
    docs = session(with_records=False)
    for prev, cur in itertools.pairwise(docs):
        assert cur["service"]["commitment"] == prev["service"]["seed"]
        assert all(p["statement"]["service_commitment"] == cur["service"]["commitment"] for p in cur["players"])
    docs[2]["service"]["commitment"] = docs[0]["service"]["seed"]  # a commitment from the wrong place
    report = verify(docs)
    assert {(f.party, f.check) for f in report.failures if f.hand == 3} >= {("service", "commitment in chain")}


def test_no_seed_is_opened_before_every_seat_committed():
    _, service, players = _table()
    commitment = service.begin_hand(1, 0)
    signed = [p.commit(1, 0, commitment) for p in players]
    service.accept_commitment(signed[0])
    with pytest.raises(ProtocolError, match="only after every seat has committed"):
        service.accept_seed(0, b"\0" * 32)
    with pytest.raises(ProtocolError, match="not every seat has committed"):
        players[0].open_seed(1, signed[:2])


def test_no_commitment_after_seed_opening_began():
    _, service, players = _table()
    signed = _committed(service, players, 1)
    service.accept_seed(0, players[0].open_seed(1, signed))
    with pytest.raises(ProtocolError, match="no more commitments"):
        service.accept_commitment(signed[1])


def test_service_rejects_a_commitment_replayed_from_another_hand_or_forged():
    _, service, players = _table()
    first = _dealt(service, players, 1)
    link = service.reveal()
    for p in players:
        p.accept_reveal(1, link)
    service.begin_hand(2, 1)
    with pytest.raises(ProtocolError, match="malformed or unsigned"):
        service.accept_commitment(first[0])
    forged = players[1].commit(2, 1, service.commitment(2))
    forged = type(forged)(forged.seat, forged.statement, "00" * 64)
    with pytest.raises(ProtocolError, match="malformed or unsigned"):
        service.accept_commitment(forged)


def test_a_seed_that_does_not_open_the_commitment_is_refused():
    _, service, players = _table()
    _committed(service, players, 1)
    with pytest.raises(ProtocolError, match="player ann's seed does not open"):
        service.accept_seed(0, b"\1" * 32)


def test_hand_numbers_never_repeat_skip_or_pass_the_chain():
    _, service, players = _table(hands=1)
    with pytest.raises(ProtocolError, match="out of sequence"):
        service.begin_hand(2, 0)
    source_round(service, players, 1)
    with pytest.raises(ProtocolError, match="out of sequence"):
        service.begin_hand(1, 0)
    with pytest.raises(ProtocolError, match="out of sequence"):
        service.begin_hand(2, 0)  # beyond the session's one hand: no link left
    with pytest.raises(ProtocolError, match="is not the next hand"):
        players[0].commit(1, 0, "00" * 32)


def test_players_detect_a_reveal_that_does_not_open_the_commitment():
    _, service, players = _table()
    _dealt(service, players, 1)
    with pytest.raises(ProtocolError, match="does not open its commitment"):
        players[0].accept_reveal(1, b"\7" * 32)


def test_integers_never_wrap():
    with pytest.raises(ProtocolError, match="64-bit"):
        u64(2**64)
    with pytest.raises(ProtocolError, match=r"1..1000000 hands"):
        TableSpec("t", "s", 10**6 + 1, ("a", "b", "c"), SOCHI)


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.sampled_from(["ann", "bob"]), st.integers(1, 2**40))
def test_seed_commitments_are_bound_to_player_and_hand(seed, player, hand):
    mine = seed_commitment("t", "s", hand, player, seed)
    assert mine != seed_commitment("t", "s", hand + 1, player, seed)
    assert mine != seed_commitment("t", "s", hand, player + "x", seed)
    assert mine != seed_commitment("t2", "s", hand, player, seed)


def test_a_withheld_reveal_is_named():
    spec = TableSpec("t", "s", 2, ("ann", "bob", "cyril"), SOCHI)
    source = CommitRevealSource(spec)
    dealt = source.deal(1, 0)
    assert dealt.evidence["state"] == "unrevealed" and "seed" not in dealt.evidence["service"]
    report = verify([dealt.evidence])
    assert [(f.party, f.check) for f in report.failures] == [("service", "reveal")]
    assert "unrevealed" in report.failures[0].line()


def test_a_player_who_reuses_a_seed_is_named():
    spec = TableSpec("t", "s", 2, ("ann", "bob", "cyril"), SOCHI)
    players = [
        Player(n, i, seed_source=(lambda hand: b"\5" * 32) if n == "cyril" else None)
        for i, n in enumerate(spec.players)
    ]
    source = CommitRevealSource(spec, players=players)
    docs = []
    for hand in (1, 2):
        source.deal(hand, hand - 1)
        docs.append(source.finish(hand))
    assert [(f.party, f.check) for f in verify(docs).failures] == [("player cyril", "seed reuse")]


def test_missing_and_repeated_hands_are_named():
    docs = session(with_records=False)
    failures = verify([docs[0], docs[2], docs[3]]).failures
    assert [(f.hand, f.party, f.check) for f in failures] == [(3, "service", "hand sequence")]
    failures = verify([docs[0], docs[1], copy.deepcopy(docs[1])]).failures
    assert ("service", "hand sequence") in {(f.party, f.check) for f in failures}


def test_documents_chain_by_hash():
    docs = session(with_records=False)
    assert docs[0]["previous"] is None
    for prev, cur in itertools.pairwise(docs):
        assert cur["previous"] == transcript_hash(prev)


def test_build_transcript_does_not_share_state_between_documents():
    docs = session(with_records=False)
    docs[0]["session"]["statement"]["table"] = "changed"
    assert docs[1]["session"]["statement"]["table"] == "table-1"


def test_a_malformed_document_is_a_schema_failure_not_a_crash():
    docs = session(with_records=False)
    del docs[0]["players"]
    docs[1]["deck_order"] = "AS"
    report = verify(docs[:2] + [{"hello": 1}, []])
    assert not report.ok
    assert {f.check for f in report.failures} == {"transcript schema"}
    assert all(f.party == "service" for f in report.failures)


def test_deal_source_builds_unrevealed_then_revealed():
    spec = TableSpec("t", "s", 1, ("ann", "bob", "cyril"), SOCHI)
    source = CommitRevealSource(spec)
    dealt = source.deal(1, 2)
    doc = source.finish(1, {"note": "no play"})
    assert dealt.evidence["state"] == "unrevealed" and "deck_order" not in dealt.evidence
    assert doc["state"] == "revealed" and doc["record"] == {"note": "no play"}
    assert doc["deck_order"] == to_ascii_list(dealt.order)
    assert doc["previous"] is None and json.loads(json.dumps(doc)) == doc
    with pytest.raises(ProtocolError, match="no hand in progress"):
        source.finish(1)


def test_a_seed_signed_against_another_service_commitment_names_the_player():
    """A player who signs before seeing the real commitment (or for another one) is caught by the statement."""
    from commit_reveal_helpers import fixed
    from nacl.signing import SigningKey

    from fairdeal.protocols.commit_reveal import sign

    docs = session(with_records=False)
    entry = docs[1]["players"][2]
    entry["statement"]["service_commitment"] = docs[1]["service"]["seed"]
    entry["signature"] = sign(SigningKey(fixed("honest/key/cyril")), entry["statement"])
    failures = [f for f in verify(docs).failures if f.hand == 2]
    assert [(f.party, f.check) for f in failures] == [("player cyril", "seed statement")]
    assert "service_commitment" in failures[0].detail


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 2**63),
    st.binary(min_size=32, max_size=32),
    st.lists(st.binary(min_size=32, max_size=32), min_size=3, max_size=3),
)
def test_session_framing_equals_field_by_field_framing(hand, service_seed, seeds):
    from fairdeal.protocols.derive import DeckInputs, deck_input

    names = ["Анна", "bob", "c"]
    fast = DeckInputs("t", "s", "piquet32", names)(hand, service_seed, seeds)
    assert fast == deck_input("t", "s", hand, "piquet32", service_seed, list(zip(names, seeds)))


def test_the_deal_count_the_spec_argues_about():
    """protocols/commit-reveal.md §6: 32!/(10!^3 2!) deals, far beyond a 32-bit seed's reach."""
    from math import factorial

    deals = factorial(32) // (factorial(10) ** 3 * factorial(2))
    assert deals == 2_753_294_408_504_640 and deals > 600_000 * 2**32


def _paths(value, prefix=()):
    """Every key/index path inside a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield prefix + (key,)
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield prefix + (index,)
            yield from _paths(item, prefix + (index,))


ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 2**70),
    st.text(max_size=4),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_verify_never_crashes_and_never_accepts_a_changed_document(data):
    docs = session()
    index = data.draw(st.integers(0, 3))
    paths = list(_paths(docs[index]))
    path = data.draw(st.sampled_from(paths))
    parent = functools.reduce(lambda d, k: d[k], path[:-1], docs[index])
    old = copy.deepcopy(parent[path[-1]])
    deleted = isinstance(parent, dict) and data.draw(st.booleans())
    if deleted:
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(ODD_VALUES)
    report = verify(docs)
    changed = deleted or parent[path[-1]] != old or type(parent[path[-1]]) is not type(old)
    # Outside the game record every field is bound by a signature, a hash or the schema. Inside it, dropping
    # an optional field that held its default (extras.raspasy_streak = 0) leaves the same hand.
    if changed and path[0] != "record":
        assert not report.ok, path
