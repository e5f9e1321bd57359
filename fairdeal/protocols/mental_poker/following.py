"""The game of a mentally dealt hand as anybody can follow it from its verified messages, and what it waits for.

Each verified message is read as a ``Fact``: what it opens to everyone (a card played, a hand laid open, a talon
shown, a raspasy talon card turned, the dummy), a talon passed to whom, or a signed decision. A ``Follower`` runs
the game on a deal imputed from the facts (``PublicHand``; a seat's run also knows its own cards); a
``PublicGame`` adds what the game calls for next when the protocol fixes no sender — a decision, a card, a
discard, a round — as the host asks it (``live.py``). A verifier feeds it the facts of a finished chain
(``verify.py``, and the offline page under Pyodide: nothing here needs numpy or libsodium), so it can tell whose
step an abandon in play left due without the hand's record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdeal.engine.actions import Action, Announce, Discard, Phase, Play, encode_action
from fairdeal.engine.hand import legal_actions, to_move
from fairdeal.engine.public_hand import PublicHand
from fairdeal.engine.state import HandState
from fairdeal.errors import IllegalAction, NoConsistentDeal, one_line
from fairdeal.protocols.mental_poker.steps import DECIDE

# A game decision; the declarer's word on a hand without aces (Austrian): each a signed ``decide`` message.
ACT, ANNOUNCE = "act", "announce"


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

    @property
    def message_step(self) -> str:
        """The step of the message that answers it: a decision or a word on the announcement is a ``decide``."""
        return DECIDE if self.step in (ACT, ANNOUNCE) else self.step


@dataclass(frozen=True)
class Fact:
    """What one verified message shows everyone: its step and sender; the cards it opened (a card played, a hand
    laid open, and — on the message that ends a round — the talon shown, the card turned, the dummy); a talon
    round's talon and the player a talon was passed to; a decision."""

    step: str
    player: str
    cards: tuple[int, ...] = ()
    talon: int = 0
    to: str | None = None
    decision: Mapping[str, Any] | None = None
    round_done: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Fact:
        """A fact as the page sends it: every field by name, ``cards`` a list."""
        fields = dict(data, cards=tuple(data["cards"]))
        return cls(**fields)


class Follower:
    """One party's run of the game: each fact is applied as it opens to that party. ``players`` are the table's
    names by seat, ``dealt`` the players of this hand; ``own(position)`` opens a card with the party's own share
    (a seat; ``talon_rows`` then gives the positions of the talons), else ``None``."""

    def __init__(
        self,
        players: Sequence[str],
        dealt: Sequence[str],
        start: HandState,
        seat: int | None = None,
        own: Callable[[int], int] | None = None,
        talon_rows: Sequence[Sequence[int]] = (),
    ):
        self.players, self.dealt, self.seat, self._own, self._talon_rows = players, dealt, seat, own, talon_rows
        self.public = PublicHand(start, seat)

    def name(self, seat: int) -> str:
        """The player who acts for ``seat``: the dummy's cards are played by the declarer's opponent."""
        if seat < len(self.players):
            return self.players[seat]
        declarer = self.public.state.declarer
        return next(p for s, p in enumerate(self.players) if s != declarer and p in self.dealt)

    def take(self, fact: Fact) -> Action | None:
        """Apply a fact; a card played, or a decision's action, is returned (a card chosen from another's open hand
        waits for its holder's proof)."""
        public = self.public
        if fact.step == "play":
            play = self.play_of(fact.cards[0])
            public.act(play)
            return play
        if fact.step == DECIDE:
            action = self.decision(fact.player, fact.decision or {})
            if action is None:
                public.no_announcement()
            elif not isinstance(action, Play):
                public.act(action)
            return action
        seat = self.players.index(fact.player)
        if fact.step == "discard" and seat != self.seat:
            public.put_away(seat)
        elif fact.step == "open":
            public.lay_open(seat, list(fact.cards))
        elif fact.round_done:
            self._round_done(fact)
        return None

    def decision(self, player: str, decision: Mapping[str, Any]) -> Action | None:
        """The action a signed decision names, if ``player`` may take it now (``IllegalAction`` if not); ``None``
        for the declarer's word that he holds an ace. Nothing changes."""
        state = self.public.state
        if "announce" in decision:
            word = decision["announce"]
            if state.declarer is None or self.name(state.declarer) != player:
                raise IllegalAction(f"{player} is not the declarer: he has no hand without aces to announce")
            return None if word is None else Announce(state.declarer, word["no_aces"])
        wanted = decision.get("action")
        action = next((a for a in legal_actions(state) if encode_action(a) == wanted), None)
        if action is None:
            raise IllegalAction(f"{one_line(json.dumps(wanted), 120)} is not a legal decision now")
        if isinstance(action, Discard) or (isinstance(action, Play) and action.by == action.seat):
            raise IllegalAction(f"{action}: a discard or a card of one's own is a protocol message, not a decision")
        actor = action.by if isinstance(action, Play) else action.seat
        if self.name(actor) != player:
            raise IllegalAction(f"{action}: the decision is {self.name(actor)}'s, not {player}'s")
        return action

    def play_of(self, card: int) -> Play:
        """The game's action for a card just proved: whose card, and who chose it."""
        state = self.public.state
        actor = to_move(state)
        return Play(state.turn, card, None if actor == state.turn else actor)

    def _round_done(self, fact: Fact) -> None:
        if fact.step == "talon":
            self.public.show_talon(fact.talon, list(fact.cards))
        elif fact.step == "take":
            if self._own is not None and fact.to == self.players[self.seat or 0]:
                # The rules may give him only the first of the cards passed (the 19th century's little poverty).
                state = self.public.state
                taken = sum(1 for c in state.dealt_talons[fact.talon] if c not in state.talon)
                self.public.show_talon(fact.talon, [self._own(p) for p in self._talon_rows[fact.talon][:taken]])
        elif fact.step == "turn":
            self.public.show_turned(fact.cards[0])
        elif fact.step == "dummy":
            dummy = self.public.state.dummy
            assert dummy is not None  # a dummy round only at a table with a dummy
            self.public.lay_open(dummy, list(fact.cards))


