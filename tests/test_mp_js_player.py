"""The JavaScript mental-poker player (fairdeal/web/mental_poker/player.js) seated at a Python table under Node
(fairdeal/web/mental_poker/node_player.py): whole hands with one JavaScript seat and with every seat in
JavaScript, on every kind of table, verified by `fairdeal verify` and by the Node verifier; its statements are the
Python ones byte for byte; it shows no share of its own cards before it plays them or the rules lay them open; and
against hostile Python parties it refuses exactly where, and with the check, a Python seat refuses."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mental_poker_parties import SwappedShares

from fairdeal.cards import DeckKind, from_ascii_list
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.deal_source import Plays, ShuffledDeckSource
from fairdeal.engine.match import MatchResult, play_match
from fairdeal.errors import MentalPokerError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import decode
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.events import engine_plays
from fairdeal.protocols.mental_poker.player import HandRefused, Player, Table, Unresponsive
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.settling import settlement_objection
from fairdeal.protocols.mental_poker.signing import Seating, seal_message
from fairdeal.protocols.mental_poker.source import MentalPokerSource, dealt_seats, hand_setup
from fairdeal.protocols.mental_poker.statements import settlement_proposal, sign_record, sign_settlement
from fairdeal.protocols.mental_poker.tamper import leaves, mutate, with_field_changed
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import transcript_bytes, transcript_hash
from fairdeal.protocols.verify import verify_documents, verify_log
from fairdeal.systems import get_convention
from fairdeal.web.mental_poker.node_player import NodePlayer, NodePlayerError, NodeSeat, NodeSeatedSource

NODE = shutil.which("node")
ROOT = Path(__file__).parent.parent
BIN = ROOT / "fairdeal" / "web" / "bin" / "verify-mental-poker.cjs"
PAGE_RUNNER = Path(__file__).parent / "js" / "run_verifier_page.cjs"
NAMES = ("ann", "bob", "cyd", "dan", "eve")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is needed to run the JavaScript player")

# Sochi at three; Croatian, whose passer sits the hand out (a deal where he does: below); two players (Hussar:
# two talons, each defender's own); four and five, where the dealer (and one more) sit out and hold no key.
TABLES = [("sochi", 3), ("croatian", 3), ("hussar", 2), ("leningrad", 4), ("rostov", 5)]
# The other two-player deals, with one JS seat: Gusarik's dummy, and the hand the 19th century lays aside.
CASES = [
    *[(system, players, everyone) for system, players in TABLES for everyone in (False, True)],
    ("gusarik-sochi", 2, False),
    ("preferans-1800s", 2, False),
]
# Croatian's first hand with the shuffles these seeds choose: bob declares, cyd whists, ann passes and sits out.
PASSER_SEED, PASSER = 23, "ann"


def chosen_shuffles(seed: int, names: Sequence[str]) -> dict[str, Callable[[int], list[int]]]:
    """Each seat's shuffles drawn from its own seeded generator: the deal is fixed, the secrets are not."""
    drawn = {name: random.Random(f"{seed}/{name}") for name in names}
    return {name: (lambda size, rng=drawn[name]: rng.sample(range(size), size)) for name in names}


def evening_seed() -> int:
    """The seed of a random evening's shuffles: printed, so a failure names it, and ``FAIRDEAL_MP_SEED=<seed>``
    plays that very deal again (the keys and the encryption's randomness change; the cards and the play do not)."""
    chosen = os.environ.get("FAIRDEAL_MP_SEED")
    seed = int(chosen) if chosen else random.SystemRandom().randrange(2**32)
    print(f"FAIRDEAL_MP_SEED={seed}")
    return seed


def dealing(spec: TableSpec, deck: str) -> dict[str, Callable[[int], list[int]]]:
    """Shuffles that deal the first hand from ``deck``: the first seat to shuffle puts the open deck (the codes
    in order) into that order, output position i taking input card pi[i], and the others leave it as it is."""
    codes = [int(code) for code in DeckKind(spec.convention.table.deck).codes()]
    pi = [codes.index(int(code)) for code in from_ascii_list(deck.split())]
    first = spec.players[dealt_seats(spec, 0)[0]]
    return {name: (lambda size, keep=name != first: list(range(size)) if keep else pi) for name in spec.players}


