"""The offline verifier page (fairdeal/web/verifier/): its JavaScript, run under Node from the built page itself,
against the protocol's test vectors, the canonical reader and ``fairdeal verify`` on evenings of every registered
system and table size, honest and mutated; JS and Python must agree on accept or reject for each."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fuzz_mutators import document_paths, replaced
from hypothesis import given, settings
from hypothesis import strategies as st
from signature_forgeries import small_order_commitment

from fairdeal.cli import SHORT_HELP, cli
from fairdeal.engine.system import conventions
from fairdeal.errors import CanonicalError, ProtocolError
from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.commit_reveal4.check import Pins
from fairdeal.protocols.commit_reveal4.parties import record_hash
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import Context, parse, seal
from fairdeal.protocols.verify import verify_log, verify_paths
from fairdeal.resources import protocol_file
from fairdeal.systems import get_convention
from fairdeal.web.verifier_page import embedded_registry, page_bytes, registry_data

RUNNER = Path(__file__).parent / "js" / "run_verifier_page.cjs"
NODE = shutil.which("node")
SEED = 11

pytestmark = pytest.mark.skipif(NODE is None, reason="node is needed to run the page's JavaScript")


def node(page: Path, *args: str) -> Any:
    assert NODE is not None
    done = subprocess.run([NODE, str(RUNNER), str(page), *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def run_batch(page: Path, tmp: Path, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    manifest = tmp / "cases.json"
    manifest.write_text(json.dumps(cases))
    return list(node(page, "--batch", str(manifest)))


# ---- the page itself --------------------------------------------------------------------------------------


def test_the_page_carries_the_registry_it_was_built_from() -> None:
    assert embedded_registry(page_bytes().decode("utf-8")) == registry_data(), "run make: the page is stale"


def test_the_page_is_self_contained() -> None:
    html = page_bytes().decode("utf-8")
    assert "default-src 'none'" in html  # no fetch, no image, nothing from the network
    assert "<script src" not in html and "import " not in html.split('<script id="verifier">')[1][:200]
    for slot in ("/*NOBLE*/", "/*VERIFIER*/", "/*PAGE*/", "/*REGISTRY*/"):
        assert slot not in html


def test_the_command_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "verifier.html"
    result = CliRunner().invoke(cli, ["verifier-page", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == page_bytes()
    again = CliRunner().invoke(cli, ["verifier-page", "--out", str(out)])
    assert again.exit_code != 0 and "already exists" in str(again.exception or again.output)
    assert SHORT_HELP["verifier-page"] == cli.get_command(None, "verifier-page").get_short_help_str(1000)  # type: ignore[arg-type,union-attr]


def test_the_service_serves_the_page(tmp_path: Path) -> None:
    server_class = importlib.import_module("service_helpers").Server  # the suite's helper, untyped

    with server_class(str(tmp_path / "fairdeal.db")) as server:
        shown = server.http.get("/verifier")
        saved = server.http.get("/verifier?download")
    assert shown.status_code == 200 and shown.content == page_bytes()
    assert shown.headers["content-type"].startswith("text/html")
    assert saved.headers["content-disposition"] == 'attachment; filename="fairdeal-verifier.html"'


# ---- test vectors and the canonical reader ----------------------------------------------------------------


def test_protocol_vectors(page: Path) -> None:
    files = sorted(protocol_file("vectors", "commit-reveal").glob("*.json"))
    results = node(page, *[arg for f in files for arg in ("--vector", str(f))])
    for path, got in zip(files, results):
        vector = json.loads(path.read_text())
        if "cases" in vector:
            assert got == [{"draws": c["draws"], "bytes_used": c["bytes_used"]} for c in vector["cases"]]
        else:
            expected = [{"deck_order": h["deck_order"], "deal": h["deal"]} for h in vector["hand_vectors"]]
            assert got == expected, path.name


def _python_decode(data: bytes) -> str | None:
    try:
        return encode(decode(data)).hex()
    except CanonicalError:
        return None


CANONICAL_SAMPLES = [
    b'{"a":1,"b":[true,false,null],"c":"\\u0001\\n\xc3\xa9"}',
    b'{"b":1,"a":2}',
    b'{"a":1,"a":1}',
    b"[1.0]",
    b"[1e3]",
    b"[-0]",
    b"[01]",
    b"[9223372036854775807]",
    b"[9223372036854775808]",
    b"[-9223372036854775807]",
    b'["\\ud800"]',
    b'["\xed\xa0\x80"]',
    b'["\\u0041"]',
    b'["\\u001F"]',
    b'["\\/"]',
    b'{"a": 1}',
    b" {}",
    b'{"\xf0\x9f\x82\xa1":1,"\xef\xbf\xbd":2}',
    b'{"\xef\xbf\xbd":2,"\xf0\x9f\x82\xa1":1}',
    b'["\x7f"]',
    b'["\x1f"]',
    b"[" * 64 + b"]" * 64,
    b"[" * 65 + b"]" * 65,
]


def _json_values() -> st.SearchStrategy[Any]:
    text = st.text(st.characters(codec="utf-8"), max_size=12)
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63) + 1, 2**63 - 1), text)
    keys = st.text(st.characters(codec="utf-8"), max_size=6)
    return st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
        max_leaves=12,
    )


def _mutants(doc: bytes, rng: random.Random) -> list[bytes]:
    """Byte flips, insertions and deletions: nearly all non-canonical, a few still canonical."""
    out = []
    for _ in range(12):
        mutated = bytearray(doc)
        position = rng.randrange(len(mutated))
        choice = rng.randrange(3)
        if choice == 0:
            mutated[position] = rng.choice(b'"\\{}[],:0123456789-.eEtfnu \x00\x7f\xc3\xff')
        elif choice == 1:
            mutated.insert(position, rng.randrange(256))
        else:
            del mutated[position]
        out.append(bytes(mutated))
    return out


def test_canonical_samples_agree_with_python(page: Path, tmp_path: Path) -> None:
    _agree(page, tmp_path, CANONICAL_SAMPLES)


@settings(max_examples=8, deadline=None)
@given(values=st.lists(_json_values(), min_size=5, max_size=25), seed=st.integers(0, 2**32))
def test_canonical_reader_agrees_with_python(
    page: Path, tmp_path_factory: pytest.TempPathFactory, values: list[Any], seed: int
) -> None:
    rng = random.Random(seed)
    inputs = []
    for doc in (encode(v) for v in values):
        inputs += [doc, *_mutants(doc, rng)]
    _agree(page, tmp_path_factory.mktemp("canonical"), inputs)


def _agree(page: Path, tmp: Path, inputs: Sequence[bytes]) -> None:
    hexes = tmp / "inputs.json"
    hexes.write_text(json.dumps([i.hex() for i in inputs]))
    got = node(page, "--decode", str(hexes))
    for raw, js in zip(inputs, got, strict=True):
        assert js == _python_decode(raw), raw


L_ORDER = 2**252 + 27742317777372353535851937790883648493  # the order of Ed25519's base point


def _triples(rng: random.Random) -> list[tuple[str, str, str]]:
    """Signatures as a hostile signer would vary them: honest, one bit flipped in R or S, S + L (a non-canonical
    S), another message, another key, a key that is no curve point."""
    out = []
    for number in range(40):
        key = IdentityKey.from_seed(rng.randbytes(32))
        message = rng.randbytes(rng.randrange(0, 300))
        signature = key.sign(message)
        other = IdentityKey.from_seed(rng.randbytes(32)).public.hex
        flipped = bytearray(signature)
        flipped[rng.randrange(64)] ^= 1 << rng.randrange(8)
        s = int.from_bytes(signature[32:], "little") + L_ORDER
        out += [(key.public.hex, message.hex(), signature.hex()), (key.public.hex, message.hex(), flipped.hex())]
        out += [(key.public.hex, (message + b"x").hex(), signature.hex()), (other, message.hex(), signature.hex())]
        if s < 2**256:
            out.append((key.public.hex, message.hex(), (signature[:32] + s.to_bytes(32, "little")).hex()))
        if number % 4 == 0:
            out.append((rng.randbytes(32).hex(), message.hex(), signature.hex()))
    return out


def _python_verifies(key: str, message: str, signature: str) -> bool:
    try:
        return PublicKey.from_hex(key).verify(bytes.fromhex(message), bytes.fromhex(signature))
    except ProtocolError:
        return False  # not a curve point: the roster reader refuses it


# libsodium's check once its WebAssembly is ready, @noble's in a browser that refuses WebAssembly: both as Python.
ED25519_PATHS = pytest.mark.parametrize("wasm", [(), ("--without-wasm",)], ids=["libsodium", "noble"])


@ED25519_PATHS
def test_signatures_agree_with_python(page: Path, tmp_path: Path, wasm: tuple[str, ...]) -> None:
    triples = _triples(random.Random(8))
    path = tmp_path / "signatures.json"
    path.write_text(json.dumps(triples))
    got = node(page, "--signatures", str(path), *wasm)
    assert got == [_python_verifies(*t) for t in triples]
    assert sum(got) == 40  # the honest ones


@ED25519_PATHS
def test_a_small_order_key_verifies_nothing(page: Path, tmp_path: Path, wasm: tuple[str, ...]) -> None:
    """The identity point as a public key: [S]B - [k]A = R holds for R = [S]B and any message, so anyone could
    sign for it; the page refuses it as a key, as libsodium does for Python."""
    identity = "01" + "00" * 31
    path = tmp_path / "signatures.json"
    path.write_text(json.dumps([(identity, b"any message".hex(), identity + "00" * 32)]))
    assert node(page, "--signatures", str(path), *wasm) == [False]


@ED25519_PATHS
def test_a_small_order_commitment_is_refused_as_python_refuses_it(
    page: Path, tmp_path: Path, wasm: tuple[str, ...]
) -> None:
    """A key holder can sign with R the neutral element: the equation holds, libsodium refuses it, and so must the
    page."""
    message = b"settlement"
    key, crafted = small_order_commitment(bytes(range(32, 64)), message)
    honest = key.sign(message)
    triples = [(key.public.hex, message.hex(), s.hex()) for s in (crafted, honest)]
    path = tmp_path / "signatures.json"
    path.write_text(json.dumps(triples))
    assert node(page, "--signatures", str(path), *wasm) == [_python_verifies(*t) for t in triples] == [False, True]


# ---- evenings of every system: JS against fairdeal verify ----------------------------------------------------


def _deal(out: Path, system: str, players: int, hands: int) -> Path:
    args = ["deal", "--protocol", "commit-reveal", "--system", system, "--players", str(players)]
    args += ["--hands", str(hands), "--seed", str(SEED), "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return out


def _key(name: str) -> IdentityKey:
    """The keys ``fairdeal deal --seed`` derives (a hostile test re-signs with all of them: full collusion)."""
    return IdentityKey.from_seed(hashlib.sha256(f"fairdeal deal --seed {SEED}/key/{name}".encode()).digest(), name)


def _transcripts(evening: Path) -> list[Path]:
    return sorted((evening / "evening.log.transcripts").glob("hand-*.json"))


def _settlement(evening: Path) -> Path:
    return evening / "evening.log.transcripts" / "settlement.json"


def _read(path: Path) -> dict[str, Any]:
    value = decode(path.read_bytes())
    assert isinstance(value, dict)
    return value


def _write(path: Path, doc: dict[str, Any]) -> None:
    path.write_bytes(encode(doc))


def _copy(evening: Path, tmp: Path, name: str) -> Path:
    target = tmp / name
    shutil.copytree(evening, target)
    return target


def _flip_byte(evening: Path, rng: random.Random) -> None:
    path = rng.choice(_transcripts(evening))
    data = bytearray(path.read_bytes())
    position = rng.randrange(len(data))
    data[position] = data[position] ^ (1 << rng.randrange(7))
    path.write_bytes(bytes(data))


def _drop_message(evening: Path, rng: random.Random) -> None:
    path = rng.choice(_transcripts(evening))
    doc = _read(path)
    del doc["messages"][rng.randrange(len(doc["messages"]))]
    _write(path, doc)


def _change_signature(evening: Path, rng: random.Random) -> None:
    path = rng.choice(_transcripts(evening))
    doc = _read(path)
    message = rng.choice(doc["messages"] + doc["opening"])
    digit = rng.randrange(128)
    old = message["signature"][digit]
    message["signature"] = (
        message["signature"][:digit] + ("0" if old != "0" else "1") + message["signature"][digit + 1 :]
    )
    _write(path, doc)


def _swap_deck_cards(evening: Path, rng: random.Random) -> None:
    path = rng.choice(_transcripts(evening))
    doc = _read(path)
    close = next(m for m in doc["messages"] if m["kind"] == "hand-close")
    order = close["body"]["deck_order"]
    i, j = rng.sample(range(len(order)), 2)
    order[i], order[j] = order[j], order[i]
    _write(path, doc)


def _drop_hand(evening: Path, rng: random.Random) -> None:
    hands = _transcripts(evening)
    rng.choice(hands[:-1] or hands).unlink()


MUTATIONS = {
    "flip a byte": _flip_byte,
    "drop a message": _drop_message,
    "change a signature": _change_signature,
    "swap two cards of the deck": _swap_deck_cards,
    "drop a hand": _drop_hand,
}


def _reseal_from(evening: Path, hand_path: Path, index: int) -> None:
    """Every party signs again from message ``index`` of ``hand_path`` to the settlement, as if all colluded."""
    roster = Roster.from_json(_read(evening / "roster.json"))
    keys: dict[Any, IdentityKey] = {"service": _key("service")}
    keys.update({seat: _key(s.name) for seat, s in enumerate(roster.seats)})
    later = [p for p in _transcripts(evening) if p.name > hand_path.name]
    later += [_settlement(evening)] if hand_path != _settlement(evening) else []
    prev: str | None = None
    for path in [hand_path, *later]:
        doc = _read(path)
        start = index if path == hand_path else 0
        prev = prev if start == 0 else parse(doc["messages"][start - 1]).digest
        record = None
        for position in range(start, len(doc["messages"])):
            old = parse(doc["messages"][position])
            body = dict(old.body)
            if old.kind == "hand-close":
                record = body["record"]
            if old.kind == "record-sign":
                body["record"] = record_hash(record)
            if old.kind == "settlement-sign":
                body["settlement"] = parse(doc["messages"][0]).digest
            ctx = Context(roster.table, roster.session, old.hand, roster.hash)
            new = seal(keys[old.sender], ctx, old.sender, old.kind, body, prev or old.prev)
            doc["messages"][position] = new.to_json()
            prev = new.digest
        _write(path, doc)


def _replay_a_card(evening: Path, rng: random.Random, twice: bool) -> bool:
    """Change one hand's play and have every party sign it: a card played a second time (the page sees it), or
    two players' cards swapped in a trick (only the engine's replay sees it). False if no hand has two tricks."""
    for path in _transcripts(evening):
        doc = _read(path)
        index, close = next((i, m) for i, m in enumerate(doc["messages"]) if m["kind"] == "hand-close")
        tricks = (close["body"]["record"] or {}).get("tricks", [])
        if len(tricks) < 2:
            continue
        if twice:
            tricks[1]["cards"][0] = tricks[0]["cards"][1]
        else:
            tricks[1]["cards"][0], tricks[1]["cards"][1] = tricks[1]["cards"][1], tricks[1]["cards"][0]
        _write(path, doc)
        _reseal_from(evening, path, index)
        _fix_log(evening)
        return True
    return False


def _fix_log(evening: Path) -> None:
    """The log re-cites every transcript and copies its record (the log is what the service writes)."""
    log = evening / "evening.log"
    lines = []
    for raw in log.read_text().splitlines():
        line = json.loads(raw)
        if line.get("type") == "hand":
            path = evening / line["transcript"]["file"]
            close = next(m for m in _read(path)["messages"] if m["kind"] == "hand-close")
            line = {**close["body"]["record"], "type": "hand", "transcript": line["transcript"]}
            line["transcript"] = {**line["transcript"], "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
        lines.append(json.dumps(line, ensure_ascii=False))
    log.write_text("\n".join(lines) + "\n")


def _files(evening: Path, with_log: bool) -> list[str]:
    found = [str(p) for p in _transcripts(evening)] + (
        [str(_settlement(evening))] if _settlement(evening).exists() else []
    )
    return found + [str(evening / "evening.log")] if with_log else found


def _python(evening: Path, with_log: bool, pins: Pins) -> bool:
    if with_log:
        return verify_log(evening / "evening.log", pins=pins).ok
    return verify_paths([Path(f) for f in _files(evening, False)], pins=pins).ok


TABLES = [(name, players) for name, convention in sorted(conventions().items()) for players in convention.players]


def test_js_and_python_agree_on_every_system(page: Path, tmp_path: Path) -> None:
    rng = random.Random(SEED)
    cases: list[tuple[str, Path, bool, Pins, dict[str, Any]]] = []
    mutations = list(MUTATIONS.items())
    previous: Path | None = None
    for number, (system, players) in enumerate(TABLES):
        evening = _deal(tmp_path / f"{system}-{players}", system, players, hands=2)
        mine = evening / "roster.json"
        roster = Roster.from_json(_read(mine))
        cases.append((f"{system}/{players}: honest", evening, False, Pins(), {}))
        cases.append((f"{system}/{players}: honest evening", evening, True, Pins(roster), {"roster": str(mine)}))
        for name, mutate in (mutations[(2 * number) % len(mutations)], mutations[(2 * number + 1) % len(mutations)]):
            target = _copy(evening, tmp_path, f"{system}-{players}-{name.replace(' ', '-')}")
            mutate(target, rng)
            cases.append((f"{system}/{players}: {name}", target, rng.random() < 0.5, Pins(), {}))
        if previous is not None and number % 3 == 0:
            other = previous / "roster.json"
            pins = Pins(Roster.from_json(_read(other)))
            cases.append((f"{system}/{players}: another table's roster", evening, False, pins, {"roster": str(other)}))
        previous = evening
        if number % 2:
            wrong = (("0", roster.seats[1].key),)
            pin = {"pins": [f"0={wrong[0][1].hex}"]}
            cases.append((f"{system}/{players}: a wrong key pinned", evening, False, Pins(keys=wrong), pin))
            continue
        twice = _copy(evening, tmp_path, f"{system}-{players}-twice")
        if _replay_a_card(twice, rng, twice=True):
            cases.append((f"{system}/{players}: a card played twice, all re-signed", twice, True, Pins(), {}))
    batch = [{"files": _files(evening, log), "pins": [], **js} for _, evening, log, _, js in cases]
    reports = run_batch(page, tmp_path, batch)
    disagreements = []
    for (label, evening, with_log, pins, _), report in zip(cases, reports):
        expected = _python(evening, with_log, pins)
        if report["ok"] != expected:
            disagreements.append(f"{label}: JS {report['ok']}, Python {expected}: {report['failures'][:2]}")
        if "honest" in label and not report["ok"]:
            disagreements.append(f"{label}: refused an honest evening: {report['failures'][:2]}")
    assert not disagreements, "\n".join(disagreements)
    assert sum(r["ok"] for r in reports) == 2 * len(TABLES)  # the honest runs, nothing else


def _score_changed(evening: Path, rng: random.Random) -> bool:
    """A score line of a played hand written one point higher, re-signed by every party (all colluding): the
    record replays, but the sheet it writes is not the engine's. False if no hand wrote a line."""
    for path in _transcripts(evening):
        doc = _read(path)
        index, close = next((i, m) for i, m in enumerate(doc["messages"]) if m["kind"] == "hand-close")
        lines = (close["body"]["record"] or {}).get("score", [])
        if not lines:
            continue
        line = rng.choice(lines)
        line["points"] = _one_more(line["points"])
        _write(path, doc)
        _reseal_from(evening, path, index)
        return True
    return False


