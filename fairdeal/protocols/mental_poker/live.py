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

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairdeal.deal import deal_order
from fairdeal.engine.actions import Action, Announce, Discard, Phase, Play, encode_action
from fairdeal.engine.hand import apply, legal_actions, new_hand, result, to_move
from fairdeal.engine.match_log import hand_fields, sheet_extras
from fairdeal.engine.public_hand import PublicHand, imputed_start
from fairdeal.engine.sheet import ScoreLine, Sheet
from fairdeal.engine.state import HandState
from fairdeal.engine.system import system_of
from fairdeal.errors import IllegalAction, MentalPokerError, NoConsistentDeal, one_line
from fairdeal.protocols.mental_poker.messages import Message, read_decision, sender
from fairdeal.protocols.mental_poker.protocol import DECIDE, ROUNDS, TableSetup, witness_of
from fairdeal.protocols.mental_poker.protocol import HandState as Protocol
from fairdeal.protocols.mental_poker.signing import Seating, open_message
from fairdeal.protocols.table import TableSpec

# A game decision; the declarer's word on a hand without aces (Austrian): each a signed ``decide`` message.
ACT, ANNOUNCE = "act", "announce"
ABANDON = "abandon"  # a seat's signed word that another did not send the step the hand waited for


@dataclass(frozen=True)
class Due:
    """What the hand waits for: ``step`` from ``player`` — a protocol step, a game decision (``act``) or the
    declarer's word on the no-aces announcement (``announce``); a talon step names its talon, a take its
    recipient, a card chosen by the seat who plays this player's open hand the card, an abandon the player who
    did not answer and the step he did not send."""

    player: str
    step: str
    talon: int = 0
    to: str | None = None
    card: int | None = None  # a card another seat chose from this player's hand laid open: his to prove
    absent: str | None = None
    at: str | None = None


