"""A mentally dealt hand played live (``mental_poker/live.py``, ``seat.py``): the host holds no card and follows
the game from the verified messages; every seat is a separate party with its own secrets and its own run of the
game. At every table of every system the transcript verifies as ``fairdeal verify`` checks it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import live_hands
import pytest
from fuzz_mutators import ODD_VALUES, document_paths, replaced
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from fairdeal.engine.actions import Bid, Phase, Play
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.hand import legal_actions, to_move
from fairdeal.engine.play import legal_cards
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.system import conventions, get_convention
from fairdeal.errors import CanonicalError, FairdealError, IllegalAction, MentalPokerError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.elgamal import make_key_share
from fairdeal.protocols.mental_poker.events import decision_findings
from fairdeal.protocols.mental_poker.following import ACT
from fairdeal.protocols.mental_poker.live import LiveHand
from fairdeal.protocols.mental_poker.messages import decide_message, key_message
from fairdeal.protocols.mental_poker.seat import LiveSeat, play_through, relay
from fairdeal.protocols.mental_poker.signing import Seating, seal_message
from fairdeal.protocols.mental_poker.source import hand_setup, signed_roster, transcript_document
from fairdeal.protocols.mental_poker.verify import check_document
from fairdeal.protocols.table import TableSpec

TABLES = [(name, players) for name, convention in sorted(conventions().items()) for players in convention.players]


def live_hand(system: str, players: int, seed: int) -> tuple[LiveHand, dict[str, LiveSeat], TableSpec, Seating]:
    return live_hands.live_hand(system, players, seed)[:4]


@pytest.mark.parametrize(("system", "players"), TABLES)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_live_hand_verifies_at_every_table(system: str, players: int, seed: int) -> None:
    hand, seats, spec, _ = live_hand(system, players, seed)
    try:
        play_through(hand, seats)
    except IllegalAction as exc:
        assert "Nachgehen follower" in str(exc)
        return
    doc = live_hands.finished_transcript(hand, seats, spec)
    assert check_document("live", doc).findings == []
    assert any(m["kind"] == "decide" for m in doc["messages"])


class Revoker(LiveSeat):
    """Plays a card of another suit where the rules make him follow (a renonce), once, from his own hand, and
    stops checking the game himself; his card's proof holds, as it is his."""

    cheated = False

    def _decide(self):
        action = super()._decide()
        state = self.game
        if self.cheated or state.phase is not Phase.PLAY or to_move(state) != self.seat or state.turn != self.seat:
            return action
        illegal = [c for c in state.hands[self.seat] if c not in legal_cards(state)]
        if not illegal:
            return action
        self.cheated = True
        return Play(self.seat, illegal[0])

    def _follow(self, message):
        if not self.cheated:
            super()._follow(message)


def _revoked(system: str, seed: int):
    for attempt in range(40):
        hand, seats, spec, _ = live_hand(system, 3, seed + 1000 * attempt)
        cheat = spec.players[attempt % 3]
        seat = seats[cheat]
        seats[cheat] = Revoker(spec, hand.setup, hand.seating, seat.identity, seat.bot, hand.start)
        play_through(hand, seats)
        if seats[cheat].cheated:
            return hand, cheat
    pytest.fail("no renonce was possible in 40 hands")


@pytest.mark.parametrize("system", ["sochi", "rostov", "croatian"])
def test_a_renonce_is_named_after_the_reveal_and_no_honest_seat_is(system: str) -> None:
    hand, cheat = _revoked(system, 7)
    assert hand.protocol.finished  # stopped early or played out, the hand was revealed
    with pytest.raises(MentalPokerError) as caught:
        hand.record()
    assert caught.value.player == cheat, str(caught.value)
    assert "illegal" in str(caught.value)


def _public_positions(hand: LiveHand) -> set[int]:
    state, setup = hand.protocol, hand.setup
    rows = setup.talon_rows
    shown = {p for t in state.opened for p in rows[t]} | set(rows[0][: state.turned] if rows else ())
    shown |= {p for _, p, _ in state.plays} | {p for ps in state.laid_open.values() for p in ps}
    return shown | (set(setup.dummy_positions) if state.dummy_open else set())


