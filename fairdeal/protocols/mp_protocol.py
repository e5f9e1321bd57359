"""One mentally dealt hand: keys -> shuffles -> private deal -> public talon, between players who only exchange messages.

``HandState`` is the public state machine: it checks that each message comes from the expected player at the
expected step and verifies every proof in it. A ``Player`` is a ``HandState`` plus that player's secret key
share; ``verify_hand`` is a ``HandState`` run over a whole message list by someone who holds no secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from fairdeal.deal import DealPattern
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mp_elgamal import (
    KeyShare, card_of_point, joint_key, make_decryption_share, make_key_share, open_deck, verify_decryption_share,
)
from fairdeal.protocols.mp_fiat_shamir import HandContext
from fairdeal.protocols.mp_group import Point, Scalar, point_sum
from fairdeal.protocols.mp_messages import (
    Message, key_message, position_label, read_key, read_shares, read_shuffle, sender, shares_message,
    shuffle_message,
)
from fairdeal.protocols.mp_shuffle import Deck, shuffle_deck, verify_shuffle

STEPS = ("keys", "shuffle", "deal", "talon")


@dataclass(frozen=True)
class TableSetup:
    """Who plays (``players[i]`` receives the pattern's ``player_hands[i]``), how the cards fall, and the hand."""

    context: HandContext
    pattern: DealPattern
    players: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(set(self.players)) != len(self.players):
            raise MentalPokerError(f"player names must be distinct: {self.players}")
        if len(self.players) != len(self.pattern.player_hands):
            raise MentalPokerError(
                f"pattern {self.pattern.name} deals to {len(self.pattern.player_hands)} players, "
                f"got {len(self.players)}"
            )

    def hand_positions(self, player: str) -> tuple[int, ...]:
        """Deck positions of ``player``'s cards, in the order received."""
        hand = self.pattern.player_hands[self.players.index(player)]
        return tuple(int(p) for p in self.pattern.hand_positions[hand])

    def deal_positions(self, player: str) -> tuple[int, ...]:
        """Positions ``player`` opens for the others at the deal: every other player's cards."""
        return tuple(sorted(p for other in self.players if other != player for p in self.hand_positions(other)))

    @property
    def talon_positions(self) -> tuple[int, ...]:
        return tuple(int(p) for row in self.pattern.talon_positions for p in row)

    def schedule(self) -> list[tuple[str, str]]:
        return [(step, player) for step in STEPS for player in self.players]


class HandState:
    """The public state of one hand, advanced by one verified message at a time."""

    def __init__(self, setup: TableSetup):
        self.setup = setup
        self.messages: list[Message] = []
        self.key_shares: dict[str, KeyShare] = {}
        self.joint_key: Point | None = None
        self.deck: Deck = ()
        self.shares: dict[int, dict[str, Point]] = {}

    @property
    def expected(self) -> tuple[str, str] | None:
        schedule = self.setup.schedule()
        return schedule[len(self.messages)] if len(self.messages) < len(schedule) else None

    def apply(self, message: Message, check_proofs: bool = True) -> None:
        """Verify ``message`` (unless it is one's own) and add it; ``MentalPokerError`` names sender and step."""
        player, step = sender(message)
        if (step, player) != self.expected:
            raise MentalPokerError(f"message out of turn; expected {self.expected}", player, step)
        getattr(self, f"_apply_{step}")(player, message, check_proofs)
        self.messages.append(message)

    def _apply_keys(self, player: str, message: Message, check_proofs: bool) -> None:
        self.key_shares[player] = read_key(message)
        if len(self.key_shares) == len(self.setup.players):
            shares = [self.key_shares[p] for p in self.setup.players]
            self.joint_key = joint_key(self.setup.context, shares) if check_proofs else point_sum([s.public for s in shares])
            self.deck = open_deck(self.setup.pattern.deck, self.joint_key)

    def _apply_shuffle(self, player: str, message: Message, check_proofs: bool) -> None:
        deck, proof = read_shuffle(message)
        if check_proofs:
            verify_shuffle(self.setup.context, player, self.joint_key, self.deck, deck, proof)
        self.deck = deck

    def _apply_deal(self, player: str, message: Message, check_proofs: bool) -> None:
        self._apply_shares(player, message, self.setup.deal_positions(player), check_proofs)

    def _apply_talon(self, player: str, message: Message, check_proofs: bool) -> None:
        self._apply_shares(player, message, self.setup.talon_positions, check_proofs)

    def _apply_shares(self, player: str, message: Message, positions: Sequence[int], check_proofs: bool) -> None:
        shares = read_shares(message)
        if sorted(shares) != sorted(positions):
            raise MentalPokerError(f"shares for positions {sorted(shares)}, expected {sorted(positions)}", player,
                                   sender(message)[1])
        for position, share in shares.items():
            if check_proofs:
                verify_decryption_share(self.setup.context, self.key_shares[player], self.deck[position], share,
                                        position_label(position))
            self.shares.setdefault(position, {})[player] = share.share

    def open_position(self, position: int, own_share: Point | None = None) -> int:
        """The card at ``position`` from the published shares (plus one's own, for one's own card)."""
        shares = dict(self.shares.get(position, {}))
        if own_share is not None:
            shares["self"] = own_share
        if len(shares) != len(self.setup.players):
            raise MentalPokerError(f"position {position} has {len(shares)} of {len(self.setup.players)} shares")
        ciphertext = self.deck[position]
        return card_of_point(ciphertext.c2 - point_sum(list(shares.values())))

    def talon(self) -> tuple[int, ...]:
        return tuple(self.open_position(p) for p in self.setup.talon_positions)


class Player:
    """One seat at the table: knows its own key share, sends messages, and verifies everyone else's."""

    def __init__(self, setup: TableSetup, name: str):
        if name not in setup.players:
            raise MentalPokerError(f"{name!r} is not at this table")
        self.name = name
        self.state = HandState(setup)
        self._secret: Scalar | None = None

    def receive(self, message: Message) -> None:
        self.state.apply(message)

    def _send(self, message: Message) -> Message:
        self.state.apply(message, check_proofs=False)
        return message

    def keys(self) -> Message:
        self._secret, share = make_key_share(self.state.setup.context, self.name)
        return self._send(key_message(share))

    def shuffle(self) -> Message:
        deck, proof = shuffle_deck(self.state.setup.context, self.name, self.state.joint_key, self.state.deck)
        return self._send(shuffle_message(self.name, deck, proof))

    def deal(self) -> Message:
        return self._send(self._shares("deal", self.state.setup.deal_positions(self.name)))

    def open_talon(self) -> Message:
        return self._send(self._shares("talon", self.state.setup.talon_positions))

    def _shares(self, step: str, positions: Sequence[int]) -> Message:
        setup, public = self.state.setup, self.state.key_shares[self.name].public
        made = [
            (p, make_decryption_share(setup.context, self.name, self._secret, public, self.state.deck[p],
                                      position_label(p)))
            for p in positions
        ]
        return shares_message(step, self.name, made)

    def hand(self) -> tuple[int, ...]:
        """This player's cards in the order received; only this player can compute them."""
        return tuple(
            self.state.open_position(p, self.state.deck[p].c1 * self._secret)
            for p in self.state.setup.hand_positions(self.name)
        )


def play_hand(setup: TableSetup, open_talon: bool = True) -> tuple[list[Player], list[Message]]:
    """Run one hand: every message a player sends is delivered to every other player, who verifies it."""
    players = [Player(setup, name) for name in setup.players]
    messages: list[Message] = []
    steps = ("keys", "shuffle", "deal", "talon") if open_talon else ("keys", "shuffle", "deal")
    for step in steps:
        for speaker in players:
            message = getattr(speaker, "open_talon" if step == "talon" else step)()
            for listener in players:
                if listener is not speaker:
                    listener.receive(message)
            messages.append(message)
    return players, messages


@dataclass(frozen=True)
class VerifiedHand:
    """What a verifier without secrets learns: the proven final deck and, if it was opened, the talon."""

    joint_key: Point
    deck: Deck
    talon: tuple[int, ...] | None


def verify_hand(setup: TableSetup, messages: Sequence[Message]) -> VerifiedHand:
    """Check a whole message list; the first failure raises ``MentalPokerError`` naming the player and step."""
    state = HandState(setup)
    for message in messages:
        state.apply(message)
    done = len(state.messages)
    if done < STEPS.index("talon") * len(setup.players):
        raise MentalPokerError(f"the hand stops after {done} messages, before the deal is complete",
                               step=state.expected[0] if state.expected else None)
    complete = state.expected is None
    return VerifiedHand(state.joint_key, state.deck, state.talon() if complete else None)
