"""A person's seat at a served mental-poker table, over the WebSocket, as the browser client plays it: its own
identity key and mental-poker ``Player`` (its key share, shuffle, discard nonce never leave it), the hand's
setup and the public game from the views, its own cards from its own shares, its choices made at random among
the legal ones — or, for a ``keen`` seat, passing in the auction and whisting whenever it may, so that every
hand it sits in comes to tricks."""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np
from websockets.sync.client import connect

from fairdeal.deal import get_pattern
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.following import Due
from fairdeal.protocols.mental_poker.player import Player
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.seat import protocol_step
from fairdeal.protocols.mental_poker.signing import Seating
from fairdeal.protocols.mental_poker.statements import sign_record, sign_settlement
from fairdeal.protocols.roster import Roster
from fairdeal.service.app import login_statement

ACES = 7  # a card's rank within its suit: code % 8


def own_legal_cards(held: tuple[int, ...], rule: dict[str, Any]) -> tuple[int, ...]:
    """The cards of ``held`` the trick admits under the view's ``own`` rule (the engine's ``legal_cards``)."""
    led, trump, beat = rule["led"], rule["trump"], rule["beat"]
    if led is None:
        return held
    allowed = tuple(c for c in held if c // 8 == led)
    if not allowed:
        allowed = tuple(c for c in held if trump is not None and c // 8 == trump) or held
    if beat is None:
        return allowed
    heading = tuple(c for c in allowed if (c > beat if c // 8 == beat // 8 else trump is not None and c // 8 == trump))
    return heading or allowed


class SocketSeat:
    def __init__(
        self,
        port: int,
        table: str,
        name: str,
        seat: int,
        seed: int = 0,
        keen: bool = False,
        silent: frozenset[tuple[int, int, str]] = frozenset(),
    ):
        """``silent``: the (hand, attempt, step)s this seat leaves unanswered, as a player who walks away."""
        self.port, self.table, self.name, self.seat, self.keen, self.silent = port, table, name, seat, keen, silent
        self.key = IdentityKey.generate(name)
        self.rng = np.random.default_rng(seed)
        self.views: list[dict[str, Any]] = []
        self.relayed: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.player: Player | None = None
        self.player_deal = (0, 0)  # the (hand, attempt) the party was made for
        self.fed = 0  # relayed rows shown to the player
        self.answered: set[tuple[Any, ...]] = set()

    def connect(self) -> None:
        """Take the seat, or come back to it: the relay sends every row again, and the party skips those it has
        been shown (``fed``)."""
        self.relayed, self.views = [], []  # a view from before is stale: wait for the table as it is now
        self._cm = connect(f"ws://127.0.0.1:{self.port}/ws/{self.table}", open_timeout=10)
        self.ws = self._cm.__enter__()
        nonce = json.loads(self.ws.recv(timeout=10))["nonce"]
        signature = self.key.sign(encode(login_statement(self.table, nonce))).hex()
        hello = {"type": "hello", "key": self.key.public.hex, "name": self.name, "seat": self.seat}
        self.ws.send(json.dumps(hello | {"signature": signature}))

    def close(self) -> None:
        self._cm.__exit__(None, None, None)

    def receive(self, timeout: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if message["type"] == "view":
            self.views.append(message["view"])
        elif message["type"] == "chain":
            assert message["from"] == len(self.relayed), "the relay skipped part of the hand"
            self.relayed += message["envelopes"]
        elif message["type"] == "error":
            self.errors.append(message["error"])
        return message

    def frame(self, kind: str, envelope: Any) -> None:
        self.ws.send(
            encode({"type": kind, "table": self.table, "seat": self.seat, "envelope": dict(envelope)}).decode()
        )

    def play_until(self, done: Any, limit: float = 120.0, beside: Any = None) -> dict[str, Any]:
        """Answer until ``done(view)``; ``beside()``, when given, runs between short waits (other players acting
        in the same thread)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.views and done(self.views[-1]):
                return self.views[-1]
            if self.views:
                self.step(self.views[-1])
            try:
                wait = 0.2 if beside is not None else max(0.1, deadline - time.monotonic())
                self.receive(timeout=wait)
            except TimeoutError:
                if beside is None:
                    break
            if beside is not None:
                beside()
        last = self.views[-1] if self.views else {}
        raise AssertionError(f"{self.name}: stuck at {last.get('stage')} {last.get('due')}; errors {self.errors[-3:]}")

    # ---- answering ------------------------------------------------------------------------------------------

    def seating(self, view: dict[str, Any]) -> Seating:
        return Seating(Roster.from_json(view["signed_roster"]))

    def step(self, view: dict[str, Any]) -> None:
        if view["stage"] == "roster" and self.seat in view["waiting_for"]:
            self.once(("roster",), lambda: self.roster_sign(view))
        elif view["stage"] == "play" and view["due"] is not None:
            self.follow(view)
            due = (view["hand"], view["setup"]["attempt"], view["due"]["step"])
            if view["due"]["player"] == self.name and len(self.relayed) == view["relayed"] and due not in self.silent:
                self.once(("play", view["hand"], view["relayed"]), lambda: self.answer(view))
        elif view["stage"] in ("record", "settle") and view["waiting_for"][:1] == [self.seat]:
            self.follow(view)
            self.once((view["stage"], view["hand"]), lambda: self.statement(view))

    def once(self, key: tuple[Any, ...], send: Any) -> None:
        if key not in self.answered:
            self.answered.add(key)
            send()

    def roster_sign(self, view: dict[str, Any]) -> None:
        signature = self.key.sign(Roster.from_json(view["signed_roster"]).message()).hex()
        frame = {"type": "roster-sign", "table": self.table, "seat": self.seat, "signature": signature}
        self.ws.send(encode(frame).decode())

    def follow(self, view: dict[str, Any]) -> None:
        """Begin my party for the view's hand, and show it the other seats' messages it has not seen."""
        setup = view["setup"]
        if setup is None:
            return
        deal = (setup["hand"], setup["attempt"])
        if self.player_deal != deal:
            self.player_deal, self.player = deal, None
            if self.name in setup["players"]:
                seating = self.seating(view)
                table_setup = TableSetup(
                    seating.hand_context(setup["hand"], setup["attempt"]),
                    get_pattern(setup["pattern"]),
                    tuple(setup["players"]),
                    version=4,
                )
                self.player = Player(table_setup, self.name).sign_with(self.key, seating)
        for row in self.relayed[self.fed :]:
            mine = row["seat"] == self.seat
            if (row["hand"], row["attempt"]) == deal and row["type"] == "mp-signed" and not mine and self.player:
                self.player.receive(row["body"])
        self.fed = max(self.fed, len(self.relayed))  # back from a lost connection, the resent rows may lag

    def answer(self, view: dict[str, Any]) -> None:
        due, game, player = view["due"], view["game"], self.player
        assert player is not None
        if due["step"] == "act":
            self.frame("mp-signed", player.decide({"action": self.decision(game["legal"])}))
            return
        if due["step"] == "announce":
            held = player.held_cards()
            word = None if any(c % 8 == ACES for c in held) else {"no_aces": bool(self.rng.integers(2))}
            self.frame("mp-signed", player.decide({"announce": word}))
            return
        if due["step"] == "discard":
            held = list(player.held_cards(taking=True))
            chosen = self.rng.choice(len(held), size=game["own"]["discard"], replace=False)
            self.frame("mp-signed", player.discard([held[i] for i in sorted(chosen)]))
        elif due["step"] == "play":
            if due["card"] is not None:  # chosen by the seat who plays my open hand: mine to prove
                legal = (due["card"],)
            elif game["legal"]:  # a hand open to all that I play for the table
                legal = tuple(a["card"] for a in game["legal"])
            else:
                elsewhere = {c for s, cards in game["open_hands"].items() if int(s) != self.seat for c in cards}
                own = tuple(c for c in player.held_cards() if c not in elsewhere)
                legal = own_legal_cards(own, game["own"])
            self.frame("mp-signed", player.play(legal[int(self.rng.integers(len(legal)))]))
        else:
            self.frame("mp-signed", protocol_step(player, Due(**due)))

    def decision(self, legal: list[dict[str, Any]]) -> dict[str, Any]:
        wanted = [a for a in legal if a.get("token") == "pass" or a.get("call") == "whist"] if self.keen else []
        chosen = wanted or legal
        return chosen[int(self.rng.integers(len(chosen)))]

    def statement(self, view: dict[str, Any]) -> None:
        seating = self.seating(view)
        if view["stage"] == "record":
            refusal = self.player.record_refusal(view["record"]) if self.player is not None else None
            body = sign_record(self.key, seating, view["hand"], view["record"], view["head"], refusal)
        else:
            body = sign_settlement(self.key, seating, view["proposal"])
        self.frame("statement", body)