@pytest.mark.parametrize(("system", "players"), [("sochi", 3), ("gusarik-sochi", 2), ("rostov", 4), ("hussar", 2)])
def test_the_host_can_open_no_card_before_the_rules_open_it(system: str, players: int) -> None:
    """After every message, each position whose every share the host has seen is one the rules have opened."""
    hand, seats, _, _ = live_hand(system, players, 3)
    checked = 0
    while (due := hand.due()) is not None and due.step != "reveal":  # the reveal opens everything
        relay(hand, seats, due, seats[due.player].answer(due))
        readable = {p for p, shares in hand.protocol.shares.items() if len(shares) == len(hand.setup.players)}
        assert readable <= _public_positions(hand)
        checked += 1
    assert due is not None and due.step == "reveal" and checked > 3 * players


def test_the_host_refuses_what_is_not_due_and_changes_nothing() -> None:
    hand, seats, spec, _ = live_hand("sochi", 3, 0)
    due = hand.due()
    other = next(name for name in spec.players if name != due.player)
    head = hand.protocol.head
    share = make_key_share(hand.setup.context, other)[1]
    early = seal_message(seats[other].identity, hand.seating, 1, dict(key_message(share), prev=hand.protocol.head))
    with pytest.raises(MentalPokerError, match="out of turn"):
        hand.message(early)
    assert hand.protocol.head == head and hand.messages == []
    decision = dict(decide_message(due.player, {"action": {"kind": "bid", "seat": 0, "token": "pass"}}), prev=head)
    with pytest.raises(MentalPokerError, match="out of turn"):
        hand.message(seal_message(seats[due.player].identity, hand.seating, 1, decision))
    assert hand.protocol.head == head and hand.messages == []
    first = seats[due.player].answer(due)
    hand.message(first)
    with pytest.raises(SignedMessageError):
        hand.message(first)  # replayed: it does not follow the last message
    assert len(hand.messages) == 1


def test_the_holder_of_an_open_hand_must_prove_the_card_chosen_from_it() -> None:
    """The lone whister chooses from the passer's open hand; the passer proving another card is refused."""
    for seed in range(60):
        hand, seats, _, _ = live_hand("sochi", 3, seed)
        while (due := hand.due()) is not None:
            if due.card is not None:
                holder = seats[due.player]
                other = next(c for c in holder.game.hands[holder.seat] if c != due.card)
                head = hand.protocol.head
                with pytest.raises(MentalPokerError, match="another card than the one chosen"):
                    hand.message(holder.player.play(other))
                assert hand.protocol.head == head
                return
            relay(hand, seats, due, seats[due.player].answer(due))
    pytest.fail("no lone whister played an open hand in 60 hands")


@pytest.fixture(scope="module")
def recorded_hand():
    """A Sochi hand played live: its host's table and every step, with what was due when it came."""
    hand, seats, _, _ = live_hand("sochi", 3, 0)
    steps = []
    while (due := hand.due()) is not None:
        answer = seats[due.player].answer(due)
        steps.append((due, answer))
        relay(hand, seats, due, answer)
    return hand, steps, {name: seat.identity for name, seat in seats.items()}


def _host_at(hand: LiveHand, steps, at: int) -> LiveHand:
    """A fresh host of the same hand, fed the steps before ``at``."""
    host = LiveHand(hand.spec, hand.setup, hand.seating, hand.dealer, hand.sheet)
    for _, answer in steps[:at]:
        host.message(answer)
    return host


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, 10**6), pick=st.integers(0, 10**6), odd=st.sampled_from(ODD_VALUES), resign=st.booleans())
def test_a_malformed_message_gets_a_clear_refusal_and_changes_nothing(recorded_hand, index, pick, odd, resign) -> None:
    """Any field of any signed message set to an odd value — or any field of its body, signed again by its own
    sender (a sender who lies) — shown to a host that waits for that message: refused with a ``FairdealError``
    (one clear line), the host unchanged."""
    hand, steps, identities = recorded_hand
    at = index % len(steps)
    due, envelope = steps[at]
    paths = document_paths(envelope["body"] if resign else envelope)[1:]
    if resign:
        body = replaced(envelope["body"], paths[pick % len(paths)], odd)
        key, context = identities[due.player], hand.seating.context(envelope["hand"])
        try:
            broken = signed.seal(key, context, envelope["sender"], envelope["kind"], body, envelope["prev"]).to_json()
        except CanonicalError:
            reject()  # no signer can sign what canonical JSON cannot encode
    else:
        broken = replaced(envelope, paths[pick % len(paths)], odd)
    host = _host_at(hand, steps, at)
    head, count = host.protocol.head, len(host.messages)
    try:
        host.message(broken)
    except FairdealError as exc:
        assert "\n" not in str(exc) and (host.protocol.head, len(host.messages)) == (head, count)
    else:
        assert broken == envelope  # only a value that changed nothing may pass