class Follower:
    """One party's run of the game beside its copy of the protocol state: each verified message becomes the fact
    it opens to that party. ``own(position)`` opens a card with the party's own share (a seat), else ``None``."""

    def __init__(
        self,
        spec: TableSpec,
        setup: TableSetup,
        start: HandState,
        seat: int | None = None,
        own: Callable[[int], int] | None = None,
    ):
        self.spec, self.setup, self._own = spec, setup, own
        self.seat = seat
        self.public = PublicHand(start, seat)

    def name(self, seat: int) -> str:
        """The player who acts for ``seat``: the dummy's cards are played by the declarer's opponent."""
        if seat < len(self.spec.players):
            return self.spec.players[seat]
        declarer = self.public.state.declarer
        return next(p for s, p in enumerate(self.spec.players) if s != declarer and p in self.setup.players)

    def message(self, protocol: Protocol, message: Message) -> Action | None:
        """The fact a message just verified opens (``protocol`` already holds it): a card played, or a decision's
        action, is returned (a card chosen from another's open hand waits for its holder's proof)."""
        player, step = sender(message)
        public = self.public
        if step == "play":
            play = self.play_of(protocol)
            public.act(play)
            return play
        if step == DECIDE:
            action = self.decision(message)
            if action is None:
                public.no_announcement()
            elif not isinstance(action, Play):
                public.act(action)
            return action
        if step == "discard" and self.spec.players.index(player) != self.seat:
            public.put_away(self.spec.players.index(player))
        elif step == "open":
            shown = protocol.laid_open[player]
            public.lay_open(self.spec.players.index(player), [protocol.open_position(p) for p in shown])
        elif step in ROUNDS and protocol.round is None:
            self._round_done(protocol, step)
        return None

    def decision(self, message: Message) -> Action | None:
        """The action a signed decision names, if its sender may take it now (``IllegalAction`` if not); ``None``
        for the declarer's word that he holds an ace. Nothing changes."""
        player, _ = sender(message)
        decision = read_decision(message)
        state = self.public.state
        if "announce" in decision:
            word = decision["announce"]
            if state.declarer is None or self.name(state.declarer) != player:
                raise IllegalAction(f"{player} is not the declarer: he has no hand without aces to announce")
            return None if word is None else Announce(state.declarer, word["no_aces"])
        wanted = decision["action"]
        action = next((a for a in legal_actions(state) if encode_action(a) == wanted), None)
        if action is None:
            raise IllegalAction(f"{one_line(json.dumps(wanted), 120)} is not a legal decision now")
        if isinstance(action, Discard) or (isinstance(action, Play) and action.by == action.seat):
            raise IllegalAction(f"{action}: a discard or a card of one's own is a protocol message, not a decision")
        actor = action.by if isinstance(action, Play) else action.seat
        if self.name(actor) != player:
            raise IllegalAction(f"{action}: the decision is {self.name(actor)}'s, not {player}'s")
        return action

    def play_of(self, protocol: Protocol) -> Play:
        """The game's action for the card the last message proved: whose card, and who chose it."""
        state = self.public.state
        actor = to_move(state)
        return Play(state.turn, protocol.plays[-1][2], None if actor == state.turn else actor)

    def _round_done(self, protocol: Protocol, step: str) -> None:
        rows = self.setup.talon_rows
        if step == "talon":
            assert protocol.pending_talon is not None  # set when the round began
            talon = protocol.pending_talon[0]
            self.public.show_talon(talon, [protocol.open_position(p) for p in rows[talon]])
        elif step == "take":
            assert protocol.pending_talon is not None
            talon, recipient = protocol.pending_talon
            if self._own is not None and recipient == self.spec.players[self.seat or 0]:
                # The rules may give him only the first of the cards passed (the 19th century's little poverty).
                state = self.public.state
                taken = sum(1 for c in state.dealt_talons[talon] if c not in state.talon)
                self.public.show_talon(talon, [self._own(p) for p in rows[talon][:taken]])
        elif step == "turn":
            self.public.show_turned(protocol.open_position(rows[0][protocol.turned - 1]))
        elif step == "dummy":
            dummy = self.public.state.dummy
            assert dummy is not None  # a dummy round only at a table with a dummy
            self.public.lay_open(dummy, [protocol.open_position(p) for p in self.setup.dummy_positions])


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
        self.game = Follower(spec, setup, self.start())
        self.actions: list[Action | int] = []  # the game's actions; a seat's number for a discard nobody saw
        self._rounds: list[Due] = []  # rounds the game has called for and nobody has begun
        self.messages: list[dict[str, Any]] = []  # the signed envelopes, as received: the transcript's messages
        self.chosen: Play | None = None  # a card chosen from another seat's open hand, awaiting its holder's proof
        self.broken: str | None = None  # why no deal fits what was shown: the hand goes straight to the reveal
        self.witness: Due | None = None  # the abandon asked of a seat once the host gave up waiting for another

    @property
    def hand(self) -> int:
        return self.setup.context.hand

    @property
    def abandoned(self) -> tuple[str, str] | None:
        """(player, step): who stopped answering where, once a witness has signed it."""
        return self.protocol.abandoned

    def can_abandon(self) -> bool:
        """Whether the hand can be abandoned now: it waits for a step the protocol itself fixes (the opening, a
        round, a discard's opening). A card or a decision is the game's to call for: an abandon there would need
        the hand's record to prove whose turn it was, and a hand cut short has none."""
        return self.witness is None and self.protocol.expected is not None and self.abandoned is None

    def ask_witness(self) -> Due:
        """The host gives up waiting: the next player of the hand is asked to sign that the awaited one did not
        send his step (v4's witnessed abandon); nothing else is taken until he does."""
        due = self.due()
        if due is None or not self.can_abandon():
            raise MentalPokerError(f"the hand cannot be abandoned while it waits for {due}")
        self.witness = Due(witness_of(self.setup.players, due.player), ABANDON, absent=due.player, at=due.step)
        return self.witness

    def start(self, seat: int | None = None, cards: Sequence[int] = ()) -> HandState:
        """The hand begun on an imputed deal: ``seat`` holding ``cards`` (a seat's own run), else nobody's."""
        sheet = self.sheet
        return imputed_start(
            self.spec.convention,
            len(self.spec.players),
            self.dealer,
            seat,
            cards,
            sheet.raspasy_streak,
            self.opening_round,
            sheet.refe_seats(),
        )

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
        if self._rounds and self.broken is None:
            return self._rounds[0]
        if self.protocol.finished:
            return None
        state = self.game.public.state
        if state.phase is Phase.DONE or self.broken is not None:
            return Due(self.setup.players[0], "reveal")
        if self._talon_card_due(state):
            return Due(self.setup.players[0], "turn")
        if self.game.public.undecided:
            assert state.declarer is not None  # only a declared contract has the announcement
            return Due(self.game.name(state.declarer), ANNOUNCE)
        seat = to_move(state)
        assert seat is not None  # a hand not over has a seat to act
        if state.phase is Phase.PLAY and seat != state.turn and state.turn != state.dummy:
            # The seat who plays another's open hand chooses; the holder proves the card.
            if self.chosen is None:
                return Due(self.game.name(seat), ACT)
            return Due(self.game.name(state.turn), "play", card=self.chosen.card)
        step = {Phase.DISCARD: "discard", Phase.DEFENCE_DISCARD: "discard", Phase.PLAY: "play"}.get(state.phase, ACT)
        return Due(self.game.name(seat), step)

    def _talon_card_due(self, state: HandState) -> bool:
        """A raspasy trick that a talon card leads, before its first card, with that card not yet turned."""
        leads = state.phase is Phase.PLAY and not state.current and state.current_talon_card is not None
        return leads and self.protocol.turned == len(state.tricks)

    def message(self, envelope: Mapping[str, Any]) -> Message:
        """A seat's signed message — a protocol step or a decision — checked against what is due; returns its
        verified form."""
        due = self.due()
        opened = open_message(dict(envelope), self.seating, self.hand, self.protocol.head)
        player, step = sender(opened.message)
        speaker = opened.message.get("witness", player) if step == ABANDON else player
        awaited = None if due is None else DECIDE if due.step in (ACT, ANNOUNCE) else due.step
        if due is None or (speaker, step) != (due.player, awaited):
            raise MentalPokerError(f"message out of turn; the hand waits for {due}", speaker, step)
        if step == DECIDE:
            self._check_decision(due, opened.message)
        if step == "play" and due.card is not None and self._card_of(opened.message) != due.card:
            raise MentalPokerError("proves another card than the one chosen from his open hand", player, step)
        before = self.game.public.state
        self.protocol.apply(opened.message, digest=opened.digest)
        self.messages.append(dict(envelope))
        if self._rounds and step == self._rounds[0].step:
            self._rounds.pop(0)
        if step == "discard":
            self.actions.append(self.spec.players.index(player))
        if self.broken is None:
            self._follow(opened.message, before)
        return opened.message

    def _check_decision(self, due: Due, message: Message) -> None:
        """A decision of the kind due (a word on the announcement, or an action), legal now."""
        if ("announce" in read_decision(message)) != (due.step == ANNOUNCE):
            wanted = "his word on a hand without aces" if due.step == ANNOUNCE else "a game action"
            raise IllegalAction(f"the hand waits for {due.player}'s decision: {wanted}")
        action = self.game.decision(message)
        if isinstance(action, Play):
            state = self.game.public.state
            if action.seat != state.turn or action.by != to_move(state):
                raise IllegalAction(f"{action}: it is not that card's turn")
            if action.card not in state.hands[action.seat]:
                raise IllegalAction(f"{action}: the card is not in that open hand")

    def _follow(self, message: Message, before: HandState) -> None:
        """The game's side of a verified message. A card no deal allows (its proof holds: it is the sender's)
        means some card before it broke a rule: the hand stops and is revealed, and the replay on the opened deal
        names who broke it (``record``)."""
        step = sender(message)[1]
        try:
            taken = self.game.message(self.protocol, message)
        except NoConsistentDeal as exc:
            if step == "play":  # replayed on the opened deal with the rest, to find the rule broken
                self.actions.append(self.game.play_of(self.protocol))
            self.stop(str(exc))
            return
        if step == DECIDE and isinstance(taken, Play):
            self.chosen = taken  # its holder proves it next
        elif taken is not None:
            self.actions.append(taken)
            if step == "play":
                self.chosen = None
        self._called_for(before)

    def stop(self, why: str) -> None:
        """A party shows that no deal fits what the hand has shown: nothing more is played, the reveal is due."""
        if self.broken is None:
            self.broken, self.chosen, self._rounds = why, None, []

    def _card_of(self, message: Message) -> int:
        """The card a play message proves, worked out on a copy (the protocol state changes only once checked)."""
        trial = self.protocol.snapshot()
        trial.apply(message, digest="")
        return trial.plays[-1][2]

    def _called_for(self, before: HandState) -> None:
        """The rounds the last step calls for: a talon opened to all or passed to its taker, the dummy laid open."""
        after = self.game.public.state
        players = self.setup.players
        taken = sorted(_lying(before) - _lying(after))
        if after.talon_shown and not before.talon_shown:
            talon = taken[0] if taken else after.talon_bought or 0
            self._rounds.append(Due(players[0], "talon", talon))
        elif taken:
            taker = next(s for s in range(len(after.hands)) if len(after.hands[s]) > len(before.hands[s]))
            name = self.game.name(taker)
            first = next(p for p in players if p != name)
            self._rounds.append(Due(first, "take", taken[0], name))
        if self._dummy_needed(after):
            self._rounds.append(Due(players[0], "dummy"))
        for seat, _, _ in after.laid_open[len(before.laid_open) :]:
            if seat != after.dummy:
                self._rounds.append(Due(self.spec.players[seat], "open"))

    def _dummy_needed(self, state: HandState) -> bool:
        """Gusarik's dummy is laid open once, before any card: when the defence plays open, or when play begins
        with the dummy in the tricks (a misère caught from it): nobody can choose a card from a hand face down."""
        if state.dummy is None or self.protocol.dummy_open or any(r.step == "dummy" for r in self._rounds):
            return False
        return state.defence_open or (state.phase is Phase.PLAY and state.dummy in state.trick_seats)

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
        for taken in self.actions:
            action = self._discard(taken, order) if isinstance(taken, int) else taken
            try:
                state = apply(state, action)
            except IllegalAction as exc:
                who = self.spec.players[action.by if isinstance(action, Play) else action.seat]
                raise MentalPokerError(f"the deal the reveal opened makes this illegal: {exc}", who) from None
        if self.broken is not None:
            raise MentalPokerError(f"the hand stopped ({self.broken}), yet its cards replay legally")
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


def _lying(state: HandState) -> set[int]:
    """The talons (by index) whose first card still lies in the talon: those nobody has taken."""
    return {index for index, talon in enumerate(state.dealt_talons) if talon and talon[0] in state.talon}