def _one_more(points: Any) -> Any:
    """``points`` one higher in its signed form: an integer, or a fraction's text (record_form.py)."""
    if isinstance(points, str):
        numerator, _, denominator = points.partition("/")
        return f"{int(numerator) + int(denominator or 1)}/{denominator}" if denominator else str(int(numerator) + 1)
    return points + 1


def _settlement_shifted(evening: Path, rng: random.Random) -> bool:
    """One unit moved between two seats of the signed settlement, re-signed by every party: it still sums to zero
    and every signature holds, but it is not what the replayed sheet settles to."""
    path = _settlement(evening)
    doc = _read(path)
    closing = next(m for m in doc["messages"] if m["kind"] == "settlement")
    amounts = closing["body"]["amounts"]
    first, second = rng.sample(sorted(amounts), 2)
    amounts[first] = str(Fraction(amounts[first]) + 1)
    amounts[second] = str(Fraction(amounts[second]) - 1)
    _write(path, doc)
    _reseal_from(evening, path, 0)
    return True


REPLAY_MUTATIONS: dict[str, Callable[[Path, random.Random], bool]] = {
    "two cards of a trick swapped": lambda evening, rng: _replay_a_card(evening, rng, twice=False),
    "a score line changed": _score_changed,
    "a settlement amount moved": _settlement_shifted,
}


