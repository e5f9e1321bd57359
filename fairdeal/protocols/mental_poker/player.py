"""The seats of a mentally dealt hand: each ``Player`` holds its own secret key share and sees only its own cards;
a ``Table`` passes every message to every other player, who verifies it, and abandons the hand cleanly when a
player stops answering.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as StepTimeout
from operator import methodcaller
from typing import Any

from fairdeal.cards import Card, parse_card
from fairdeal.errors import MentalPokerError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.elgamal import DecryptionShares, make_decryption_shares, make_key_share
from fairdeal.protocols.mental_poker.group import Point, Scalar, secret_bytes
from fairdeal.protocols.mental_poker.messages import (
    Message,
    abandon_message,
    decide_message,
    discard_message,
    discard_open_message,
    key_message,
    shares_message,
    shuffle_message,
    single_share_message,
)
from fairdeal.protocols.mental_poker.protocol import HandState, TableSetup, discard_commitment, witness_of
from fairdeal.protocols.mental_poker.shuffle import shuffle_deck
from fairdeal.protocols.mental_poker.signing import Seating, open_message, seal_message

# Seconds a seat may take to send each step before the table abandons the hand and blames it (v4).
STEP_TIMEOUTS = {"keys": 30.0, "shuffle": 60.0, "discard": 120.0, "play": 120.0}
DEFAULT_TIMEOUT = 60.0


class Unresponsive(Exception):
    """Raised by a seat that does not answer in time (a dropped connection, a player who walks away)."""


class HandAbandoned(MentalPokerError):
    """The table gave up on a hand: ``player`` did not answer at ``step``; ``messages`` end with the abandon."""

    def __init__(self, player: str, step: str, messages: Sequence[Message]):
        super().__init__("stopped answering; the hand is abandoned", player, step)
        self.messages = list(messages)


class HandRefused(MentalPokerError):
    """An honest seat refused a message it was shown and stopped: ``refusal`` is its signed statement of why
    (v4), ``error`` the check that failed, ``shown`` the message refused, ``messages`` the hand's before it."""

    def __init__(
        self,
        refuser: str,
        error: Exception,
        refusal: Message | None,
        messages: Sequence[Message],
        shown: Any = None,
    ):
        super().__init__(f"refuses to go on: {error}", refuser)
        self.error, self.refusal, self.messages = error, refusal, list(messages)
        self.refuser, self.shown = refuser, shown  # the message it refused, as it was shown