@contextmanager
def seats(
    page: Path, names: Sequence[str], shuffles: dict[str, Callable[[int], list[int]]] | None = None
) -> Iterator[list[NodeSeat]]:
    chosen = shuffles or {}
    made = [NodeSeat(name, os.urandom(32), page, permutation=chosen.get(name), engine_host=True) for name in names]
    try:
        yield made
    finally:
        for seat in made:
            seat.close()


def evening(
    system: str, names: Sequence[str], js: Sequence[NodeSeat], out: Path, hands: int = 1
) -> tuple[NodeSeatedSource, Path]:
    source, log, _ = played(system, names, js, out, hands)
    return source, log


def played(
    system: str,
    names: Sequence[str],
    js: Sequence[NodeSeat],
    out: Path,
    hands: int = 1,
    shuffles: dict[str, Callable[[int], list[int]]] | None = None,
) -> tuple[NodeSeatedSource, Path, MatchResult]:
    convention = get_convention(system)
    spec = TableSpec("club", f"{system}-js", hands, tuple(names), convention)
    source = NodeSeatedSource(spec, js, permutations=shuffles)
    log = out / "evening.log"
    bots = [HeuristicBot() for _ in names]
    result = play_match(convention, tuple(names), bots, source=source, max_hands=hands, log=log)
    return source, log, result


def node_verdict(page: Path, files: Sequence[Path]) -> subprocess.CompletedProcess[str]:
    assert NODE is not None
    args = [NODE, str(BIN), "--page", str(page), *map(str, files)]
    return subprocess.run(args, capture_output=True, text=True, timeout=600)


def page_report(page: Path, files: Sequence[Path]) -> Any:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(PAGE_RUNNER), str(page), *map(str, files)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def senders(doc: dict[str, Any], name: str) -> list[dict[str, Any]]:
    seat = doc["players"].index(name)
    return [m for m in doc["messages"] if m["sender"] == seat]


def _verified_everywhere(page: Path, log: Path, tmp_path: Path) -> None:
    """The evening verifies in Python (``verify --log``), under the Node verifier and on the offline page."""
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]
    files = sorted((tmp_path / "evening.log.transcripts").glob("hand-*.json"))
    done = node_verdict(page, files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert page_report(page, [log, *files, tmp_path / "evening.log.transcripts" / "settlement.json"])["ok"]


@pytest.mark.parametrize(
    ("system", "players", "everyone"), CASES, ids=[f"{s}-{n}-{'all' if e else 'one'}-js" for s, n, e in CASES]
)
def test_javascript_seats_play_whole_hands_that_both_verifiers_accept(
    page: Path, tmp_path: Path, system: str, players: int, everyone: bool
) -> None:
    names = NAMES[:players]
    spec = TableSpec("club", "x", 1, names, get_convention(system))
    first = names[dealt_seats(spec, 0)[0]]  # dealt the first hand
    shuffles = chosen_shuffles(evening_seed(), names)
    with seats(page, names if everyone else [first], shuffles) as js:
        source, log, _ = played(system, names, js, tmp_path, shuffles=shuffles)
        head = next(seat for seat in js if seat.name == first).request("head")
    (doc,) = source.transcripts
    assert doc["state"] == "complete"
    _verified_everywhere(page, log, tmp_path)
    # The JavaScript seats sent every kind of step the hand called for, and the chain head they hold is the last
    # message's: they saw and checked the whole hand.
    kinds = {m["kind"] for name in (names if everyone else [first]) for m in senders(doc, name)}
    assert {"keys", "shuffle", "deal", "reveal"} <= kinds
    assert head == signed.parse(doc["messages"][-1]).digest


@pytest.mark.parametrize("everyone", [False, True], ids=["passer-js", "all-js"])
def test_a_croatian_passer_who_sits_out_is_a_javascript_seat(page: Path, tmp_path: Path, everyone: bool) -> None:
    """The passer holds a key share, shuffles, deals and reveals, plays no card, and signs the record."""
    names = NAMES[:3]
    shuffles = chosen_shuffles(PASSER_SEED, names)
    with seats(page, names if everyone else [PASSER], shuffles) as js:
        source, log, _ = played("croatian", names, js, tmp_path, shuffles=shuffles)
    (doc,) = source.transcripts
    plays = engine_plays(doc["record"], get_convention("croatian"), 3)
    assert plays is not None and {seat for trick in plays for seat, _ in trick} == {1, 2}
    kinds = [m["kind"] for m in senders(doc, PASSER)]
    assert "play" not in kinds and {"keys", "shuffle", "deal", "reveal"} <= set(kinds)
    assert signed.parse(doc["statements"][names.index(PASSER)]).body["agrees"] is True
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]
    files = sorted((tmp_path / "evening.log.transcripts").glob("hand-*.json"))
    assert node_verdict(page, files).returncode == 0