def test_the_page_replays_records_as_fairdeal_verify_does_on_every_system(page: Path, tmp_path: Path) -> None:
    """Changes only the engine's replay can see, re-signed by every party (the service and all players colluding):
    two players' cards swapped in a trick (each card still played once), a score line one point off, a settlement
    moved by one between two seats (still summing to zero). The page's engine (Pyodide running fairdeal's own
    modules) refuses each with the same verdict lines (party: check) as fairdeal verify, and accepts the honest
    evening, on every registered system and table size."""
    rng = random.Random(SEED)
    cases = []
    for system, players in TABLES:
        evening = _deal(tmp_path / f"{system}-{players}", system, players, hands=3)
        cases.append((f"{system}/{players}: honest", evening))
        for label, mutate in REPLAY_MUTATIONS.items():
            target = _copy(evening, tmp_path, f"{system}-{players}-{label.replace(' ', '-')}")
            if mutate(target, rng):
                cases.append((f"{system}/{players}: {label}", target))
    reports = run_batch(page, tmp_path, [{"files": _files(evening, False), "pins": []} for _, evening in cases])
    disagreements, refused = [], 0
    for (label, evening), report in zip(cases, reports, strict=True):
        python = verify_paths([Path(f) for f in _files(evening, False)])
        lines = {(f.party, f.check) for f in python.failures}
        js = {(f["party"], f["check"]) for f in report.get("failures", [])}
        if report["ok"] != python.ok or js != lines or report.get("crash"):
            disagreements.append(f"{label}: JS {report['ok']} {sorted(js)}, Python {python.ok} {sorted(lines)}")
        if "honest" in label and not report["ok"]:
            disagreements.append(f"{label}: refused an honest evening: {report['failures'][:2]}")
        refused += not python.ok
    assert not disagreements, "\n".join(disagreements)
    assert refused == len(cases) - len(TABLES)  # every change is caught
    assert {check for _, r in zip(cases, reports) for check in (f["check"] for f in r["failures"])} >= {
        "replay",
        "score",
        "settlement",
    }