@dataclass
class PublicGame:
    """The game side of one hand, as the host and any verifier follow it: the follower, the rounds the game has
    called for that nobody has begun, a card chosen from another's open hand awaiting its holder's proof, the
    game's actions in order (a seat's number for a discard nobody saw), and why the hand broke, if it did (no
    deal fits what was shown: it goes straight to the reveal)."""

    game: Follower
    actions: list[Action | int] = field(default_factory=list)
    rounds: list[Due] = field(default_factory=list)
    chosen: Play | None = None
    broken: str | None = None
    turned: int = 0  # raspasy talon cards turned
    dummy_open: bool = False

    def take(self, fact: Fact) -> None:
        """A verified message's fact. A card no deal allows (its proof holds: it is the sender's) means some card
        before it broke a rule: the hand stops, and the replay on the opened deal names who broke it."""
        if self.rounds and fact.step == self.rounds[0].step:
            self.rounds.pop(0)
        if fact.step == "discard":
            self.actions.append(self.game.players.index(fact.player))
        if fact.round_done and fact.step == "turn":
            self.turned += 1
        if fact.round_done and fact.step == "dummy":
            self.dummy_open = True
        if self.broken is not None:
            return
        before = self.game.public.state
        try:
            taken = self.game.take(fact)
        except NoConsistentDeal as exc:
            if fact.step == "play":  # replayed on the opened deal with the rest, to find the rule broken
                self.actions.append(self.game.play_of(fact.cards[0]))
            self.stop(str(exc))
            return
        if fact.step == DECIDE and isinstance(taken, Play):
            self.chosen = taken  # its holder proves it next
        elif taken is not None:
            self.actions.append(taken)
            if fact.step == "play":
                self.chosen = None
        self._called_for(before)

    def stop(self, why: str) -> None:
        """A party shows that no deal fits what the hand has shown: nothing more is played, the reveal is due."""
        if self.broken is None:
            self.broken, self.chosen, self.rounds = why, None, []

    def due(self, finished: bool = False) -> Due | None:
        """What the game waits for where the protocol fixes no sender; ``None`` once the hand is ``finished``."""
        if self.rounds and self.broken is None:
            return self.rounds[0]
        if finished:
            return None
        dealt, state = self.game.dealt, self.game.public.state
        if state.phase is Phase.DONE or self.broken is not None:
            return Due(dealt[0], "reveal")
        if self._talon_card_due(state):
            return Due(dealt[0], "turn")
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
        return leads and self.turned == len(state.tricks)

    def _called_for(self, before: HandState) -> None:
        """The rounds the last step calls for: a talon opened to all or passed to its taker, the dummy laid open."""
        after = self.game.public.state
        dealt = self.game.dealt
        taken = sorted(_lying(before) - _lying(after))
        if after.talon_shown and not before.talon_shown:
            talon = taken[0] if taken else after.talon_bought or 0
            self.rounds.append(Due(dealt[0], "talon", talon))
        elif taken:
            taker = next(s for s in range(len(after.hands)) if len(after.hands[s]) > len(before.hands[s]))
            name = self.game.name(taker)
            first = next(p for p in dealt if p != name)
            self.rounds.append(Due(first, "take", taken[0], name))
        if self._dummy_needed(after):
            self.rounds.append(Due(dealt[0], "dummy"))
        for seat, _, _ in after.laid_open[len(before.laid_open) :]:
            if seat != after.dummy:
                self.rounds.append(Due(self.game.players[seat], "open"))

    def _dummy_needed(self, state: HandState) -> bool:
        """Gusarik's dummy is laid open once, before any card: when the defence plays open, or when play begins
        with the dummy in the tricks (a misère caught from it): nobody can choose a card from a hand face down."""
        if state.dummy is None or self.dummy_open or any(r.step == "dummy" for r in self.rounds):
            return False
        return state.defence_open or (state.phase is Phase.PLAY and state.dummy in state.trick_seats)


def _lying(state: HandState) -> set[int]:
    """The talons (by index) whose first card still lies in the talon: those nobody has taken."""
    return {index for index, talon in enumerate(state.dealt_talons) if talon and talon[0] in state.talon}