def test_the_javascript_statements_are_the_python_ones_byte_for_byte(page: Path, tmp_path: Path) -> None:
    """Ed25519 is deterministic: the record statement and the settlement the JS seat signs are exactly what the
    Python code signs with the same key, so either side can make them."""
    with seats(page, ["bob"]) as js:
        source, _, result = played("sochi", NAMES[:3], js, tmp_path, hands=2)
        key = js[0].identity
    assert source.seating is not None
    for doc in source.transcripts:
        head = signed.parse(doc["messages"][-1]).digest
        mine = doc["statements"][NAMES.index("bob")]
        assert mine == sign_record(key, source.seating, doc["hand"], doc["record"], head)
        assert signed.parse(mine).body["agrees"] is True
    settlement = json.loads((tmp_path / "evening.log.transcripts" / "settlement.json").read_text())
    python = MentalPokerSource(source.spec, identities=source.identities)
    python.seating, python.transcripts, python._previous = source.seating, source.transcripts, source._previous
    expected = python.close_session(result.settlement.amounts)
    assert expected is not None
    assert settlement["statements"][1] == expected["statements"][1]


# Rostov at five, dealer ann: cyd makes 8H and the half-responsible whisters bob and dan each write 3/2 in the
# gora (the deal np.random.default_rng(112) shuffles; about one random deal in 300 gives a fraction).
HALF_WHIST_DECK = "KS 7C AH KD 9H JC JH KH 10D KC 8H AS 9D AC 10S 10C 9S AD 8C QH 9C 8D 10H 7S QS 8S QC 7H JD QD JS 7D"


class RecordedDeck(ShuffledDeckSource):
    """The recorded deck order, keeping the game record the match hands the source."""

    def finish(self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None) -> dict[str, Any]:
        self.record = dict(record or {})
        return super().finish(hand, record, plays)


def test_a_half_whist_is_exact_text_in_the_transcript_and_the_javascript_seat_signs_its_settlement(
    page: Path,
) -> None:
    """A fractional score point (the log's 1.5) goes into the v4 transcript as "3/2": the file is strict
    canonical JSON, and the JavaScript seat hashes it to the same last transcript and signs the settlement byte
    for byte as Python does (a float there once made it fail with "$: not a JSON value")."""
    convention = get_convention("rostov")
    dealt = RecordedDeck(orders=[from_ascii_list(HALF_WHIST_DECK.split())])
    result = play_match(convention, NAMES, [HeuristicBot() for _ in NAMES], source=dealt, max_hands=1)
    assert [line["points"] for line in dealt.record["score"]] == [6, 1.5, 1.5]
    spec = TableSpec("club", "half-whist", 1, NAMES, convention)
    with seats(page, ["bob"]) as js:
        source = NodeSeatedSource(spec, js)
        assert source.seating is not None
        head = hashlib.sha256(b"the hand's last message").hexdigest()
        statements = [
            js[0].sign_record(1, dealt.record, head)
            if name == "bob"
            else sign_record(source.identities[name], source.seating, 1, dealt.record, head)
            for name in NAMES
        ]
        doc = source.document(1, 0, [], dealt.record, from_ascii_list(HALF_WHIST_DECK.split()), statements)
        assert [line["points"] for line in doc["record"]["score"]] == [6, "3/2", "3/2"]
        assert decode(transcript_bytes(doc)) == doc
        closing = source.close_session(result.settlement.amounts)
    assert closing is not None and source.refusals == []
    proposal = settlement_proposal(source.seating, 1, transcript_hash(doc), result.settlement.amounts)
    assert closing["statements"][NAMES.index("bob")] == sign_settlement(js[0].identity, source.seating, proposal)


def test_a_half_whist_evening_is_verified_by_fairdeal_verify_the_node_verifier_and_the_page(
    page: Path, tmp_path: Path
) -> None:
    """The same deal played in full, the JavaScript seat the whister dan: every verifier reads the exact text."""
    spec = TableSpec("club", "x", 1, NAMES, get_convention("rostov"))
    shuffles = dealing(spec, HALF_WHIST_DECK)
    with seats(page, ["dan"], shuffles) as js:
        source, log, _ = played("rostov", NAMES, js, tmp_path, shuffles=shuffles)
    (doc,) = source.transcripts
    assert [line["points"] for line in doc["record"]["score"]] == [6, "3/2", "3/2"]
    assert source.refusals == []
    _verified_everywhere(page, log, tmp_path)