def test_the_page_says_what_its_engine_proved(page: Path, tmp_path: Path) -> None:
    evening = _deal(tmp_path / "sochi", "sochi", 3, hands=3)
    report = node(page, *_files(evening, True))
    assert report["ok"] and report["replayed"]
    assert not any("not replayed" in note or "does not check" in note for note in report["notes"])
    without = node(page, "--no-replay", *_files(evening, True))
    assert without["ok"] and not without["replayed"]
    html = page_bytes().decode("utf-8")
    assert "each record replays through fairdeal's own engine, run in this page" in html
    assert "Not checked by this page: who played which card, following suit" in html  # when the engine cannot start


def test_unverified_kinds_are_named(page: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["deal", "--protocol", "mental-poker", "--hands", "1", "--seed", "3", "--out", str(tmp_path / "mp")]
    )
    assert result.exit_code == 0, result.output
    poker = sorted((tmp_path / "mp").rglob("hand-*.json"))
    assert node(page, *map(str, poker))["ok"]  # v4 mental poker is verified (tests/test_mp_js.py)
    older = tmp_path / "v3.json"
    older.write_bytes(encode({**_read(poker[0]), "protocol": "fairdeal-mental-poker/3"}))
    report = node(page, str(older))
    assert not report["ok"] and not report["failures"]
    assert any("of a version this page does not verify" in text for text in report["unverified"])


