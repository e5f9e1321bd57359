"""A person at the terminal playing one seat: sees only its ``PlayerView``, picks a legal move by number or name.

Input is read line by line; a bad line is answered with the reason and asked again; the end of the input ends
the pulya after the last full hand (``StopMatch``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import click

from fairdeal.cards import format_cards, parse_card, parse_cards
from fairdeal.engine.actions import (
    Action,
    Announce,
    Bid,
    ChooseOpen,
    Concede,
    Declare,
    Defend,
    Discard,
    Follow,
    Invite,
    Kontra,
    Phase,
    Play,
    TakeTalon,
)
from fairdeal.engine.match import StopMatch
from fairdeal.engine.view import PlayerView
from fairdeal.errors import CardError

# More choices than this are not listed one per line (a discard has 66): the player names the cards instead.
LIST_LIMIT = 40


def action_label(action: Action) -> str:
    """The word a player types for ``action`` (the log's vocabulary where it has one)."""
    if isinstance(action, (Bid, Declare)):
        return action.token
    if isinstance(action, Discard):
        return format_cards(sorted(action.cards), "ascii")
    if isinstance(action, Concede):
        return "concede"
    if isinstance(action, Defend):
        return action.call.value
    if isinstance(action, ChooseOpen):
        return "open" if action.open else "closed"
    if isinstance(action, TakeTalon):
        return "take"
    if isinstance(action, Invite):
        return "invite" if action.invite else "alone"
    if isinstance(action, Kontra):
        return "double" if action.double else "pass"
    if isinstance(action, Announce):
        return "no-aces" if action.no_aces else "quiet"
    if isinstance(action, Follow):
        return "follow" if action.take else "pass"
    return format_cards([action.card], "ascii")


class TerminalPlayer:
    """A ``Bot`` whose decisions come from a person; ``read`` returns a line or ``""`` at the end of input,
    ``write(text, nl=True)`` shows text (``click.echo`` by default)."""

    def __init__(
        self, players: Sequence[str], read: Callable[[], str] | None = None, write: Callable[..., None] = click.echo
    ):
        self.players = list(players)
        self.read = read or (lambda: sys.stdin.readline())
        self.write = write

    def act(self, view: PlayerView) -> Action:
        legal = list(view.legal)
        self.write(self.describe(view))
        self.write(self.menu(legal))
        while True:
            self.write("> ", nl=False)
            line = self.read()
            if not line:
                raise StopMatch(f"the input ended ({self.players[view.seat]} left the table)")
            choice, reason = choose(line.strip(), legal)
            if choice is not None:
                return choice
            self.write(f"not accepted: {reason}")

    def describe(self, view: PlayerView) -> str:
        name = self.players
        lines = [f"— {name[view.seat]} (seat {view.seat}), dealer {name[view.dealer]}, {view.phase.value}"]
        if view.auction:
            lines.append("  auction: " + ", ".join(f"{name[s]} {t}" for s, t in view.auction))
        if view.contract is not None and view.declarer is not None:
            lines.append(f"  contract: {view.contract.token} by {name[view.declarer]}")
        if view.defence:
            lines.append("  defence: " + ", ".join(f"{name[s]} {c.value}" for s, c in view.defence))
        lines.append(f"  your cards: {format_cards(sorted(view.hand))}")
        if view.talon_seen:
            lines.append(f"  talon: {format_cards(view.talon_seen)}")
        for seat, cards in view.open_hands:
            lines.append(f"  {name[seat]} (open): {format_cards(sorted(cards))}")
        if view.phase is Phase.PLAY:
            if view.tricks:
                last = view.tricks[-1]
                played = ", ".join(f"{name[s]} {format_cards([c])}" for s, c in last.plays)
                lines.append(f"  last trick: {played} — to {name[last.winner]}")
            trick = ", ".join(f"{name[s]} {format_cards([c])}" for s, c in view.current) or "you lead"
            if view.current_talon_card is not None:
                trick = f"talon card {format_cards([view.current_talon_card])} sets the suit; {trick}"
            lines.append(f"  trick: {trick}")
            lines.append("  tricks won: " + ", ".join(f"{name[s]} {view.won[s]}" for s in view.active))
        return "\n".join(lines)

    @staticmethod
    def menu(legal: Sequence[Action]) -> str:
        if len(legal) > LIST_LIMIT:
            return f"  {len(legal)} choices: type the two cards to put away, e.g. {action_label(legal[0])}"
        return "\n".join(f"  {i}. {_menu_entry(a)}" for i, a in enumerate(legal, start=1))


def _menu_entry(action: Action) -> str:
    if not isinstance(action, Play):
        return action_label(action)
    card = format_cards([action.card])
    return card if action.by == action.seat else f"{card} (for seat {action.seat})"


def choose(text: str, legal: Sequence[Action]) -> tuple[Action | None, str]:
    """The legal action ``text`` names (a menu number, a word, a card or two cards), or why none is."""
    if not text:
        return None, "type a move number or its name"
    if text.isdigit():
        index = int(text)
        if 1 <= index <= len(legal):
            return legal[index - 1], ""
        return None, f"there is no move {index}; choose 1..{len(legal)}"
    by_label = {action_label(a).lower(): a for a in legal}
    if text.lower() in by_label:
        return by_label[text.lower()], ""
    if legal and isinstance(legal[0], Play):
        return _choose_card(text, legal)
    if legal and isinstance(legal[0], Discard):
        return _choose_discard(text, legal)
    return None, f"{text!r} is not a legal move now; legal: {', '.join(action_label(a) for a in legal)}"


def _choose_card(text: str, legal: Sequence[Action]) -> tuple[Action | None, str]:
    try:
        code = parse_card(text).code
    except CardError as exc:
        return None, str(exc)
    for action in legal:
        if isinstance(action, Play) and action.card == code:
            return action, ""
    return (
        None,
        (
            f"{format_cards([code], 'ascii')} cannot be played now (not in the hand to play, or the suit "
            f"must be followed / trumped); playable: {', '.join(action_label(a) for a in legal)}"
        ),
    )


def _choose_discard(text: str, legal: Sequence[Action]) -> tuple[Action | None, str]:
    try:
        codes = {card.code for card in parse_cards(text)}
    except CardError as exc:
        return None, str(exc)
    discards = [action for action in legal if isinstance(action, Discard)]
    for action in discards:
        if set(action.cards) == codes:
            return action, ""
    what = "one card" if len(discards[0].cards) == 1 else "two different cards"
    return None, f"name {what} of your hand (with the talon) to put away"
