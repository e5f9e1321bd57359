"""One mentally dealt hand played live: the host relays and checks every message and runs the game on a deal
imputed from what it has seen, so it holds no card the rules have not opened.

``MentalPokerSource`` deals a whole hand first and plays it from the assembled deal (a simulation). Here the game
and the protocol interleave as at a real table: the opening (keys, shuffles, the private deal), then each decision
asked of the seat the hand waits for (a signed ``decide`` in the hand's chain) and each step the game calls for — a
talon opened or passed unseen, a discard committed, a raspasy talon card turned, the dummy laid open, a card played
with its proof — verified by the host before the next is asked. Each party (the host, and every seat for everything
but its own cards) follows the game with a ``PublicHand`` fed the facts the verified messages open. After the reveal
and the discards opened, the host replays the actions on the deal the reveal opens: that replay is the record every
seat signs, and an illegal card shows there, named. The messages come in the order ``events.expected_events`` calls
for, so a live hand's transcript is checked by ``fairdeal verify`` as any other, and its record's decisions against
the signed ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from fairdeal.deal import deal_order
from fairdeal.engine.actions import Discard, Play
from fairdeal.engine.hand import apply, new_hand, result, to_move
from fairdeal.engine.match_log import hand_fields, sheet_extras
from fairdeal.engine.public_hand import imputed_start
from fairdeal.engine.sheet import ScoreLine, Sheet
from fairdeal.engine.state import HandState
from fairdeal.engine.system import system_of
from fairdeal.errors import IllegalAction, MentalPokerError
from fairdeal.protocols.mental_poker.following import ANNOUNCE, Due, Fact, Follower, PublicGame
from fairdeal.protocols.mental_poker.messages import Message, read_decision, sender
from fairdeal.protocols.mental_poker.protocol import HandState as Protocol
from fairdeal.protocols.mental_poker.protocol import TableSetup, witness_of
from fairdeal.protocols.mental_poker.signing import Seating, open_message
from fairdeal.protocols.mental_poker.steps import ABANDON, DECIDE, ROUNDS
from fairdeal.protocols.table import TableSpec


def fact_of(protocol: Protocol, message: Message) -> Fact:
    """What a message just verified (``protocol`` already holds it) shows everyone."""
    player, step = sender(message)
    if step == "play":
        return Fact(step, player, (protocol.plays[-1][2],))
    if step == DECIDE:
        return Fact(step, player, decision=protocol.decisions[-1][1])
    if step == "open":
        return Fact(step, player, tuple(protocol.open_position(p) for p in protocol.laid_open[player]))
    if step not in ROUNDS:
        return Fact(step, player)
    talon, to = protocol.pending_talon if protocol.pending_talon is not None else (0, None)
    if protocol.round is not None or step in ("take", "reveal"):
        return Fact(step, player, talon=talon, to=to, round_done=protocol.round is None)
    setup = protocol.setup
    if step == "dummy":
        positions: Sequence[int] = setup.dummy_positions
    elif step == "talon":
        positions = setup.talon_rows[talon]
    else:
        positions = setup.talon_rows[0][protocol.turned - 1 : protocol.turned]
    return Fact(step, player, tuple(protocol.open_position(p) for p in positions), talon, to, round_done=True)


class LiveHand:
    """The host's side of one hand: ``due`` says what it waits for, ``message`` takes it.
    Every message is checked (signature, link, proofs) before anything changes; a refused one raises and changes
    nothing the protocol keeps."""

    def __init__(
        self,
        spec: TableSpec,
        setup: TableSetup,
        seating: Seating,
        dealer: int,
        sheet: Sheet,
        opening_round: int = 0,
        penalty: Sequence[ScoreLine] = (),
    ):
        """``penalty``: what the hand's earlier, abandoned attempts charged; written with its record."""
        self.spec, self.setup, self.seating, self.dealer = spec, setup, seating, dealer
        self.sheet, self.opening_round, self.penalty = sheet, opening_round, tuple(penalty)
        self.protocol = Protocol(setup)
        self.public_game = PublicGame(Follower(spec.players, setup.players, self.start()))
        self.messages: list[dict[str, Any]] = []  # the signed envelopes, as received: the transcript's messages
        self.witness: Due | None = None  # the abandon asked of a seat once the host gave up waiting for another

    @property
    def hand(self) -> int:
        return self.setup.context.hand

    @property
    def game(self) -> Follower:
        """The host's run of the game, on a deal imputed from what the messages opened."""
        return self.public_game.game

    @property
    def abandoned(self) -> tuple[str, str] | None:
        """(player, step): who stopped answering where, once a witness has signed it."""
        return self.protocol.abandoned

    def can_abandon(self) -> bool:
        """Whether the hand can be abandoned now: it waits for a seat's step, fixed by the protocol or called for by
        the game (a decision, a card, a discard, a round), and no witness has been asked yet."""
        return self.witness is None and self.abandoned is None and self.due() is not None

    def ask_witness(self) -> Due:
        """The host gives up waiting: the next player of the hand is asked to sign that the awaited one did not
        send his step (v4's witnessed abandon); nothing else is taken until he does."""
        due = self.due()
        if due is None or not self.can_abandon():
            raise MentalPokerError(f"the hand cannot be abandoned while it waits for {due}")
        witness = witness_of(self.setup.players, due.player)
        self.witness = Due(witness, ABANDON, absent=due.player, at=due.message_step)
        return self.witness

    def start(self, seat: int | None = None, cards: Sequence[int] = ()) -> HandState:
        """The hand begun on an imputed deal: ``seat`` holding ``cards`` (a seat's own run), else nobody's."""
        facts = self.start_facts()
        return imputed_start(
            self.spec.convention,
            len(self.spec.players),
            self.dealer,
            seat,
            cards,
            facts["raspasy_streak"],
            self.opening_round,
            frozenset(facts["refe"]),
        )

    def start_facts(self) -> dict[str, Any]:
        """What the sheet before the hand gives its game besides the hand's number (the raspasy streak, the seats
        holding a refe): a hand stopped in play states it in its transcript, for its game to be followed."""
        return {"raspasy_streak": self.sheet.raspasy_streak, "refe": sorted(self.sheet.refe_seats())}

    def due(self) -> Due | None:
        """What the hand waits for next; ``None`` once every share and discard is out, or once abandoned."""
        if self.abandoned is not None:
            return None
        if self.witness is not None:
            return self.witness
        expected = self.protocol.expected
        if expected is not None:
            step, player = expected
            pending = self.protocol.pending_talon
            talon, to = pending if pending is not None and step in ("talon", "take") else (0, None)
            return Due(player, step, talon, to)
        return self.public_game.due(self.protocol.finished)

    def message(self, envelope: Mapping[str, Any]) -> Message:
        """A seat's signed message — a protocol step or a decision — checked against what is due; returns its
        verified form."""
        due = self.due()
        opened = open_message(dict(envelope), self.seating, self.hand, self.protocol.head)
        player, step = sender(opened.message)
        speaker = opened.message.get("witness", player) if step == ABANDON else player
        if due is None or (speaker, step) != (due.player, due.message_step):
            raise MentalPokerError(f"message out of turn; the hand waits for {due}", speaker, step)
        if step == ABANDON and (player, opened.message.get("at")) != (due.absent, due.at):
            raise MentalPokerError(f"the hand waits for {speaker} to witness {due.absent}'s {due.at}", speaker, step)
        if step == DECIDE:
            self._check_decision(due, opened.message)
        if step == "play" and due.card is not None and self._card_of(opened.message) != due.card:
            raise MentalPokerError("proves another card than the one chosen from his open hand", player, step)
        self.protocol.apply(opened.message, digest=opened.digest)
        self.messages.append(dict(envelope))
        if step != ABANDON:
            self.public_game.take(fact_of(self.protocol, opened.message))
        return opened.message

    def _check_decision(self, due: Due, message: Message) -> None:
        """A decision of the kind due (a word on the announcement, or an action), legal now."""
        decision = read_decision(message)
        if ("announce" in decision) != (due.step == ANNOUNCE):
            wanted = "his word on a hand without aces" if due.step == ANNOUNCE else "a game action"
            raise IllegalAction(f"the hand waits for {due.player}'s decision: {wanted}")
        action = self.game.decision(due.player, decision)
        if isinstance(action, Play):
            state = self.game.public.state
            if action.seat != state.turn or action.by != to_move(state):
                raise IllegalAction(f"{action}: it is not that card's turn")
            if action.card not in state.hands[action.seat]:
                raise IllegalAction(f"{action}: the card is not in that open hand")

    def stop(self, why: str) -> None:
        """A party shows that no deal fits what the hand has shown: nothing more is played, the reveal is due."""
        self.public_game.stop(why)

    def _card_of(self, message: Message) -> int:
        """The card a play message proves, worked out on a copy (the protocol state changes only once checked)."""
        trial = self.protocol.snapshot()
        trial.apply(message, digest="")
        return trial.plays[-1][2]

    def record(self) -> tuple[dict[str, Any], np.ndarray, Sheet]:
        """Once every share and discard is out: the record (the actions replayed on the deal the reveal opened,
        the sheet's lines written), the deck order, and the sheet after the hand. An illegal action shows here,
        naming the seat that took it; so does a card after which no deal fitted (``broken``)."""
        if not self.protocol.finished:
            raise MentalPokerError("the hand is not over: its deal is not open yet")
        order = np.array([self.protocol.open_position(p) for p in range(self.setup.size)], dtype=np.uint8)
        convention, seats = self.spec.convention, len(self.spec.players)
        deal = deal_order(order, self.spec.pattern)
        state = new_hand(
            convention, seats, self.dealer, deal, self.sheet.raspasy_streak, self.opening_round, self.sheet.refe_seats()
        )
        for taken in self.public_game.actions:
            action = self._discard(taken, order) if isinstance(taken, int) else taken
            try:
                state = apply(state, action)
            except IllegalAction as exc:
                who = self.spec.players[action.by if isinstance(action, Play) else action.seat]
                raise MentalPokerError(f"the deal the reveal opened makes this illegal: {exc}", who) from None
        if self.public_game.broken is not None:
            raise MentalPokerError(f"the hand stopped ({self.public_game.broken}), yet its cards replay legally")
        outcome = result(state)
        before = self.sheet.apply(self.penalty)
        after, lines = system_of(convention).score_hand(before, outcome)
        fields = hand_fields(self.hand, state, {}, lines, sheet_extras(before, after, outcome, convention))
        if self.penalty:
            fields["penalty"] = [line.to_record() for line in self.penalty]
        return {k: v for k, v in fields.items() if k != "type"}, order, after

    def _discard(self, seat: int, order: np.ndarray) -> Discard:
        """The discard ``seat`` committed to, as it opened it after the reveal."""
        positions = self.protocol.discards[self.spec.players[seat]]
        return Discard(seat, tuple(sorted(int(order[p]) for p in positions)))