def test_the_javascript_seat_shows_no_share_of_its_cards_before_it_plays_them_or_lays_them_open(
    page: Path, tmp_path: Path
) -> None:
    with seats(page, ["ann"]) as js:
        source, _ = evening("sochi", NAMES[:3], js, tmp_path, hands=3)
    for doc in source.transcripts:
        players = [doc["players"][(doc["dealer"] + 1 + i) % 3] for i in range(3)]
        assert source.seating is not None
        setup = hand_setup(source.spec, doc["hand"], doc["dealer"], source.seating, doc["attempt"])
        assert list(setup.players) == players
        own = set(setup.hand_positions("ann"))
        before_reveal = True
        for message in senders(doc, "ann"):
            body = message["body"]
            if message["kind"] == "reveal":
                before_reveal = False
            shown = {s["position"] for s in body.get("shares", [])} | {body[k] for k in ("position",) if k in body}
            if before_reveal and message["kind"] not in ("play", "open"):  # an open hand: the rules show it
                assert not shown & own, (doc["hand"], message["kind"])
            if message["kind"] == "deal":
                assert shown == set(setup.deal_positions("ann"))


def test_the_javascript_seat_will_not_play_what_it_does_not_hold(page: Path, tmp_path: Path) -> None:
    """Asked for a card that is not its own, or to open a discard it never made, it says so and sends nothing."""
    with seats(page, NAMES[:3]) as js:
        source = NodeSeatedSource(TableSpec("club", "x", 1, NAMES[:3], get_convention("sochi")), js)
        source.deal(1, 0)
        assert source._hand is not None
        table = source._hand[2]
        first = table.players[0]
        assert isinstance(first, NodePlayer)
        mine = set(first.hand())
        other = next(c for p in table.players[1:] for c in p.hand() if c not in mine)
        head = first.state.head
        with pytest.raises(MentalPokerError, match="is not among my cards"):
            first.play(other)
        with pytest.raises(MentalPokerError, match="has committed no discard"):
            first.open_discard()
        assert first._seat.request("head") == head == table.players[1].state.head


# ---- hostile Python parties -------------------------------------------------------------------------------------


class Replayer(Player):
    """Sends, in hand 2, the keys message he signed in hand 1."""

    kept: dict[str, dict[str, Any]] = {}  # noqa: RUF012 - shared across the hands' fresh player objects

    def keys(self) -> dict[str, Any]:
        message = super().keys()
        if self.setup.context.hand == 1:
            type(self).kept[self.name] = message
            return message
        return type(self).kept[self.name]


class FalseEnd(Player):
    """At his deal, claims instead that another seat walked away from its deal: a witnessed abandon that ends the
    hand, signed by himself, while the hand waits for him."""

    def deal(self) -> dict[str, Any]:
        assert self.seating is not None and self._identity is not None
        absent = next(p for p in self.setup.players if p != self.name)
        message = {"step": "abandon", "player": absent, "at": "deal", "witness": self.name, "prev": self.state.head}
        return seal_message(self._identity, self.seating, self.setup.context.hand, message)


def refusal_of(
    page: Path, hostile: type[Player], cheat: str, listener_in_js: bool, hands: int
) -> tuple[HandRefused, dict[str, Any]]:
    """The hand stopped by ``cheat`` (a ``hostile`` Python party); the first listener is JS or Python."""
    names = NAMES[:3]
    spec = TableSpec("club", "hostile", hands, names, get_convention("sochi"))
    dealer = hands - 1  # the dealer of the hand that stops; its seats are dealt from his left
    listener = next(n for n in (names[(dealer + 1 + i) % 3] for i in range(3)) if n != cheat)
    Replayer.kept = {}

    def make(setup: TableSetup, name: str) -> Player:
        return (hostile if name == cheat else Player)(setup, name)

    with seats(page, [listener] if listener_in_js else []) as js:
        if js:
            source: MentalPokerSource = NodeSeatedSource(spec, js)
            base = source._make_player
            source._make_player = lambda setup, name: make(setup, name) if name == cheat else base(setup, name)
        else:
            source = MentalPokerSource(spec, make_player=make)
        with pytest.raises(HandRefused) as caught:
            for hand in range(1, hands):
                source.deal(hand, hand - 1)
                source.finish(hand)
            source.deal(hands, dealer)
    assert caught.value.refuser == listener
    return caught.value, copy.deepcopy(source.transcripts[-1])


