"""Hostile clients over the WebSocket: each bad message is refused with one clear line, nothing is stored, and
the table plays on; no endpoint shows a card to anyone the rules do not let see it."""

from __future__ import annotations

import json

from service_helpers import ScriptedPlayer, Server, create_table
from sqlalchemy import func, select

from fairdeal.service import db


def _stored(url: str, table: str, seat: int | None = None) -> int:
    query = select(func.count()).select_from(db.messages).where(db.messages.c.table_id == table)
    if seat is not None:
        query = query.where(db.messages.c.seat == seat)
    with db.connect(url).connect() as c:
        return c.execute(query).scalar()


def _my_turn(view: dict) -> bool:
    return view["game"] is not None and bool(view["game"]["legal"]) and view["game"]["phase"] == "play"


def test_bad_messages_are_refused_and_nothing_is_stored(tmp_path):
    url = str(tmp_path / "fairdeal.db")
    with Server(url) as server:
        table = create_table(server)
        server.http.post(f"/api/tables/{table}/bots", json={"seat": 2})
        alice = ScriptedPlayer(server, table, "Alice", 0)
        bob = ScriptedPlayer(server, table, "Bob", 1)
        alice.connect()
        bob.connect()
        # Both act until one of them is to play a card, so a card it does not hold can be offered.
        players = [alice, bob]
        while True:
            mover = next((p for p in players if _my_turn(p.views[-1])), None)
            if mover is not None:
                break
            acted = any(p.step(p.views[-1]) for p in players)
            if not acted:
                for p in players:
                    while p.ws and _drain(p):
                        pass
        other = bob if mover is alice else alice
        view = mover.views[-1]
        legal = view["game"]["legal"]
        before = _stored(url, table)
        held = set(view["game"]["hand"]) | {c for cards in view["game"]["open_hands"].values() for c in cards}
        foreign = next(
            c
            for c in range(32)
            if c not in held and c not in {p for t in view["game"]["tricks"] for _, p in t["plays"]}
        )
        cases = [
            (other, lambda: other.send("act", {"action": legal[0]}, seat=mover.seat), "cannot speak for seat"),
            (mover, lambda: mover.send("act", {"action": dict(legal[0], card=foreign)}), "not a legal action"),
            (other, lambda: other.send("act", {"action": legal[0]}), "not your turn"),
            (mover, lambda: mover.send("act", {"action": legal[0]}, seq=1), "is a replay"),
            (mover, lambda: mover.send("act", {"action": legal[0]}, table="t-other"), "this connection is for table"),
            (mover, lambda: mover.send("act", {"action": legal[0]}, extra=1), "malformed message"),
            (mover, lambda: mover.send("act", {"action": "x" * 20_000}), "exceeds the limit"),
            (mover, lambda: mover.send("seed", {"seed": "00" * 32}), "cannot open a seed now"),
            (mover, lambda: _raw(mover, "{not json"), "not JSON"),
        ]
        for who, send, text in cases:
            reply = send()
            assert reply["type"] == "error" and text in reply["error"], (text, reply)
            who.seq -= 1  # the refused message used no sequence number
        assert _stored(url, table) == before
        mine = _stored(url, table, mover.seat)
        mover.seq = view["last_seq"]
        assert mover.send("act", {"action": legal[0]})["type"] == "ack"
        assert _stored(url, table, mover.seat) == mine + 1
        alice.close()
        bob.close()


def _drain(player) -> bool:
    try:
        player.receive("view", timeout=0.5)
        return True
    except TimeoutError:
        return False


def _raw(player, text: str) -> dict:
    player.seq += 1
    player.ws.send(text)
    while True:
        message = player.receive()
        if message["type"] in ("ack", "error"):
            return message


def test_no_endpoint_shows_a_card_it_should_not(tmp_path):
    with Server(str(tmp_path / "fairdeal.db"), bot_delay=0.5) as server:
        table = create_table(server, max_hands=2)
        for seat in (0, 1):
            server.http.post(f"/api/tables/{table}/bots", json={"seat": seat})
        carol = ScriptedPlayer(server, table, "Carol", 2)
        carol.connect()
        view = carol.play_until(lambda v: v["game"] is not None)
        public = server.http.get(f"/api/tables/{table}").json()
        listing = server.http.get("/api/tables").json()
        watcher = ScriptedPlayer(server, table, "Eve", None)
        watched = watcher.connect()
        assert public["game"] is None and watched["game"] is None and watched["you"] is None
        assert "commitments" not in json.dumps(listing)
        assert server.http.get(f"/api/tables/{table}/hands/1/transcript").status_code == 404
        assert server.http.get(f"/api/tables/{table}/transcripts").json() == []
        mine = set(view["game"]["hand"])
        assert len(mine) == 10 and all(len(view["game"]["open_hands"].get(str(s), [])) == 0 for s in (0, 1))
        watcher.close()
        carol.close()


def test_a_late_player_is_played_for_in_play_and_ends_the_table_in_the_protocol(tmp_path):
    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=1) as server:
        table = create_table(server)
        server.http.post(f"/api/tables/{table}/bots", json={"seat": 1})
        server.http.post(f"/api/tables/{table}/bots", json={"seat": 2})
        dan = ScriptedPlayer(server, table, "Dan", 0)
        dan.connect()
        played_for = 0
        while dan.views[-1]["stage"] != "aborted":
            view = dan.views[-1]
            hand = view["protocol"].get("hand")
            if view["protocol"]["need"] and (hand or 0) < 2:  # Dan deals hand 1 honestly, then withholds
                dan.step(view)
                continue
            message = dan.receive("view", timeout=15)
            if message["view"]["last_seq"] > view["last_seq"] and view["stage"] == "play":
                played_for += 1  # Dan sat still: the server made his move
        assert played_for > 0
        assert "did not answer within 1 s at the commit stage" in dan.views[-1]["reason"]
        dan.close()
