"""The browser's Player role (fairdeal/web/static/protocol.js) run under Node: what it signs and commits is
accepted by the Python dealer service, and a whole hand dealt from its seeds verifies."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from fairdeal.cards import parse_cards
from fairdeal.engine.system import get_system
from fairdeal.protocols.commit_reveal import (
    DealerService,
    Player,
    SeedCommitment,
    TableSpec,
    session_statement,
    sign,
    signature_holds,
)
from fairdeal.protocols.deal_source import CommitRevealSource
from fairdeal.protocols.encoding import canonical_json
from fairdeal.protocols.transcript import build_transcript
from fairdeal.protocols.verify import verify_documents
from fairdeal.rules import SOCHI

WEB = Path(__file__).resolve().parent.parent / "fairdeal" / "web" / "static"

# Reads one JSON request per line; answers each with the browser's countersignature and seed commitments.
SCRIPT = """
import * as p from %s;
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const q = JSON.parse(line);
  if (q.op === 'canonical') { console.log(JSON.stringify({ text: p.canonicalJson(q.value) })); continue; }
  const pub = p.publicKey(q.secret);
  const check = p.checkSession(q.statement, q.service_signature, q.seat, q.name, pub);
  const out = { key: pub, check, countersign: p.sign(q.secret, q.statement), commits: [] };
  for (const h of q.hands) {
    out.commits.push(p.commitFor(q.secret, q.statement, h.hand, h.dealer, q.seat, h.commitment, h.seed));
  }
  console.log(JSON.stringify(out));
}
"""


@pytest.fixture(scope="module")
def node():
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

    def ask(request: dict) -> dict:
        process.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    yield ask
    process.stdin.close()
    process.wait(timeout=10)


class _Remote:
    """A seat whose key and seeds live in the (Node-run) browser code."""

    def __init__(self, node, seat: int, name: str, secret: str):
        self.node, self.seat, self.name, self.secret = node, seat, name, secret
        self.public_key = node(
            {
                "op": "keys",
                "secret": secret,
                "statement": {"players": []},
                "service_signature": "",
                "seat": 0,
                "name": "",
                "hands": [],
            }
        )["key"]

    def answer(self, statement: dict, service_signature: str, hands: list[dict]) -> dict:
        return self.node(
            {
                "secret": self.secret,
                "statement": statement,
                "service_signature": service_signature,
                "seat": self.seat,
                "name": self.name,
                "hands": hands,
            }
        )


def test_browser_commitments_are_accepted_and_the_hand_verifies(node):
    remotes = [_Remote(node, s, n, f"{s + 1:02x}" * 32) for s, n in enumerate(["Анна", "Boris", "Вера"])]
    spec = TableSpec("t-js", "pulya", 1, tuple(r.name for r in remotes), SOCHI)
    seeds = [f"{0x10 + s:02x}" * 32 for s in range(3)]

    class Proxy:
        def __init__(self, remote):
            self.name, self.seat, self.public_key, self.remote = remote.name, remote.seat, remote.public_key, remote

        def countersign(self, statement, service_signature):
            reply = self.remote.answer(
                statement,
                service_signature,
                [{"hand": 1, "dealer": 0, "commitment": commitment, "seed": seeds[self.seat]}],
            )
            assert reply["check"] is None
            self.commit = reply["commits"][0]
            return reply["countersign"]

        def signed_commitment(self) -> SeedCommitment:
            return SeedCommitment(self.seat, self.commit["statement"], self.commit["signature"])

    proxies = [Proxy(r) for r in remotes]
    service = DealerService(spec)
    commitment = service.commitment(1)
    session = service.open_session(proxies)
    assert all(signature_holds(p.public_key, session.statement, s) for p, s in zip(proxies, session.player_signatures))
    service.begin_hand(1, 0)
    for proxy in proxies:
        service.accept_commitment(proxy.signed_commitment())
    for proxy in proxies:
        service.accept_seed(proxy.seat, bytes.fromhex(seeds[proxy.seat]))
    service.deal()
    round_ = service.current_round()
    link = service.reveal()
    doc = build_transcript(session, round_, commitment, None, link)
    assert verify_documents([("js", doc)]).failures == ()


def test_a_tampered_roster_is_refused_by_the_browser(node):
    spec = TableSpec("t-js2", "pulya", 1, ("a", "b", "c"), SOCHI)
    remote = _Remote(node, 1, "b", "07" * 32)
    key = SigningKey.generate()
    statement = session_statement(spec, b"\x01" * 32, key.verify_key.encode().hex(), ["00" * 32, "11" * 32, "22" * 32])
    assert remote.answer(statement, sign(key, statement), [])["check"] == "the roster misstates my seat or key"
    assert "does not verify" in remote.answer(statement, "00" * 64, [])["check"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(json_values)
def test_canonical_json_is_byte_identical_to_python(node, value):
    try:
        expected = canonical_json(value).decode("utf-8")
    except Exception:
        return  # a lone surrogate: Python refuses it, as the spec says
    assert node({"op": "canonical", "value": value})["text"] == expected


CHECK = """
import * as p from %s;
import readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const q = JSON.parse(line);
  console.log(JSON.stringify({ problem: p.checkRevealed(q.doc, q.seat, q.seed, q.cards) }));
}
"""


@pytest.mark.parametrize("system", ["sochi", "hussar"])
def test_the_browser_rederives_a_revealed_deck_and_catches_a_swapped_one(system):
    convention = get_system(system).convention
    players = convention.players[0]
    names = tuple(f"p{s}" for s in range(players))
    spec = TableSpec("t-js3", "pulya", 1, names, convention)
    seats = [Player(n, s, seed_source=lambda hand, s=s: bytes([s + 1]) * 32) for s, n in enumerate(names)]
    source = CommitRevealSource(spec, players=seats)
    source.deal(1, 0)
    doc = source.finish(1)
    cards = [c.code for c in parse_cards(" ".join(doc["deal"]["hands"][1]))]
    script = CHECK % json.dumps((WEB / "protocol.js").as_uri())
    process = subprocess.Popen(
        ["node", "--input-type=module", "-e", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=WEB.parent,
    )
    swapped = json.loads(json.dumps(doc))
    swapped["deck_order"][0], swapped["deck_order"][1] = swapped["deck_order"][1], swapped["deck_order"][0]
    requests = [
        (doc, "02" * 32, cards),
        (swapped, "02" * 32, cards),
        (doc, "09" * 32, cards),
        (doc, "02" * 32, cards[:-1] + [cards[0]]),
    ]
    answers = []
    for d, seed, mine in requests:
        process.stdin.write(json.dumps({"doc": d, "seat": 1, "seed": seed, "cards": mine}) + "\n")
        process.stdin.flush()
        answers.append(json.loads(process.stdout.readline())["problem"])
    process.stdin.close()
    process.wait(timeout=10)
    assert answers[0] is None
    assert "not the one the seeds derive" in answers[1]
    assert "my seed is not" in answers[2]
    assert "cards I was dealt" in answers[3]
