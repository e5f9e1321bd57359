"""Hand review: replay a logged hand through the engine and price each card played by its double-dummy cost.

The log gains nothing: each position is rebuilt from the hand's record, every hand is known (double dummy), and
the cost of a card is what it gives away against the best card the same seat could have played, in tricks for
the side that seat plays for (the declarer's tricks in a game or misère, its own tricks in raspasy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairdeal.cards import Card, parse_card
from fairdeal.engine.actions import Phase, Play
from fairdeal.engine.hand import apply, to_move
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.play import trump_of
from fairdeal.engine.record import replay_record
from fairdeal.engine.state import HandState
from fairdeal.errors import FairdealError
from fairdeal.solver.dds import Position, solve

if TYPE_CHECKING:
    from fairdeal.rules.convention import Convention


class ReviewError(FairdealError, ValueError):
    """The log or the hand cannot be reviewed."""


@dataclass(frozen=True)
class PlayReview:
    trick: int  # 1-based
    seat: int
    card: int
    value: int  # the counted seat's tricks at the end of the hand, best play after this card
    best: int  # ... after the best card instead
    best_cards: tuple[int, ...]  # the cards that achieve it

    @property
    def cost(self) -> int:
        return abs(self.best - self.value)


@dataclass(frozen=True)
class HandReview:
    hand: int
    kind: str
    counted: str  # whose tricks the values count
    plays: tuple[PlayReview, ...]


def position_of(state: HandState) -> tuple[Position, tuple[int, ...]]:
    """The double-dummy position of a hand in trick play, and the trick seats it numbers 0, 1, 2."""
    seats = state.trick_seats
    index = {s: i for i, s in enumerate(seats)}
    leader = index[state.current[0][0]] if state.current else index[state.turn]
    talon: tuple[int, ...] = ()
    if state.current_talon_card is not None:
        end = min(state.convention.raspasy.talon_tricks, len(state.dealt_talon))
        talon = tuple(state.dealt_talon[len(state.tricks) : end])
    position = Position(
        tuple(state.hands[s] for s in seats),
        leader,
        tuple(c for _, c in state.current),
        trump_of(state),
        state.convention.play.must_overtake,
        talon,
        state.dealer not in state.active,
    )
    return position, seats


def sides_of(state: HandState, seat: int) -> tuple[int, int, int]:
    """(counted mask, maximisers mask, counted absolute seat) for the trick seat ``seat`` to play."""
    seats = state.trick_seats
    everyone = (1 << len(seats)) - 1
    if state.kind is HandKind.RASPASY:
        me = 1 << seats.index(seat)
        return me, everyone & ~me, seat
    assert state.declarer is not None  # a game or a misere has a declarer
    declarer = 1 << seats.index(state.declarer)
    return declarer, declarer if state.kind is HandKind.GAME else everyone & ~declarer, state.declarer


def review_state(start: HandState, cards: list[tuple[int, int]], hand: int) -> HandReview:
    state = start
    plays = []
    for seat, card in cards:
        position, _ = position_of(state)
        count, maximisers, counted = sides_of(state, seat)
        won = state.won[counted]
        values = {c: won + v for c, v in solve(position, count, maximisers, values=True).card_values.items()}
        best = (max if (maximisers >> state.trick_seats.index(seat)) & 1 else min)(values.values())
        trick = len(state.tricks) + 1
        plays.append(
            PlayReview(trick, seat, card, values[card], best, tuple(sorted(c for c, v in values.items() if v == best)))
        )
        state = apply(state, Play(seat, card, to_move(state)))
    assert start.kind is not None  # a hand in trick play knows its kind
    what = "each seat's own tricks" if start.kind is HandKind.RASPASY else f"seat {start.declarer}'s tricks"
    return HandReview(hand, start.kind.value, what, tuple(plays))


def review_record(fields: dict[str, Any], convention: Convention, num_seats: int) -> HandReview:
    """Review a hand from its log record (as plain JSON values): replay the bidding and the defence, then price
    each recorded card."""
    hand = fields.get("hand", "?")
    fields = dict(fields)
    tricks = fields.pop("tricks", [])
    fields.pop("result", None)
    try:
        start = replay_record(fields, convention, num_seats)
    except FairdealError as exc:
        raise ReviewError(f"hand {hand} cannot be replayed: {exc}") from None
    if start.phase is not Phase.PLAY:
        raise ReviewError(f"hand {hand} has no trick play (it ended in the {start.phase.value} phase)")
    seats = start.trick_seats
    cards = []
    for trick in tricks:
        at = seats.index(int(trick["lead"]))
        for k, text in enumerate(trick["cards"]):
            cards.append((seats[(at + k) % len(seats)], parse_card(str(text)).code))
    try:
        return review_state(start, cards, int(hand))
    except (FairdealError, KeyError, ValueError) as exc:
        raise ReviewError(f"hand {hand}: the recorded play cannot be replayed: {exc}") from None


def review_json(review: HandReview) -> dict[str, Any]:
    return {
        "hand": review.hand,
        "kind": review.kind,
        "counted": review.counted,
        "plays": [
            {
                "trick": p.trick,
                "seat": p.seat,
                "card": Card.from_code(p.card).ascii,
                "value": p.value,
                "best": p.best,
                "cost": p.cost,
                "best_cards": [Card.from_code(c).ascii for c in p.best_cards],
            }
            for p in review.plays
        ],
    }
