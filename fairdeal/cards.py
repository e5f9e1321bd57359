"""Cards, suits, ranks and decks; parsing and printing in the forms players and files use.

A card is a small integer code ``suit * 8 + rank`` (0..31), so a deck order is a numpy ``uint8`` array.
Suits are numbered in the Russian bidding order (spades lowest, hearts highest) and ranks from the
seven up to the ace, so comparing codes of one suit compares card strength.

numpy is imported by the functions that make or read arrays, not by this module: the engine's replay of a game
record runs without numpy in the offline verifier page (Pyodide, the standard library only), and reads cards as
tuples of ints (``codes_from_ascii``, ``DeckKind.int_codes``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, overload

from fairdeal.errors import CardError

if TYPE_CHECKING:
    import numpy as np


class Suit(enum.IntEnum):
    """Suits in the Russian bidding order: ♠ < ♣ < ♦ < ♥ (seeds 000, 002)."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def symbol(self) -> str:
        return "♠♣♦♥"[self]

    @property
    def letter(self) -> str:
        return "SCDH"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


class Rank(enum.IntEnum):
    """Ranks from the seven up: 7 8 9 10 J Q K A."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def label(self) -> str:
        return ("7", "8", "9", "10", "J", "Q", "K", "A")[self]

    @property
    def russian(self) -> str:
        return ("7", "8", "9", "10", "В", "Д", "К", "Т")[self]


CARDS_PER_SUIT = len(Rank)
NUM_CODES = len(Suit) * CARDS_PER_SUIT


@dataclass(frozen=True, order=True)
class Card:
    """One playing card; ``code`` is its integer form."""

    suit: Suit
    rank: Rank

    @property
    def code(self) -> int:
        return int(self.suit) * CARDS_PER_SUIT + int(self.rank)

    @staticmethod
    def from_code(code: int) -> Card:
        if not 0 <= int(code) < NUM_CODES:
            raise CardError(f"card code {code} is outside 0..{NUM_CODES - 1}")
        return _CARDS[int(code)]

    @property
    def ascii(self) -> str:
        """File form: ``AS``, ``10H``."""
        return self.rank.label + self.suit.letter

    def __str__(self) -> str:
        return self.rank.label + self.suit.symbol

    def __repr__(self) -> str:
        return f"Card({self.ascii})"


_CARDS: tuple[Card, ...] = tuple(Card(s, r) for s in Suit for r in Rank)


def code_of(suit: Suit, rank: Rank) -> int:
    return int(suit) * CARDS_PER_SUIT + int(rank)


@overload
def suit_of(code: int) -> int: ...
@overload
def suit_of(code: np.ndarray) -> np.ndarray: ...
def suit_of(code: int | np.ndarray) -> int | np.ndarray:
    return code // CARDS_PER_SUIT


@overload
def rank_of(code: int) -> int: ...
@overload
def rank_of(code: np.ndarray) -> np.ndarray: ...
def rank_of(code: int | np.ndarray) -> int | np.ndarray:
    return code % CARDS_PER_SUIT


class DeckKind(enum.Enum):
    """The two decks of the seeds: the piquet 32 (A..7) and the Hussar 24 (A..9, seed 001)."""

    PIQUET32 = "piquet32"
    HUSSAR24 = "hussar24"

    @property
    def lowest_rank(self) -> Rank:
        return Rank.SEVEN if self is DeckKind.PIQUET32 else Rank.NINE

    @property
    def size(self) -> int:
        return len(Suit) * (len(Rank) - int(self.lowest_rank))

    def codes(self) -> np.ndarray:
        """The deck's cards in code order (♠7..♠A, ♣7..♣A, ♦.., ♥..) as ``uint8``."""
        return _deck_codes(self).copy()

    def int_codes(self) -> tuple[int, ...]:
        """The deck's cards in code order as ints."""
        return _deck_int_codes(self)

    def contains(self, code: int) -> bool:
        return 0 <= code < NUM_CODES and rank_of(code) >= int(self.lowest_rank)

    @staticmethod
    def parse(name: str) -> DeckKind:
        try:
            return DeckKind(name.strip().lower())
        except ValueError:
            known = ", ".join(k.value for k in DeckKind)
            raise CardError(f"unknown deck {name!r}; known decks: {known}") from None


_RANK_TOKENS: dict[str, Rank] = {
    "A": Rank.ACE,
    "K": Rank.KING,
    "Q": Rank.QUEEN,
    "J": Rank.JACK,
    "10": Rank.TEN,
    "X": Rank.TEN,
    "T": Rank.TEN,
    "9": Rank.NINE,
    "8": Rank.EIGHT,
    "7": Rank.SEVEN,
    "Т": Rank.ACE,
    "К": Rank.KING,
    "Д": Rank.QUEEN,
    "В": Rank.JACK,
}

