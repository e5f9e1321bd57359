"""The state of one hand: a frozen value; ``fairdeal.engine.hand`` moves it from one state to the next."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from functools import wraps
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from fairdeal.engine.actions import Phase
from fairdeal.engine.bids import ContractBid
from fairdeal.engine.extra import NO_FAMILY_STATE, FamilyState
from fairdeal.engine.outcome import DefenceCall, HandKind

if TYPE_CHECKING:
    from fairdeal.engine.mechanics import Mechanics
    from fairdeal.rules.convention import Convention


_RASPASY = HandKind.RASPASY  # read on every card: a module global is cheaper than a class attribute (3.11)


@dataclass(frozen=True)
class Trick:
    """A finished trick. ``plays`` are (seat, card) from the first seat to play a card from hand."""

    plays: tuple[tuple[int, int], ...]
    winner: int  # the dealer's seat when a 4-player raspasy talon card wins
    talon_card: int | None = None  # raspasy: the talon card that set the suit

    @property
    def lead(self) -> int:
        return self.plays[0][0]


@dataclass(frozen=True)
class HandState:
    convention: Convention  # read by field, never by name
    num_seats: int
    dealer: int
    active: tuple[int, ...]  # seats dealt a hand, first hand first (Gusarik's dummy is seat num_seats)
    raspasy_streak: int
    dealt_hands: tuple[tuple[int, ...], ...]  # per absolute seat, as dealt (empty for a seat that sits out)
    dealt_talon: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]  # per absolute seat, current cards (sorted)
    talon: tuple[int, ...]  # cards still lying in the talon
    phase: Phase
    turn: int  # whose decision (whose card, in play)
    mechanics: Mechanics = field(repr=False)  # the system's auction and phase table
    auction: tuple[tuple[int, str], ...] = ()
    passed: frozenset[int] = frozenset()
    bidders: frozenset[int] = frozenset()  # seats that have made a contract-bearing bid or said «мои»
    misere_bidders: frozenset[int] = frozenset()
    high: ContractBid | None = None
    high_seat: int | None = None
    declarer: int | None = None
    final_bid: ContractBid | None = None
    talon_shown: bool = False
    discard: tuple[int, ...] = ()
    contract: ContractBid | None = None
    conceded: bool = False
    defence: tuple[tuple[int, DefenceCall], ...] = ()
    defence_open: bool = False
    open_seats: frozenset[int] = frozenset()  # hands lying face up
    # Each hand as it was laid face up: (seat, cards played in the hand before, the cards it held then).
    laid_open: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    kind: HandKind | None = None
    tricks: tuple[Trick, ...] = ()
    current: tuple[tuple[int, int], ...] = ()  # the trick being played: (seat, card)
    leader: int | None = None
    won: tuple[int, ...] = ()  # tricks per absolute seat
    talon_won: int = 0  # 4-player raspasy: tricks the talon cards took (the dealer's)
    steps: int = 0  # actions applied so far
    dealt_talons: tuple[tuple[int, ...], ...] = ()  # every talon as dealt (Hussar has two)
    dummy: int | None = None  # Gusarik: the dummy's pseudo-seat (always num_seats)
    trick_seats: tuple[int, ...] = ()  # seats that play to the tricks, in turn order from the first hand
    opening_round: int = 0  # Classic: k-th opening raspasy of this dealer (0 = a normal hand)
    dark: bool = False  # the contract was won by a dark bid (talon taken unseen)
    talon_bought: int | None = None  # with two talons: the one the declarer took
    number_high: int | None = None  # number ladders (Austrian, Croatian): the highest number bid
    game_bids: tuple[tuple[int, int | None], ...] = ()  # («игра») seat and named number (None = not named yet)
    naming: bool = False  # the game bidders name their numbers in turn
    final_number: int | None = None  # the number the declarer's contract must reach
    named_contract: bool = False  # a game named in the auction: the contract is that number's
    refe_seats: frozenset[int] = frozenset()  # Croatian: seats holding a refe at the deal (from the sheet)
    extra: FamilyState = NO_FAMILY_STATE  # the state only the system's family's phases keep (fairdeal.engine.extra)
    aside: tuple[int, ...] = ()  # two at a 19th-century table: the third hand, laid aside unseen

    @property
    def defenders(self) -> tuple[int, ...]:
        """Active seats other than the declarer, from the declarer's left."""
        if self.declarer is None:
            return ()
        active = self.active
        at = active.index(self.declarer)
        return active[at + 1 :] + active[:at]

    @property
    def callers(self) -> tuple[int, ...]:
        """Defenders who say pass or whist: every defender but the dummy (who always passes)."""
        if self.dummy is None:
            return self.defenders
        return tuple(s for s in self.defenders if s != self.dummy)

    @property
    def players(self) -> tuple[int, ...]:
        """Active seats that are people at the table (the dummy excluded)."""
        return tuple(s for s in self.active if s != self.dummy)

    def laying_open(self, seats: frozenset[int]) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
        """``laid_open`` with the hands of ``seats`` that do not lie open yet laid open now."""
        played = sum(len(t.plays) for t in self.tricks) + len(self.current)
        fresh = sorted(seats - self.open_seats)
        return self.laid_open + tuple((seat, played, self.hands[seat]) for seat in fresh)

    @property
    def current_talon_card(self) -> int | None:
        """The raspasy talon card that sets the suit of the trick being played, if any."""
        if self.kind is not _RASPASY or not getattr(self.convention.raspasy, "talon_leads", False):
            return None
        index = len(self.tricks)
        if index < min(self.convention.raspasy.talon_tricks, len(self.dealt_talon)):
            return self.dealt_talon[index]
        return None