class Player:
    """One seat at the table: knows its own key share, sends messages, and verifies everyone else's."""

    def __init__(self, setup: TableSetup, name: str, permutation: Callable[[int], Sequence[int]] | None = None):
        """``permutation(size)`` replaces the OS-random shuffle only for reproducible evenings (``deal --seed``);
        re-encryption, keys and proofs stay OS-random."""
        if name not in setup.players:
            raise MentalPokerError(f"{name!r} is not at this table")
        self.name = name
        self._permutation = permutation
        self.state = HandState(setup)
        self._secret: Scalar | None = None
        self._discard: tuple[tuple[int, ...], bytes] | None = None
        self._cards: dict[int, int] = {}  # positions this player has opened for itself
        self._identity: IdentityKey | None = None
        self.seating: Seating | None = None

    def sign_with(self, identity: IdentityKey, seating: Seating) -> Player:
        """Protocol v4: sign every message with ``identity`` (the roster's key for this seat) and accept only
        messages signed by the roster's keys. Set before the first message."""
        if seating.roster.seats[seating.seat_of(self.name)].key != identity.public:
            raise MentalPokerError("the identity key is not the roster's key for this seat", self.name)
        self._identity, self.seating = identity, seating
        return self

    @property
    def setup(self) -> TableSetup:
        return self.state.setup

    def receive(self, message: Message) -> None:
        """Check ``message`` before acting on it: in v4 its signature, seat, hand and chain link first (charged to
        the relay that delivered it), then everything the state machine checks (charged to its signer)."""
        if self.seating is None:
            self.state.apply(message)
            return
        opened = open_message(message, self.seating, self.setup.context.hand, self.state.head)
        self.state.apply(opened.message, digest=opened.digest)

    def _send(self, message: Message) -> Message:
        message = dict(message, prev=self.state.head)
        if self._identity is None or self.seating is None:
            self.state.apply(message, check_proofs=False)
            return message
        envelope = seal_message(self._identity, self.seating, self.setup.context.hand, message)
        self.state.apply(message, check_proofs=False, digest=signed.parse(envelope).digest)
        return envelope

    def witness_abandon(self, absent: str, step: str) -> Message:
        """Sign that ``absent`` did not send ``step`` after the request this seat last received (v4: the witness
        is another seat; the abandon's ``prev`` is that signed request)."""
        return self._send(dict(abandon_message(absent, step), witness=self.name))

    def decide(self, decision: Mapping[str, Any]) -> Message:
        """Sign this seat's game decision (v4): ``{"action": ...}``, or ``{"announce": ...}`` on a hand without
        aces. The game, not the protocol, judges it."""
        return self._send(decide_message(self.name, decision))

    def refuse(self, message: Any, error: Exception) -> Message | None:
        """A signed refusal of ``message`` (v4): the evidence an honest seat leaves when it stops."""
        if self._identity is None or self.seating is None:
            return None
        shown = message if isinstance(message, Mapping) else {}
        body = {
            "check": getattr(error, "check", None) or getattr(error, "step", None) or "message",
            "reason": str(error),
            "refused": _digest_of(shown),
        }
        ctx = self.seating.context(self.setup.context.hand)
        sender = self.seating.seat_of(self.name)
        return signed.seal(self._identity, ctx, sender, "refuse", body, self.state.head).to_json()

    # ---- the opening ------------------------------------------------------------------------------------------

    def keys(self) -> Message:
        self._secret, share = make_key_share(self.setup.context, self.name)
        return self._send(key_message(share))

    def shuffle(self) -> Message:
        chosen = self._permutation(self.setup.size) if self._permutation is not None else None
        assert self.state.joint_key is not None  # every key share is in before anybody shuffles
        deck, proof = shuffle_deck(self.setup.context, self.name, self.state.joint_key, self.state.deck, chosen)
        return self._send(shuffle_message(self.name, deck, proof))

    def deal(self) -> Message:
        return self._send(self._shares("deal", self.setup.deal_positions(self.name)))

    # ---- the talon ----------------------------------------------------------------------------------------------

    def open_talon(self, talon: int = 0) -> Message:
        return self._send(self._talon_message("talon", talon))

    def take(self, recipient: str, talon: int = 0) -> Message:
        """Hand the talon to ``recipient`` unseen by anybody else (his own share completes it)."""
        return self._send(dict(self._talon_message("take", talon), to=recipient))

    def _talon_message(self, step: str, talon: int) -> Message:
        """Shares of one talon; with more than one talon (Hussar) the message names it."""
        message = self._shares(step, self.setup.talon_rows[talon])
        return dict(message, talon=talon) if len(self.setup.talon_rows) > 1 else message

    def turn(self) -> Message:
        """Open the next talon card for everybody (raspasy)."""
        return self._send(self._shares("turn", (self.setup.talon_rows[0][self.state.turned],)))

    def open_dummy(self) -> Message:
        """Lay Gusarik's dummy open for everybody (the defender whists and plays it)."""
        return self._send(self._shares("dummy", self.setup.dummy_positions))

    def hidden_share_points(self) -> dict[int, Point]:
        """Raw shares of the cards nobody holds (talons, the dummy, the hand laid aside), for a simulation's engine
        host that must hold the whole deal at once."""
        hidden = self.setup.talon_positions + self.setup.dummy_positions + self.setup.aside_positions
        return {p: self.own_share(p) for p in hidden}

    # ---- play -----------------------------------------------------------------------------------------------------

    def own_share(self, position: int) -> Point:
        assert self._secret is not None  # keys() comes first
        return self.state.deck[position].c1 * self._secret

    def card_at(self, position: int) -> int:
        if position not in self._cards:
            published = self.name in self.state.shares.get(position, {})
            self._cards[position] = self.state.open_position(position, None if published else self.own_share(position))
        return self._cards[position]

    def hand(self) -> tuple[int, ...]:
        """This player's cards in the order received; only this player can compute them."""
        return tuple(self.card_at(p) for p in self.setup.hand_positions(self.name))

    def held_cards(self, taking: bool = False) -> tuple[int, ...]:
        """The cards I hold now (``taking``: with the talon I am taking), unplayed and not discarded."""
        return tuple(self.card_at(p) for p in self._held_positions(taking))

    def _position_of(self, card: int, positions: Sequence[int]) -> int:
        for position in positions:
            if self.card_at(position) == card:
                return position
        raise MentalPokerError(f"{Card.from_code(card).ascii} is not among my cards", self.name)

    def discard(self, cards: Sequence[int]) -> Message:
        """Commit to the two discarded cards' positions without showing them."""
        positions = self._held_positions(taking=True)
        chosen = tuple(sorted(self._position_of(card, positions) for card in cards))
        nonce = secret_bytes(32)
        self._discard = (chosen, nonce)
        return self._send(discard_message(self.name, discard_commitment(self.setup.context, self.name, chosen, nonce)))

    def play(self, card: int) -> Message:
        """Prove ``card`` comes from my holdings: its position and my decryption share of it."""
        position = self._position_of(card, self._held_positions())
        return self._send(single_share_message("play", self._make_shares((position,))))

    def _held_positions(self, taking: bool = False) -> list[int]:
        played = {p for _, p, _ in self.state.plays}
        discarded = set(self._discard[0]) if self._discard else set()
        talon = (
            tuple(p for t in self.state.waiting_talons(self.name) for p in self.setup.talon_rows[t]) if taking else ()
        )
        return [p for p in self.state.holdings(self.name) + talon if p not in played | discarded]

    def open_hand(self) -> Message:
        """Lay my hand face up: my shares of every card I hold now (not my discard)."""
        dummy = set(self.setup.dummy_positions)
        return self._send(self._shares("open", [p for p in self._held_positions() if p not in dummy]))

    # ---- the end ------------------------------------------------------------------------------------------------

    def reveal(self) -> Message:
        missing = [p for p in range(self.setup.size) if self.name not in self.state.shares.get(p, {})]
        return self._send(self._shares("reveal", missing))

    def record_refusal(self, record: Mapping[str, Any]) -> str | None:
        """Why this seat will not sign ``record`` (its cards are not the ones the messages proved), or ``None``."""
        try:
            recorded = [parse_card(c).code for trick in record.get("tricks", []) for c in trick["cards"]]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return f"the record's tricks do not read: {exc}"
        proven = [card for _, _, card in self.state.plays]
        if recorded != proven:
            return "the record's cards are not the cards the messages proved, in the order played"
        return None

    def open_discard(self) -> Message:
        if self._discard is None:
            raise MentalPokerError("has committed no discard", self.name, "discard-open")
        return self._send(discard_open_message(self.name, *self._discard))

    @property
    def _public(self) -> Point:
        return self.state.key_shares[self.name].public

    def _shares(self, step: str, positions: Sequence[int]) -> Message:
        return shares_message(step, self._make_shares(sorted(positions)))

    def _make_shares(self, positions: Sequence[int]) -> DecryptionShares:
        assert self._secret is not None  # keys() comes first
        return make_decryption_shares(
            self.setup.context, self.name, self._secret, self._public, self.state.deck, positions
        )