_SUIT_TOKENS: dict[str, Suit] = {
    "♠": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♤": Suit.SPADES,
    "♧": Suit.CLUBS,
    "♢": Suit.DIAMONDS,
    "♡": Suit.HEARTS,
    "S": Suit.SPADES,
    "C": Suit.CLUBS,
    "D": Suit.DIAMONDS,
    "H": Suit.HEARTS,
    # Russian suit initials: пики, трефы, бубны, черви.
    "П": Suit.SPADES,
    "Т": Suit.CLUBS,
    "Б": Suit.DIAMONDS,
    "Ч": Suit.HEARTS,
}


def parse_card(text: str) -> Card:
    """Parse one card: ``A♠``, ``AS``, ``as``, ``10♥``, ``X♥``, ``T♥``, ``Т♠`` (туз), ``Дч`` (дама червей)."""
    token = text.strip()
    if len(token) < 2:
        raise CardError(f"cannot read card {text!r}: expected a rank then a suit, e.g. AS, 10♥, Т♠")
    rank_part, suit_part = token[:-1].upper(), token[-1].upper()
    rank = _RANK_TOKENS.get(rank_part)
    suit = _SUIT_TOKENS.get(suit_part)
    if rank is None:
        raise CardError(f"cannot read card {text!r}: unknown rank {token[:-1]!r} (A K Q J 10/X/T 9 8 7, Т К Д В)")
    if suit is None:
        raise CardError(f"cannot read card {text!r}: unknown suit {token[-1]!r} (♠♣♦♥, S C D H, П Т Б Ч)")
    return Card(suit, rank)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, or an iterable of card strings."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def parse_order(text: str | Iterable[str], deck: DeckKind) -> np.ndarray:
    """Parse a whole deck order; it must hold every card of ``deck`` exactly once."""
    import numpy as np

    codes = np.array([c.code for c in parse_cards(text)], dtype=np.uint8)
    check_order(codes, deck)
    return codes


def check_order(codes: np.ndarray, deck: DeckKind) -> None:
    """Raise ``CardError`` unless ``codes`` is a permutation of ``deck``."""
    import numpy as np

    if len(codes) != deck.size:
        raise CardError(f"a {deck.value} order needs {deck.size} cards, got {len(codes)}")
    seen = np.bincount(codes.astype(np.int64), minlength=NUM_CODES)
    if seen.tobytes() == _deck_counts(deck):  # every card of the deck once: nothing to report
        return
    foreign = [Card.from_code(int(c)).ascii for c in np.unique(codes) if not deck.contains(int(c))]
    if foreign:
        raise CardError(f"not in a {deck.value} deck: {' '.join(foreign)}")
    doubled = [Card.from_code(int(c)).ascii for c in np.flatnonzero(seen > 1)]
    if doubled:
        raise CardError(f"cards appear more than once: {' '.join(doubled)}")


@cache
def _deck_int_codes(deck: DeckKind) -> tuple[int, ...]:
    return tuple(code_of(s, r) for s in Suit for r in Rank if r >= deck.lowest_rank)


@cache
def _deck_codes(deck: DeckKind) -> np.ndarray:
    import numpy as np

    codes = np.array(_deck_int_codes(deck), dtype=np.uint8)
    codes.setflags(write=False)
    return codes


@cache
def _deck_counts(deck: DeckKind) -> bytes:
    """How many times each code occurs in the deck (one or none), as ``check_order``'s count array's bytes."""
    import numpy as np

    return np.bincount(_deck_codes(deck).astype(np.int64), minlength=NUM_CODES).tobytes()


def format_cards(codes: Sequence[int] | np.ndarray, style: str = "symbol") -> str:
    """Print codes as ``A♠ 10♥`` (``symbol``), ``AS 10H`` (``ascii``) or ``Т♠ 10♥`` (``russian``)."""
    cards = [Card.from_code(int(c)) for c in codes]
    if style == "ascii":
        return " ".join(c.ascii for c in cards)
    if style == "russian":
        return " ".join(c.rank.russian + c.suit.symbol for c in cards)
    if style == "symbol":
        return " ".join(str(c) for c in cards)
    raise CardError(f"unknown card style {style!r}: use symbol, ascii or russian")


def to_ascii_list(codes: Sequence[int] | np.ndarray) -> list[str]:
    """Cards as file strings (``["AS", "10H"]``), the form the log and ``--json`` use."""
    items = codes.tolist() if hasattr(codes, "tolist") else codes  # an array's codes as ints, all at once
    try:
        # A card's name by its code (the verifier names four decks' worth of cards a hand); anything that is
        # not a card's code misses and takes the path that names the problem.
        return [_ASCII_BY_CODE[c] for c in items]
    except (KeyError, TypeError):
        return [Card.from_code(int(c)).ascii for c in codes]


_ASCII_BY_CODE: dict[int, str] = {card.code: card.ascii for card in _CARDS}


def from_ascii_list(items: Iterable[str]) -> np.ndarray:
    import numpy as np

    return np.array(codes_from_ascii(items), dtype=np.uint8)


def codes_from_ascii(items: Iterable[str]) -> tuple[int, ...]:
    """The codes of cards in file form, as ``from_ascii_list`` without the array."""
    return tuple(parse_card(s).code for s in items)
