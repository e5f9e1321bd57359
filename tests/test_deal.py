"""Deal patterns (fairdeal.deal): the seeds' deals, inverses and seat mapping."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import DeckKind, parse_cards, to_ascii_list
from fairdeal.deal import (
    PATTERNS,
    Deal,
    active_seats,
    deal_batch,
    deal_by_seat,
    deal_from_seats,
    deal_order,
    get_pattern,
    hand_index_to_seat,
    positions_of,
    russian_pattern,
    seat_to_hand_index,
    seats_of_hands,
)
from fairdeal.errors import DealError

PATTERN_NAMES = sorted(PATTERNS)


def orders(pattern_name: str):
    deck = PATTERNS[pattern_name].deck
    return st.permutations(deck.codes().tolist()).map(lambda xs: np.array(xs, dtype=np.uint8))


def pattern_and_order():
    return st.sampled_from(PATTERN_NAMES).flatmap(lambda name: st.tuples(st.just(PATTERNS[name]), orders(name)))


def test_russian_talon_is_seventh_and_eighth_card():
    # seed 004: «Раздают по две карты, в прикуп отправляют седьмую и восьмую карты ... У каждого игрока ... по десять»
    pattern = get_pattern("russian")
    targets = pattern.targets.tolist()
    assert targets[:8] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert targets[8:14] == [0, 0, 1, 1, 2, 2]
    assert pattern.cards_per_hand == 10 and pattern.talon_size == 2
    order = DeckKind.PIQUET32.codes()
    deal = deal_order(order, pattern)
    assert deal.talons[0].tolist() == order[6:8].tolist()
    assert deal.hands[0].tolist() == order[[0, 1, 8, 9, 14, 15, 20, 21, 26, 27]].tolist()


def test_austrian_three_talon_four_three():
    # seed 003: «по три каждому игроку, две в прикуп, по четыре каждому игроку и снова по три»
    targets = get_pattern("austrian").targets.tolist()
    assert targets == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 2 + [0] * 4 + [1] * 4 + [2] * 4 + [0] * 3 + [1] * 3 + [2] * 3


def test_croatian_five_talon_five():
    # seed 003: «по пять каждому игроку, две в прикуп, снова по пять каждому игроку»
    targets = get_pattern("croatian").targets.tolist()
    assert targets == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 2 + [0] * 5 + [1] * 5 + [2] * 5


def test_hussar_two_hands_of_ten_and_two_side_talons():
    # seed 001: «Колода состоит из 24 карт ... Карты сдаются по десяти на игрока. По сторонам откладываются два прикупа»
    pattern = get_pattern("hussar")
    assert pattern.deck is DeckKind.HUSSAR24 and pattern.hands == 2 and pattern.talons == 2
    assert pattern.cards_per_hand == 10 and pattern.talon_size == 2
    targets = pattern.targets.tolist()
    assert targets[0] != 2 and targets[-1] < 2  # a talon is neither dealt first nor last (seed 000)


def test_gusarik_dummy_is_first_hand():
    # seed 003: «Карты в гусарика раздают так же, как и при игре втроём ... Болван всегда находится на первой руке.»
    pattern = get_pattern("gusarik")
    assert pattern.targets.tolist() == get_pattern("russian").targets.tolist()
    assert pattern.dummy_hand == 0 and pattern.player_hands == (1, 2)
    assert seats_of_hands(pattern, dealer=0, num_seats=2) == (None, 1, 0)


@pytest.mark.parametrize("round_", [1, 2, 3, 4])
def test_talon_after_round_r(round_):
    pattern = get_pattern(f"russian-talon-after-round-{round_}") if round_ > 1 else get_pattern("russian")
    first = 6 * round_
    assert pattern.targets.tolist()[first : first + 2] == [3, 3]


@pytest.mark.parametrize("round_", [0, 5, 9])
def test_talon_never_first_never_last(round_):
    # seed 000: «прикуп же кладется не в первую и не в последнюю очередь»
    with pytest.raises(DealError, match=r"never|1..4|не в первую"):
        russian_pattern(round_)
    with pytest.raises(DealError):
        get_pattern(f"russian-talon-after-round-{round_}")


def test_unknown_pattern_lists_known_names():
    with pytest.raises(DealError) as info:
        get_pattern("whist")
    for name in ("russian", "austrian", "croatian", "hussar", "gusarik"):
        assert name in str(info.value)


@pytest.mark.parametrize("name", PATTERN_NAMES)
def test_every_position_goes_to_exactly_one_receiver(name):
    pattern = PATTERNS[name]
    positions = np.concatenate([pattern.hand_positions.ravel(), pattern.talon_positions.ravel()])
    assert sorted(positions.tolist()) == list(range(pattern.deck.size))
    for receiver, rows in enumerate(list(pattern.hand_positions) + list(pattern.talon_positions)):
        assert (pattern.targets[rows] == receiver).all()


@settings(max_examples=150, deadline=None)
@given(pattern_and_order())
def test_positions_of_inverts_deal(case):
    pattern, order = case
    deal = deal_order(order, pattern)
    assert positions_of(deal, pattern).tolist() == order.tolist()
    dealt = np.concatenate(list(deal.hands) + list(deal.talons))
    assert sorted(dealt.tolist()) == sorted(order.tolist())


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PATTERN_NAMES), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_batch_equals_single(name, m, seed):
    pattern = PATTERNS[name]
    rng = np.random.default_rng(seed)
    batch = np.stack([rng.permutation(pattern.deck.codes()) for _ in range(m)])
    hands, talons = deal_batch(batch, pattern)
    assert hands.shape == (m, pattern.hands, pattern.cards_per_hand)
    assert talons.shape == (m, pattern.talons, pattern.talon_size)
    for row in range(m):
        single = deal_order(batch[row], pattern)
        assert [h.tolist() for h in single.hands] == hands[row].tolist()
        assert [t.tolist() for t in single.talons] == talons[row].tolist()


def test_deal_rejects_a_non_deck():
    pattern = get_pattern("russian")
    with pytest.raises(DealError, match="32 cards"):
        deal_order(np.arange(31, dtype=np.uint8), pattern)
    with pytest.raises(DealError, match=r"hussar24|not in"):
        deal_order(DeckKind.PIQUET32.codes(), get_pattern("hussar"))
    with pytest.raises(DealError, match="shape"):
        deal_batch(np.zeros((2, 24), dtype=np.uint8), pattern)


def test_positions_of_rejects_a_repeated_card():
    pattern = get_pattern("russian")
    deal = deal_order(DeckKind.PIQUET32.codes(), pattern)
    hands = list(deal.hands)
    hands[0] = hands[0].copy()
    hands[0][0] = hands[1][0]
    with pytest.raises(DealError, match="more than once"):
        positions_of(Deal(tuple(hands), deal.talons), pattern)
    with pytest.raises(DealError, match="3 hands"):
        positions_of(Deal(deal.hands[:2], deal.talons), pattern)


def test_three_players_dealer_is_third_hand():
    assert active_seats(dealer=0, num_seats=3, active_count=3) == (1, 2, 0)
    assert seat_to_hand_index(0, dealer=0, num_seats=3, active_count=3) == 2


def test_four_players_dealer_sits_out():
    # seed 000: «Сдающий в игре не участвует»
    assert active_seats(dealer=2, num_seats=4, active_count=3) == (3, 0, 1)
    assert seat_to_hand_index(2, dealer=2, num_seats=4, active_count=3) is None


def test_five_players_dealer_and_his_right_neighbour_sit_out():
    # seed 000: «когда трое разыгрывают партию, один сдает, а еще один ждет своей очереди»
    assert active_seats(dealer=0, num_seats=5, active_count=3) == (1, 2, 3)
    assert seat_to_hand_index(4, dealer=0, num_seats=5, active_count=3) is None


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1), st.integers(1, n))))
def test_seat_mapping_round_trips(case):
    num_seats, dealer, active = case
    for index in range(active):
        seat = hand_index_to_seat(index, dealer, num_seats, active)
        assert seat_to_hand_index(seat, dealer, num_seats, active) == index
    assert len(set(active_seats(dealer, num_seats, active))) == active


def test_seat_helpers_reject_bad_tables():
    with pytest.raises(DealError):
        hand_index_to_seat(0, dealer=3, num_seats=3, active_count=3)
    with pytest.raises(DealError):
        hand_index_to_seat(3, dealer=0, num_seats=3, active_count=3)
    with pytest.raises(DealError, match="tables of 2"):
        seats_of_hands(get_pattern("hussar"), 0, 3)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(PATTERN_NAMES).flatmap(
        lambda name: st.tuples(st.just(PATTERNS[name]), st.sampled_from(PATTERNS[name].table_sizes), orders(name))
    ),
    st.integers(0, 4),
)
def test_deal_by_seat_round_trips(case, dealer_choice):
    pattern, num_seats, order = case
    dealer = dealer_choice % num_seats
    deal = deal_order(order, pattern)
    by_seat = deal_by_seat(deal, pattern, dealer, num_seats)
    assert len(by_seat) == num_seats + pattern.seat_lists  # the dummy or the hand laid aside last
    back = deal_from_seats(by_seat, deal.talons, pattern, dealer, num_seats)
    assert positions_of(back, pattern).tolist() == order.tolist()


def test_dealt_cards_read_back_from_file_strings():
    order = np.array(
        [c.code for c in parse_cards("AS KS QS JS 10S 9S 8S 7S")]
        + [int(c) for c in DeckKind.PIQUET32.codes() if int(c) // 8 != 0],
        dtype=np.uint8,
    )
    deal = deal_order(order, get_pattern("russian"))
    assert to_ascii_list(deal.talons[0]) == ["8S", "7S"]
    assert to_ascii_list(deal.hands[0][:2]) == ["AS", "KS"]
