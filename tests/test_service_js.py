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
