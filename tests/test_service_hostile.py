"""Hostile clients over the WebSocket: each bad message is refused with one clear line, nothing is stored, and
the table plays on; no endpoint shows a card to anyone the rules do not let see it."""

from __future__ import annotations

import json

from service_helpers import ScriptedPlayer, Server, create_table
from sqlalchemy import func, select

from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.signed import Context, parse, seal
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
            (mover, lambda: mover.send_signed(mover.chain[-1]), "no signed message is due now"),
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


def _drain(player, timeout: float = 0.5) -> bool:
    try:
        player.receive("view", timeout=timeout)
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


def _signed_by(player: ScriptedPlayer, kind: str, honest: dict) -> dict:
    """``player``'s validly signed message of the step, following the chain's last message (not sent by it)."""
    ctx = Context(player.table, "pulya", honest["hand"], player.player.roster.hash)
    return seal(player.key, ctx, player.seat, kind, honest["body"], honest["prev"]).to_json()


def _until_due(players: list[ScriptedPlayer], kind: str) -> ScriptedPlayer:
    """Play every step until one of ``players`` is asked for ``kind``; that player (who has not answered)."""
    while True:
        for p in players:
            if p.views[-1]["protocol"]["need"] == kind:
                return p
        if not any(p.step(p.views[-1]) for p in players):
            for p in players:
                _drain(p, 0.1)


def test_hostile_signed_messages_are_refused_naming_the_check_and_nothing_is_stored(tmp_path):
    """Another seat's message, a replay, a malformed, non-canonical or oversized frame, a message out of turn,
    a bad signature, a body that is not the step's, a seed that does not open the commitment: each refused with
    one line naming the check; the database and the table are unchanged, and the honest answer then goes in."""
    url = str(tmp_path / "fairdeal.db")
    with Server(url) as server:
        table = create_table(server)
        server.http.post(f"/api/tables/{table}/bots", json={"seat": 2})
        alice, bob = ScriptedPlayer(server, table, "Alice", 0), ScriptedPlayer(server, table, "Bob", 1)
        alice.connect()
        bob.connect()
        for kind in (m.COMMIT, m.REVEAL):
            due = _until_due([alice, bob], kind)
            other = bob if due is alice else alice
            _drain(other)
            hand = due.views[-1]["protocol"]["hand"]
            honest = due.answer(kind, hand).to_json()
            before, chain = _stored(url, table), len(due.chain)
            forged = dict(honest, signature=("0" if honest["signature"][0] != "0" else "1") + honest["signature"][1:])
            # signed by the other seat for this step, by a copy of its party (the real one must stay as it was)
            other_key = _signed_by(other, kind, honest)
            wrong_body = dict(honest, body=dict(honest["body"], attempt=5))
            accepted = parse(due.chain[-1]).to_json()
            cases = [
                (due.send_signed(dict(other_key)), "sender:"),
                (due.send_signed(honest, seat=other.seat), "cannot speak for seat"),
                (other.send_signed(other_key), "turn: seat"),
                (due.send_signed(accepted), "sender:" if accepted["sender"] != due.seat else "chain link"),
                (due.send_signed(forged), "signature"),
                (due.send_signed(wrong_body), "signature"),
                (
                    due.send_raw(json.dumps({"type": "signed", "table": table, "seat": due.seat, "envelope": honest})),
                    "canonical",
                ),
                (
                    due.send_raw(
                        encode({"type": "signed", "table": table, "seat": due.seat, "envelope": "x" * 20_000})
                    ),
                    "exceeds the limit",
                ),
                (
                    due.send_raw(
                        encode({"type": "signed", "table": table, "seat": due.seat, "envelope": honest, "x": 1})
                    ),
                    "exactly the fields",
                ),
                (due.send_signed(dict(honest, prev="00" * 32)), "signature"),
                (due.send_signed({"sender": due.seat}), "message form"),
            ]
            if kind == m.REVEAL:
                body = dict(honest["body"], seed="00" * 32)
                bad_seed = seal(
                    due.key, Context(table, "pulya", hand, due.player.roster.hash), due.seat, kind, body, honest["prev"]
                )
                cases.append((due.send_signed(bad_seed.to_json()), "seed opening"))
            for reply, text in cases:
                assert reply["type"] == "error" and text in reply["error"], (kind, text, reply)
            assert _stored(url, table) == before and len(due.chain) == chain
            assert due.send_signed(honest)["type"] == "ack"
            assert _stored(url, table) > before
            replay = due.send_signed(honest)
            assert replay["type"] == "error" and ("turn" in replay["error"] or "no signed message" in replay["error"])
        alice.close()
        bob.close()


def test_a_late_player_is_played_for_in_play_and_ends_the_evening_by_the_protocol(tmp_path):
    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=1) as server:
        table = create_table(server)
        server.http.post(f"/api/tables/{table}/bots", json={"seat": 1})
        server.http.post(f"/api/tables/{table}/bots", json={"seat": 2})
        dan = ScriptedPlayer(server, table, "Dan", 0)
        dan.connect()
        played_for = 0
        while dan.views[-1]["stage"] != "ended":
            view = dan.views[-1]
            hand = view["protocol"].get("hand")
            if view["protocol"]["need"] and (hand or 0) < 2:  # Dan deals hand 1 honestly, then withholds
                dan.step(view)
                continue
            message = dan.receive("view", timeout=15)
            if message["view"]["last_seq"] > view["last_seq"] and view["stage"] == "play":
                played_for += 1  # Dan sat still: the server made his move
        assert played_for > 0
        assert "hand 2: aborted 3 times; the evening ends, player Dan (3 times) charged" in dan.views[-1]["reason"]
        aborts = [parse(e) for e in dan.chain if e["kind"] == m.ABORT]
        # The v4 policy: each attempt Dan let lapse is aborted, signed by the service and naming him, and the hand
        # dealt again from fresh seeds; after the third abort the evening ends, charging him once per abort.
        assert [(a.hand, a.body["attempt"], a.body["missing"]) for a in aborts] == [
            (2, 0, [0]),
            (2, 1, [0]),
            (2, 2, [0]),
        ]
        assert (dan.views[-1]["ended"]["step"], dan.views[-1]["ended"]["charged"]) == ("abort", [0, 0, 0])
        dan.close()
