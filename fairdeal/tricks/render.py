"""A technique shown in the terminal: the deck before, each action and the deck after it, the deal (rich text,
cards in their suit colours, the targeted cards highlighted)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from rich.console import Console
from rich.text import Text

from fairdeal.cards import Card
from fairdeal.tricks.base import Technique
from fairdeal.tricks.plan import Goal, TrickPlan

TARGET_STYLE = "bold black on yellow"


def card_text(code: int, targeted: Iterable[int] = ()) -> Text:
    card = Card.from_code(int(code))
    if int(code) in {int(c) for c in targeted}:
        return Text(str(card), style=TARGET_STYLE)
    return Text(str(card), style="red" if card.suit.is_red else "bright_white")


def cards_text(codes: Sequence[int] | np.ndarray, targeted: Iterable[int] = (), numbered: bool = False) -> Text:
    aimed = tuple(int(c) for c in targeted)
    text = Text()
    for i, code in enumerate(codes):
        if i:
            text.append(" ")
        if numbered:
            text.append(f"{i + 1}:", style="dim")
        text.append_text(card_text(int(code), aimed))
    return text


def show_plan(
    console: Console, trick: Technique, goal: Goal, plan: TrickPlan, players: Sequence[str], dealer: int
) -> None:
    """Print the plan step by step."""
    console.print(Text(f"{trick.title} ({trick.name})", style="bold"))
    console.print(Text(trick.what))
    console.print(Text(f"source: {trick.source}", style="dim"))
    console.print(
        Text(f"dealer: {players[dealer]}; goal: {trick.describe_goal(goal)}; cards numbered from the top (seed 004)")
    )
    console.print(Text("deck before (the gathered tricks):", style="bold"))
    console.print(cards_text(plan.before, plan.targeted, numbered=True))
    deck = plan.before
    for index, action in enumerate(plan.actions, start=1):
        deck = deck[action.op.permutation(len(deck))]
        who = (
            "dealer"
            if action.actor is None
            else players[action.actor]
            if isinstance(action.actor, int)
            else action.actor
        )
        console.print(Text(f"{index}. {action.notation()}  ({who})", style="cyan"))
        console.print(cards_text(deck, plan.targeted, numbered=True))
    if plan.deal_differs:
        console.print(Text("the cards really went out in this order (the deal-time trick):", style="bold magenta"))
        console.print(cards_text(plan.dealt_order, plan.targeted, numbered=True))
    console.print(Text("the deal:", style="bold"))
    seats = len(players)
    for hand, cards in enumerate(plan.deal.hands):
        seat = (dealer + 1 + hand) % seats
        console.print(Text(f"  hand {hand} ({players[seat]}): ").append_text(cards_text(cards, plan.targeted)))
    console.print(Text("  talon: ").append_text(cards_text(plan.deal.talons[0], plan.targeted)))
    verdict = "reached" if plan.achieved else "not reached"
    console.print(
        Text(
            f"goal {verdict}: {plan.hits} of {len(plan.targeted)} aimed card(s) where meant; {plan.note}",
            style="green" if plan.achieved else "yellow",
        )
    )
