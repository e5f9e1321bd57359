"""The JavaScript mental-poker v4 verifier (fairdeal/web/mental_poker/), run under Node from the built verifier
page: the group, hash and proof vectors Python makes, checked byte for byte; then honest and mutated transcripts
of every registered system and table size, where JS must give `fairdeal verify`'s verdict and first line."""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import live_hands
import pytest
from click.testing import CliRunner
from fuzz_mutators import document_paths, replaced
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mental_poker_parties import SwappedShares
from test_mental_poker_v4_aborts import Paranoid, StopsPlaying, refused_doc
from test_mental_poker_v4_aborts import evening as aborted_evening
from test_service_mp_table import walked_evening
from test_verifier_page import verdicts_in_chromium

from fairdeal.cli import cli
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.engine.system import conventions
from fairdeal.errors import MentalPokerError
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.elgamal import (
    Ciphertext,
    check_key_share,
    encrypt,
    make_key_share,
    verify_decryption_shares,
)
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import ORDER, Point, Scalar, base_mult, hash_to_point, multi_mult_vartime
from fairdeal.protocols.mental_poker.messages import read_key, read_shares, read_shuffle, shuffle_message
from fairdeal.protocols.mental_poker.player import Player
from fairdeal.protocols.mental_poker.proofs import prove_equal_logs
from fairdeal.protocols.mental_poker.protocol import TableSetup, discard_commitment, verify_hand
from fairdeal.protocols.mental_poker.shuffle import shuffle_deck, verify_shuffle
from fairdeal.protocols.mental_poker.signing import Seating, open_message
from fairdeal.protocols.mental_poker.source import MentalPokerSource, hand_setup, signed_roster
from fairdeal.protocols.mental_poker.statements import record_digest
from fairdeal.protocols.mental_poker.tamper import leaves, mutate, with_field_changed
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Failure, Report, verify_documents, verify_log, verify_paths
from fairdeal.rules import SOCHI
from fairdeal.rules.overrides import parameter_forms
from fairdeal.systems import get_convention

RUNNER = Path(__file__).parent / "js" / "run_mental_poker.cjs"
BIN = Path(__file__).parent.parent / "fairdeal" / "web" / "bin" / "verify-mental-poker.cjs"
NODE = shutil.which("node")
SEED = 15
# What the JS verifier leaves to `fairdeal verify`: the record replayed through the engine and compared with the
# messages (who played which card, the talon and discard the record names, the abort penalty's amounts).
ENGINE_CHECKS = {"events", "talon card", "discard", "abort penalty", "legality", "result", "score"}

pytestmark = pytest.mark.skipif(NODE is None, reason="node is needed to run the verifier's JavaScript")


