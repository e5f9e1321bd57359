"""An independent double-dummy search for the solver's tests, written from the rules of seed 000 and the
Austrian/Croatian overtaking rule, sharing no code with the solver or the engine: plain minimax over every legal
card, memoised at trick boundaries on the exact cards still in hand."""

from __future__ import annotations

from functools import cache

SUIT = 8


def legal(
    hand: tuple[int, ...], table: tuple[int, ...], led: int | None, trump: int | None, overtake: bool
) -> tuple[int, ...]:
    if led is None:
        return hand
    follow = tuple(c for c in hand if c // SUIT == led)
    ruff = tuple(c for c in hand if trump is not None and c // SUIT == trump)
    allowed = follow or ruff or hand
    if overtake and table:
        top = table[winner_index(table, None, trump, False)]
        heads = tuple(c for c in allowed if _over(c, top, trump))
        allowed = heads or allowed
    return allowed


def _over(card: int, top: int, trump: int | None) -> bool:
    if card // SUIT == top // SUIT:
        return card > top
    return trump is not None and card // SUIT == trump


def winner_index(table: tuple[int, ...], talon: int | None, trump: int | None, owner: bool) -> int:
    """Index into ``table`` of the winning card; -1 when an owned talon card wins."""
    if talon is not None:
        cands = [(c, i) for i, c in enumerate(table) if c // SUIT == talon // SUIT]
        if owner:
            cands.append((talon, -1))
        if cands:
            return max(cands)[1]
        return max((c, i) for i, c in enumerate(table) if c // SUIT == table[0] // SUIT)[1]
    best = 0
    for i in range(1, len(table)):
        if _over(table[i], table[best], trump):
            best = i
    return best


def make_search(
    trump: int | None,
    count: frozenset[int],
    maximisers: frozenset[int],
    overtake: bool = False,
    talon: tuple[int, ...] = (),
    owner: bool = False,
):
    """A function (hands, leader, table, trick) -> counted tricks from the trick in progress on."""

    @cache
    def boundary(hands: tuple[tuple[int, ...], ...], leader: int, trick: int) -> int:
        if not hands[0]:
            return 0
        return inside(hands, leader, (), trick)

    def inside(hands, leader, table, trick):
        n = len(hands)
        seat = (leader + len(table)) % n
        tcard = talon[trick] if trick < len(talon) else None
        led = tcard // SUIT if tcard is not None else (table[0] // SUIT if table else None)
        values = []
        for card in legal(hands[seat], table, led, trump, overtake):
            rest = list(hands)
            rest[seat] = tuple(c for c in hands[seat] if c != card)
            rest = tuple(rest)
            played = table + (card,)
            if len(played) < n:
                values.append(inside(rest, leader, played, trick))
                continue
            w = winner_index(played, tcard, trump, owner)
            who = None if w < 0 else (leader + w) % n
            nxt = 0 if tcard is not None else who
            values.append(int(who in count) + boundary(rest, nxt, trick + 1))
        return max(values) if seat in maximisers else min(values)

    return boundary, inside


def make_alphabeta(trump: int | None, count: frozenset[int], maximisers: frozenset[int], overtake: bool = False):
    """A pruned search for full layouts (no talon): alpha-beta with bounds memoised at trick boundaries on the
    exact cards in hand. Returns (hands, leader) -> counted tricks."""
    memo: dict = {}

    def boundary(hands, leader, alpha, beta):
        left = len(hands[0])
        if left == 0:
            return 0
        key = (hands, leader)
        lo, hi = memo.get(key, (0, left))
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        a, b = max(alpha, lo), min(beta, hi)
        v = inside(hands, leader, (), a, b)
        if v <= a:
            hi = min(hi, v)
        elif v >= b:
            lo = max(lo, v)
        else:
            lo = hi = v
        memo[key] = (lo, hi)
        return v

    def inside(hands, leader, table, alpha, beta):
        n = len(hands)
        seat = (leader + len(table)) % n
        led = table[0] // SUIT if table else None
        maxing = seat in maximisers
        best = -1 if maxing else 99
        for card in legal(hands[seat], table, led, trump, overtake):
            rest = list(hands)
            rest[seat] = tuple(c for c in hands[seat] if c != card)
            rest = tuple(rest)
            played = table + (card,)
            if len(played) < n:
                v = inside(rest, leader, played, alpha, beta)
            else:
                who = (leader + winner_index(played, None, trump, False)) % n
                won = int(who in count)
                v = won + boundary(rest, who, alpha - won, beta - won)
            if maxing:
                best = max(best, v)
                alpha = max(alpha, best)
            else:
                best = min(best, v)
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best

    return lambda hands, leader: boundary(tuple(hands), leader, -1, 99)
