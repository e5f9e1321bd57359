"""A mental-poker table in ``fairdeal serve``: a person's seat plays over the WebSocket beside server-side bots,
every row is stored, the downloads verify in ``fairdeal verify`` and the offline page, a restarted server goes on
with the hand in progress, and a database made before the table's protocol column is brought forward."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from mp_socket_seat import SocketSeat, own_legal_cards
from service_helpers import Server
from sqlalchemy import select

from fairdeal.cli import cli
from fairdeal.engine.play import legal_cards
from fairdeal.engine.state import HandState
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.mental_poker.following import Due
from fairdeal.protocols.mental_poker.seat import protocol_step
from fairdeal.service import db

RUNNER = Path(__file__).parent / "js" / "run_verifier_page.cjs"
SEAT_MODULE = Path(__file__).resolve().parent.parent / "fairdeal" / "web" / "static" / "mental_poker_seat.js"


def _mp_table(server: Server, system: str, seats: int, hands: int) -> str:
    body = {"system": system, "seats": seats, "max_hands": hands, "dealing": "mental-poker"}
    reply = server.http.post("/api/tables", json=body)
    assert reply.status_code == 201, reply.text
    assert reply.json()["protocol"] == "fairdeal-mental-poker/4" and reply.json()["dealing"] == "mental-poker"
    return str(reply.json()["table"])


def _bots(server: Server, table: str, seats: range | list[int]) -> None:
    for seat in seats:
        assert server.http.post(f"/api/tables/{table}/bots", json={"seat": seat}).status_code == 200


def _download(server: Server, table: str, folder: Path) -> list[str]:
    docs = server.http.get(f"/api/tables/{table}/transcripts").json()
    (folder / f"{table}.jsonl").write_text(server.http.get(f"/api/tables/{table}/log").text, encoding="utf-8")
    files = []
    for doc in docs:
        path = folder / (f"hand-{doc['hand']:04d}.json" if doc.get("format") != "fairdeal-settlement" else "end.json")
        path.write_bytes(encode(doc))
        files.append(str(path))
    return files


@pytest.mark.parametrize(
    ("system", "seats"), [("sochi", 3), ("leningrad", 4), ("gusarik-sochi", 2), ("austrian", 3), ("preferans-1800s", 5)]
)
def test_a_person_and_bots_play_an_evening_that_verifies(tmp_path, page, system, seats):
    with Server(str(tmp_path / "fairdeal.db")) as server:
        table = _mp_table(server, system, seats, 2)
        _bots(server, table, [s for s in range(seats) if s != 1])
        person = SocketSeat(server.port, table, "Анна", 1, seed=seats)  # the forehand of the first hand: she plays
        person.connect()
        final = person.play_until(lambda v: v["stage"] in ("finished", "aborted"))
        person.close()
        assert final["stage"] == "finished", final["reason"]
        files = _download(server, table, tmp_path)
        log = tmp_path / f"{table}.jsonl"
    assert len(final["history"]) == 2 and not person.errors
    for command in (["verify", *files], ["log", "validate", str(log)], ["sheet", str(log)]):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, result.output
    shown = subprocess.run(["node", str(RUNNER), str(page), *files], capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr
    engine = db.connect(str(tmp_path / "fairdeal.db"))
    with engine.connect() as c:
        protocol = c.execute(select(db.tables.c.protocol).where(db.tables.c.id == table)).scalar()
        mine = c.execute(select(db.messages.c.type).where(db.messages.c.seat == 1)).scalars().all()
    assert protocol == "fairdeal-mental-poker/4"
    assert {"roster-sign", "mp-signed", "statement"} <= set(mine)


def _verifies(tmp_path: Path, page: Path, files: list[str], log: Path) -> None:
    """The downloads verify in ``fairdeal verify`` and the offline page; the log validates and makes a sheet."""
    for command in (["verify", *files], ["log", "validate", str(log)], ["sheet", str(log)]):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, result.output
    shown = subprocess.run(["node", str(RUNNER), str(page), *files], capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr


def test_a_person_who_walks_away_from_an_opening_is_charged_and_the_hand_dealt_again(tmp_path, page):
    """Silent at her shuffle, she is timed out; a bot signs the abandon, the hand is dealt again, and she comes
    back to play it: its record charges her the abort penalty, and the evening verifies."""
    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=6) as server:
        table = _mp_table(server, "sochi", 3, 2)
        _bots(server, table, [1, 2])
        person = SocketSeat(server.port, table, "Анна", 0, silent=frozenset({(1, 1, "shuffle")}))
        person.connect()
        final = person.play_until(lambda v: v["over"], limit=180)
        person.close()
        assert final["stage"] == "finished", final["reason"]
        files = _download(server, table, tmp_path)
    first = json.loads(Path(files[0]).read_text(encoding="utf-8"))
    assert (first["attempt"], len(first["aborts"]), first["record"]["penalty"][0]["seat"]) == (2, 1, 0)
    _verifies(tmp_path, page, files, tmp_path / f"{table}.jsonl")


def test_a_person_who_walks_away_from_every_attempt_ends_the_evening(tmp_path, page):
    """Silent at her keys three times: the evening ends on hand 1, she alone is charged, the others sign the
    settlement with that end, and the end verifies."""
    walks = frozenset((1, attempt, "keys") for attempt in (1, 2, 3))
    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=4) as server:
        table = _mp_table(server, "leningrad", 3, 2)
        _bots(server, table, [1, 2])
        person = SocketSeat(server.port, table, "Анна", 0, silent=walks)
        person.connect()
        final = person.play_until(lambda v: v["over"], limit=120)
        person.close()
        assert final["stage"] == "ended", final["reason"]
        files = _download(server, table, tmp_path)
        log = tmp_path / f"{table}.jsonl"
    assert final["ended"]["names"] == ["Анна"] and final["ended"]["step"] == "keys"
    assert json.loads(log.read_text(encoding="utf-8").splitlines()[-1])["penalty"][0]["seat"] == 0
    _verifies(tmp_path, page, files, log)


def test_a_restarted_server_goes_on_with_the_hand_in_progress(tmp_path):
    db_file = str(tmp_path / "fairdeal.db")
    server = Server(db_file).start()
    try:
        table = _mp_table(server, "sochi", 3, 1)
        _bots(server, table, [1, 2])
        person = SocketSeat(server.port, table, "Анна", 0, keen=True)  # she passes and whists: the hand has tricks
        person.connect()
        person.play_until(lambda v: v["stage"] == "play" and len(v["game"]["tricks"]) >= 2)
        person.close()
        server.kill()
        server = Server(db_file, port=server.port).start()
        person.connect()  # the same person, her party and its secrets still in her hands
        final = person.play_until(lambda v: v["stage"] in ("finished", "aborted"), limit=180)
        assert final["stage"] == "finished", final["reason"]
        assert len(final["history"]) == 1
    finally:
        server.stop()


def test_an_operators_abort_outlives_a_restart(tmp_path):
    db_file = str(tmp_path / "fairdeal.db")
    server = Server(db_file).start()
    try:
        table = _mp_table(server, "leningrad", 4, 2)
        _bots(server, table, [0, 1, 2])
        reply = server.http.post(f"/api/tables/{table}/abort", json={"reason": "closing time"})
        assert reply.status_code == 200 and reply.json()["stage"] == "aborted"
        server.kill()
        server = Server(db_file, port=server.port).start()
        view = server.http.get(f"/api/tables/{table}").json()
        assert (view["stage"], view["reason"], view["dealing"]) == ("aborted", "closing time", "mental-poker")
    finally:
        server.stop()


def test_a_seat_cannot_send_for_another_and_a_forged_message_is_refused(tmp_path):
    with Server(str(tmp_path / "fairdeal.db")) as server:
        table = _mp_table(server, "sochi", 3, 1)
        _bots(server, table, [1, 2])
        person = SocketSeat(server.port, table, "Анна", 0)
        person.connect()
        person.play_until(lambda v: v["stage"] == "play" and v["due"]["player"] == "Анна")
        view = person.views[-1]
        person.follow(view)
        envelope = dict(protocol_step(person.player, Due(**view["due"])))
        person.ws.send(encode({"type": "mp-signed", "table": table, "seat": 1, "envelope": envelope}).decode())
        assert "cannot speak for seat 1" in _error(person)
        forged = envelope | {"signature": "00" * 64}
        person.ws.send(encode({"type": "mp-signed", "table": table, "seat": 0, "envelope": forged}).decode())
        assert "signature" in _error(person)
        person.ws.send(json.dumps({"type": "mp-signed", "table": table, "seat": 0, "envelope": envelope}, indent=1))
        assert "canonical" in _error(person)
        person.ws.send(encode({"type": "mp-signed", "table": table, "seat": 0, "envelope": envelope}).decode())
        assert _ack(person)
        person.ws.send(encode({"type": "mp-signed", "table": table, "seat": 0, "envelope": envelope}).decode())
        assert _error(person)  # the same message again: not due, and a replay of the chain
        person.close()


def _error(seat: SocketSeat) -> str:
    while (message := seat.receive(timeout=10))["type"] not in ("error", "ack"):
        pass
    assert message["type"] == "error", message
    return str(message["error"])


def _ack(seat: SocketSeat) -> bool:
    while (message := seat.receive(timeout=10))["type"] not in ("error", "ack"):
        pass
    return bool(message["type"] == "ack")


def test_a_database_of_the_first_schema_is_brought_forward(tmp_path):
    """A table stored before migration 0002 reads as a commit-reveal table."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = sa.create_engine(url)
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        connection.execute(
            sa.text(
                "INSERT INTO tables (id, system, seats, max_hands, status, service_key, chain_tail) "
                "VALUES ('t-old', 'sochi', 3, 10, 'seating', :k, :c)"
            ),
            {"k": "ab" * 32, "c": "cd" * 32},
        )
    upgraded = db.connect(str(tmp_path / "old.db"))
    with upgraded.connect() as c:
        assert c.execute(select(db.tables.c.protocol)).scalar() == "fairdeal-commit-reveal/4"


