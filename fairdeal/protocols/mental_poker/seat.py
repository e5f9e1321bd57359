"""A seat at a live mentally dealt hand, behind the same messages a remote player sends: its own secrets (a
``Player``), its own run of the game that knows its cards (a ``Follower``), and a bot that decides from its view.

A bot seated by the service is one of these: it sees what the host relays and nothing else, so a table of one
person and two bots is still dealt by three parties, each holding its own key share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fairdeal.engine.actions import Action, Announce, Discard, Phase, Play, encode_action
from fairdeal.engine.bots import Bot
from fairdeal.engine.hand import to_move
from fairdeal.engine.state import HandState
from fairdeal.engine.view import actor_view
from fairdeal.errors import IllegalAction, NoConsistentDeal
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.following import ACT, ANNOUNCE, Due, Follower
from fairdeal.protocols.mental_poker.group import drawn_from
from fairdeal.protocols.mental_poker.live import LiveHand, fact_of
from fairdeal.protocols.mental_poker.messages import Message, sender
from fairdeal.protocols.mental_poker.player import Player
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.signing import Seating
from fairdeal.protocols.mental_poker.statements import sign_record
from fairdeal.protocols.mental_poker.steps import ABANDON
from fairdeal.protocols.table import TableSpec

# The hand begun on a deal in which ``seat`` holds ``cards`` (``LiveHand.start``): where a seat's own run begins.
Start = Callable[[int, Sequence[int]], HandState]


class LiveSeat:
    """One seated party. ``start(seat, cards)`` begins its run of the game once the deal has shown it its cards;
    a seat that sits this hand out (four or five at the table) holds no key and only signs the record."""

    def __init__(
        self,
        spec: TableSpec,
        setup: TableSetup,
        seating: Seating,
        identity: IdentityKey,
        bot: Bot,
        start: Start,
        seeds: Callable[[int], bytes] | None = None,
    ):
        """``seeds(k)``, when given, is the secret every random draw of the seat's ``k``-th answer comes from, so
        that it can make its answers again after a restart (a served table's bot); else the OS's."""
        self.name = identity.name
        self.seat = spec.players.index(self.name)
        self.hand = setup.context.hand
        self.spec, self.seating, self.identity, self.bot, self._start = spec, seating, identity, bot, start
        self.player = Player(setup, self.name).sign_with(identity, seating) if self.name in setup.players else None
        self._follower: Follower | None = None
        self._seeds, self._answered = seeds, 0
        self.broken: str | None = None  # why no deal fits what this seat was shown: it follows no further

    @property
    def game(self) -> HandState:
        """This seat's run of the hand: the true hand in everything it may see."""
        return self._following().public.state

    def answer(self, due: Due) -> Message:
        """What the hand waits for from this seat: a signed message — a protocol step, or a decision (a game
        action, or its word on the no-aces announcement)."""
        self._answered += 1
        if self._seeds is None:
            return self._answer(due)
        with drawn_from(self._seeds(self._answered)):
            return self._answer(due)

    def _answer(self, due: Due) -> Message:
        player = self._dealt()
        if due.step == ACT:
            return self._sent(player.decide({"action": encode_action(self._decide())}))
        if due.step == ANNOUNCE:
            return self._sent(player.decide({"announce": self._announcement()}))
        if due.step == "discard":
            action = self._decide()
            if not isinstance(action, Discard):
                raise IllegalAction(f"{action}: the hand waits for {self.name}'s discard")
            self._following().public.act(action)
            return self._sent(player.discard(action.cards))
        if due.step == "play" and due.card is not None:
            return self._sent(player.play(due.card))
        if due.step == "play":
            action = self._decide()
            if not isinstance(action, Play):
                raise IllegalAction(f"{action}: the hand waits for {self.name}'s card")
            return self._sent(player.play(action.card))
        return self._sent(protocol_step(player, due))

    def receive(self, envelope: Mapping[str, Any]) -> None:
        """Another seat's message, relayed: verified, then followed."""
        player = self._dealt()
        player.receive(dict(envelope))
        self._follow(player.state.messages[-1])

    def sign(self, record: Mapping[str, Any], head: str) -> dict[str, Any]:
        """This seat's signed statement on the record: agreeing, or refusing when the record's cards are not the
        ones the messages proved."""
        refusal = self.player.record_refusal(record) if self.player is not None else None
        return sign_record(self.identity, self.seating, self.hand, record, head, refusal)

    def _decide(self) -> Action:
        state = self.game
        actor = to_move(state)
        assert actor is not None  # asked only while the hand waits for this seat
        return self.bot.act(actor_view(state, actor))

    def _announcement(self) -> dict[str, bool] | None:
        """The declarer's word: whether he announces the hand without aces he holds, or ``None``: he holds one."""
        if self.game.phase is not Phase.ANNOUNCE:
            return None
        action = self._decide()
        if not isinstance(action, Announce):
            raise IllegalAction(f"{action}: the hand waits for {self.name}'s announcement")
        return {"no_aces": action.no_aces}

    def _dealt(self) -> Player:
        if self.player is None:
            raise IllegalAction(f"{self.name} sits this hand out and sends no message")
        return self.player

    def _sent(self, envelope: Message) -> Message:
        player = self._dealt()
        if player.state.dealt:
            self._follow(player.state.messages[-1])
        return envelope

    def _follow(self, message: Message) -> None:
        player = self._dealt()
        if player.state.dealt and self.broken is None and sender(message)[1] != ABANDON:
            try:
                self._following().take(fact_of(player.state, message))
            except NoConsistentDeal as exc:
                self.broken = str(exc)

    def _following(self) -> Follower:
        """The seat's run of the game, begun when the deal has shown it its cards."""
        if self._follower is None:
            player = self._dealt()
            if not player.state.dealt:
                raise IllegalAction(f"{self.name} has no cards before the deal is complete")
            start = self._start(self.seat, player.hand())
            setup = player.setup
            self._follower = Follower(
                self.spec.players, setup.players, start, self.seat, player.card_at, setup.talon_rows
            )
        return self._follower


def protocol_step(player: Player, due: Due) -> Message:
    """``player``'s message for a step that asks no choice of him (a round of the opening, a talon, the reveal, his
    word that another did not answer)."""
    if due.step == ABANDON:
        assert due.absent is not None and due.at is not None  # an abandon names who did not send what
        return player.witness_abandon(due.absent, due.at)
    if due.step == "talon":
        return player.open_talon(due.talon)
    if due.step == "take":
        assert due.to is not None  # a take round names its recipient
        return player.take(due.to, due.talon)
    steps = {
        "keys": player.keys,
        "shuffle": player.shuffle,
        "deal": player.deal,
        "turn": player.turn,
        "dummy": player.open_dummy,
        "open": player.open_hand,
        "reveal": player.reveal,
        "discard-open": player.open_discard,
    }
    return steps[due.step]()


def play_through(hand: LiveHand, seats: Mapping[str, LiveSeat]) -> None:
    """Run ``hand`` to its last message with every seat in this process, each shown only what the host relays."""
    while (due := hand.due()) is not None:
        relay(hand, seats, due, seats[due.player].answer(due))


def relay(hand: LiveHand, seats: Mapping[str, LiveSeat], due: Due, answer: Message) -> None:
    """The host takes one seat's ``answer`` to what was ``due`` and shows it to every other seat dealt a hand. A
    seat that sees no deal fits stops the hand for the reveal."""
    hand.message(answer)
    for name, seat in seats.items():
        if name != due.player and seat.player is not None:
            seat.receive(answer)
        if seat.broken is not None:
            hand.stop(f"{seat.name}: {seat.broken}")
