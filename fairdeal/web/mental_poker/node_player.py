"""A JavaScript mental-poker seat (``player.js``) behind the Python player's message interface.

Each ``NodeSeat`` is one Node child process (``fairdeal/web/bin/mental-poker-player.cjs``) speaking JSON lines;
it holds that seat's identity seed, key shares, shuffle secrets and discard nonces, and checks every message it
is shown with the JavaScript verifier. ``NodePlayer`` seats it in a ``Table`` in place of a Python ``Player``:
every step is answered by the JavaScript, and a message it refuses raises the same ``MentalPokerError`` or
``SignedMessageError`` a Python seat raises, so the table files its signed refusal the same way.

``NodePlayer.state`` is the table's public view of the hand (what the relay sees), kept without proof checks
after the JavaScript accepted each message: the engine host of a simulation reads the deck and the chain head
from it, as ``source.py`` does from any player.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from fairdeal.cards import Card, parse_card
from fairdeal.errors import MentalPokerError, ProtocolError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.group import Point
from fairdeal.protocols.mental_poker.messages import Message
from fairdeal.protocols.mental_poker.player import Player
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.signing import Seating, open_message
from fairdeal.protocols.mental_poker.source import MAX_ATTEMPTS, MentalPokerSource
from fairdeal.protocols.table import TableSpec

BIN = Path(__file__).resolve().parent.parent / "bin" / "mental-poker-player.cjs"
PAGE = Path(__file__).resolve().parent.parent / "static" / "vendor" / "verifier.html"


class NodePlayerError(ProtocolError):
    """The JavaScript seat could not answer (it stopped, or was asked what it cannot do): not a refusal."""


def _error(found: Mapping[str, Any]) -> Exception:
    detail = str(found.get("detail"))
    if found.get("kind") == "mental-poker":
        return MentalPokerError(detail, found.get("player"), found.get("step"))
    if found.get("kind") == "signed":
        return SignedMessageError(detail, str(found.get("party")), str(found.get("check")))
    return NodePlayerError(f"the JavaScript player: {detail}")


class NodeSeat:
    """One seat's JavaScript player for a whole session: its process, its identity (from ``seed``)."""

    def __init__(
        self,
        name: str,
        seed: bytes,
        page: Path = PAGE,
        node: str | None = None,
        permutation: Callable[[int], Sequence[int]] | None = None,
        engine_host: bool = False,
    ):
        """``permutation(size)`` replaces the random shuffle only for reproducible evenings, as ``Player``'s;
        ``engine_host`` lets a simulation's engine host have the seat's shares of the cards nobody holds
        (``hidden_share_points``), which a seat at a real table never gives out."""
        self.permutation = permutation
        executable = node or shutil.which("node")
        if executable is None:
            raise NodePlayerError("node is needed to run the JavaScript player")
        self.name = name
        self.identity = IdentityKey.from_seed(seed, name)
        self._seed = seed
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [executable, str(BIN), "--page", str(page), *(["--engine-host"] if engine_host else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def request(self, op: str, **fields: Any) -> Any:
        """One request and its answer; a refused message raises what a Python seat raises."""
        stdin, stdout = self._pipes()
        with self._lock:
            try:
                stdin.write(json.dumps({"op": op, **fields}) + "\n")
                stdin.flush()
                line = stdout.readline()
            except (BrokenPipeError, OSError):
                line = ""
        if not line:
            raise NodePlayerError(f"the JavaScript player of {self.name} stopped: {self._stderr()}")
        answer = json.loads(line)
        if "error" in answer:
            raise _error(answer["error"])
        return answer["ok"]

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        stdin, stdout = self._process.stdin, self._process.stdout
        if stdin is None or stdout is None:
            raise NodePlayerError("the JavaScript player has no pipes")
        return stdin, stdout

    def _stderr(self) -> str:
        self._process.kill()
        _, err = self._process.communicate(timeout=10)
        return err.strip().splitlines()[-1] if err.strip() else f"exit {self._process.returncode}"

    def sit(self, seating: Seating) -> None:
        """Take this seat of the session's roster (checked in JavaScript: the roster's signatures, the key)."""
        answer = self.request("seat", roster=seating.roster.to_json(), name=self.name, seed=self._seed.hex())
        if answer["public"] != self.identity.public.hex:
            raise NodePlayerError(f"the JavaScript player of {self.name} holds another key than the roster's")

    def player(self, setup: TableSetup) -> NodePlayer:
        return NodePlayer(setup, self.name, self)

    def sign_record(self, hand: int, record: Mapping[str, Any], head: str) -> dict[str, Any]:
        """The seat's signed statement of ``record`` (a refusal if its cards are not the ones proved)."""
        statement: dict[str, Any] = self.request("record", hand=hand, record=dict(record), head=head)
        return statement

    def sign_settlement(
        self,
        proposal: Mapping[str, Any],
        complete: Sequence[Mapping[str, Any]],
        stopped: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The seat's signed statement of the settlement ``proposal`` closing the ``complete`` hands (and the
        ``stopped`` one an end voided), or its signed refusal. It checks, as ``settlement_objection`` does and with
        its reasons, that those are the hands whose records it signed, the hand count, the last hash, the end the
        stopped hand proves and, by the page's engine, the amounts its own sheet settles to."""
        shown = {"complete": [dict(doc) for doc in complete], "stopped": None if stopped is None else dict(stopped)}
        statement: dict[str, Any] = self.request("settlement", proposal=dict(proposal), **shown)
        return statement

    def cpu_seconds(self) -> float:
        """CPU time the Node process has used so far."""
        return float(self.request("cpu"))

    def close(self) -> None:
        if self._process.poll() is None:
            stdin, _ = self._pipes()
            stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for pipe in (self._process.stdout, self._process.stderr):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> NodeSeat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _attempt(seating: Seating, setup: TableSetup) -> int:
    for attempt in range(1, MAX_ATTEMPTS + 1):
        if seating.hand_context(setup.context.hand, attempt) == setup.context:
            return attempt
    raise NodePlayerError(f"hand {setup.context.hand} is bound to no attempt of this roster")


class NodePlayer(Player):
    """A seat of one hand answered by its JavaScript player; ``state`` is the table's public view (see above)."""

    def __init__(self, setup: TableSetup, name: str, seat: NodeSeat):
        super().__init__(setup, name)
        self._seat = seat

    def sign_with(self, identity: IdentityKey, seating: Seating) -> Player:
        """Start the hand in JavaScript; ``identity`` must be the seat's own (its seed never leaves the seat)."""
        if identity.public != self._seat.identity.public:
            raise MentalPokerError("the identity key is not the JavaScript seat's key", self.name)
        if seating.roster.seats[seating.seat_of(self.name)].key != identity.public:
            raise MentalPokerError("the identity key is not the roster's key for this seat", self.name)
        self.seating = seating
        setup = self.setup
        started = self._seat.request(
            "hand",
            hand=setup.context.hand,
            attempt=_attempt(seating, setup),
            pattern=setup.pattern.name,
            players=list(setup.players),
        )
        if started["table_id"] != setup.context.table_id or started["head"] != self.state.head:
            raise NodePlayerError(f"the JavaScript player of {self.name} set up another hand than the table's")
        return self

    def _view(self, envelope: Message) -> Message:
        """Add a message the JavaScript accepted or sent to the public view."""
        assert self.seating is not None  # sign_with comes first
        opened = open_message(envelope, self.seating, self.setup.context.hand, self.state.head)
        try:
            self.state.apply(opened.message, check_proofs=False, digest=opened.digest)
        except MentalPokerError as error:
            raise NodePlayerError(f"the JavaScript player took a message the table's view refuses: {error}") from None
        return envelope

    def _act(self, op: str, **fields: Any) -> Message:
        envelope: Message = self._seat.request(op, **fields)
        return self._view(envelope)

    def receive(self, message: Message) -> None:
        self._seat.request("receive", message=message)
        self._view(message)

    def refuse(self, message: Any, error: Exception) -> Message | None:
        shown = message if isinstance(message, Mapping) else {}
        check = getattr(error, "check", None) or getattr(error, "step", None) or "message"
        refusal: Message = self._seat.request("refuse", message=shown, error={"check": check, "reason": str(error)})
        return refusal

    def witness_abandon(self, absent: str, step: str) -> Message:
        return self._act("abandon", absent=absent, at=step)

    def keys(self) -> Message:
        return self._act("keys")

    def shuffle(self) -> Message:
        chosen = self._seat.permutation
        if chosen is None:
            return self._act("shuffle")
        return self._act("shuffle", permutation=list(chosen(self.setup.size)))

    def deal(self) -> Message:
        return self._act("deal")

    def open_talon(self, talon: int = 0) -> Message:
        return self._act("talon", talon=talon)

    def take(self, recipient: str, talon: int = 0) -> Message:
        return self._act("take", to=recipient, talon=talon)

    def turn(self) -> Message:
        return self._act("turn")

    def open_dummy(self) -> Message:
        return self._act("dummy")

    def discard(self, cards: Sequence[int]) -> Message:
        return self._act("discard", cards=[Card.from_code(card).ascii for card in cards])

    def play(self, card: int) -> Message:
        return self._act("play", card=Card.from_code(card).ascii)

    def open_hand(self) -> Message:
        return self._act("open")

    def reveal(self) -> Message:
        return self._act("reveal")

    def open_discard(self) -> Message:
        return self._act("discard-open")

    def hand(self) -> tuple[int, ...]:
        return tuple(parse_card(card).code for card in self._seat.request("cards"))

    def hidden_share_points(self) -> dict[int, Point]:
        shares: dict[str, str] = self._seat.request("hidden")
        return {int(position): Point(bytes.fromhex(share)) for position, share in shares.items()}

    def record_refusal(self, record: Mapping[str, Any]) -> str | None:
        refusal: str | None = self._seat.request("record-refusal", record=dict(record))
        return refusal


class NodeSeatedSource(MentalPokerSource):
    """A v4 mental-poker evening where the ``seats`` given are JavaScript players (the rest Python ones): they
    play every hand, and sign each record and the settlement themselves. A simulation: the engine host assembles
    each deal, so the seats must be started with ``engine_host``."""

    def __init__(
        self,
        spec: TableSpec,
        seats: Sequence[NodeSeat],
        identities: Mapping[str, IdentityKey] | None = None,
        service: IdentityKey | None = None,
        permutations: Mapping[str, Callable[[int], Sequence[int]]] | None = None,
    ):
        """``permutations`` by name: the Python seats' chosen shuffles, for reproducible evenings only."""
        self.seats = {seat.name: seat for seat in seats}
        self._permutations = dict(permutations or {})
        keys = {name: IdentityKey.generate(name) for name in spec.players}
        keys.update(identities or {})
        keys.update({name: seat.identity for name, seat in self.seats.items()})
        super().__init__(spec, make_player=self._player, identities=keys, service=service)
        assert self.seating is not None  # v4
        for seat in self.seats.values():
            seat.sit(self.seating)

    def _player(self, setup: TableSetup, name: str) -> Player:
        if name in self.seats:
            return self.seats[name].player(setup)
        return Player(setup, name, self._permutations.get(name))

    def _statements(self, record: Mapping[str, Any] | None) -> list[dict[str, Any]] | None:
        statements = super()._statements(record)
        if statements is None or record is None or self._hand is None:
            return statements
        hand, _, table = self._hand
        head = table.players[0].state.head
        for index, name in enumerate(self.spec.players):
            if name in self.seats:
                statements[index] = self.seats[name].sign_record(hand, record, head)
        return statements

    def close_session(self, amounts: Sequence[Any]) -> dict[str, Any] | None:
        """The Python seats sign (or refuse) as ``MentalPokerSource`` has them; each JavaScript seat is shown the
        same proposal and the transcripts and signs or refuses it itself."""
        doc = super().close_session(amounts)
        if doc is None or self.seating is None:
            return doc
        complete = [d for d in self.transcripts if d["state"] == "complete"]
        stopped = self.transcripts[-1] if self.end is not None else None
        names = self.seating.names
        statements = []
        for statement in doc["statements"]:
            name = names[statement["sender"]]
            if name in self.seats:
                proposal = {k: v for k, v in signed.parse(statement).body.items() if k not in ("agrees", "reason")}
                statement = self.seats[name].sign_settlement(proposal, complete, stopped)
            statements.append(statement)
        doc["statements"] = statements
        refused = {names[s["sender"]] for s in statements if signed.parse(s).body.get("agrees") is False}
        self.refusals = [name for name in self.spec.players if name in refused]
        return doc
