"""Rough hand evaluation for the bots: sure tricks per strain and the danger of a misère.

These are table rules of thumb, not analysis: a card counts as a trick when the opponents' higher cards can be
drawn by the holder's smaller ones; a long trump suit loses only to the missing top honours; a misère suit is safe
when each card has enough smaller ones of its own below it (seed 000: «Туз, десятка, восьмерка и семерка»
practically safe, «Туз, восьмерка и семерка» not guaranteed).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

NO_TRUMP = 4
ACE = 7


def ranks_by_suit(cards: Iterable[int]) -> list[tuple[int, ...]]:
    """Ranks held in each suit, highest first."""
    suits: list[list[int]] = [[], [], [], []]
    for card in sorted(cards, reverse=True):
        suits[card // 8].append(card % 8)
    return [tuple(s) for s in suits]


@cache
def top_tricks(ranks: tuple[int, ...]) -> float:
    """Tricks from the top of a suit: a card wins when the holder has as many smaller cards as the opponents
    have higher ones (A; K x; K Q; Q J x ...); a card that still has to wait for a higher one to fall counts
    half (K x wins when the ace sits in front of it)."""
    count = 0.0
    length = len(ranks)
    for above, rank in enumerate(ranks):
        opponents_higher = (ACE - rank) - above
        if opponents_higher <= length - above - 1:
            count += 1.0 if opponents_higher == 0 else 0.5
    return count


@cache
def trump_tricks(ranks: tuple[int, ...]) -> float:
    """A long trump suit loses only to the missing honours among its top cards."""
    length = len(ranks)
    if length < 4:
        return top_tricks(ranks)
    missing_honours = sum(1 for rank in (ACE, ACE - 1, ACE - 2)[: min(length, 3)] if rank not in ranks)
    return max(top_tricks(ranks), length - missing_honours)


def stopped(ranks: tuple[int, ...]) -> bool:
    """A suit the opponents cannot run in no-trump: A, K x, Q J x or longer."""
    return top_tricks(ranks) > 0 or len(ranks) >= 4


def strain_tricks(cards: Iterable[int], strain: int) -> float:
    """Expected tricks as declarer in ``strain`` (0..3 a trump suit, 4 no trump)."""
    return _strain_tricks(_shares(cards), strain)


@cache
def _suit_share(ranks: tuple[int, ...]) -> tuple[float, float, float, int]:
    """What one suit brings: (as a side suit, as trumps, in no trump, its length)."""
    top = top_tricks(ranks)
    no_trump = max(top, len(ranks) - 3) if top >= 2 else top  # small cards of a long suit run
    if not stopped(ranks):
        no_trump -= 1.5
    return top, float(trump_tricks(ranks)), no_trump, len(ranks)


def _shares(cards: Iterable[int]) -> list[tuple[float, float, float, int]]:
    return [_suit_share(ranks) for ranks in ranks_by_suit(cards)]


def _strain_tricks(shares: list[tuple[float, float, float, int]], strain: int) -> float:
    # Every count is a multiple of a half, so these sums are exact in any order.
    if strain == NO_TRUMP:
        return sum((no_trump for _, _, no_trump, _ in shares), 0.0)
    _, total, _, trumps = shares[strain]
    for suit, (side, _, _, length) in enumerate(shares):
        if suit == strain:
            continue
        total += side
        if trumps >= 4 and length == 0:
            total += 0.5  # a void lets a spare trump ruff
    return min(total, 10.0)


def best_strain(cards: Iterable[int]) -> tuple[int, float]:
    shares = _shares(cards)
    return max(((s, _strain_tricks(shares, s)) for s in range(5)), key=lambda item: (item[1], item[0]))


def defence_tricks(cards: Iterable[int], trump: int | None) -> float:
    """Tricks a defender expects against a contract: aces and protected kings, trump honours count fully."""
    total = 0.0
    for suit, ranks in enumerate(ranks_by_suit(cards)):
        top = top_tricks(ranks)
        if trump is not None and suit != trump and len(ranks) > 3:
            top = min(top, 1)  # long side suits get ruffed after the first round
        total += top
    return total


def misere_risk(cards: Iterable[int]) -> float:
    """0 for a hand with no takers; each card without enough small guards below it adds one, a suit lacking
    its seven or eight adds a half."""
    risk = 0.0
    for ranks in ranks_by_suit(cards):
        ascending = sorted(ranks)
        for below, rank in enumerate(ascending):
            if rank > 2 * below + 1:
                risk += 1
        if ascending and ascending[0] > 1:
            risk += 0.5
    return risk