def test_bad_pins_are_one_clear_error(page: Path, tmp_path: Path) -> None:
    evening = _deal(tmp_path / "e", "sochi", 3, hands=1)
    report = node(page, "--pin", "0=nothex", *_files(evening, False))
    assert report["usage"].startswith('pin "0=nothex": write SEAT=PUBKEY')
    key = PublicKey.from_hex(Roster.from_json(_read(evening / "roster.json")).seats[0].key.hex)
    assert node(page, "--pin", f"Anna={key.hex}", *_files(evening, False))["ok"]


# ---- in a real browser ------------------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
# FAIRDEAL_SCREENSHOTS=docs/screenshots refreshes the committed picture; otherwise it goes to the test's temp dir.
SHOTS_DIR = os.environ.get("FAIRDEAL_SCREENSHOTS")


def _wait_for_text(view: Any, selector: str, text: str, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while text not in view.inner_text(selector):
        assert time.monotonic() < deadline, f"{selector} never showed {text!r}"
        time.sleep(0.05)


def verdicts_in_chromium(
    page: Path, file_sets: Sequence[Sequence[str | Path]], timeout_ms: int = 30_000
) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """Each set of files picked on the page from file:// in a fresh context of Debian's headless Chromium:
    ``(verdict, report)`` per set, the page's errors, and every URL it requested."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is needed (make installs it as root)")
    shown, errors, requests = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        for files in file_sets:
            view = browser.new_context().new_page()
            view.on("request", lambda r: requests.append(r.url))
            view.on("pageerror", lambda e: errors.append(str(e)))
            view.goto(page.resolve().as_uri())
            view.set_input_files("#pick", [str(f) for f in files])
            view.wait_for_selector("#verdict[data-ok]", timeout=timeout_ms)
            shown.append((view.inner_text("#verdict"), view.inner_text("#report")))
        browser.close()
    return shown, errors, requests


def test_chromium_verifies_an_evening_from_file_url(page: Path, tmp_path: Path) -> None:
    """Debian's headless Chromium opens the page from file://, is given an evening, boots the page's engine and
    shows the verdict with the records replayed; a transcript with one flipped signature digit turns it; nothing is
    requested beyond the page itself."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is needed (make installs it as root)")
    evening = _deal(tmp_path / "evening", "leningrad", 4, hands=2)
    files = _files(evening, True) + [str(evening / "roster.json")]  # the publisher's copy: it pins nothing
    forged = _copy(evening, tmp_path, "forged")
    _change_signature(forged, random.Random(2))
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        view = browser.new_context(viewport={"width": 1100, "height": 1400}).new_page()
        view.on("request", lambda r: requests.append(r.url))
        errors: list[str] = []
        view.on("pageerror", lambda e: errors.append(str(e)))
        view.goto(page.resolve().as_uri())
        view.set_input_files("#pick", files)
        view.wait_for_selector("#verdict[data-ok]", timeout=30_000)
        unpinned = view.inner_text("#report")
        view.set_input_files("#roster", str(evening / "roster.json"))  # now as the user's own copy
        _wait_for_text(view, "#report", "The identities you pinned")  # the page's CSP refuses eval'd predicates
        view.screenshot(path=str(Path(SHOTS_DIR or tmp_path) / "verifier-page.png"), full_page=True)
        verdict = view.inner_text("#verdict")
        report = view.inner_text("#report")
        fresh = browser.new_context().new_page()
        fresh.goto(page.resolve().as_uri())
        fresh.set_input_files("#pick", _files(forged, False))
        fresh.wait_for_selector("#verdict[data-ok]", timeout=30_000)
        forged_verdict, forged_report = fresh.inner_text("#verdict"), fresh.inner_text("#report")
        ended = browser.new_context().new_page()
        ended.goto(page.resolve().as_uri())
        ended.set_input_files("#pick", _ended_files(tmp_path / "ended"))
        ended.wait_for_selector("#verdict[data-ok]", timeout=30_000)
        ended_verdict, ended_report = ended.inner_text("#verdict"), ended.inner_text("#report")
        browser.close()
    assert not errors, errors
    assert verdict.startswith("VERIFIED: 3 document(s)") and "ПРОВЕРЕНО" in verdict
    assert "the roster is signed by the service" in report
    assert "Identities are NOT pinned" in unpinned and "pins nothing" in unpinned
    assert "Identities are NOT pinned" not in report and "The identities you pinned" in report
    assert "each record replays through fairdeal's own engine, run in this page" in report  # Pyodide booted
    assert "движком fairdeal прямо на этой странице" in report and "Not checked by this page" not in report
    assert forged_verdict.startswith("NOT VERIFIED") and "service: signature" in forged_report
    assert "Identities are NOT pinned" in forged_report
    # The engine's modules are imported from blob: URLs of the page's own bytes: nothing leaves the machine.
    assert all(url.startswith(("file://", "blob:")) for url in requests), requests
    assert ended_verdict.startswith("VERIFIED: 3 document(s)"), ended_report
    assert "The evening ended early at hand 2" in ended_report and "charges exactly p1" in ended_report
    assert "Вечер окончен досрочно на раздаче 2" in ended_report