def by_signer(error: Exception) -> Any:
    """What a state-machine refusal names: the player at fault and his step."""
    return type(error), getattr(error, "player", None), getattr(error, "step", None)


def by_presenter(error: Exception) -> Any:
    """What an envelope refusal names: who presented it and the check."""
    return type(error), getattr(error, "party", None), getattr(error, "check", None)


HOSTILE: list[tuple[str, type[Player], str, int, Callable[[Exception], Any]]] = [
    ("a bad proof", SwappedShares, "ann", 1, by_signer),
    ("a replayed message", Replayer, "bob", 2, by_presenter),
    ("a false end", FalseEnd, "cyd", 1, by_signer),
]


@pytest.mark.parametrize(("label", "hostile", "cheat", "hands", "named"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_the_javascript_seat_refuses_where_a_python_seat_refuses(
    page: Path, label: str, hostile: type[Player], cheat: str, hands: int, named: Callable[[Exception], Any]
) -> None:
    js, js_doc = refusal_of(page, hostile, cheat, True, hands)
    py, py_doc = refusal_of(page, hostile, cheat, False, hands)
    assert isinstance(js.error, (MentalPokerError, SignedMessageError))
    assert named(js.error) == named(py.error), label
    assert str(js.error) == str(py.error)
    assert js.refusal is not None and py.refusal is not None
    js_body, py_body = signed.parse(js.refusal).body, signed.parse(py.refusal).body
    assert (js_body["check"], js_body["reason"]) == (py_body["check"], py_body["reason"])
    assert js_body["refused"] == signed.parse(js.shown).digest
    # The filed hand is judged alike: the cheat (or the relay, for what nobody signed here) named, not the refuser.
    js_found = [(f.party, f.check) for f in verify_documents([("hand", js_doc)]).failures]
    py_found = [(f.party, f.check) for f in verify_documents([("hand", py_doc)]).failures]
    assert js_found == py_found and js_found
    assert all(party != f"player {js.refuser}" for party, _ in js_found)


class StopsInHandTwo(Player):
    """Plays hand 1, then walks away at his first card of hand 2: the evening ends with one complete hand."""

    def play(self, card: int) -> Any:
        if self.setup.context.hand >= 2:
            raise Unresponsive()
        return super().play(card)


class RefusesInHandTwo(Player):
    """Plays hand 1, then refuses the sound deal of hand 2: a refusal without cause, which charges him."""

    def receive(self, message: Any) -> None:
        if self.setup.context.hand >= 2 and isinstance(message, dict) and message.get("kind") == "deal":
            raise MentalPokerError("I do not like these shares", None, "deal")
        super().receive(message)


ENDS = [("walk-away", StopsInHandTwo), ("refusal", RefusesInHandTwo)]


@contextmanager
def ended_evening(page: Path, tmp_path: Path, leaver: type[Player]) -> Iterator[tuple[NodeSeatedSource, NodeSeat]]:
    """A Sochi evening at three where bob (Python) ends the evening from hand 2 on (at the first hand he plays,
    for a walk-away) and cyd is a JavaScript seat."""
    with seats(page, ["cyd"]) as js:
        convention = get_convention("sochi")
        source = NodeSeatedSource(TableSpec("club", "end", 12, NAMES[:3], convention), js)
        base = source._make_player
        source._make_player = lambda setup, name: leaver(setup, name) if name == "bob" else base(setup, name)
        log = tmp_path / "evening.log"
        play_match(convention, NAMES[:3], [HeuristicBot() for _ in NAMES[:3]], source=source, max_hands=12, log=log)
        yield source, js[0]


def python_statement(source: MentalPokerSource, name: str, proposal: dict[str, Any]) -> dict[str, Any]:
    """What an honest Python seat signs for ``proposal`` at this point of ``source``'s evening."""
    assert source.seating is not None
    complete = [d for d in source.transcripts if d["state"] == "complete"]
    stopped = source.transcripts[-1] if source.end is not None else None
    players = source.spec.players
    objection = settlement_objection(source.spec.convention, players, complete, stopped, proposal)
    return sign_settlement(source.identities[name], source.seating, proposal, objection)


@pytest.mark.parametrize("leaver", [e[1] for e in ENDS], ids=[e[0] for e in ENDS])
def test_the_javascript_settlement_after_an_end_is_pythons(page: Path, tmp_path: Path, leaver: type[Player]) -> None:
    """After a real end the JS seat signs the settlement exactly as a Python seat does; shown a false end (the
    service charging ann) or a wrong hand count it signs the Python seat's refusal, byte for byte."""
    with ended_evening(page, tmp_path, leaver) as (source, seat):
        assert source.end is not None and source.end["charged"] == ["bob"] and source.refusals == []
        *complete, stopped = source.transcripts
        assert complete and all(d["state"] == "complete" for d in complete) and stopped["state"] != "complete"
        settlement = json.loads((tmp_path / "evening.log.transcripts" / "settlement.json").read_text())
        cyd = next(s for s in settlement["statements"] if s["sender"] == NAMES.index("cyd"))
        proposal = dict(signed.parse(cyd).body)
        assert proposal["end"] == source.end and proposal["hands"] == len(complete)
        assert cyd == python_statement(source, "cyd", proposal)

        source.end = dict(source.end, charged=["ann"])
        amounts = [Fraction(proposal["settlement"][name]) for name in NAMES[:3]]
        doc = source.close_session(amounts)
        assert doc is not None and source.refusals == ["bob", "cyd"]
        false_end = next(s for s in doc["statements"] if s["sender"] == NAMES.index("cyd"))
        assert false_end == python_statement(source, "cyd", dict(proposal, end=source.end))
        reason = signed.parse(false_end).body["reason"]
        hand = stopped["hand"]
        assert reason == (
            f"the end is {{'hand': {hand}, 'charged': ['ann']}}; "
            f"the stopped hand proves {{'hand': {hand}, 'charged': ['bob']}}"
        )
        source.end = dict(source.end, charged=["bob"])

        for wrong in (dict(proposal, hands=len(complete) + 1), dict(proposal, last="00" * 32)):
            refused = seat.sign_settlement(wrong, complete, stopped)
            assert refused == python_statement(source, "cyd", wrong)
            assert signed.parse(refused).body["reason"].startswith(f"the settlement closes {wrong['hands']} hand(s)")


def test_the_javascript_seat_checks_the_amounts_against_its_own_sheet_and_the_hands_shown(
    page: Path, tmp_path: Path
) -> None:
    """The JS seat replays the records it signed by the page's engine and signs the settlement only for its own
    sheet's amounts: amounts off the sheet (a unit moved between two seats, which still sums to zero and names the
    roster), amounts not summing to zero, not naming the roster or not exact get the Python seat's refusal, byte
    for byte. Transcripts that are not the hands whose records it signed are refused before that."""
    with ended_evening(page, tmp_path, StopsInHandTwo) as (source, seat):
        settlement = json.loads((tmp_path / "evening.log.transcripts" / "settlement.json").read_text())
        proposal = dict(signed.parse(settlement["statements"][-1]).body)
        *complete, stopped = source.transcripts
        paid = proposal["settlement"]

        def statement(put: dict[str, Any], shown: Sequence[dict[str, Any]] = complete) -> dict[str, Any]:
            made: dict[str, Any] = seat.sign_settlement(put, shown, stopped)
            return made

        assert statement(proposal) == python_statement(source, "cyd", proposal)
        assert "reason" not in signed.parse(statement(proposal)).body
        moved = dict(paid, ann=str(Fraction(paid["ann"]) + 1), bob=str(Fraction(paid["bob"]) - 1))
        renamed = {("zed" if name == "ann" else name): amount for name, amount in paid.items()}
        wrong = [moved, dict(paid, ann=str(Fraction(paid["ann"]) + 1)), renamed, dict(paid, ann="1.5")]
        for amounts in wrong:
            put = dict(proposal, settlement=amounts)
            refused = statement(put)
            assert refused == python_statement(source, "cyd", put), amounts
            assert signed.parse(refused).body["reason"].startswith("the amounts are not my sheet's {")
        assert "whose records I signed" in signed.parse(statement(proposal, [])).body["reason"]
        altered = copy.deepcopy(complete)
        altered[-1]["statements"][NAMES.index("cyd")] = altered[-1]["statements"][0]
        assert "whose records I signed" in signed.parse(statement(proposal, altered)).body["reason"]


PY_REPR = """
const fs = require('fs');
const vm = require('vm');
const [page, loader, player] = process.argv.slice(1);
require(loader).loadPage(page, (text) => { throw new Error(text); });
vm.runInThisContext(fs.readFileSync(player, 'utf8'));
const values = JSON.parse(fs.readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(values.map(globalThis.FairdealMP.player.pyRepr)));
"""
TEXT = st.text(st.characters(max_codepoint=0x7F), max_size=8)
# JavaScript lists an object's integer-like keys first, whatever their order: keys here start with a letter.
KEYS = st.from_regex(r"[a-z][\x00-\x7f]{0,6}", fullmatch=True)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=15, deadline=None)
@given(st.lists(JSON_VALUES, min_size=1, max_size=30))
def test_the_javascript_refusal_reasons_quote_values_as_python_does(page: Path, values: list[Any]) -> None:
    """A reason quotes the proposal's end and names with Python's repr(): JS must write the same text for any
    JSON value of ASCII text (objects' keys not integer-like), or a refusal both sides sign would differ."""
    assert NODE is not None
    web = ROOT / "fairdeal" / "web"
    loader, player = web / "bin" / "load_page.cjs", web / "mental_poker" / "player.js"
    done = subprocess.run(
        [NODE, "-e", PY_REPR, str(page), str(loader), str(player)],
        input=json.dumps(values),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [repr(value) for value in values]


def test_a_seat_at_a_real_table_never_gives_out_its_shares_of_the_hidden_cards(page: Path) -> None:
    names = NAMES[:3]
    seeds = {name: os.urandom(32) for name in names}
    keys = {name: IdentityKey.from_seed(seed, name) for name, seed in seeds.items()}
    source = MentalPokerSource(TableSpec("club", "real", 1, names, get_convention("sochi")), identities=keys)
    assert source.seating is not None
    with NodeSeat("ann", seeds["ann"], page) as seat:
        seat.sit(source.seating)
        setup = hand_setup(source.spec, 1, 0, source.seating, 1)
        players = [seat.player(setup) if n == "ann" else Player(setup, n) for n in setup.players]
        table = Table([p.sign_with(keys[p.name], source.seating) for p in players])
        table.deal()
        with pytest.raises(NodePlayerError, match="engine host"):
            table.by_name("ann").hidden_share_points()
        assert len(table.by_name("ann").hand()) == len(setup.hand_positions("ann"))


def test_the_bridge_reports_bad_requests_without_a_traceback(page: Path) -> None:
    with seats(page, ["ann"]) as (seat,):
        with pytest.raises(Exception, match="no seat"):
            seat.request("keys")
        with pytest.raises(Exception, match="unknown op"):
            seat.request("steal-secrets")
        spec = TableSpec("club", "x", 1, NAMES[:3], get_convention("sochi"))
        other = MentalPokerSource(spec, identities={name: IdentityKey.generate(name) for name in NAMES[:3]})
        assert other.seating is not None
        with pytest.raises(MentalPokerError, match="roster's key"):
            seat.sit(other.seating)


class WalksAway(Player):
    """Leaves the first attempt at his deal step; each evening's leaver is a fresh subclass."""

    walked = False

    def deal(self) -> dict[str, Any]:
        if not type(self).walked:
            type(self).walked = True
            raise Unresponsive()
        return super().deal()


def test_the_javascript_seat_witnesses_a_walk_away_and_plays_the_hand_dealt_again(page: Path, tmp_path: Path) -> None:
    """bob walks away from his deal; cyd, the next seat and a JS player, signs the abandon; the hand is dealt again
    (attempt 2, with new secrets on both sides) and both verifiers accept the evening, bob charged."""
    leaver = type("Leaver", (WalksAway,), {})
    with seats(page, ["cyd"]) as js:
        convention = get_convention("sochi")
        source = NodeSeatedSource(TableSpec("club", "walk", 1, NAMES[:3], convention), js)
        base = source._make_player
        source._make_player = lambda setup, name: leaver(setup, name) if name == "bob" else base(setup, name)
        log = tmp_path / "evening.log"
        play_match(convention, NAMES[:3], [HeuristicBot() for _ in NAMES[:3]], source=source, max_hands=1, log=log)
    (doc,) = source.transcripts
    assert doc["attempt"] == 2 and doc["state"] == "complete"
    (abandon,) = [m for m in doc["aborts"][0]["messages"] if m["kind"] == "abandon"]
    assert abandon["sender"] == NAMES.index("cyd") and abandon["body"] == {"at": "deal", "player": "bob"}
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]
    files = sorted((tmp_path / "evening.log.transcripts").glob("hand-*.json"))
    assert node_verdict(page, files).returncode == 0


def test_the_javascript_seat_refuses_to_sign_a_record_of_other_cards(page: Path, tmp_path: Path) -> None:
    with seats(page, ["bob"]) as js:
        source, _ = evening("sochi", NAMES[:3], js, tmp_path)
        (doc,) = source.transcripts
        record = copy.deepcopy(doc["record"])
        head = signed.parse(doc["messages"][-1]).digest
        tricks = [trick for trick in record["tricks"] if len(trick["cards"]) > 1]
        if not tricks:
            pytest.skip("a hand without a trick of two cards")
        tricks[0]["cards"].reverse()
        body = signed.parse(js[0].sign_record(1, record, head)).body
        assert body["agrees"] is False
        assert body["reason"] == "the record's cards are not the cards the messages proved, in the order played"
        tricks[0]["cards"][0] = "ZZ"
        body = signed.parse(js[0].sign_record(1, record, head)).body
        assert body["agrees"] is False and body["reason"].startswith("the record's tricks do not read: ")


def _lie(
    doc: dict[str, Any], index: int, keys: dict[str, IdentityKey], seating: Seating, rng: random.Random
) -> dict[str, Any]:
    """Message ``index`` with one body field changed and signed again by its own sender."""
    envelope = copy.deepcopy(doc["messages"][index])
    path = rng.choice(list(leaves(envelope["body"])))
    envelope["body"] = with_field_changed([envelope["body"]], 0, path, lambda old: mutate(old, rng))[0]
    key = keys[doc["players"][envelope["sender"]]]
    ctx = seating.context(doc["hand"])
    return signed.seal(key, ctx, envelope["sender"], envelope["kind"], envelope["body"], envelope["prev"]).to_json()


def _first_refusal(shown: Sequence[dict[str, Any]], receive: Callable[[dict[str, Any]], None]) -> Any:
    for index, message in enumerate(shown):
        try:
            receive(message)
        except (MentalPokerError, SignedMessageError) as error:
            check = getattr(error, "check", None) or getattr(error, "step", None)
            return index, type(error).__name__, str(error), check
    return None


def test_the_javascript_seat_refuses_every_tampered_message_as_a_python_seat_does(page: Path) -> None:
    """A Python-dealt hand shown to a JS seat and to a Python seat, one message tampered with each time — a lie
    its sender re-signed, a field changed under the old signature, a message left out, one shown twice: both
    refuse at the same message, with the same error and check."""
    names = NAMES[:3]
    seeds = {name: os.urandom(32) for name in names}
    keys = {name: IdentityKey.from_seed(seed, name) for name, seed in seeds.items()}
    source = MentalPokerSource(TableSpec("club", "tamper", 1, names, get_convention("sochi")), identities=keys)
    play_match(source.spec.convention, names, [HeuristicBot() for _ in names], source=source, max_hands=1)
    (doc,) = source.transcripts
    assert source.seating is not None
    setup = hand_setup(source.spec, 1, doc["dealer"], source.seating, 1)
    messages = doc["messages"]
    rng = random.Random(15)
    cases: list[list[dict[str, Any]]] = []
    for number in range(16):
        kind = number % 4
        # Dropping the last message only truncates the hand, which no listener can tell from a pause.
        index = rng.randrange(1, len(messages) - (kind == 2))
        if kind == 0:
            changed = _lie(doc, index, keys, source.seating, rng)
        elif kind == 1:
            changed = copy.deepcopy(messages[index])
            path = rng.choice(list(leaves(changed)))
            changed = with_field_changed([changed], 0, path, lambda old: mutate(old, rng))[0]
        elif kind == 2:
            cases.append([*messages[:index], *messages[index + 1 :]])
            continue
        else:
            changed = messages[rng.randrange(index)]
        cases.append([*messages[:index], changed, *messages[index + 1 :]])
    with NodeSeat("cyd", seeds["cyd"], page) as seat:
        seat.sit(source.seating)
        verdicts = []
        for shown in cases:
            js = seat.player(setup)
            js.sign_with(keys["cyd"], source.seating)
            python = Player(setup, "cyd").sign_with(keys["cyd"], source.seating)
            verdicts.append((_first_refusal(shown, js.receive), _first_refusal(shown, python.receive)))
    assert all(js == python for js, python in verdicts), [v for v in verdicts if v[0] != v[1]]
    assert all(js is not None for js, _ in verdicts)  # every tampered hand is refused
    assert {name for (_, name, _, _), _ in verdicts} == {"MentalPokerError", "SignedMessageError"}
