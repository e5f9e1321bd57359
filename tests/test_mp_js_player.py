"""The JavaScript mental-poker player (fairdeal/web/mental_poker/player.js) seated at a Python table under Node
(fairdeal/web/mental_poker/node_player.py): whole hands with one JavaScript seat and with every seat in
JavaScript, on every kind of table, verified by `fairdeal verify` and by the Node verifier; its statements are the
Python ones byte for byte; it shows no share of its own cards before it plays them; and against hostile Python
parties it refuses exactly where, and with the check, a Python seat refuses."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.errors import MentalPokerError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.player import HandRefused, Player
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.signing import seal_message
from fairdeal.protocols.mental_poker.source import MentalPokerSource, dealt_seats, hand_setup
from fairdeal.protocols.mental_poker.statements import sign_record
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import verify_documents, verify_log
from fairdeal.systems import get_convention
from fairdeal.web.mental_poker.node_player import NodePlayer, NodeSeat, NodeSeatedSource

NODE = shutil.which("node")
ROOT = Path(__file__).parent.parent
BIN = ROOT / "fairdeal" / "web" / "bin" / "verify-mental-poker.cjs"
PAGE_RUNNER = Path(__file__).parent / "js" / "run_verifier_page.cjs"
NAMES = ("ann", "bob", "cyd", "dan", "eve")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is needed to run the JavaScript player")

# Sochi at three; Croatian, whose passer sits the hand out; two players (Hussar: two talons, each defender's own);
# four and five, where the dealer (and one more) sit out and hold no key.
TABLES = [("sochi", 3), ("croatian", 3), ("hussar", 2), ("leningrad", 4), ("rostov", 5)]


@contextmanager
def seats(page: Path, names: Sequence[str]) -> Iterator[list[NodeSeat]]:
    made = [NodeSeat(name, os.urandom(32), page) for name in names]
    try:
        yield made
    finally:
        for seat in made:
            seat.close()


def evening(
    system: str, names: Sequence[str], js: Sequence[NodeSeat], out: Path, hands: int = 1
) -> tuple[NodeSeatedSource, Path]:
    convention = get_convention(system)
    source = NodeSeatedSource(TableSpec("club", f"{system}-js", hands, tuple(names), convention), js)
    log = out / "evening.log"
    play_match(convention, tuple(names), [HeuristicBot() for _ in names], source=source, max_hands=hands, log=log)
    return source, log


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


@pytest.mark.parametrize("everyone", [False, True], ids=["one-js", "all-js"])
@pytest.mark.parametrize(("system", "players"), TABLES)
def test_javascript_seats_play_whole_hands_that_both_verifiers_accept(
    page: Path, tmp_path: Path, system: str, players: int, everyone: bool
) -> None:
    names = NAMES[:players]
    spec = TableSpec("club", "x", 1, names, get_convention(system))
    first = names[dealt_seats(spec, 0)[0]]  # dealt the first hand
    with seats(page, names if everyone else [first]) as js:
        source, log = evening(system, names, js, tmp_path)
        head = next(seat for seat in js if seat.name == first).request("head")
    (doc,) = source.transcripts
    assert doc["state"] == "complete"
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]
    files = sorted((tmp_path / "evening.log.transcripts").glob("hand-*.json"))
    done = node_verdict(page, files)
    assert done.returncode == 0, done.stdout + done.stderr
    assert page_report(page, [log, *files, tmp_path / "evening.log.transcripts" / "settlement.json"])["ok"]
    # The JavaScript seats sent every kind of step the hand called for, and the chain head they hold is the last
    # message's: they saw and checked the whole hand.
    kinds = {m["kind"] for name in (names if everyone else [first]) for m in senders(doc, name)}
    assert {"keys", "shuffle", "deal", "reveal"} <= kinds
    assert head == signed.parse(doc["messages"][-1]).digest


def test_the_javascript_statements_are_the_python_ones_byte_for_byte(page: Path, tmp_path: Path) -> None:
    """Ed25519 is deterministic: the record statement and the settlement the JS seat signs are exactly what the
    Python code signs with the same key, so either side can make them."""
    with seats(page, ["bob"]) as js:
        source, log = evening("sochi", NAMES[:3], js, tmp_path, hands=2)
        key = js[0].identity
    assert source.seating is not None
    for doc in source.transcripts:
        head = signed.parse(doc["messages"][-1]).digest
        mine = doc["statements"][NAMES.index("bob")]
        assert mine == sign_record(key, source.seating, doc["hand"], doc["record"], head)
        assert signed.parse(mine).body["agrees"] is True
    settlement = json.loads((tmp_path / "evening.log.transcripts" / "settlement.json").read_text())
    python = MentalPokerSource(source.spec, identities=source.identities)
    python.transcripts, python._previous = source.transcripts, source._previous
    amounts = json.loads(log.read_text().splitlines()[-1])["settlement"]
    expected = python.close_session([amounts[name] for name in NAMES[:3]])
    assert expected is not None
    assert settlement["statements"][1] == expected["statements"][1]


def test_the_javascript_seat_shows_no_share_of_its_cards_before_it_plays_them(page: Path, tmp_path: Path) -> None:
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
            if before_reveal and message["kind"] != "play":
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


class BadProof(Player):
    """Sends a deal whose shares are swapped: the equal-logarithms proof no longer holds; signed by himself."""

    def deal(self) -> dict[str, Any]:
        message = super().deal()
        body = message["body"]
        body["shares"][0]["share"], body["shares"][1]["share"] = body["shares"][1]["share"], body["shares"][0]["share"]
        assert self.seating is not None and self._identity is not None
        ctx = self.seating.context(self.setup.context.hand)
        return signed.seal(self._identity, ctx, message["sender"], "deal", body, message["prev"]).to_json()


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
    ("a bad proof", BadProof, "ann", 1, by_signer),
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
