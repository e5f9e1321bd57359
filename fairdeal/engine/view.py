"""What one seat may see of a hand: its own cards and the public record, nothing else.

Bots receive only a ``PlayerView``; the hidden cards of the others (and the discard, for anyone but the declarer)
never reach them through its fields. Hands lying face up (the open lone whister's pair, the misère defenders after
the first lead) are public. ``view_for`` fills the fields on first read from the state it keeps privately, so a
view sent to another process must be rebuilt from its fields (``PlayerView(**...)``), never pickled whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from typing import TYPE_CHECKING

from fairdeal.cards import DeckKind
from fairdeal.engine.actions import Action, Phase
from fairdeal.engine.bids import ContractBid
from fairdeal.engine.hand import legal_tuple, public_facts, to_move
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.play import led_suit, trump_of
from fairdeal.engine.state import HandState, Trick

if TYPE_CHECKING:
    from fairdeal.rules.convention import Convention


@dataclass(frozen=True)
class PlayerView:
    seat: int
    num_seats: int
    dealer: int
    active: tuple[int, ...]
    raspasy_streak: int
    phase: Phase
    to_move: int | None
    hand: tuple[int, ...]
    open_hands: tuple[tuple[int, tuple[int, ...]], ...]  # (seat, cards) of hands lying face up
    auction: tuple[tuple[int, str], ...]
    high: ContractBid | None
    high_seat: int | None
    declarer: int | None
    talon_seen: tuple[int, ...]  # the shown talon, or the raspasy talon cards turned so far
    discard: tuple[int, ...]  # only the declarer knows his discard
    contract: ContractBid | None
    kind: HandKind | None
    defence: tuple[tuple[int, DefenceCall], ...]
    defence_open: bool
    tricks: tuple[Trick, ...]
    current: tuple[tuple[int, int], ...]
    current_talon_card: int | None
    led_suit: int | None
    trump: int | None
    won: tuple[int, ...]
    legal: tuple[Action, ...]  # the actions open to this seat now (empty when it is not to act)
    convention: Convention
    trick_seats: tuple[int, ...] = ()  # seats playing to the tricks (the dummy too; not in Gusarik's raspasy)
    deck: frozenset[int] = frozenset(range(32))  # the codes of the deck in play
    facts: tuple[tuple[str, object], ...] = ()  # the outcome facts announced to all (dark, kontra, no aces)
    invited: bool = False  # the lone whister plays with help: the passer's cards, his talon (Hussar), the passer

    def hand_of(self, seat: int) -> tuple[int, ...] | None:
        """Cards this seat can see for ``seat``: its own, or a hand lying face up; ``None`` when hidden."""
        if seat == self.seat:
            return self.hand
        return dict(self.open_hands).get(seat)

    @property
    def played(self) -> frozenset[int]:
        cards = {c for t in self.tricks for _, c in t.plays} | {c for _, c in self.current}
        return frozenset(cards)


def view_for(state: HandState, seat: int) -> PlayerView:
    """What ``seat`` sees of ``state``. Each field is worked out the first time it is read (a random bot reads only
    ``legal``), so a view costs what its bot looks at."""
    view = object.__new__(_SeenView)  # a view is made for every decision: no ``__init__`` call
    kept = view.__dict__
    kept["_state"] = state
    kept["seat"] = seat
    return view


def actor_view(state: HandState, seat: int) -> PlayerView:
    """``view_for`` the seat ``to_move(state)`` names, as a driver that has just asked it makes: the view's
    ``to_move`` is that seat, not worked out again, and its ``legal`` (which every bot reads) is filled at once."""
    view = object.__new__(_SeenView)
    kept = view.__dict__
    kept["_state"] = state
    kept["seat"] = kept["to_move"] = seat
    kept["legal"] = legal_tuple(state)
    return view


# How ``seat`` sees each field of ``state``: the view's definition, one line per field.
_SEEN: dict[str, Callable[[HandState, int], object]] = {
    "num_seats": lambda state, seat: state.num_seats,
    "dealer": lambda state, seat: state.dealer,
    "active": lambda state, seat: state.active,
    "raspasy_streak": lambda state, seat: state.raspasy_streak,
    "phase": lambda state, seat: state.phase,
    "to_move": lambda state, seat: to_move(state),
    "hand": lambda state, seat: state.hands[seat],
    "open_hands": lambda state, seat: tuple((s, state.hands[s]) for s in sorted(state.open_seats) if s != seat),
    "auction": lambda state, seat: state.auction,
    "high": lambda state, seat: state.high,
    "high_seat": lambda state, seat: state.high_seat,
    "declarer": lambda state, seat: state.declarer,
    "talon_seen": lambda state, seat: _talon_seen(state),
    "discard": lambda state, seat: state.discard if seat == state.declarer else (),
    "contract": lambda state, seat: state.contract,
    "kind": lambda state, seat: state.kind,
    "defence": lambda state, seat: state.defence,
    "defence_open": lambda state, seat: state.defence_open,
    "tricks": lambda state, seat: state.tricks,
    "current": lambda state, seat: state.current,
    "current_talon_card": lambda state, seat: state.current_talon_card if state.phase is Phase.PLAY else None,
    "led_suit": lambda state, seat: led_suit(state) if state.phase is Phase.PLAY else None,
    "trump": lambda state, seat: trump_of(state),
    "won": lambda state, seat: state.won,
    "legal": lambda state, seat: _legal(state, seat),
    "convention": lambda state, seat: state.convention,
    "trick_seats": lambda state, seat: state.trick_seats,
    "deck": lambda state, seat: _deck(state),
    "facts": lambda state, seat: public_facts(state),
    "invited": lambda state, seat: state.defence_open or state.extra.whister_invited(),
}


class _Seen:
    """A field of ``_SeenView``, worked out on first read and then kept in the view (a non-data descriptor: the
    kept value shadows it)."""

    def __init__(self, name: str, see: Callable[[HandState, int], object]):
        self.name = name
        self.see = see

    def __get__(self, view: PlayerView | None, owner: type[PlayerView] | None = None) -> object:
        if view is None:
            return self
        value = view.__dict__[self.name] = self.see(view.__dict__["_state"], view.seat)
        return value


class _SeenLegal(_Seen):
    """``legal``, the one field every bot reads, without the indirection of a ``_SEEN`` entry."""

    def __get__(self, view: PlayerView | None, owner: type[PlayerView] | None = None) -> object:
        if view is None:
            return self
        kept = view.__dict__
        state = kept["_state"]
        actor = kept["to_move"] if "to_move" in kept else to_move(state)
        value = kept["legal"] = legal_tuple(state) if actor == kept["seat"] else ()
        return value


class _SeenView(PlayerView):
    """The ``PlayerView`` that ``view_for`` makes: the same fields, read from the hand's state on demand. The state
    stays inside; what a bot gets from the view is only what ``_SEEN`` lets ``seat`` see. Only ``view_for`` makes
    one (it fills ``_state`` and ``seat``; the dataclass's ``__init__`` is not used)."""


def _legal(state: HandState, seat: int) -> tuple[Action, ...]:
    return legal_tuple(state) if to_move(state) == seat else ()


def _install_fields() -> None:
    if set(_SEEN) | {"seat"} != {f.name for f in fields(PlayerView)}:
        raise TypeError("view._SEEN must say how a seat sees every PlayerView field")
    for name, see in _SEEN.items():
        setattr(_SeenView, name, (_SeenLegal if name == "legal" else _Seen)(name, see))


_install_fields()


def _deck(state: HandState) -> frozenset[int]:
    return deck_codes(state.convention.table.deck)


@cache
def deck_codes(name: str) -> frozenset[int]:
    return frozenset(DeckKind.parse(name).int_codes())


def _talon_seen(state: HandState) -> tuple[int, ...]:
    if state.talon_shown:
        return state.dealt_talons[state.talon_bought] if state.talon_bought is not None else state.dealt_talon
    turned = [t.talon_card for t in state.tricks if t.talon_card is not None]
    if state.phase is Phase.PLAY and state.current_talon_card is not None:
        turned.append(state.current_talon_card)
    return tuple(turned)