def test_the_own_card_rule_admits_what_the_engine_admits(tmp_path):
    """The rule a seat's client applies to its own hidden cards (led suit, trump, card to beat) picks the engine's
    legal cards, in every trick of random hands of every system: in the Python seat and in the browser's."""
    import numpy as np

    from fairdeal.engine.driver import random_deal
    from fairdeal.engine.hand import apply, legal_actions, new_hand
    from fairdeal.engine.system import registered
    from fairdeal.service.mp_table import _own_card_rule

    rng = np.random.default_rng(7)
    cases = []
    for system in registered():
        for seats in system.players:
            for _ in range(3):
                state: HandState = new_hand(system.convention, seats, 0, random_deal(rng, system.convention, seats))
                while legal_actions(state):
                    rule = _own_card_rule(state)
                    if rule["play"] and state.turn is not None:
                        held = [int(c) for c in state.hands[state.turn]]
                        assert own_legal_cards(tuple(held), rule) == legal_cards(state)
                        cases.append({"held": held, "rule": rule, "legal": [int(c) for c in legal_cards(state)]})
                    actions = legal_actions(state)
                    state = apply(state, actions[int(rng.integers(len(actions)))])
    assert len(cases) > 1000
    (tmp_path / "cases.json").write_text(json.dumps(cases), encoding="utf-8")
    script = (  # the browser seat's own function, under Node
        f"import {{ ownLegalCards }} from {json.dumps(SEAT_MODULE.as_uri())};"
        f"import fs from 'node:fs';"
        f"const cases = JSON.parse(fs.readFileSync({json.dumps(str(tmp_path / 'cases.json'))}, 'utf8'));"
        "const wrong = cases.filter((c) => ownLegalCards(c.held, c.rule).join() !== c.legal.join());"
        "console.log(JSON.stringify(wrong.slice(0, 3)));"
    )
    shown = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == []
