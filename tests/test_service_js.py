"""The browser's Player role (fairdeal/web/static/protocol.js) run under Node against the Python v4 parties: for
every registered system and table size, a session whose every seat is the browser code is dealt by the Python
``Service``, each JS message is byte-identical to the Python ``Player``'s for the same key and seed (Ed25519 is
deterministic), and the transcripts and the settlement pass the Python v4 checker with pinned identities."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.engine.system import get_system, registered
from fairdeal.protocols.canonical import context, encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4 import source as source_module
from fairdeal.protocols.commit_reveal4.check import Pins
from fairdeal.protocols.commit_reveal4.parties import Player
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.signed import Envelope, parse
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import verify_documents

WEB = Path(__file__).resolve().parent.parent / "fairdeal" / "web" / "static"
CELLS = [(s.name, n) for s in registered() for n in s.players]

# One JSON request per line, one JSON answer per line; players are kept by id.
SCRIPT = """
import * as p from %s;
import readline from 'node:readline';
const players = {};
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const q = JSON.parse(line);
  let out = null;
  try {
    if (q.op === 'canonical') out = { text: p.canonicalJson(q.value) };
    else if (q.op === 'context') {
      const parts = q.parts.map((x) => (x !== null && typeof x === 'object' ? Buffer.from(x.b, 'hex') : x));
      out = { hex: Buffer.from(p.context(...parts)).toString('hex') };
    }
    else if (q.op === 'keyfile') out = q.text ? { read: p.readKeyFile(q.text) } : { text: p.keyFile(q.secret, q.name) };
    else if (q.op === 'new') { players[q.id] = new p.Player(q.seat, q.secret, q.roster, q.deck); out = {}; }
    else {
      const pl = players[q.id];
      pl.absorb(q.news || []);
      if (q.op === 'absorb') out = {};
      else if (q.op === 'roster-sign') out = { signature: pl.signRoster(q.name) };
      else if (q.op === 'accept') out = pl.acceptSession(q.roster);
      else if (q.op === 'commit') out = pl.commit(q.hand, q.seeds[pl.currentAttempt(q.hand)]);
      else if (q.op === 'reveal') out = pl.reveal(q.hand, q.seeds[pl.currentAttempt(q.hand)]);
      else if (q.op === 'countersign') out = pl.countersign(q.hand, null);
      else if (q.op === 'settle') out = pl.signSettlement();
    }
  } catch (e) { out = { error: String(e.message || e), check: e.check }; }
  console.log(JSON.stringify(out));
}
"""

Ask = Callable[[dict[str, Any]], Any]


@pytest.fixture(scope="module")
def node() -> Any:
    if shutil.which("node") is None or not (WEB / "vendor" / "curves" / "ed25519.js").exists():
        pytest.fail("node and the built web assets are needed (make builds them from the lockfile)")
    script = SCRIPT % json.dumps((WEB / "protocol.js").as_uri())
    process = subprocess.Popen(
        ["node", "--input-type=module", "-e", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=WEB.parent,
    )
    assert process.stdin is not None and process.stdout is not None

    def ask(request: dict[str, Any]) -> Any:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    yield ask
    process.stdin.close()
    process.wait(timeout=10)


def fixed(label: str) -> bytes:
    return hashlib.sha256(label.encode("utf-8")).digest()


class Twin(Player):
    """A seat answered by the browser code; each answer is checked byte for byte against the Python player's."""

    def __init__(self, node: Ask, seat: int, key: IdentityKey, roster: Any, deck: str, seeds: Any):
        super().__init__(seat, key, roster, seeds)
        self.node, self.id = node, f"{roster.table}/{seat}"
        node(
            {
                "op": "new",
                "id": self.id,
                "seat": seat,
                "secret": fixed_key_hex(key),
                "roster": roster.to_json(),
                "deck": deck,
            }
        )
        self.answers: list[dict[str, Any]] = []

    def _ask(self, op: str, shown: Sequence[Envelope], python: Envelope, **extra: Any) -> Envelope:
        news = [e.to_json() for e in shown if e.sender != self.seat]
        answer = self.node({"op": op, "id": self.id, "news": news, **extra})
        assert answer == python.to_json(), (op, answer)
        self.node({"op": "absorb", "id": self.id, "news": [answer]})
        self.answers.append(answer)
        return parse(answer)

    def _seeds(self, hand: int) -> list[str]:
        return [self._seed_source(hand, attempt).hex() for attempt in range(3)]

    def accept_session(self, shown: Sequence[Envelope]) -> Envelope:
        python = super().accept_session(shown)
        return self._ask("accept", shown, python, roster=self.roster.to_json())

    def commit(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        python = super().commit(hand, shown, deadline)
        return self._ask("commit", shown, python, hand=hand, seeds=self._seeds(hand))

    def reveal(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        python = super().reveal(hand, shown, deadline)
        return self._ask("reveal", shown, python, hand=hand, seeds=self._seeds(hand))

    def countersign(self, hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        return self._ask("countersign", shown, super().countersign(hand, shown, deadline), hand=hand)

    def sign_settlement(self, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        return self._ask("settle", shown, super().sign_settlement(shown, deadline))


_SEEDS: dict[str, bytes] = {}


def fixed_key(label: str) -> IdentityKey:
    seed = fixed(label)
    key = IdentityKey.from_seed(seed, label)
    _SEEDS[key.public.hex] = seed
    return key


def fixed_key_hex(key: IdentityKey) -> str:
    return _SEEDS[key.public.hex].hex()


def _session(
    node: Ask, monkeypatch: pytest.MonkeyPatch, system: str, seats: int, hands: int = 2
) -> tuple[CommitRevealSource4, list[Twin]]:
    """A session opened with every seat answered by the browser code (twinned with the Python player)."""
    convention = get_system(system).convention
    names = tuple(f"игрок-{s}" if s % 2 else f"player {s}" for s in range(seats))
    spec = TableSpec(f"t-{system}-{seats}", "pulya", hands, names, convention)
    keys = [fixed_key(f"{system}/{seats}/{s}") for s in range(seats)]

    def twin(seat: int, key: IdentityKey, roster: Any, seeds: Any) -> Twin:
        made = Twin(node, seat, key, roster, convention.table.deck, seeds)
        signature = node({"op": "roster-sign", "id": made.id, "name": names[seat]})["signature"]
        assert bytes.fromhex(signature) == roster.seat_signatures[seat]  # the same roster signature
        return made

    monkeypatch.setattr(source_module, "Player", twin)
    source = CommitRevealSource4(
        spec,
        fixed_key(f"{system}/{seats}/service"),
        keys,
        fixed(f"{system}/tail"),
        [lambda hand, attempt, s=s: fixed(f"{system}/{s}/{hand}/{attempt}") for s in range(seats)],
        "2026-12-01T21:00:00Z",
    )
    return source, [p for p in source.players if isinstance(p, Twin)]


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_browser_seats_sign_what_python_signs_and_the_session_verifies(node, monkeypatch, cell):
    system, seats = cell
    source, twins = _session(node, monkeypatch, system, seats)
    docs = []
    for hand in (1, 2):
        source.deal(hand, (hand - 1) % seats)
        docs.append((f"hand {hand}", source.finish(hand)))
    docs.append(("settlement", source.close([Fraction(0)] * seats)))
    assert len(twins) == seats and all(len(t.answers) == 1 + 2 * 3 + 1 for t in twins)
    report = verify_documents(docs, replay_records=False, pins=Pins(source.roster, (), None))
    assert report.failures == ()


def test_an_aborted_attempt_is_dealt_again_and_the_browser_commits_afresh(node, monkeypatch):
    source, twins = _session(node, monkeypatch, "sochi", 3)
    answer = twins[2].commit
    calls = []

    def late(hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:
        """Sees the hand's messages but does not answer the first request."""
        calls.append(hand)
        if len(calls) > 1:
            return answer(hand, shown, deadline)
        # It reads what it is shown; the relay shows it all again with the next request (the browser's twin
        # reads it then, once).
        Player._accept_all(twins[2], shown, hand)
        return None

    monkeypatch.setattr(twins[2], "commit", late)
    source.deal(1, 0)
    doc = source.finish(1)
    kinds = [e["kind"] for e in doc["messages"]]
    assert kinds.count(m.ABORT) == 1 and kinds.count(m.HAND_OPEN) == 2
    assert verify_documents([("hand 1", doc)], replay_records=False).failures == ()


def test_the_browser_refuses_a_hand_open_off_the_chain_as_python_does(node, monkeypatch):
    source, twins = _session(node, monkeypatch, "sochi", 3)
    bad_open = source.service.send(1, m.HAND_OPEN, {"attempt": 0, "dealer": 0, "commitment": "ab" * 32, "beacon": None})
    refusal = twins[0].commit(1, source._news(twins[0]) + [bad_open])  # byte-identical to Python's refusal
    assert refusal.kind == m.REFUSAL and refusal.body["check"] == "commitment"


def test_the_browser_refuses_a_forged_or_misplaced_message(node, monkeypatch):
    source, twins = _session(node, monkeypatch, "sochi", 3)
    last = source._log[-1]
    forged = dict(last.to_json(), signature="00" * 64)
    assert node({"op": "absorb", "id": twins[0].id, "news": [forged]})["check"] == "signature"
    opened = source.service.open_hand(1, 0)
    replayed = [opened.to_json(), opened.to_json()]
    assert (
        node({"op": "absorb", "id": twins[1].id, "news": [e.to_json() for e in source._log[2:]] + replayed})["check"]
        == "chain link"
    )


def test_a_browser_key_file_is_the_cli_key_file(node, tmp_path):
    key = fixed_key("keyfile")
    path = tmp_path / "me.key"
    key.save(path)
    answer = node({"op": "keyfile", "secret": fixed_key_hex(key), "name": "keyfile"})
    assert answer["text"].encode("utf-8") == path.read_bytes()
    read = node({"op": "keyfile", "text": path.read_text(encoding="utf-8"), "secret": "", "name": ""})
    assert read["read"] == {"secret": fixed_key_hex(key), "key": key.public.hex, "name": "keyfile"}
    bad = path.read_text(encoding="utf-8").replace(key.public.hex, "00" * 32)
    assert "$.public" in node({"op": "keyfile", "text": bad, "secret": "", "name": ""})["error"]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=12,
)


@given(JSON_VALUES)
@settings(max_examples=150, deadline=None)
def test_canonical_json_is_byte_identical_to_python(node, value):
    assert node({"op": "canonical", "value": value})["text"].encode("utf-8") == encode(value)


@given(st.lists(st.text(max_size=8) | st.integers(-(2**53) + 1, 2**53 - 1) | st.binary(max_size=8), max_size=6))
@settings(max_examples=100, deadline=None)
def test_context_tuples_are_byte_identical_to_python(node, parts):
    wire = [{"b": p.hex()} if isinstance(p, bytes) else p for p in parts]
    assert node({"op": "context", "parts": wire})["hex"] == context(*parts).hex()


def _walk_away(source: CommitRevealSource4, twins: list[Twin], walker: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand 1 countersigned by all; in hand 2 seat ``walker`` never countersigns, so the evening ends."""
    answer = twins[walker].countersign
    monkeypatch.setattr(
        twins[walker], "countersign", lambda hand, shown, deadline=None: answer(hand, shown) if hand == 1 else None
    )
    source.deal(1, 0)
    source.finish(1)
    source.deal(2, 1)
    with pytest.raises(source_module.EveningEnded):
        source.finish(2)


def _charged_settlement(system: str, seats: int, charged: Sequence[int]) -> list[Fraction]:
    from fairdeal.engine.settlement import settle
    from fairdeal.engine.sheet import new_sheet
    from fairdeal.protocols.commit_reveal4.parties import end_penalty

    convention = get_system(system).convention
    return list(settle(new_sheet(convention, seats).apply(end_penalty(convention, seats, charged)), convention).amounts)


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_the_browser_checks_an_evenings_end_and_signs_its_settlement_as_python_does(node, monkeypatch, cell):
    """A seat walks away in hand 2: every other browser seat re-derives the end (the walker charged) from its own
    chain, its countersignature of hand 2 undone, and signs the settlement byte for byte as the Python player."""
    system, seats = cell
    source, twins = _session(node, monkeypatch, system, seats, hands=3)
    walker = seats - 1
    _walk_away(source, twins, walker, monkeypatch)
    assert source.ended is not None
    closing = source.close(_charged_settlement(system, seats, [walker]))
    kinds = [(e["sender"], e["kind"]) for e in closing["messages"]]
    assert kinds[:2] == [("service", m.END), ("service", m.SETTLEMENT)]
    assert kinds[2:] == [(s, m.SETTLEMENT_SIGN) for s in range(seats) if s != walker]
    assert all(t.answers[-1]["kind"] == m.SETTLEMENT_SIGN for t in twins if t.seat != walker)
    docs = [("hand 1", source.transcripts[0]), ("hand 2", source.ended), ("settlement", closing)]
    report = verify_documents(docs, replay_records=False, pins=Pins(source.roster, (), None))
    assert report.failures == (), [f.line() for f in report.failures]


def test_the_browser_refuses_an_end_that_charges_another_seat_as_python_does(node, monkeypatch):
    """The service charges seat 0 for seat 2's walk-away: the first seat asked (seat 1) refuses the end, naming the
    end it expected; the refusal is byte-identical to the Python player's."""
    source, twins = _session(node, monkeypatch, "sochi", 3, hands=3)
    monkeypatch.setattr(source_module, "end_charge", lambda roster, segment, judge: [0])
    _walk_away(source, twins, 2, monkeypatch)
    with pytest.raises(source_module.RefusedHand) as refused:
        source.close(_charged_settlement("sochi", 3, [0]))
    refusal = refused.value.document["messages"][-1]
    assert refusal["kind"] == m.REFUSAL and refusal["sender"] == 1 and refusal["body"]["check"] == "end"
    assert "the end should be {'hand': 2, 'step': 'record-sign', 'charged': [2]" in refusal["body"]["reason"]
    assert twins[1].answers[-1] == refusal


def test_the_browser_charges_a_refuser_without_cause_as_python_does(node, monkeypatch):
    """Seat 2 refuses hand 2's honest record with a false claim against seat 0: the other browser seats find
    nothing wrong in what it was shown, so they accept an end that charges the refuser, and sign."""
    source, twins = _session(node, monkeypatch, "sochi", 3, hands=3)
    framer = twins[2]

    def framing(hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope:
        if hand == 1:
            return Twin.countersign(framer, hand, shown)
        Player._accept_all(framer, shown, hand)
        reason = "player player 0: seed opening: the seed does not open the commitment"
        return Player.send(framer, hand, m.REFUSAL, {"step": m.RECORD_SIGN, "check": "seed opening", "reason": reason})

    monkeypatch.setattr(framer, "countersign", framing)
    source.deal(1, 0)
    source.finish(1)
    source.deal(2, 1)
    with pytest.raises(source_module.EveningEnded):
        source.finish(2)
    closing = source.close(_charged_settlement("sochi", 3, [2]))
    assert closing["messages"][0]["body"]["charged"] == [2] and closing["messages"][0]["body"]["step"] == m.REFUSAL
    assert [t.answers[-1]["kind"] for t in twins[:2]] == [m.SETTLEMENT_SIGN, m.SETTLEMENT_SIGN]


def _never_commits(
    source: CommitRevealSource4, twins: list[Twin], walker: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hand 1 played by all; in hand 2 seat ``walker`` commits to no seed in any attempt, so the evening ends."""
    answer = twins[walker].commit

    def absent(hand: int, shown: Sequence[Envelope], deadline: float | None = None) -> Envelope | None:
        if hand == 1:
            return answer(hand, shown, deadline)
        Player._accept_all(twins[walker], shown, hand)
        return None

    monkeypatch.setattr(twins[walker], "commit", absent)
    source.deal(1, 0)
    source.finish(1)
    with pytest.raises(source_module.EveningEnded):
        source.deal(2, 1)


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_the_browser_checks_an_end_after_three_aborts_and_signs_as_python_does(node, monkeypatch, cell):
    """A seat walks away from every attempt of hand 2's opening: every other browser seat re-derives the end (the
    walker charged once per abort) from its own chain and signs the settlement byte for byte as the Python player."""
    system, seats = cell
    source, twins = _session(node, monkeypatch, system, seats, hands=3)
    walker = seats - 1
    _never_commits(source, twins, walker, monkeypatch)
    closing = source.close(_charged_settlement(system, seats, [walker] * 3))
    end = closing["messages"][0]["body"]
    assert (end["step"], end["charged"]) == (m.ABORT, [walker] * 3)
    assert [e["sender"] for e in closing["messages"][2:]] == [s for s in range(seats) if s != walker]
    assert all(t.answers[-1]["kind"] == m.SETTLEMENT_SIGN for t in twins if t.seat != walker)
    docs = [("hand 1", source.transcripts[0]), ("hand 2", source.ended), ("settlement", closing)]
    report = verify_documents(docs, replay_records=False, pins=Pins(source.roster, (), None))
    assert report.failures == (), [f.line() for f in report.failures]


def test_the_browser_refuses_an_abort_end_too_early_or_charging_another_seat_as_python_does(node, monkeypatch):
    """An end after one abort (the hand is dealt again, not ended) and an end charging seat 0 for seat 2's aborts:
    the first seat asked refuses it, byte-identical to the Python player's refusal."""
    source, twins = _session(node, monkeypatch, "sochi", 3, hands=3)
    monkeypatch.setattr(source_module, "MAX_ATTEMPTS", 1)
    _never_commits(source, twins, 2, monkeypatch)
    with pytest.raises(source_module.RefusedHand) as refused:
        source.close(_charged_settlement("sochi", 3, [2]))
    refusal = refused.value.document["messages"][-1]
    assert (refusal["sender"], refusal["body"]["check"]) == (0, "end") and "dealt again" in refusal["body"]["reason"]
    assert twins[0].answers[-1] == refusal
    monkeypatch.undo()
    source, twins = _session(node, monkeypatch, "sochi", 3, hands=3)
    monkeypatch.setattr(source_module, "end_charge", lambda roster, messages, judge: [0, 0, 0])
    _never_commits(source, twins, 2, monkeypatch)
    with pytest.raises(source_module.RefusedHand) as refused:
        source.close(_charged_settlement("sochi", 3, [0, 0, 0]))
    refusal = refused.value.document["messages"][-1]
    assert refusal["sender"] == 1 and refusal["body"]["check"] == "end"
    assert "the end should be {'hand': 2, 'step': 'abort', 'charged': [2, 2, 2]" in refusal["body"]["reason"]
    assert twins[1].answers[-1] == refusal