def node(page: Path, tmp: Path, mode: str, data: Any) -> Any:
    assert NODE is not None
    source = tmp / "input.json"
    source.write_text(json.dumps(data))
    done = subprocess.run(
        [NODE, str(RUNNER), str(page), mode, str(source)], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# ---- vectors ----------------------------------------------------------------------------------------------------

SPEC_POINTS = {  # protocols/mental-poker.md section 10
    "card/7S": "becfc402f3e6d3a115254d80f8a99d330ae4ae61e531219ed65841a42d2e024d",
    "card/10H": "e86fe560319b8bfda9c516b9571a23c0a25742838b5f2fa08c95ea8a7e171d6c",
    "card/AH": "6298877bac9f19988408156f5de77549eddffc4946ba371a94f8296035396910",
    "generator/h": "6afe36d64b8f2756f35ec23c34631a955fa035703f43cd058499cd48662a012a",
    "generator/h/1": "8c4e55dcb6aa15ba6e6cea97f8c76e07dacfca472afc6ad7f4037c8e0c4b7e43",
    "generator/h/32": "ac74079ed5bedc3e7555cf990411ae2e432d29b89a9e08c8aa593ebcf228651a",
}


def _context(rng: random.Random) -> HandContext:
    return HandContext(f"vectors/{rng.randrange(10**6)}/ночь", rng.randrange(1, 2**40))


def _flip(hex_text: str, rng: random.Random) -> str:
    return str(mutate(hex_text, rng))


def _possession_vectors(rng: random.Random) -> list[tuple[dict[str, Any], bool]]:
    out = []
    for _ in range(6):
        context, player = _context(rng), rng.choice(["north", "Вера", "a b"])
        _, share = make_key_share(context, player)
        honest: dict[str, Any] = {
            "table_id": context.table_id,
            "hand": context.hand,
            "player": player,
            "public": share.public.hex(),
        }
        honest.update(c=share.proof.challenge.hex(), s=share.proof.response.hex())
        out.append((honest, True))
        for field in ("public", "c", "s", "player", "hand"):
            bad = dict(honest)
            bad[field] = bad[field] + 1 if field == "hand" else bad[field] + "x" if field == "player" else ""
            if field in ("public", "c", "s"):
                bad[field] = _flip(honest[field], rng)
                if field != "public" and int.from_bytes(bytes.fromhex(bad[field]), "little") >= ORDER:
                    continue
            out.append((bad, False))
    return out


def _equal_logs_vectors(rng: random.Random) -> list[tuple[dict[str, Any], bool]]:
    out = []
    for size in (1, 2, 5, 10):
        context, secret = _context(rng), Scalar.random()
        bases = [base_mult(Scalar.random()) for _ in range(size)]
        label = bytes(rng.randrange(256) for _ in range(2 * size))
        images, proof = prove_equal_logs(context, "east", label, secret, base_mult(secret), bases)
        honest: dict[str, Any] = {
            "table_id": context.table_id,
            "hand": context.hand,
            "player": "east",
            "label": label.hex(),
            "public": base_mult(secret).hex(),
            "bases": [b.hex() for b in bases],
            "images": [i.hex() for i in images],
            "proof": {"a": proof.a.hex(), "b": proof.b.hex(), "s": proof.response.hex()},
        }
        out.append((honest, True))
        wrong_image = copy.deepcopy(honest)
        wrong_image["images"][-1] = (images[-1] + bases[0]).hex()
        other_label = dict(honest, label=honest["label"][:-2] + f"{(label[-1] ^ 1):02x}")
        other_key = dict(honest, public=base_mult(Scalar.random()).hex())
        out += [(wrong_image, False), (other_label, False), (other_key, False)]
    return out


def _shuffle_vectors(rng: random.Random) -> list[tuple[dict[str, Any], bool]]:
    out = []
    for size in (2, 8, 32):
        context, key = _context(rng), base_mult(Scalar.random())
        deck = tuple(encrypt(hash_to_point(f"card/{i}"), key, Scalar.random()) for i in range(size))
        shuffled, proof = shuffle_deck(context, "west", key, deck)
        honest: dict[str, Any] = {
            "table_id": context.table_id,
            "hand": context.hand,
            "player": "west",
            "joint_key": key.hex(),
            "deck_in": [[ct.c1.hex(), ct.c2.hex()] for ct in deck],
            "message": shuffle_message("west", shuffled, proof),
        }
        out.append((honest, True))
        swapped = copy.deepcopy(honest)
        cards = swapped["message"]["deck"]
        cards[0][1], cards[1][1] = cards[1][1], cards[0][1]  # two second halves exchanged: not a re-encryption
        out.append((swapped, False))
        for field in ("u", "chain", "t", "t_chain", "k", "k_chain", "k_open"):
            bad = copy.deepcopy(honest)
            row = bad["message"]["proof"][field]
            at = rng.randrange(len(row))
            if field.startswith("k"):
                row[at] = Scalar.from_int(int.from_bytes(bytes.fromhex(row[at]), "little") + 1).hex()
            else:
                row[at] = (hash_to_point(f"other/{at}")).hex()
            out.append((bad, False))
        out.append((dict(honest, player="east"), False))
    return out


def _hostile_encodings(rng: random.Random) -> list[str]:
    """Points as a hostile sender would encode them: valid ones, each with the top bit set, the identity (also with
    the top bit), field elements >= p and negative ones (odd s), and random bytes (most no encoding at all)."""
    valid = [base_mult(Scalar.random()).data for _ in range(6)]
    p = 2**255 - 19
    out = [*valid, *(v[:31] + bytes([v[31] | 0x80]) for v in valid), bytes(32), bytes(31) + b"\x80"]
    out += [(p + k).to_bytes(32, "little") for k in (0, 2, 4)] + [(k).to_bytes(32, "little") for k in (1, 3)]
    out += [(p - k).to_bytes(32, "little") for k in (1, 2)] + [rng.randbytes(32) for _ in range(24)]
    return [data.hex() for data in out]


def _python_decodes(hex_text: str) -> bool:
    try:
        Point.decode(bytes.fromhex(hex_text))
    except MentalPokerError:
        return False
    return True


def test_group_and_proof_vectors(page: Path, tmp_path: Path) -> None:
    rng = random.Random(SEED)
    labels = [*SPEC_POINTS, *[f"card/{c}" for c in ("7S", "QD", "10C")], *[f"generator/h/{j}" for j in range(1, 33)]]
    labels.append("другое/label")
    cases = {"possession": _possession_vectors(rng), "equal_logs": _equal_logs_vectors(rng)}
    cases["shuffles"] = _shuffle_vectors(rng)
    commitments: list[dict[str, Any]] = []
    for _ in range(8):
        context = _context(rng)
        positions = rng.sample(range(32), rng.choice([1, 2]))
        commitments.append(
            {
                "table_id": context.table_id,
                "hand": context.hand,
                "player": "север",
                "positions": positions,
                "nonce": os.urandom(32).hex(),
            }
        )
    spec_commitment = {"table_id": "vectors/night", "hand": 1, "player": "north", "positions": [12, 7]}
    commitments.append({**spec_commitment, "nonce": bytes(range(32)).hex()})
    encodings = _hostile_encodings(rng)
    data = {"labels": labels, "commitments": commitments, **{k: [v for v, _ in c] for k, c in cases.items()}}
    got = node(page, tmp_path, "--vectors", {**data, "encodings": encodings})
    assert got["points"] == [hash_to_point(label).hex() for label in labels]
    assert got["decodes"] == [_python_decodes(e) for e in encodings]
    assert 0 < sum(got["decodes"]) < len(encodings)
    assert got["points"][: len(SPEC_POINTS)] == list(SPEC_POINTS.values())
    for kind, expected in cases.items():
        assert got[kind] == [ok for _, ok in expected], kind
    made = [
        discard_commitment(
            HandContext(c["table_id"], c["hand"]), c["player"], c["positions"], bytes.fromhex(c["nonce"])
        )
        for c in commitments
    ]
    assert got["commitments"] == [m.hex() for m in made]
    assert got["commitments"][-1] == "a296528a281fc54b7c5088c38dc36a4c1bef6b2b19ac0df7a7a9d74b3afd1b00"


# Short, negative (ℓ - small), the two halves around (ℓ - 1) / 2, zero and full-size scalars: every recoding path.
_sum_scalars = st.one_of(
    st.integers(0, 2**16),
    st.integers(ORDER - 2**16, ORDER - 1),
    st.integers(ORDER // 2 - 2, ORDER // 2 + 2),
    st.integers(0, ORDER - 1),
)


def _edge_scalar(rng: random.Random) -> int:
    """The same mix as ``_sum_scalars``, drawn from a seed: a list of 376 drawn by hypothesis is past its budget."""
    low, high = rng.choice(((0, 2**16), (ORDER - 2**16, ORDER - 1), (ORDER // 2 - 2, ORDER // 2 + 2), (0, ORDER - 1)))
    return rng.randint(low, high)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), scalars=st.lists(_sum_scalars, min_size=24, max_size=24))
def test_the_browsers_multiplication_sums_as_the_python_verifier(
    page: Path, tmp_path: Path, seed: int, scalars: list[int]
) -> None:
    """The page's WebAssembly bucket method (msm_wasm.c) gives the Python's ``multi_mult_vartime`` on sums of every
    size (none to 300 terms, points repeated), and refuses an invalid point with the same message naming the same
    term; an encoding seen valid once stays cached as valid and an invalid one stays refused."""
    rng = random.Random(seed)
    pool = [hash_to_point(f"test/js-sums/{seed}/{k}") for k in range(40)]
    hostile = [e for e in _hostile_encodings(rng) if not _python_decodes(e)]
    cases, expected, left = [], [], list(scalars)
    for size in (0, 1, 2, 3, 5, 8, 30, 300, 4, 4, 2, 2, 1, 2, 3, 4, 5):
        terms = [left.pop() if left else _edge_scalar(rng) for _ in range(size)]
        points = [rng.choice(pool).hex() for _ in terms]
        if size and rng.random() < 0.4:
            points[rng.randrange(size)] = rng.choice(hostile)
        cases.append({"scalars": [t.to_bytes(32, "little").hex() for t in terms], "points": points})
        try:
            made = multi_mult_vartime([Scalar.from_int(t) for t in terms], [Point(bytes.fromhex(p)) for p in points])
            expected.append({"sum": made.hex()})
        except MentalPokerError as error:
            expected.append({"error": str(error)})
    got = node(page, tmp_path, "--sums", cases + cases)
    assert got == expected + expected
    assert any("error" in e for e in expected) and any("sum" in e for e in expected)


# ---- transcripts ------------------------------------------------------------------------------------------------

TABLES = [(name, players) for name, convention in sorted(conventions().items()) for players in convention.players]
NAMES = ("ann", "bob", "cyd", "dan", "eve")


def _hand(system: str, players: int, hands: int = 1) -> MentalPokerSource:
    names = NAMES[:players]
    convention = get_convention(system)
    source = MentalPokerSource(TableSpec("club", f"{system}-{players}", hands, names, convention))
    play_match(convention, names, [HeuristicBot() for _ in names], source=source, max_hands=hands)
    return source


def _resigned(source: MentalPokerSource, doc: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """One body field of one message changed and signed again by its own sender: a sender who lies."""
    doc = copy.deepcopy(doc)
    candidates = [i for i, m in enumerate(doc["messages"]) if list(leaves(m["body"]))]
    index = rng.choice(candidates)
    envelope = doc["messages"][index]
    path = rng.choice(list(leaves(envelope["body"])))
    envelope["body"] = with_field_changed([envelope["body"]], 0, path, lambda old: mutate(old, rng))[0]
    assert source.seating is not None
    key = source.identities[source.seating.names[envelope["sender"]]]
    ctx = source.seating.context(doc["hand"])
    sealed = signed.seal(key, ctx, envelope["sender"], envelope["kind"], envelope["body"], envelope["prev"])
    doc["messages"][index] = sealed.to_json()
    return doc


def _unsigned(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One leaf of the document changed (an envelope's, the record's, a statement's, a header field), nobody
    re-signing it."""
    doc = copy.deepcopy(doc)
    target = rng.choice(["messages"] * 6 + ["record", "statements", "dealer", "attempt"])
    target = target if target in doc else "messages"
    if target in ("messages", "statements"):
        index = rng.randrange(len(doc[target]))
        path = rng.choice(list(leaves(doc[target][index])))
        doc[target] = with_field_changed(doc[target], index, path, lambda old: mutate(old, rng))
    elif target == "record":
        path = rng.choice(list(leaves(doc["record"])))
        doc["record"] = with_field_changed([doc["record"]], 0, path, lambda old: mutate(old, rng))[0]
    else:
        doc[target] = mutate(doc[target], rng)
    return doc


def _python_lines(path: Path, doc: dict[str, Any]) -> tuple[bool, list[str]]:
    report = verify_documents([(str(path), doc)])
    kept: list[Failure] = [f for f in report.failures if not (f.party == "record" and f.check in ENGINE_CHECKS)]
    return report.ok, [f.line() for f in kept]


def _cases(tmp: Path) -> list[tuple[str, Path, dict[str, Any]]]:
    rng = random.Random(SEED)
    cases = []
    mutations: list[tuple[str, Callable[..., dict[str, Any] | None]]] = [
        ("re-signed", lambda source, doc: _resigned(source, doc, rng)),
        ("unsigned", lambda source, doc: _unsigned(doc, rng)),
    ]
    for number, (system, players) in enumerate(TABLES):
        source = _hand(system, players)
        doc = source.transcripts[0]
        cases.append((f"{system}/{players}: honest", tmp / f"{number}-honest.json", doc))
        for round_ in range(2):
            name, make = mutations[(number + round_) % 2]
            changed = make(source, doc)
            if changed is not None:
                cases.append((f"{system}/{players}: {name}", tmp / f"{number}-{name}-{round_}.json", changed))
    for _, path, doc in cases:
        path.write_bytes(encode(doc))
    return cases


def test_js_gives_the_verdicts_of_fairdeal_verify_on_every_system(page: Path, tmp_path: Path) -> None:
    cases = _cases(tmp_path)
    reports = node(page, tmp_path, "--batch", [[str(path)] for _, path, _ in cases])
    disagreements = []
    for (label, path, doc), report in zip(cases, reports, strict=True):
        ok, lines = _python_lines(path, doc)
        if "honest" in label and not (ok and report["ok"]):
            disagreements.append(f"{label}: refused: JS {report['lines'][:1]}, Python {lines[:1]}")
        elif report["ok"] != ok or report["lines"][:1] != lines[:1]:
            disagreements.append(f"{label}: JS {report['ok']} {report['lines'][:1]}, Python {ok} {lines[:1]}")
    assert not disagreements, "\n".join(disagreements)
    assert sum(r["ok"] for r in reports) == len(TABLES)  # the honest hands, nothing else


def test_the_command_line_verifier(page: Path, tmp_path: Path) -> None:
    source = _hand("sochi", 3, hands=2)
    paths = []
    for doc in source.transcripts:
        paths.append(tmp_path / f"hand-{doc['hand']}.json")
        paths[-1].write_bytes(encode(doc))
    assert NODE is not None

    def run(*files: Path) -> subprocess.CompletedProcess[str]:
        args = [NODE, str(BIN), "--page", str(page), *map(str, files)]
        return subprocess.run(args, capture_output=True, text=True, timeout=300)

    done = run(*paths)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified 2 mental-poker transcript(s)" in done.stdout
    lie = _resigned(source, source.transcripts[1], random.Random(3))
    assert lie is not None
    bad = tmp_path / "lie.json"
    bad.write_bytes(encode(lie))
    done = run(paths[0], bad)
    failures = [line for line in done.stdout.splitlines() if not line.startswith("note: ")]
    assert done.returncode == 1
    assert failures[:1] == _python_lines(bad, lie)[1][:1]
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(source.transcripts[0], indent=1))
    done = run(pretty)
    expected = [f.line() for f in verify_paths([pretty]).failures]
    assert (
        done.returncode == 1
        and [line for line in done.stdout.splitlines() if not line.startswith("note: ")] == expected
    )
    (tmp_path / "broken.json").write_bytes(b'{"protocol": ')
    done = run(tmp_path / "broken.json")
    assert done.returncode == 2 and done.stderr.startswith("Error: ") and len(done.stderr.splitlines()) == 1
    done = run(tmp_path / "missing.json")
    assert done.returncode == 2 and done.stderr.startswith("Error: ")


# ---- the offline verifier page ----------------------------------------------------------------------------------

PAGE_RUNNER = Path(__file__).parent / "js" / "run_verifier_page.cjs"


def _evening(out: Path, system: str = "sochi", players: int = 3, hands: int = 2) -> list[str]:
    """``fairdeal deal --protocol mental-poker``: the log, every transcript and the settlement, as the page is given
    them."""
    args = ["deal", "--protocol", "mental-poker", "--system", system, "--players", str(players)]
    result = CliRunner().invoke(cli, [*args, "--hands", str(hands), "--seed", str(SEED), "--out", str(out)])
    assert result.exit_code == 0, result.output
    folder = out / "evening.log.transcripts"
    return [
        str(out / "evening.log"),
        *sorted(str(p) for p in folder.glob("hand-*.json")),
        str(folder / "settlement.json"),
    ]


def _page(page: Path, *args: str) -> Any:
    assert NODE is not None
    done = subprocess.run([NODE, str(PAGE_RUNNER), str(page), *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _line(failure: dict[str, Any]) -> str:
    """A failure the page lists, as ``Failure.line`` writes it."""
    hand = "?" if failure["hand"] is None else failure["hand"]
    return f"{failure['source']}: hand {hand}: {failure['party']}: {failure['check']}: {failure['detail']}"


def test_the_page_verifies_mental_poker_evenings_as_fairdeal_verify_does(page: Path, tmp_path: Path) -> None:
    files = _evening(tmp_path / "evening", "leningrad", 4)
    log, hands, settlement = Path(files[0]), [Path(f) for f in files[1:-1]], Path(files[-1])
    report = _page(page, *files)
    assert report["ok"] and report["mentalPoker"] == len(hands) and report["transcripts"] == len(hands)
    assert verify_log(log).ok
    roster = tmp_path / "evening" / "roster.json"
    assert _page(page, "--roster", str(roster), *files)["ok"]
    # Without the log the page's engine settles the transcripts' records and checks the signed settlement itself.
    alone = _page(page, *files[1:])
    assert alone["ok"] and not alone["unverified"] and verify_paths([Path(f) for f in files[1:]]).ok
    # The settlement left out, a hand left out, the log's settlement line changed: each fails, as in Python.
    assert not _page(page, *files[:-1])["ok"]
    assert not _page(page, str(log), str(hands[0]), str(settlement))["ok"]
    lines = log.read_text().splitlines()
    end = json.loads(lines[-1])
    first = next(iter(end["settlement"]))
    end["settlement"][first] += 1
    log.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    changed = _page(page, *files)
    assert not changed["ok"] and not verify_log(log).ok
    assert {(f["party"], f["check"]) for f in changed["failures"]} >= {("record", "settlement")}
    wrong = "ab" * 32
    pinned = _page(page, "--pin", f"0={wrong}", str(hands[0]))
    assert [f["check"] for f in pinned["failures"]] == ["identity pin"]


def _record_resigned(source: MentalPokerSource, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """The first hand with its record changed by ``change``, every player re-signing the record (all colluding):
    every signature holds, only the engine's replay sees what the record says."""
    doc = copy.deepcopy(source.transcripts[0])
    change(doc["record"])
    assert source.seating is not None
    statements = []
    for statement in doc["statements"]:
        old = signed.parse(statement)
        key = source.identities[source.seating.names[old.sender]]
        body = dict(old.body, record=record_digest(doc["record"]))
        context = source.seating.context(doc["hand"])
        statements.append(signed.seal(key, context, old.sender, old.kind, body, old.prev).to_json())
    doc["statements"] = statements
    return doc


def _score_higher(record: dict[str, Any]) -> None:
    """The first score line one point higher (a fraction is signed as its text, record_form.py)."""
    line = record["score"][0]
    higher = Fraction(line["points"]) + 1
    line["points"] = int(higher) if higher.denominator == 1 else str(higher)


def _plays_swapped(record: dict[str, Any]) -> None:
    """The first two cards of the last trick played the other way round."""
    cards = record["tricks"][-1]["cards"]
    cards[0], cards[1] = cards[1], cards[0]


def _discard_changed(record: dict[str, Any]) -> None:
    """The first discarded card said to be another card of the deck."""
    other = next(card for card in ("7S", "8S", "9S") if card not in record["discard"])
    record["discard"][0] = other


def _penalty_added(record: dict[str, Any]) -> None:
    """An abort penalty nobody walked away to earn."""
    record["penalty"] = [{"column": "gora", "seat": 0, "points": 10}]


def _compared(page: Path, tmp: Path, cases: list[tuple[str, list[Path]]]) -> list[tuple[str, Any, Report]]:
    """Each case's files verified by the page (one batch) and by ``fairdeal verify``: the page must list exactly
    verify's failures. Returns (label, the page's report, verify's) for each case."""
    batch = tmp / "batch.json"
    batch.write_text(json.dumps([{"files": [str(p) for p in paths], "pins": []} for _, paths in cases]))
    reports = _page(page, "--batch", str(batch))
    compared = []
    for (label, paths), report in zip(cases, reports, strict=True):
        python = verify_paths(paths)
        assert [_line(failure) for failure in report["failures"]] == [f.line() for f in python.failures], label
        compared.append((label, report, python))
    return compared


def test_the_pages_engine_replays_mental_poker_records_as_fairdeal_verify_does(page: Path, tmp_path: Path) -> None:
    """A score line changed in a mental-poker record that every player re-signed: the page's engine names it
    (record: score) and lists exactly verify's failures; without the engine the page does not see it."""
    source = next(
        s for s in map(_hand, ("rostov", "sochi", "leningrad"), (3, 3, 4)) if s.transcripts[0]["record"]["score"]
    )
    path = tmp_path / "hand-0001.json"
    path.write_bytes(encode(_record_resigned(source, _score_higher)))
    python = verify_paths([path])
    found = {(f.party, f.check) for f in python.failures}
    assert ("record", "score") in found
    replayed = _page(page, str(path))
    assert [_line(failure) for failure in replayed["failures"]] == [f.line() for f in python.failures]
    unreplayed = _page(page, "--no-replay", str(path))
    assert ("record", "score") not in {(f["party"], f["check"]) for f in unreplayed["failures"]}


def test_the_page_compares_each_record_with_its_messages_as_fairdeal_verify_does(page: Path, tmp_path: Path) -> None:
    """The step-by-step comparison of a record with the messages (record: events, talon card, discard, abort
    penalty), run by the page's engine on every registered system and table size: an honest hand, and the record
    changed and re-signed by every player (the plays of a trick swapped, a discard card changed, an abort penalty
    nobody earned). The page lists exactly verify's failures, each change is caught, and a hand abandoned during
    play is judged without the caveat the page gives when its engine does not start."""
    cases: list[tuple[str, Path]] = []
    for number, (system, players) in enumerate(TABLES):
        source = _hand(system, players)
        record = source.transcripts[0]["record"]
        changes: list[tuple[str, Callable[[dict[str, Any]], None]]] = [("penalty", _penalty_added)]
        if record.get("tricks") and len(record["tricks"][-1]["cards"]) > 1:
            changes.append(("plays", _plays_swapped))
        if isinstance(record.get("discard"), list):
            changes.append(("discard", _discard_changed))
        cases.append((f"{system}/{players}: honest", tmp_path / f"{number}-honest.json"))
        cases[-1][1].write_bytes(encode(source.transcripts[0]))
        for name, change in changes:
            cases.append((f"{system}/{players}: {name}", tmp_path / f"{number}-{name}.json"))
            cases[-1][1].write_bytes(encode(_record_resigned(source, change)))

    def make(setup: TableSetup, name: str) -> Player:
        return StopsPlaying(setup, name) if name == "bob" else Player(setup, name)

    names = ("ann", "bob", "cyd")
    stopped = MentalPokerSource(TableSpec("club", "night", 8, names, SOCHI), make_player=make)
    play_match(SOCHI, names, [HeuristicBot() for _ in names], source=stopped, max_hands=8)
    abandoned = copy.deepcopy(stopped.transcripts[-1])
    cases.append(("abandoned during play", tmp_path / "abandoned.json"))
    cases[-1][1].write_bytes(encode(abandoned))
    del abandoned["record"]
    cases.append(("abandoned during play, no record", tmp_path / "abandoned-bare.json"))
    cases[-1][1].write_bytes(encode(abandoned))
    caught = set()
    compared = _compared(page, tmp_path, [(label, [path]) for label, path in cases])
    for label, report, python in compared:
        assert report["ok"] == python.ok == label.endswith(("honest", "during play")), label
        assert not any("whose step was due" in caveat for caveat in report["caveats"]), label
        caught |= {(label.split(": ")[-1], f["check"]) for f in report["failures"] if f["party"] == "record"}
    assert {("penalty", "abort penalty"), ("plays", "events"), ("discard", "discard")} <= caught
    assert compared[-1][1]["failures"][0]["check"] == "abandon"


def test_chromium_verifies_a_mental_poker_evening_from_file_url(page: Path, tmp_path: Path) -> None:
    """Debian's headless Chromium opens the page from file://, is given a mental-poker evening and shows the
    verdict; one hand with a lying re-signed message turns it; nothing is requested beyond the page itself."""
    source = _hand("sochi", 3, hands=2)
    good = []
    for doc in source.transcripts:
        good.append(tmp_path / f"hand-{doc['hand']}.json")
        good[-1].write_bytes(encode(doc))
    lie = _resigned(source, source.transcripts[1], random.Random(5))
    assert lie is not None
    forged = tmp_path / "forged" / "hand-2.json"
    forged.parent.mkdir()
    forged.write_bytes(encode(lie))
    expected = _python_lines(forged, lie)[1][0].split(": ", 3)[-1]  # party: check: detail, after source and hand
    verdicts, errors, requests = verdicts_in_chromium(page, [[good[0], good[1]], [good[0], forged]], 120_000)
    assert not errors, errors
    (verdict, report), (forged_verdict, forged_report) = verdicts
    assert verdict.startswith("VERIFIED: 2 document(s)"), report
    assert "Mental poker (2 hand(s))" in report and "Terelius" in report
    assert forged_verdict.startswith("NOT VERIFIED") and expected in forged_report
    assert all(url.startswith(("file://", "blob:")) for url in requests), requests  # blob: the page's own engine


# ---- a JavaScript party ------------------------------------------------------------------------------------------


def test_python_verifies_a_javascript_players_key_shuffle_and_shares(page: Path, tmp_path: Path) -> None:
    """A player's part of a deal made in JS (fairdeal/web/mental_poker/party.js) and checked by the Python
    verifier: his key share's proof of possession, his shuffle's proof, his decryption shares' proof; each
    changed, it fails."""
    rng = random.Random(SEED)
    inputs: list[dict[str, Any]] = []
    for size, positions in ((32, [p for p in range(32) if p % 3]), (8, [0, 5]), (2, [1])):
        context, key = _context(rng), base_mult(Scalar.random())
        deck = [encrypt(hash_to_point(f"card/{i}"), key, Scalar.random()) for i in range(size)]
        item = {"table_id": context.table_id, "hand": context.hand, "player": "Вера", "joint_key": key.hex()}
        inputs.append({**item, "deck": [[ct.c1.hex(), ct.c2.hex()] for ct in deck], "positions": positions})
    made = node(page, tmp_path, "--prove", inputs)
    for asked, result in zip(inputs, made, strict=True):
        context, player = HandContext(asked["table_id"], asked["hand"]), asked["player"]
        share = read_key({"step": "keys", "player": player, **result["keys"]})
        check_key_share(context, share)
        deck_in = tuple(Ciphertext(Point(bytes.fromhex(a)), Point(bytes.fromhex(b))) for a, b in asked["deck"])
        deck_out, proof = read_shuffle({"step": "shuffle", "player": player, **result["shuffle"]})
        verify_shuffle(context, player, Point(bytes.fromhex(asked["joint_key"])), deck_in, deck_out, proof)
        shares = read_shares({"step": "deal", "player": player, **result["deal"]})
        assert list(shares.positions) == asked["positions"]
        verify_decryption_shares(context, share, deck_out, shares)
        with pytest.raises(MentalPokerError):
            verify_shuffle(context, "west", Point(bytes.fromhex(asked["joint_key"])), deck_in, deck_out, proof)
        with pytest.raises(MentalPokerError):
            verify_decryption_shares(context, share, deck_in, shares)  # shares of the deck before the shuffle
        with pytest.raises(MentalPokerError):
            check_key_share(context, read_key({"step": "keys", "player": "west", **result["keys"]}))


def test_a_sample_of_the_mutation_suite_is_rejected_with_checkpoints(page: Path, tmp_path: Path) -> None:
    """``bench_mp_js.py``'s mutations (10,000 there): the JS verifier with checkpoints rejects every one, and
    names what Python names first."""
    source = _hand("sochi", 3, hands=2)
    docs = source.transcripts
    paths = [tmp_path / f"hand-{doc['hand']}.json" for doc in docs]
    for path, doc in zip(paths, docs):
        path.write_bytes(encode(doc))
    rng = random.Random(SEED)
    plan: list[tuple[int, list[Any], Any]] = []
    for _ in range(150):
        which = rng.randrange(len(docs))
        target = rng.choice(["messages"] * 8 + ["record", "statements"])
        if target == "record":
            where: list[Any] = ["record", *rng.choice(list(leaves(docs[which]["record"])))]
        else:
            index = rng.randrange(len(docs[which][target]))
            where = [target, index, *rng.choice(list(leaves(docs[which][target][index])))]
        holder: Any = docs[which]
        for key in where:
            holder = holder[key]
        plan.append((which, where, mutate(holder, rng)))
    result = node(page, tmp_path, "--mutations", {"files": [str(p) for p in paths], "changes": plan})
    assert result["honest"] == [True, True]
    assert None not in result["first"]
    for number in range(0, len(plan), 10):
        which, where, value = plan[number]
        changed = json.loads(json.dumps(docs[which]))
        holder = changed
        for key in where[:-1]:
            holder = holder[key]
        holder[where[-1]] = value
        lines = _python_lines(paths[which], changed)[1]
        assert result["first"][number] == lines[0]


ODD_VALUES: list[Any] = [None, True, 0, -1, 1, 7, 2**62, "", "x", "ann", "ff" * 32, [], {}, ["AS"], {"a": 1}]


def test_fuzzed_transcripts_never_break_the_verifier_and_agree(page: Path, tmp_path: Path) -> None:
    """Any field of a transcript replaced by a value of another type or range (a hostile publisher; the file
    still canonical): the JS verifier always finishes, rejects, and names what Python names first."""
    rng = random.Random(SEED)
    doc = _hand("rostov", 3).transcripts[0]
    paths = document_paths(doc)[1:]
    cases = []
    for number in range(90):
        path = rng.choice(paths)
        target = tmp_path / f"fuzz-{number}.json"
        changed = replaced(doc, path, rng.choice(ODD_VALUES))
        target.write_bytes(encode(changed))
        cases.append((target, path, changed))
    reports = node(page, tmp_path, "--batch", [[str(target)] for target, _, _ in cases])
    problems = []
    for (target, path, changed), report in zip(cases, reports, strict=True):
        ok, lines = _python_lines(target, changed)
        if "crash" in report:
            problems.append(f"{path}: the verifier could not finish: {report['crash']}")
        elif report["ok"] != ok or report["lines"][:1] != lines[:1]:
            problems.append(f"{path}: JS {report['ok']} {report['lines'][:1]}, Python {ok} {lines[:1]}")
    assert not problems, "\n".join(problems)


ROSTER_SHAPES: list[Any] = [
    {},
    {"a": 1},
    {"key": "ff", "name": "ann", "seat": 0, "zeta": 1, "alpha": 2, "mid": 3, "omega": 4},
    {"seat": 0, "name": "ann", "k" * 300: "ff"},
    {"seat": 0, "\u00e9t\u00e9\U0001f0a1": 1, "\U0001f0a1x": 2, "key": "ff", "name": "ann"},
]


def _dropped(index: int) -> Callable[[list[dict[str, Any]]], None]:
    def drop(messages: list[dict[str, Any]]) -> None:
        del messages[index]

    return drop


def _body(index: int, new: dict[str, Any]) -> Callable[[list[dict[str, Any]]], None]:
    return lambda messages: messages[index].update(body=new)


def _decision_cases(tmp: Path) -> list[tuple[str, Path]]:
    """Live hands of every registered system and table size, their decisions signed in the chain: honest; the
    last action dropped, the first changed, or the first of no shape, each chain and record statement signed
    again by its own sender."""
    cases = []
    for number, (system, players) in enumerate(TABLES):
        doc, seating, identities = live_hands.live_transcript(system, players, number)
        decides = [i for i, m in enumerate(doc["messages"]) if m["kind"] == "decide" and m["body"].get("action")]
        first, last = decides[0], decides[-1]
        variants = {
            "honest": doc,
            "dropped": live_hands.rechained(doc, seating, identities, last, _dropped(last)),
            "changed": live_hands.rechained(doc, seating, identities, first, _body(first, {"action": {"kind": "x"}})),
            "shapeless": live_hands.rechained(doc, seating, identities, first, _body(first, {"action": 7})),
        }
        for name, variant in variants.items():
            cases.append((f"{system}/{players}: {name}", tmp / f"{number}-{name}.json"))
            cases[-1][1].write_bytes(encode(variant))
    return cases


def test_the_page_checks_signed_decisions_as_fairdeal_verify_does(page: Path, tmp_path: Path) -> None:
    """Decisions signed into a live hand's chain (``decide``): the page takes them where the protocol allows
    them, reads their shape as Python does, and has its engine compare the record with them; on every system it
    lists exactly verify's failures, and each change is caught (record: decisions, or the signer's decide)."""
    caught = set()
    for label, report, python in _compared(
        page, tmp_path, [(label, [path]) for label, path in _decision_cases(tmp_path)]
    ):
        assert report["ok"] == python.ok == label.endswith("honest"), label
        caught |= {(label.split(": ")[-1], f["check"]) for f in report["failures"]}
    assert {("dropped", "decisions"), ("changed", "decisions"), ("shapeless", "decide")} <= caught


def _stopped_cases(tmp: Path) -> list[tuple[str, list[Path]]]:
    """Served evenings cut short in play, each as its transcripts and settlement: a seat late with a decision or
    a card (at a table with two talons, a dummy, a sitting-out dealer, the no-aces announcement, Classic's opening
    raspasy); the witness re-signing his abandon to name another seat (at two players, another step); the stated
    start moved."""
    cases = []
    for number, (system, players, step) in enumerate(
        [
            ("sochi", 3, "act"),
            ("sochi", 3, "play"),
            ("hussar", 2, "play"),
            ("gusarik-sochi", 2, "act"),
            ("rostov", 4, "play"),
            ("austrian", 3, "play"),
            ("classic", 3, "act"),
        ]
    ):
        table, walker, _, keys = walked_evening(system, players, step)
        docs = list(table.transcripts)
        stopped = docs[-1]
        envelope = signed.parse(stopped["messages"][-1])
        witness = table.seating.names[envelope.sender]
        at = envelope.body["at"]
        others = [n for n in table.names if n not in (witness, table.names[walker])]
        other_step = "play" if at == "decide" else "decide"
        body = {"player": others[0], "at": at} if others else {"player": table.names[walker], "at": other_step}
        context = table.seating.context(stopped["hand"])
        lie = signed.seal(keys[envelope.sender], context, envelope.sender, "abandon", body, envelope.prev).to_json()
        variants = {
            "honest": stopped,
            "moved start": {**stopped, "start": {"raspasy_streak": 3, "refe": []}},
            "framed": {**stopped, "messages": [*stopped["messages"][:-1], lie]},
        }
        for name, last in variants.items():
            folder = tmp / f"{number}-{name.replace(' ', '-')}"
            folder.mkdir()
            paths = []
            for doc in [*docs[:-1], last]:
                paths.append(folder / f"hand-{doc['hand']:04d}.json")
                paths[-1].write_bytes(encode(doc))
            paths.append(folder / "settlement.json")
            paths[-1].write_bytes(encode(table.settlement))
            cases.append((f"{system}/{players} late {step}: {name}", paths))
    return cases


def test_the_page_judges_a_live_hand_cut_short_in_play_as_fairdeal_verify_does(page: Path, tmp_path: Path) -> None:
    """A hand abandoned in play at a served table has no record: both verifiers follow its game through the
    chain (signed decisions, proven cards) from the start it states, to the seat it awaited. The page lists
    exactly verify's failures: none on an honest evening, the witness named when his abandon frames another
    seat, a start the sheet before the hand does not give named too."""
    caught = set()
    for label, report, python in _compared(page, tmp_path, _stopped_cases(tmp_path)):
        assert report["ok"] == python.ok == label.endswith("honest"), label
        caught |= {(label.split(": ")[-1], f["check"]) for f in report["failures"]}
    assert {("framed", "abandon"), ("moved start", "start")} <= caught


@pytest.mark.parametrize("where", [("roster",), ("roster", "roster"), ("roster", "roster", "seats", 1)])
def test_a_roster_with_odd_fields_is_named_as_python_names_it(
    page: Path, tmp_path: Path, where: tuple[Any, ...]
) -> None:
    """Missing fields sorted, then at most three unknown ones quoted and shortened: the same words in both."""
    doc = _hand("sochi", 3).transcripts[0]
    cases = []
    for number, shape in enumerate(ROSTER_SHAPES):
        target = tmp_path / f"odd-{number}.json"
        changed = replaced(doc, where, shape)
        target.write_bytes(encode(changed))
        cases.append((target, changed))
    reports = node(page, tmp_path, "--batch", [[str(target)] for target, _ in cases])
    for (target, changed), report in zip(cases, reports, strict=True):
        ok, lines = _python_lines(target, changed)
        assert not ok and "missing or unknown" in lines[0]
        assert (report["ok"], report["lines"][:1]) == (ok, lines[:1])


def test_a_hand_number_out_of_range_is_named_as_python_names_it(page: Path, tmp_path: Path) -> None:
    """A negative hand (no context can be framed for it), hand 0 and beyond a session's hands: the same words."""
    doc = _hand("sochi", 3).transcripts[0]
    cases = []
    for hand in (-1, -(2**40), 0, 2, 1_000_000, 1_000_001, 10**14):
        target = tmp_path / f"hand-{hand}.json"
        target.write_bytes(encode(dict(doc, hand=hand)))
        cases.append(target)
    reports = node(page, tmp_path, "--batch", [[str(target)] for target in cases])
    for target, report in zip(cases, reports, strict=True):
        ok, lines = _python_lines(target, decode(target.read_bytes()))
        assert not ok and (report["ok"], report["lines"][:1]) == (ok, lines[:1])


COMBINATION = "transcript: table: convention ("  # with_overrides: values each readable, together refused
HOUSE_RULE_VALUES: list[Any] = [
    None,
    True,
    "no",
    "TRUE",
    0,
    7,
    "3/4",
    " -1_000/2_0 ",
    "\u0663/\u0664",
    "1/0",
    "5/\U0001d7ce\U0001d7ce",
    ".5e-2",
    "1.",
    "1.d",
    "1e",
    "left",
    "gora",
    [],
    [1, 2],
    [[1, 2]],
    [[1, "x"]],
    ["x"],
    {"a": 1},
    "\u00e9" * 80,
]


def test_house_rules_are_read_as_python_reads_them(page: Path, tmp_path: Path) -> None:
    """Every form of parameter, given values of every kind (and names it does not know): the page refuses
    exactly what ``with_overrides`` refuses, in its words, or both go on to compare the roster; what it cannot
    judge without the engine (values that do not go together) it refuses still."""
    doc = _hand("sochi", 3).transcripts[0]
    by_form = {json.dumps(form): path for path, form in sorted(parameter_forms().items())}
    overrides = [{path: value} for path in by_form.values() for value in HOUSE_RULE_VALUES]
    overrides += [{"price_per_trick": 1}, {"no.such": 1}, {"pulya.size": 30}]
    cases = []
    for number, rules in enumerate(overrides):
        target = tmp_path / f"rules-{number}.json"
        target.write_bytes(encode({**doc, "convention": rules}))
        cases.append(target)
    reports = node(page, tmp_path, "--batch", [[str(target)] for target in cases])
    problems = []
    for target, report in zip(cases, reports, strict=True):
        ok, lines = _python_lines(target, decode(target.read_bytes()))
        # Only an engine judges how house rules go together: there the page need only refuse.
        same = not report["ok"] if COMBINATION in lines[0] else (report["ok"], report["lines"][:1]) == (ok, lines[:1])
        if not same:
            problems.append(f"JS {report['lines'][:1]}, Python {lines[:1]}")
    assert not problems, "\n".join(problems)


def test_refused_redealt_and_abandoned_hands_get_the_verdicts_of_fairdeal_verify(page: Path, tmp_path: Path) -> None:
    """The v4 abort and refusal documents (tests/test_mental_poker_v4_aborts.py's parties): a refusal with cause
    and one without, a filed refusal swapped, forged or missing, a re-dealt hand after a walk-away, a hand
    abandoned during play (whose due player JS without the page's engine does not check, and says so)."""
    cases: list[tuple[str, dict[str, Any]]] = []
    _, honest_refusal, _ = refused_doc(SwappedShares, "ann")
    cases.append(("a refusal with cause", honest_refusal))
    cases.append(("a refusal without cause", refused_doc(Paranoid, "cyd")[1]))
    swapped = copy.deepcopy(honest_refusal)
    swapped["refusal"]["shown"] = honest_refusal["messages"][-1]
    forged = copy.deepcopy(honest_refusal)
    forged["refusal"]["statement"]["body"]["reason"] = "ann is innocent"
    missing = copy.deepcopy(honest_refusal)
    del missing["refusal"]
    cases += [("a swapped refusal", swapped), ("a forged refusal", forged), ("no refusal", missing)]
    redealt = aborted_evening(("ann", "bob", "cyd", "dan"), "bob", get_convention("leningrad"))[-1]
    cases.append(("a re-dealt hand", redealt))
    second = copy.deepcopy(redealt)
    second["aborts"] = []
    cases.append(("a re-deal without its abandoned attempt", second))

    def make(setup: TableSetup, name: str) -> Player:
        return StopsPlaying(setup, name) if name == "bob" else Player(setup, name)

    names = ("ann", "bob", "cyd")
    source = MentalPokerSource(TableSpec("club", "night", 8, names, SOCHI), make_player=make)
    result = play_match(SOCHI, names, [HeuristicBot() for _ in names], source=source, max_hands=8)
    assert not result.finished and source.end is not None  # the abandon ends the evening, its hand filed
    cases.append(("abandoned during play", source.transcripts[-1]))
    paths = []
    for number, (_, doc) in enumerate(cases):
        paths.append(tmp_path / f"case-{number}.json")
        paths[-1].write_bytes(encode(doc))
    reports = node(page, tmp_path, "--batch", [[str(p)] for p in paths])
    for (label, doc), path, report in zip(cases, paths, reports, strict=True):
        ok, lines = _python_lines(path, doc)
        assert (report["ok"], report["lines"][:1]) == (ok, lines[:1]), label
    assert [r["ok"] for r in reports] == [False, False, False, False, False, True, False, True]
    assert any("whose step was due" in text for text in reports[-1]["caveats"])
    assert any("player bob stopped answering at step play" in text for text in reports[-1]["notes"])


@pytest.mark.parametrize(
    ("system", "players"),
    [("sochi", 3), ("leningrad", 4), ("rostov", 5), ("hussar", 2), ("gusarik-sochi", 2), ("preferans-1800s", 2)],
)
def test_python_verifies_an_opening_signed_by_javascript_parties(
    page: Path, tmp_path: Path, system: str, players: int
) -> None:
    """Every party of a hand in JS, each with its own identity seed and secrets: the signed keys, shuffles and deal
    messages, which Python opens under the roster and runs through its state machine (who sits out at four and
    five holds no key; Hussar's two talons; Gusarik's dummy; the hand laid aside at the 19th century's two)."""
    names = NAMES[:players]
    convention = get_convention(system)
    spec = TableSpec("club", "js-night", 1, names, convention)
    seeds = {name: os.urandom(32) for name in names}
    identities = {name: IdentityKey.from_seed(seed, name) for name, seed in seeds.items()}
    seating = Seating(signed_roster(spec, identities, IdentityKey.generate("service")))
    setup = hand_setup(spec, 1, 0, seating, 1)
    given = {"table": "club", "session": "js-night", "roster": seating.roster.hash, "hand": 1, "attempt": 1}
    given["pattern"] = spec.pattern.name
    given["players"] = [{"name": n, "seat": seating.seat_of(n), "seed": seeds[n].hex()} for n in setup.players]
    (envelopes,) = node(page, tmp_path, "--opening", [given])
    head, messages, digests = setup.genesis(), [], []
    for envelope in envelopes:
        opened = open_message(envelope, seating, 1, head, "transcript")
        messages.append(opened.message)
        digests.append(opened.digest)
        head = opened.digest
    state = verify_hand(setup, messages, digests=digests, partial=True).state
    assert state.dealt and len(messages) == 3 * len(setup.players)
    lie = copy.deepcopy(envelopes)
    body = lie[-1]["body"]
    body["shares"][0]["share"], body["shares"][1]["share"] = body["shares"][1]["share"], body["shares"][0]["share"]
    sender = setup.players[-1]
    resealed = signed.seal(identities[sender], seating.context(1), lie[-1]["sender"], "deal", body, lie[-1]["prev"])
    opened_lie = open_message(resealed.to_json(), seating, 1, digests[-2], "transcript")
    with pytest.raises(MentalPokerError) as caught:
        verify_hand(
            setup, [*messages[:-1], opened_lie.message], digests=[*digests[:-1], opened_lie.digest], partial=True
        )
    assert (caught.value.player, caught.value.step) == (sender, "decrypt")
