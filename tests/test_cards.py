import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairdeal.cards import (
    Card,
    DeckKind,
    Rank,
    Suit,
    check_order,
    format_cards,
    from_ascii_list,
    parse_card,
    parse_cards,
    parse_order,
    to_ascii_list,
)
from fairdeal.errors import CardError


@pytest.mark.parametrize(
    "text, suit, rank",
    [
        ("A♠", Suit.SPADES, Rank.ACE),
        ("AS", Suit.SPADES, Rank.ACE),
        ("as", Suit.SPADES, Rank.ACE),
        ("10♥", Suit.HEARTS, Rank.TEN),
        ("X♥", Suit.HEARTS, Rank.TEN),
        ("T♥", Suit.HEARTS, Rank.TEN),
        ("Т♠", Suit.SPADES, Rank.ACE),  # Cyrillic Т = туз
        ("К♥", Suit.HEARTS, Rank.KING),
        ("Д♦", Suit.DIAMONDS, Rank.QUEEN),
        ("В♣", Suit.CLUBS, Rank.JACK),
        ("Дч", Suit.HEARTS, Rank.QUEEN),
        ("7п", Suit.SPADES, Rank.SEVEN),
        ("Тт", Suit.CLUBS, Rank.ACE),
        ("9б", Suit.DIAMONDS, Rank.NINE),
        ("8C", Suit.CLUBS, Rank.EIGHT),
    ],
)
def test_parse_every_form_players_use(text, suit, rank):
    assert parse_card(text) == Card(suit, rank)


@pytest.mark.parametrize("text", ["", "A", "1S", "AZ", "11H", "ZZ", "6S", "♠A"])
def test_unreadable_cards_name_the_problem(text):
    with pytest.raises(CardError, match="cannot read card"):
        parse_card(text)


def test_deck_sizes_and_ranks():
    assert DeckKind.PIQUET32.size == 32 == len(DeckKind.PIQUET32.codes())
    assert DeckKind.HUSSAR24.size == 24 == len(DeckKind.HUSSAR24.codes())
    hussar = {Card.from_code(c).rank for c in DeckKind.HUSSAR24.codes()}
    assert min(hussar) == Rank.NINE and max(hussar) == Rank.ACE


def test_codes_compare_strength_within_a_suit():
    spades = [Card(Suit.SPADES, r).code for r in Rank]
    assert spades == sorted(spades)
    assert Card(Suit.HEARTS, Rank.SEVEN).code > Card(Suit.SPADES, Rank.ACE).code


@given(st.permutations(list(range(32))), st.sampled_from(["symbol", "ascii", "russian"]))
def test_printing_round_trips_in_every_style(codes, style):
    text = format_cards(codes, style)
    assert [c.code for c in parse_cards(text)] == codes


@given(st.permutations(list(range(32))))
def test_ascii_list_round_trips(codes):
    assert from_ascii_list(to_ascii_list(codes)).tolist() == codes


def test_order_checks_reject_short_doubled_and_foreign_decks():
    full = DeckKind.PIQUET32.codes()
    with pytest.raises(CardError, match="needs 32 cards"):
        check_order(full[:-1], DeckKind.PIQUET32)
    doubled = full.copy()
    doubled[0] = doubled[1]
    with pytest.raises(CardError, match="more than once"):
        check_order(doubled, DeckKind.PIQUET32)
    with pytest.raises(CardError, match="not in a hussar24 deck"):
        check_order(full[:24], DeckKind.HUSSAR24)


def test_parse_order_accepts_a_shuffled_deck():
    rng = np.random.default_rng(1)
    order = rng.permutation(DeckKind.HUSSAR24.codes())
    text = ", ".join(to_ascii_list(order))
    assert parse_order(text, DeckKind.HUSSAR24).tolist() == order.tolist()


def test_unknown_deck_name_lists_the_known_ones():
    with pytest.raises(CardError, match="piquet32, hussar24"):
        DeckKind.parse("tarot78")
