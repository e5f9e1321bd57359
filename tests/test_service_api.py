"""fairdeal serve over HTTP and WebSockets: a person and bots play, the database holds every message, the
transcripts verify, and a restarted server resumes the hand in progress (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from service_helpers import PostgresCluster, ScriptedPlayer, Server, create_table, hands_done
from sqlalchemy import select

from fairdeal.cli import cli
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4.check import Pins
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.verify import verify_documents, verify_log
from fairdeal.service import db

RUNNER = Path(__file__).parent / "js" / "run_verifier_page.cjs"


@pytest.fixture(scope="module")
def postgres_url():
    cluster = PostgresCluster()
    url = cluster.start()
    yield url
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "fairdeal.db")
    url = request.getfixturevalue("postgres_url")
    engine = db.connect(url)
    with engine.begin() as c:  # one database per module: start each test from empty tables
        for t in reversed(db.metadata.sorted_tables):
            c.execute(t.delete())
    return url


def _seat_bots(server, table: str, seats) -> None:
    for seat in seats:
        assert server.http.post(f"/api/tables/{table}/bots", json={"seat": seat}).status_code == 200


def test_a_person_and_two_bots_play_hands_that_verify_and_are_all_stored(db_url, tmp_path):
    with Server(db_url) as client:
        table = create_table(client, max_hands=2)
        _seat_bots(client, table, [1, 2])
        player = ScriptedPlayer(client, table, "Анна", 0)
        player.connect()
        final = player.play_until(lambda v: v["stage"] == "finished")
        player.close()
        docs = client.http.get(f"/api/tables/{table}/transcripts").json()
        roster = client.http.get(f"/api/tables/{table}/roster").json()
        log = client.http.get(f"/api/tables/{table}/log").text
        one = client.http.get(f"/api/tables/{table}/hands/1/transcript")
        audit = client.http.get(f"/api/tables/{table}/audit")
        operators = client.http.get("/operator")
        listing = client.http.get("/api/tables").json()
    assert audit.status_code == 200 and audit.text.lstrip().lower().startswith("<!doctype html")
    assert "hands" in audit.text and operators.status_code == 200 and "Tables and sessions" in operators.text
    assert [t["stage"] for t in listing if t["table"] == table] == ["finished"]
    assert len(final["history"]) == 2 and len(docs) == 3 and docs[2]["format"] == "fairdeal-settlement"
    assert one.json() == docs[0]
    pins = Pins(Roster.from_json(roster), (), player.key)
    report = verify_documents([(f"hand {d.get('hand', 0)}", d) for d in docs], pins=pins)
    assert report.failures == () and report.transcripts == 3
    assert docs[0]["roster"] == roster and roster["roster"]["seats"][0]["key"] == player.public_key
    engine = db.connect(db_url)
    with engine.connect() as c:
        stored = c.execute(select(db.messages.c.seat, db.messages.c.seq).where(db.messages.c.table_id == table)).all()
        kinds = c.execute(
            select(db.messages.c.type).where(db.messages.c.table_id == table, db.messages.c.seat == 0)
        ).scalars()
        mine = sorted(kinds)
        identity = c.execute(select(db.identities.c.name).where(db.identities.c.key == player.public_key)).scalar()
    assert sorted(seq for seat, seq in stored if seat == 0) == list(range(1, player.acks + 1))
    # the roster signature; the acceptance, 3 signed answers a hand and the settlement's; the rest are actions
    assert (
        mine.count("roster-sign") == 1
        and mine.count("signed") == 1 + 2 * 3 + 1
        and set(mine)
        <= {
            "roster-sign",
            "signed",
            "act",
        }
    )
    relayed = [(seat, seq) for seat, seq in stored if seat == -2]  # the service's own signed messages
    assert len(relayed) == 1 + 2 * 3 + 1  # the opening; hand-open, reveal request, hand-close; the settlement
    assert identity == "Анна"
    path = tmp_path / f"{table}.jsonl"
    path.write_text(log, encoding="utf-8")
    folder = tmp_path / f"{table}.transcripts"
    folder.mkdir()
    files = [folder / (f"hand-{d['hand']:04d}.json" if "hand" in d else "settlement.json") for d in docs]
    for doc, file in zip(docs, files):
        file.write_bytes(encode(doc))
    (tmp_path / "roster.json").write_bytes(encode(roster))
    player.key.save(tmp_path / "me.key")
    pinned = ["verify", "--roster", str(tmp_path / "roster.json"), "--me", str(tmp_path / "me.key"), *map(str, files)]
    for command in (["log", "validate", str(path)], ["verify", "--log", str(path)], ["sheet", str(path)], pinned):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, result.output
    assert "unpinned" not in result.output


def test_a_restarted_server_resumes_the_hand_in_progress(db_url):
    server = Server(db_url).start()
    client = server
    table = create_table(client)
    _seat_bots(client, table, [0, 2])
    player = ScriptedPlayer(client, table, "Boris", 1)
    player.connect()
    before = player.play_until(lambda v: v["game"] is not None and v["game"]["step"] >= 3)
    server.kill()
    with Server(db_url, port=server.port) as client:
        again = ScriptedPlayer(client, table, "Boris", None, key=player.key, rng=player.rng)
        again.seq, again.seeds, again.done, again.seat = player.seq, player.seeds, player.done, 1
        again.player = player.player  # the player's own record of the chain (a browser keeps it in its memory)
        view = again.connect()
        assert view["you"] == 1 and view["hand"] == before["hand"]
        assert view["game"]["hand"] == before["game"]["hand"] or view["game"]["step"] > before["game"]["step"]
        assert view["game"]["step"] >= before["game"]["step"]
        done = again.play_until(hands_done(before["hand"] + 1))
        again.close()
        docs = client.http.get(f"/api/tables/{table}/transcripts").json()
    assert len(done["history"]) >= before["hand"]
    assert verify_documents([(str(d.get("hand", 0)), d) for d in docs]).failures == ()


def test_the_http_api_refuses_bad_input_with_one_line(tmp_path):
    with Server(str(tmp_path / "x.db")) as client:
        cases = [
            ({"system": "nope", "seats": 3}, "system: unknown system"),
            ({"system": "sochi", "seats": 7}, "seats: sochi is played by"),
            ({"system": "sochi", "seats": 3, "max_hands": 0}, "max_hands"),
        ]
        for body, text in cases:
            reply = client.http.post("/api/tables", json=body)
            assert reply.status_code == 400 and text in reply.json()["error"]
        big = client.http.post("/api/tables", content=b"{" + b" " * 10_000 + b"}")
        assert big.status_code == 400 and "exceeds the limit" in big.json()["error"]
        assert client.http.get("/api/tables/t-missing").status_code == 404
        table = create_table(client)
        assert client.http.post(f"/api/tables/{table}/bots", json={"seat": 9}).status_code == 409
        assert client.http.get(f"/api/tables/{table}/hands/1/transcript").status_code == 404
        systems = {s["name"]: s["players"] for s in client.http.get("/api/systems").json()}
        assert systems["sochi"] == [3, 4, 5]


def test_serve_with_a_database_it_cannot_open_says_so_in_one_line(tmp_path):
    import subprocess
    import sys

    for url, text in (
        (str(tmp_path / "no" / "such" / "dir.db"), "unable to open database file"),
        ("foo://x", "Can't load plugin"),
        ("postgresql://nobody@127.0.0.1:1/x", "Connection refused"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "fairdeal", "serve", "--db", url], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2 and text in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_seat_that_stops_countersigning_ends_the_evening_by_the_policy(db_url, tmp_path, page):
    """Dan countersigns hand 1, then never hand 2: at the turn timeout the service voids hand 2, charges Dan,
    signs the end and the settlement, the bots countersign it, the table shows as ended, and what it offers for
    download (log, transcripts) verifies in fairdeal verify and in the offline page."""
    with Server(db_url, turn_timeout=2) as server:
        table = create_table(server, max_hands=3)
        final = _silent_dan(server, table, "record-sign", limit=120)
        voided = server.http.get(f"/api/tables/{table}/hands/2/transcript")
        listing = server.http.get("/api/tables").json()
        _, log, report, verdict = _downloaded(server, table, tmp_path, page)
    assert final["ended"]["charged"] == [0] and final["ended"]["names"] == ["Dan"] and final["ended"]["hand"] == 2
    assert "the evening ends, player Dan charged" in final["reason"]
    assert [t["stage"] for t in listing if t["table"] == table] == ["ended"]
    assert [h["hand"] for h in final["history"]] == [1] and voided.status_code == 200
    lines = [json.loads(line) for line in log.splitlines()]
    assert [line["type"] for line in lines] == ["table", "hand", "end"]
    assert lines[-1]["penalty"] == final["ended"]["penalty"]
    assert report.ok, [f.line() for f in report.failures]
    assert any("the evening ends here" in note and "player Dan charged" in note for note in report.notes)
    assert verdict["ok"], verdict
    assert any("the evening ends here" in note and "player Dan charged" in note for note in verdict["notes"])


def _silent_dan(server, table: str, step: str, limit: int, hand: int | None = 2, stage: str = "ended") -> dict:
    """Bots in seats 1 and 2; Dan in seat 0 plays, but sends nothing for ``step`` (of ``hand``, or of any hand);
    his last view once the table has reached ``stage``."""
    _seat_bots(server, table, [1, 2])
    dan = ScriptedPlayer(server, table, "Dan", 0)
    dan.connect()

    def walked(view: dict) -> bool:
        if view["stage"] == stage:
            return True
        need, at = view["protocol"]["need"], view["protocol"]["hand"]
        if need == step and hand in (None, at):
            dan.done.add((need, at, view["protocol"]["chain"]))  # Dan reads it and sends nothing
        return False

    final = dan.play_until(walked, limit=limit)
    dan.close()
    return final


def _downloaded(server, table: str, tmp_path: Path, page) -> tuple:
    """What the table offers for download (log, transcripts), written as files, checked by fairdeal verify and by
    the offline page."""
    rows = server.http.get(f"/api/tables/{table}/transcripts").json()
    log = server.http.get(f"/api/tables/{table}/log").text
    folder = tmp_path / f"{table}.transcripts"
    folder.mkdir()
    for doc in rows:
        name = f"hand-{doc['hand']:04d}.json" if "hand" in doc else "settlement.json"
        (folder / name).write_bytes(encode(doc))
    (tmp_path / f"{table}.jsonl").write_text(log, encoding="utf-8")
    report = verify_log(tmp_path / f"{table}.jsonl")
    files = [str(p) for p in sorted(folder.iterdir())] + [str(tmp_path / f"{table}.jsonl")]
    shown = subprocess.run(["node", str(RUNNER), str(page), *files], capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr
    return rows, log, report, json.loads(shown.stdout)


def test_an_opening_aborted_three_times_ends_the_evening_online(tmp_path, page):
    """Dan plays hand 1, then commits to no seed in any attempt of hand 2: at each turn timeout the service aborts
    the attempt, after the third it ends the evening charging Dan once per abort, the bots countersign, and the
    download verifies in fairdeal verify and in the offline page (SQLite)."""
    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=2) as server:
        table = create_table(server, max_hands=3)
        final = _silent_dan(server, table, "seed-commit", limit=180)
        rows, log, report, verdict = _downloaded(server, table, tmp_path, page)
    assert (final["ended"]["hand"], final["ended"]["charged"]) == (2, [0, 0, 0]), final["ended"]
    assert "aborted 3 times" in final["reason"] and [h["hand"] for h in final["history"]] == [1]
    voided = next(d for d in rows if d.get("hand") == 2)
    assert [e["body"]["missing"] for e in voided["messages"] if e["kind"] == "abort"] == [[0], [0], [0]]
    lines = [json.loads(line) for line in log.splitlines()]
    assert [line["type"] for line in lines] == ["table", "hand", "end"]
    assert report.ok, [f.line() for f in report.failures]
    assert any("aborted 3 times" in n and "player Dan charged" in n for n in report.notes)
    assert verdict["ok"], verdict
    assert any("aborted 3 times" in n and "player Dan charged" in n for n in verdict["notes"])


def test_a_seat_that_does_not_countersign_the_settlement_is_left_out_online(tmp_path, page):
    """Dan plays every hand but never countersigns the settlement: at the turn timeout he is left out, the bots
    countersign, the table finishes, and the download verifies in both, Dan named in a note (SQLite)."""
    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=2) as server:
        table = create_table(server, max_hands=1)
        final = _silent_dan(server, table, "settlement-sign", limit=120, hand=None, stage="finished")
        rows, _, report, verdict = _downloaded(server, table, tmp_path, page)
    assert final["stage"] == "finished", final.get("reason")
    settlement = next(d for d in rows if "hand" not in d)
    assert [e["sender"] for e in settlement["messages"] if e["kind"] == "settlement-sign"] == [1, 2]
    assert report.ok, [f.line() for f in report.failures]
    assert verdict["ok"], verdict
    for notes in (report.notes, verdict["notes"]):
        assert any("player Dan did not countersign the settlement" in n for n in notes), notes