# ---- structural fuzz: any value anywhere ------------------------------------------------------------------

ODD_VALUES: list[Any] = [None, True, 0, -1, 1, 7, 2**62, "", "x", "service", "ff" * 32, [], {}, ["AS"], {"a": 1}]


def test_fuzzed_documents_never_break_the_page_and_agree(page: Path, tmp_path: Path) -> None:
    """Any field of a transcript replaced by a value of another type or range (as a hostile publisher would, the
    file still canonical): the page never fails to finish, and it accepts exactly what fairdeal verify accepts."""
    rng = random.Random(3)
    evening = _deal(tmp_path / "e", "rostov", 3, hands=2)
    originals = [*_transcripts(evening), _settlement(evening)]
    cases = []
    for number in range(150):
        target = _copy(evening, tmp_path, f"fuzz-{number}")
        victim = target / originals[number % len(originals)].relative_to(evening)
        doc = _read(victim)
        path = rng.choice(document_paths(doc)[1:])
        _write(victim, replaced(doc, path, rng.choice(ODD_VALUES)))
        cases.append((target, path))
    reports = run_batch(page, tmp_path, [{"files": _files(t, False), "pins": []} for t, _ in cases])
    problems = []
    for (target, path), report in zip(cases, reports, strict=True):
        if "crash" in report:
            problems.append(f"{path}: the page could not finish: {report['crash']}")
        elif report["ok"] != _python(target, False, Pins()):
            problems.append(f"{path}: JS {report['ok']}, Python {not report['ok']}: {report['failures'][:1]}")
    assert not problems, "\n".join(problems)


def test_an_evening_with_half_whists_verifies_in_both(page: Path, tmp_path: Path) -> None:
    """Leningrad at four: score lines of 1.5 whists, signed as "3/2" (record_form.py), the log keeping 1.5."""
    args = ["deal", "--protocol", "commit-reveal", "--system", "leningrad", "--players", "4", "--hands", "12"]
    result = CliRunner().invoke(cli, [*args, "--seed", "4", "--out", str(tmp_path / "evening")])
    assert result.exit_code == 0, result.output
    evening = tmp_path / "evening"
    assert '"points":1.5' in (evening / "evening.log").read_text(encoding="utf-8")
    [report] = run_batch(page, tmp_path, [{"files": _files(evening, True), "pins": []}])
    assert report["ok"], report["failures"][:2]
    assert _python(evening, True, Pins())


def _ended_cases(tmp: Path, system: str, players: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """Ended evenings of one table: a seat that walks away, a refusal without cause, and what a service colluding
    with the signers could publish instead: the framed seat charged, no one charged, the end re-signed citing
    another message as its evidence."""
    from commit_reveal_parties import key
    from test_commit_reveal_v4_end import Framer, WalksAway, evening, table

    convention = get_convention(system)
    last = players - 1
    walked, _ = evening(table(convention, players, last, WalksAway))
    framed, _ = evening(table(convention, players, last, Framer))
    keys: dict[Any, IdentityKey] = {"service": key("s"), **{i: key(f"p{i}") for i in range(players)}}

    def forged(docs: list[dict[str, Any]], change: dict[str, Any]) -> list[dict[str, Any]]:
        docs = [dict(d) for d in docs]
        settlement = docs[-1]
        roster = Roster.from_json(settlement["roster"], "$.roster")
        ctx = Context(roster.table, roster.session, 0, roster.hash)
        end, closing = settlement["messages"][0], parse(settlement["messages"][1])
        body = dict(end["body"], **change)
        sealed = [seal(keys["service"], ctx, "service", "end", body, end["prev"])]
        sealed.append(seal(keys["service"], ctx, "service", "settlement", dict(closing.body), sealed[-1].digest))
        digest = sealed[-1].digest
        for seat in (s for s in range(players) if s not in body["charged"]):
            sealed.append(seal(keys[seat], ctx, seat, "settlement-sign", {"settlement": digest}, sealed[-1].digest))
        docs[-1] = dict(settlement, messages=[e.to_json() for e in sealed])
        return docs

    other = walked[-2]["messages"][-2]
    unsigned = [dict(d) for d in walked]
    end = dict(unsigned[-1]["messages"][0], signature=_key("forger").sign(b"end").hex())  # not the service's
    unsigned[-1] = dict(unsigned[-1], messages=[end, *unsigned[-1]["messages"][1:]])
    return [
        ("honest walk-away", walked),
        ("honest refusal without cause", framed),
        ("the framed seat charged", forged(framed, {"charged": [0]})),
        ("no one charged", forged(walked, {"charged": []})),
        ("re-signed on other evidence", forged(walked, {"evidence": parse(other).digest})),
        ("an end signed by another key", unsigned),
    ]


def _written(tmp: Path, docs: list[dict[str, Any]]) -> list[Path]:
    tmp.mkdir(parents=True)
    paths = []
    for doc in docs:
        path = tmp / (f"hand-{doc['hand']:04d}.json" if "hand" in doc else "settlement.json")
        path.write_bytes(encode(doc))
        paths.append(path)
    return paths


def _judged(
    page: Path, tmp_path: Path, cases_of: Callable[[str, int], list[tuple[str, list[dict[str, Any]]]]]
) -> list[tuple[str, dict[str, Any], Any]]:
    """Each case ``cases_of`` makes on every registered table, written as files: its label, the page's report and
    fairdeal verify's."""
    cases = []
    for system, players in TABLES:
        for label, docs in cases_of(system, players):
            folder = tmp_path / f"{system}-{players}-{label.replace(' ', '-')}"
            cases.append((f"{system}/{players}: {label}", _written(folder, docs)))
    reports = run_batch(page, tmp_path, [{"files": [str(p) for p in paths], "pins": []} for _, paths in cases])
    return [(label, report, verify_paths(paths)) for (label, paths), report in zip(cases, reports, strict=True)]


def test_js_and_python_judge_ended_evenings_alike_on_every_system(page: Path, tmp_path: Path) -> None:
    """An honest end (walk-away, refusal without cause) is accepted by both with the same note; a false end (the
    framed seat charged, no one charged, re-signed on other evidence, signed by another key) is refused by both
    with the same verdict lines (party: check) -- on every registered system and table size."""
    disagreements = []
    for label, report, python in _judged(page, tmp_path, lambda s, n: _ended_cases(tmp_path, s, n)):
        lines = {(f.party, f.check) for f in python.failures}
        js = {(f["party"], f["check"]) for f in report.get("failures", [])}
        if report["ok"] != python.ok or js != lines:
            disagreements.append(f"{label}: JS {report['ok']} {sorted(js)}, Python {python.ok} {sorted(lines)}")
        if "honest" in label:
            ends = [n for n in report["notes"] if "the evening ends here" in n]
            if not report["ok"] or len(ends) != 1 or " charged" not in ends[0]:
                disagreements.append(f"{label}: the page did not accept the end: {report}")
        elif not {("service", "end"), ("service", "signature")} & js:
            disagreements.append(f"{label}: the page did not name the service's end: {sorted(js)}")
    assert not disagreements, "\n".join(disagreements)


def _last_step_cases(system: str, players: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """The v4 end's last two cases on one table: an opening aborted three times (honest, and the ends a service
    colluding with the signers could publish instead: no one, the walker once, another seat, one abort too many,
    an end after the first abort), and a seat gone at the settlement (honest, its countersignature dropped last,
    dropped before another's, out of seat order, twice)."""
    import copy

    from test_commit_reveal_v4_end import NeverCommits, NoSettlementSign, evening, forge_settlement, table

    from fairdeal.protocols.commit_reveal4.parties import Player

    convention = get_convention(system)
    walker = players - 1
    aborted, _ = evening(table(convention, players, walker, NeverCommits))
    body = aborted[-1]["messages"][0]["body"]
    others = [s for s in range(players) if s != walker]
    cases: list[tuple[str, list[dict[str, Any]]]] = [("honest three aborts", aborted)]
    for label, charged in (("no one", []), ("once", [walker]), ("seat 0", [0, 0, 0]), ("four times", [walker] * 4)):
        forged = copy.deepcopy(aborted)
        forge_settlement(forged[-1], dict(body, charged=charged), [s for s in range(players) if s not in charged])
        cases.append((f"aborts charging {label}", forged))
    cut = copy.deepcopy(aborted)
    messages = cut[-2]["messages"]
    first = next(i for i, e in enumerate(messages) if e["kind"] == "abort")
    cut[-2]["messages"] = messages[: first + 1]
    forge_settlement(cut[-1], dict(body, charged=[walker], evidence=parse(messages[first]).digest), others)
    cases.append(("an end after one abort", cut))
    gone = players - 1 if players % 2 else 0
    unsigned, _ = evening(table(convention, players, gone, NoSettlementSign, hands=2), hands=2)
    settled, _ = evening(table(convention, players, 0, Player, hands=2), hands=2)
    dropped_last = copy.deepcopy(settled)
    dropped_last[-1]["messages"] = dropped_last[-1]["messages"][:-1]
    dropped_first = copy.deepcopy(settled)
    dropped_first[-1]["messages"] = [
        e for e in dropped_first[-1]["messages"] if not (e["kind"] == "settlement-sign" and e["sender"] == 0)
    ]
    swapped = copy.deepcopy(settled)
    head, one, two, *rest = swapped[-1]["messages"]
    swapped[-1]["messages"] = [head, two, one, *rest]
    twice = copy.deepcopy(settled)
    twice[-1]["messages"].append(twice[-1]["messages"][-1])
    return [
        *cases,
        ("honest seat gone at the settlement", unsigned),
        ("honest last countersignature dropped", dropped_last),
        ("a countersignature dropped before another", dropped_first),
        ("countersignatures out of seat order", swapped),
        ("a countersignature twice", twice),
    ]


def _left_out_note(report: dict[str, Any]) -> str:
    """The seat the page states left the settlement uncountersigned, as its note names it."""
    return f"player {report['proved'][0]['unsigned'][0]} did not countersign"


def test_js_and_python_judge_the_last_end_cases_alike_on_every_system(page: Path, tmp_path: Path) -> None:
    """Three aborted openings and a seat gone at the settlement: accepted by both where verify accepts them (the
    end, or the absent seat, a note), refused by both with the same verdict lines where verify refuses them -- on
    every registered system and table size."""
    disagreements = []
    for label, report, python in _judged(page, tmp_path, _last_step_cases):
        # The page's engine recomputes the settlement's amounts: an end verify rejects charges no one there, so
        # both name the forged settlement's charged amounts too.
        lines = {(f.party, f.check) for f in python.failures}
        js = {(f["party"], f["check"]) for f in report.get("failures", [])}
        if report["ok"] != python.ok or js != lines:
            disagreements.append(f"{label}: JS {report['ok']} {sorted(js)}, Python {python.ok} {sorted(lines)}")
        notes = report.get("notes", [])
        if label.endswith("three aborts"):
            ends = [n for n in notes if "the evening ends here (aborted 3 times)" in n]
            if not report["ok"] or len(ends) != 1 or " charged" not in ends[0]:
                disagreements.append(f"{label}: the page did not accept the end: {report}")
            elif [(s["ended"]["step"], s["unsigned"]) for s in report["proved"]] != [("abort", [])]:
                disagreements.append(f"{label}: the page states another end: {report['proved']}")
        elif "honest" in label:
            absent = [n for n in notes if "did not countersign the settlement" in n and "dropped by the relay" in n]
            python_absent = [n for n in python.notes if "did not countersign the settlement" in n]
            if not report["ok"] or len(absent) != 1 or len(python_absent) != 1:
                disagreements.append(f"{label}: the absent seat is not one note in both: {notes} / {python.notes}")
            elif [len(s["unsigned"]) for s in report["proved"]] != [1] or _left_out_note(report) not in absent[0]:
                disagreements.append(f"{label}: the page does not state the seat left out: {report['proved']}")
        elif label.startswith("aborts") or "abort" in label:
            if ("service", "end") not in js:
                disagreements.append(f"{label}: the page did not name the service's end: {sorted(js)}")
        elif not js or {party for party, _ in js} != {"service"}:
            disagreements.append(f"{label}: the page did not name the service alone: {sorted(js)}")
    assert not disagreements, "\n".join(disagreements)


def _ended_files(folder: Path) -> list[str]:
    """``fairdeal deal``'s files of an evening p1 walks away from in hand 2 (the log has no line for the voided
    hand; its transcript lies beside the settlement)."""
    from test_commit_reveal_v4_end import WalksAway, table

    from fairdeal.cli.dealing import _deal_evening

    folder.mkdir(parents=True, exist_ok=True)
    src = table(get_convention("sochi"), 3, 1, WalksAway)
    _deal_evening(src, src.spec, "commit-reveal", folder)
    return [str(p) for p in sorted((folder / "evening.log.transcripts").iterdir())] + [str(folder / "evening.log")]


def test_the_log_of_an_ended_evening_verifies_in_the_page(page: Path, tmp_path: Path) -> None:
    """An ended evening's log: the page finds the voided hand as verify does; without it both refuse."""
    files = _ended_files(tmp_path)
    assert verify_log(tmp_path / "evening.log").ok
    (report,) = run_batch(page, tmp_path, [{"files": files, "pins": []}])
    assert report["ok"], report["failures"]
    (tmp_path / "evening.log.transcripts" / "hand-0002.json").unlink()
    python = verify_log(tmp_path / "evening.log")
    (report,) = run_batch(page, tmp_path, [{"files": [f for f in files if "hand-0002" not in f], "pins": []}])
    assert not python.ok and not report["ok"]
    assert ("service", "session length") in {(f["party"], f["check"]) for f in report["failures"]}