def _digest_of(message: Mapping[str, Any]) -> str:
    try:
        return signed.parse(dict(message)).digest
    except (MentalPokerError, SignedMessageError, ValueError, TypeError):
        return ""


class Table:
    """Delivers each message to every other player (who verifies it) and keeps the transcript. With
    ``timeouts`` (seconds by step) a seat that takes longer is treated as gone."""

    def __init__(self, players: Sequence[Player], timeouts: Mapping[str, float] | None = None):
        self.players = list(players)
        self.messages: list[Message] = []
        self.timeouts = timeouts

    def by_name(self, name: str) -> Player:
        return next(p for p in self.players if p.name == name)

    def say(self, speaker: Player, step: str, act: Callable[[Player], Message]) -> Message:
        """``speaker`` acts; a seat that does not answer (in time) ends the hand with an ``abandon`` message."""
        try:
            message = self._timed(speaker, step, act)
        except Unresponsive:
            self._abandon(speaker, step)
        self._deliver(speaker, message)
        return message

    def _timed(self, speaker: Player, step: str, act: Callable[[Player], Message]) -> Message:
        if self.timeouts is None:
            return act(speaker)
        # The seat's work runs apart so the table can stop waiting; a late answer is never delivered.
        pool = ThreadPoolExecutor(max_workers=1)
        try:
            return pool.submit(act, speaker).result(timeout=self.timeouts.get(step, DEFAULT_TIMEOUT))
        except StepTimeout:
            raise Unresponsive(f"{speaker.name} sent no {step} in time") from None
        finally:
            pool.shutdown(wait=False)

    def round(self, step: str, act: Callable[[Player], Message], skip: str | None = None) -> None:
        for player in self.players:
            if player.name != skip:
                self.say(player, step, act)

    def _deliver(self, speaker: Player | None, message: Message, skip: Player | None = None) -> None:
        for listener in self.players:
            if listener is not speaker and listener is not skip:
                try:
                    listener.receive(message)
                except (MentalPokerError, SignedMessageError) as error:
                    refusal = listener.refuse(message, error)
                    raise HandRefused(listener.name, error, refusal, self.messages, message) from None
        self.messages.append(message)

    def _abandon(self, silent: Player, step: str) -> None:
        """The next seat in table order witnesses who stopped answering at which step; nothing more is revealed."""
        witness = self.by_name(witness_of([p.name for p in self.players], silent.name))
        if witness.seating is not None:
            message = witness.witness_abandon(silent.name, step)
            self._deliver(witness, message, skip=silent)
        else:
            message = dict(abandon_message(silent.name, step), prev=witness.state.head)
            self._deliver(None, message, skip=silent)
        raise HandAbandoned(silent.name, step, self.messages)

    def deal(self, open_talon: bool = False) -> None:
        """Keys, shuffles and the private deal (and, if asked, every talon opened at once)."""
        self.round("keys", methodcaller("keys"))
        self.round("shuffle", methodcaller("shuffle"))
        self.round("deal", methodcaller("deal"))
        for talon in range(len(self.players[0].setup.talon_rows) if open_talon else 0):
            self.round("talon", methodcaller("open_talon", talon))


def play_hand(
    setup: TableSetup,
    open_talon: bool = True,
    make_player: Callable[[TableSetup, str], Player] = Player,
    identities: Mapping[str, IdentityKey] | None = None,
    seating: Seating | None = None,
) -> tuple[list[Player], list[Message]]:
    """Deal one hand between fresh players; every message a player sends is verified by every other player
    (v4 with ``identities`` and the ``seating`` they sit in: every message signed)."""
    players = [make_player(setup, name) for name in setup.players]
    if identities is not None and seating is not None:
        players = [p.sign_with(identities[p.name], seating) for p in players]
    table = Table(players)
    table.deal(open_talon)
    return table.players, table.messages
