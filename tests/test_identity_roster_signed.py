"""Identity keys, the signed roster and the signed-message envelope of protocol v4."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cli import cli
from fairdeal.errors import OutputError, ProtocolError, SignedMessageError
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import Context, Sender, open_checked, parse, seal

HEADER = {"system": "sochi", "convention": {"raspasy.price_per_trick": 2}, "pulya": 20}


def make_roster(names: tuple[str, ...] = ("ann", "bob", "cid")) -> tuple[Roster, IdentityKey, list[IdentityKey]]:
    service = IdentityKey.from_seed(bytes([1]) * 32, "service")
    players = [IdentityKey.from_seed(bytes([10 + i]) * 32, n) for i, n in enumerate(names)]
    roster = Roster.create(
        "fairdeal-commit-reveal/4",
        "club",
        "night",
        "2026-12-01T18:00:00Z",
        HEADER,
        service.public,
        [(n, k.public) for n, k in zip(names, players)],
    )
    for key in [service, *players]:
        roster = roster.signed_by(key)
    return roster, service, players


def test_key_file_is_private_atomic_and_never_replaced(tmp_path: Path) -> None:
    key = IdentityKey.generate("ann")
    path = tmp_path / "ann.key"
    key.save(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    loaded = IdentityKey.load(path)
    assert loaded.public == key.public and loaded.name == "ann"
    assert key._private.private_bytes_raw().hex() not in repr(key) + str(key)
    with pytest.raises(OutputError, match="already exists"):
        IdentityKey.generate().save(path)
    assert IdentityKey.load(path).public == key.public
    assert [p.name for p in tmp_path.iterdir()] == ["ann.key"]  # no temporary left behind
    os.chmod(path, 0o644)
    with pytest.raises(ProtocolError, match="open to other users"):
        IdentityKey.load(path)


def test_a_tampered_key_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "k"
    IdentityKey.generate("ann").save(path)
    text = path.read_bytes().replace(b'"name":"ann"', b'"name":"ann" ')
    bad = tmp_path / "bad"
    bad.write_bytes(text)
    os.chmod(bad, 0o600)
    with pytest.raises(ProtocolError, match="not a key file"):
        IdentityKey.load(bad)


def test_signatures_and_public_keys() -> None:
    key = IdentityKey.generate()
    signature = key.sign(b"message")
    assert key.public.verify(b"message", signature)
    assert not key.public.verify(b"messagE", signature)
    assert not key.public.verify(b"message", signature[:-1])
    assert not IdentityKey.generate().public.verify(b"message", signature)
    assert PublicKey.from_hex(key.public.hex) == key.public
    for bad in ("00", key.public.hex.upper(), "zz" * 32, 5):
        with pytest.raises(ProtocolError):
            PublicKey.from_hex(bad)


def test_keys_cli_prints_only_the_public_key(tmp_path: Path) -> None:
    runner = CliRunner()
    path = tmp_path / "me.key"
    made = runner.invoke(cli, ["keys", "new", "--out", str(path), "--name", "ann"])
    assert made.exit_code == 0, made.output
    private = IdentityKey.load(path)._private.private_bytes_raw().hex()
    shown = runner.invoke(cli, ["keys", "show", str(path)])
    assert shown.exit_code == 0
    assert shown.output == made.output == f"{IdentityKey.load(path).public.hex}  ann\n"
    assert private not in made.output + shown.output
    again = runner.invoke(cli, ["keys", "new", "--out", str(path)])
    assert again.exit_code == 2 and "Error: " in again.output and "already exists" in again.output


def test_roster_round_trip_and_check(tmp_path: Path) -> None:
    roster, _, _ = make_roster()
    roster.check()
    path = tmp_path / "roster.json"
    roster.save(path)
    assert Roster.load(path) == roster
    assert roster.header() == HEADER
    assert path.read_bytes() == encode(roster.to_json())


def test_roster_check_names_the_party_whose_signature_fails() -> None:
    roster, _, _ = make_roster()
    unsigned_bob = replace(roster, seat_signatures=(roster.seat_signatures[0], b"", roster.seat_signatures[2]))
    with pytest.raises(ProtocolError, match="player bob"):
        unsigned_bob.check()
    with pytest.raises(ProtocolError, match="roster: service"):
        replace(roster, service_signature=roster.seat_signatures[0]).check()
    changed = replace(roster, pulya=10)  # every old signature now covers another roster
    with pytest.raises(ProtocolError, match="service"):
        changed.check()


def test_roster_refuses_a_key_used_twice_and_bad_fields() -> None:
    roster, _, _ = make_roster()
    with pytest.raises(ProtocolError, match="own identity key"):
        replace(roster, seats=(roster.seats[0], roster.seats[0].__class__("zed", roster.seats[0].key), roster.seats[2]))
    doc = roster.to_json()
    doc["roster"]["seats"][1]["seat"] = 5
    with pytest.raises(ProtocolError, match=r"\$.roster.seats\[1\].seat"):
        Roster.from_json(doc)
    doc = roster.to_json()
    doc["roster"]["extra"] = 1
    with pytest.raises(ProtocolError, match="extra"):
        Roster.from_json(doc)


def key_map(service: IdentityKey, players: list[IdentityKey]) -> dict[Sender, PublicKey]:
    keys: dict[Sender, PublicKey] = {"service": service.public}
    keys.update({i: k.public for i, k in enumerate(players)})
    return keys


def _ctx(roster: Roster, hand: int = 1) -> Context:
    return Context(roster.table, roster.session, hand, roster.hash)


def test_sealed_messages_open_and_chain() -> None:
    roster, service, players = make_roster()
    keys = key_map(service, players)
    first = seal(service, _ctx(roster), "service", "commit", {"c": "ab"}, roster.hash)
    second = seal(players[0], _ctx(roster), 0, "seed-commit", {"c": "cd"}, first.digest)
    assert open_checked(first.to_json(), _ctx(roster), keys, prev=roster.hash, sender="service") == parse(
        first.to_json()
    )
    assert open_checked(second, _ctx(roster), keys, prev=first.digest, kind="seed-commit").sender == 0


def test_open_checked_names_sender_check_and_blames_the_presenter() -> None:
    roster, service, players = make_roster()
    keys = key_map(service, players)
    names: dict[Sender, str] = {i: s.name for i, s in enumerate(roster.seats)}
    message = seal(players[1], _ctx(roster), 1, "seed-commit", {"c": "cd"}, roster.hash)
    altered = {**message.to_json(), "body": {"c": "ce"}}
    with pytest.raises(SignedMessageError) as caught:
        open_checked(altered, _ctx(roster), keys, presenter="service", names=names)
    assert (caught.value.party, caught.value.check) == ("service", "signature")
    assert "player bob" in str(caught.value)
    with pytest.raises(SignedMessageError, match="a replay"):
        open_checked(message, _ctx(roster, 2), keys)
    with pytest.raises(SignedMessageError, match="chain link"):
        open_checked(message, _ctx(roster), keys, prev="00" * 32)
    other, _, _ = make_roster(("ann", "bob", "dan"))
    with pytest.raises(SignedMessageError, match="signature"):
        open_checked(message, _ctx(other), keys)
    forged = seal(players[0], _ctx(roster), 1, "seed-commit", {"c": "cd"}, roster.hash)  # ann signs as bob
    with pytest.raises(SignedMessageError, match="signature"):
        open_checked(forged, _ctx(roster), keys)
    with pytest.raises(SignedMessageError, match="message form"):
        open_checked({**message.to_json(), "sender": True}, _ctx(roster), keys)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200)
@given(JSON)
def test_roster_reader_refuses_garbage_with_one_error(doc: object) -> None:
    try:
        Roster.from_json(doc)
    except ProtocolError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=100)
@given(st.data())
def test_roster_reader_names_the_field_of_a_changed_roster(data: st.DataObject) -> None:
    roster, _, _ = make_roster()
    doc = roster.to_json()
    body = doc["roster"]
    name = data.draw(st.sampled_from(sorted(body)))
    body[name] = data.draw(JSON.filter(lambda v: v != body[name]))
    try:
        changed = Roster.from_json(doc)
    except ProtocolError:
        return
    with pytest.raises(ProtocolError):
        changed.check()


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_key_file_reader_refuses_garbage(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("k") / "key"
    path.write_bytes(data)
    os.chmod(path, 0o600)
    with pytest.raises(ProtocolError):
        IdentityKey.load(path)


def test_open_checked_refuses_parse_garbage() -> None:
    with pytest.raises(SignedMessageError, match="message form"):
        parse([1, 2])


@pytest.mark.parametrize("kind", ["", "a\nb", "Keys", "seed commit", "x" * 41, "-keys", "ключи"])
def test_a_kind_that_is_not_a_word_is_refused_in_one_line(kind: str) -> None:
    """A report prints the kind it refuses beside the sender: only a lowercase word (hyphens allowed) is one."""
    envelope = {"sender": 0, "kind": kind, "hand": 1, "body": {}, "prev": "00" * 32, "signature": "00" * 64}
    with pytest.raises(SignedMessageError, match="a message kind") as refused:
        parse(envelope)
    assert "\n" not in str(refused.value) and refused.value.check == "message form"
    assert parse(envelope | {"kind": "discard-open"}).kind == "discard-open"