_FIELD_NAMES = frozenset(f.name for f in fields(HandState))
_REQUIRED = frozenset(f.name for f in fields(HandState) if f.default is MISSING)
if any(getattr(HandState, f.name, MISSING) is not f.default for f in fields(HandState) if f.name not in _REQUIRED):
    raise TypeError("every HandState default must be a class attribute (make_state leaves defaults out)")


def make_state(**values: Any) -> HandState:
    """``HandState(**values)`` without the frozen dataclass's ``object.__setattr__`` per field (one per hand).
    A field left at its default is not stored: the class attribute answers for it, so each copy of a state
    (one per action) copies only the fields the hand has set."""
    if not values.keys() >= _REQUIRED or not _FIELD_NAMES.issuperset(values):
        raise TypeError(f"a HandState needs {sorted(_REQUIRED)} and takes only its fields, got {sorted(values)}")
    state = object.__new__(HandState)
    state.__dict__.update(values)
    return state


def evolve(state: HandState, **changes: Any) -> HandState:
    """``dataclasses.replace`` without its per-call introspection (states are copied once per action)."""
    if not _FIELD_NAMES.issuperset(changes):
        raise TypeError(f"HandState has no fields {sorted(set(changes) - _FIELD_NAMES)}")
    new = object.__new__(HandState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def successor(state: HandState) -> HandState:
    """A copy of ``state`` for the engine's own hot transitions to write their changes into, as ``amend_fresh``
    does (unchecked: their field names are fixed in the code)."""
    new = object.__new__(HandState)
    new.__dict__.update(state.__dict__)
    return new


def amend_fresh(state: HandState, **changes: Any) -> HandState:
    """``state`` with ``changes`` written into it: only for a state the current action's handler has just made,
    which nobody has seen yet (one object per action instead of a chain of copies)."""
    state.__dict__.update(changes)
    return state


T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Remembered(Protocol[T_co]):
    """A rule remembered for the last state asked (``last_state``)."""

    def __call__(self, state: HandState) -> tuple[T_co, ...]: ...

    def known(self, state: HandState) -> tuple[T_co, ...] | None:
        """The answer for ``state`` if it is the state last asked, else ``None`` (nothing is worked out)."""
        ...


def last_state(rule: Callable[[HandState], tuple[T, ...]]) -> Remembered[T]:
    """Remember ``rule(state)`` for the last state it was asked about. A driver asks each state more than once
    (the bot's view, then the check of the action chosen from it), and a state never changes, so identity is the
    key; the answer is a tuple, so no caller can change what the next one gets."""
    last: list[Any] = [None, ()]  # the state last asked, its answer

    @wraps(rule)
    def remembered(state: HandState) -> tuple[T, ...]:
        if last[0] is not state:
            last[1] = rule(state)
            last[0] = state
        answer: tuple[T, ...] = last[1]
        return answer

    def known(state: HandState) -> tuple[T, ...] | None:
        answer: tuple[T, ...] | None = last[1] if last[0] is state else None
        return answer

    remembered.known = known  # type: ignore[attr-defined]  # a function's attribute: calls stay plain calls
    return cast(Remembered[T], remembered)


def per_state(rule: Callable[[HandState], list[T]]) -> Callable[[HandState], list[T]]:
    """``last_state`` for a rule that answers a list: every call still returns a fresh list."""
    last: list[Any] = [None, ()]  # as in ``last_state``, one call deep: auction rules are asked once per bid

    @wraps(rule)
    def fresh(state: HandState) -> list[T]:
        if last[0] is not state:
            last[1] = tuple(rule(state))
            last[0] = state
        return list(last[1])

    return fresh