class MisereBidder(LiveSeat):
    """Bids misère at its first chance and passes after; in play it plays as the heuristic bot does."""

    def _decide(self):
        state = self.game
        if state.phase is Phase.AUCTION:
            bids = [a for a in legal_actions(state) if isinstance(a, Bid)]
            wanted = [b for b in bids if b.token == "misere"] or [b for b in bids if b.token == "pass"]
            if wanted:
                return wanted[0]
        return super()._decide()


@pytest.mark.parametrize("system", ["gusarik-sochi", "gusarik-leningrad", "gusarik-rostov"])
@pytest.mark.parametrize("dealer", [0, 1])
def test_a_misere_caught_from_gusariks_dummy_lays_it_open_before_the_first_card(system: str, dealer: int) -> None:
    """Nobody chooses a card from a hand face down: the dummy's opponent catches the misère from it, so the dummy
    is laid open before the first card (not only when the defence plays open), and the transcript verifies."""
    names = live_hands.NAMES[:2]
    spec = TableSpec("club", system, 1, names, get_convention(system))
    identities = {name: IdentityKey.generate(name) for name in names}
    seating = Seating(signed_roster(spec, identities, IdentityKey.generate("service")))
    setup = hand_setup(spec, 1, dealer, seating)
    hand = LiveHand(spec, setup, seating, dealer, new_sheet(spec.convention, 2))
    seats = {n: MisereBidder(spec, setup, seating, identities[n], HeuristicBot(), hand.start) for n in names}
    play_through(hand, seats)
    steps = [m["step"] for m in hand.protocol.messages]
    assert hand.game.public.state.kind.value == "misere"
    assert "dummy" in steps and steps.index("dummy") < steps.index("play")
    record, order, _ = hand.record()
    statements = [seats[name].sign(record, hand.protocol.head) for name in spec.players]
    meta = {"attempt": 1, "aborts": [], "statements": statements}
    doc = transcript_document(spec, seating, 1, dealer, hand.messages, record, order, None, meta)
    assert check_document("live", doc).findings == []


# ---- signed decisions -------------------------------------------------------------------------------------------


def _decides(doc: dict[str, Any]) -> list[int]:
    """The decisions that are actions of the game: not the declarer's word that he holds an ace (the deal proves
    that one, and the record holds no action for it)."""
    return [
        index
        for index, message in enumerate(doc["messages"])
        if message["kind"] == "decide" and message["body"] != {"announce": None}
    ]


def _another_decision(index: int) -> Callable[[list[dict[str, Any]]], None]:
    def change(messages: list[dict[str, Any]]) -> None:
        concede = {"action": {"kind": "concede", "seat": 0}}
        body = messages[index]["body"]
        messages[index]["body"] = (
            concede if body != concede else {"action": {"kind": "bid", "seat": 0, "token": "pass"}}
        )

    return change


@pytest.mark.parametrize(
    ("system", "players"), [("sochi", 3), ("austrian", 3), ("gusarik-sochi", 2), ("rostov", 4), ("croatian", 3)]
)
def test_the_record_holds_the_decisions_its_seats_signed(system: str, players: int) -> None:
    """A seat's party checks only the record's cards before it signs, so a service could build the record on
    decisions nobody made and still get every signature. The signed decisions forbid it: with a decision dropped
    from the chain, or one its seat signed otherwise (the chain and every record statement signed again, all
    colluding), verify names the record (``record: decisions``); the honest hand has no finding."""
    doc, seating, identities = live_hands.live_transcript(system, players, 5)
    assert check_document("live", doc).findings == []
    first, last = _decides(doc)[0], _decides(doc)[-1]
    dropped = live_hands.rechained(doc, seating, identities, last, lambda messages: messages.pop(last))
    changed = live_hands.rechained(doc, seating, identities, first, _another_decision(first))
    for bad in (dropped, changed):
        findings = check_document("live", bad).findings
        assert [(party, check) for party, check, _ in findings] == [("record", "decisions")], findings
    assert "the seats signed" in check_document("live", changed).findings[0][2]


def test_a_transcript_without_signed_decisions_stays_valid() -> None:
    """The simulation's transcripts (and every file written before decisions were signed) carry none: the record
    statements vouch for the decisions there, as before."""
    doc, seating, identities = live_hands.live_transcript("austrian", 3, 2)
    decides = [index for index, message in enumerate(doc["messages"]) if message["kind"] == "decide"]

    def strip(messages: list[dict[str, Any]]) -> None:
        for index in reversed(decides):
            messages.pop(index)

    bare = live_hands.rechained(doc, seating, identities, decides[0], strip)
    assert check_document("live", bare).findings == []


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_change_to_the_signed_decisions_is_a_finding(signed_hand, data) -> None:
    """``decision_findings`` is exact: the signed decisions as the record has them give nothing; any of them
    dropped, doubled, moved, or given to another seat gives one ``record: decisions`` finding."""
    record, decided, spec = signed_hand
    assert decision_findings(record, spec.convention, spec.players, decided) == []
    changed = list(decided)
    index = data.draw(st.integers(0, len(changed) - 1))
    how = data.draw(st.sampled_from(["drop", "double", "move", "seat"]))
    if how == "drop":
        changed.pop(index)
    elif how == "double":
        changed.insert(index, changed[index])
    elif how == "move":
        to = data.draw(st.integers(0, len(changed) - 1))
        changed.insert(to, changed.pop(index))
        assume(changed != list(decided))
    else:
        player, decision = changed[index]
        changed[index] = (data.draw(st.sampled_from([p for p in spec.players if p != player])), decision)
    found = decision_findings(record, spec.convention, spec.players, changed)
    assert [(party, check) for party, check, _ in found] == [("record", "decisions")]


@pytest.fixture(scope="module")
def signed_hand():
    """A played Sochi hand's record and the decisions its seats signed, in order."""
    hand, seats, spec, _ = live_hand("sochi", 3, 4)
    play_through(hand, seats)
    record, _, _ = hand.record()
    return record, list(hand.protocol.decisions), spec


@pytest.mark.parametrize(
    ("decision", "error"),
    [
        ({}, "exactly one of 'action' and 'announce'"),
        ({"action": {"kind": "bid"}, "announce": None}, "exactly one of 'action' and 'announce'"),
        ({"action": 7}, "field 'kind' is missing or not a str"),
        ({"action": {"kind": "bid", "seat": 0, "token": "11S"}}, "is not a legal decision now"),
        ({"announce": {"no_aces": True}}, "decision: a game action"),
    ],
)
def test_a_decision_the_game_cannot_take_is_refused_and_changes_nothing(decision, error) -> None:
    """At the auction: a decision of no shape, of both kinds, not an action, an illegal bid, or a word on an
    announcement nobody asked for — refused with its reason, the host unchanged."""
    hand, seats, _, _ = live_hand("sochi", 3, 0)
    while (due := hand.due()).step != ACT:
        relay(hand, seats, due, seats[due.player].answer(due))
    head, count = hand.protocol.head, len(hand.messages)
    message = dict(decide_message(due.player, decision), prev=head)
    with pytest.raises(FairdealError, match=re.escape(error)):
        hand.message(seal_message(seats[due.player].identity, hand.seating, 1, message))
    assert (hand.protocol.head, len(hand.messages)) == (head, count)


def test_a_decision_is_signed_only_between_the_deal_and_the_reveal() -> None:
    """Before the deal is out the protocol fixes every sender, after the reveal only discards are opened (or the
    hand is over): a decision there is refused by the protocol itself, whoever would judge the game."""
    hand, seats, _, _ = live_hand("sochi", 3, 0)
    protocol = hand.protocol
    decision = {"step": "decide", "player": "ann", "action": {"kind": "bid", "seat": 0, "token": "pass"}}
    with pytest.raises(MentalPokerError, match="out of turn"):
        protocol.snapshot().apply(dict(decision, prev=protocol.head), check_proofs=False)
    while not protocol.revealed:
        due = hand.due()
        relay(hand, seats, due, seats[due.player].answer(due))
    with pytest.raises(MentalPokerError, match=r"discard-open|the hand is over"):
        protocol.snapshot().apply(dict(decision, prev=protocol.head), check_proofs=False)
