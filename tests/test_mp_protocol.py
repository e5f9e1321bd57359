"""One mentally dealt hand between players who only exchange messages; hostile players are caught and named."""

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mp_group import SMALL_ORDER

from fairdeal.cards import DeckKind
from fairdeal.deal import deal_order, get_pattern
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.encoding import canonical_json
from fairdeal.protocols.mental_poker.elgamal import Ciphertext, card_of_point, card_point, encrypt, make_key_share
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import BASE, Point, Scalar, base_mult
from fairdeal.protocols.mental_poker.messages import discard_open_message, key_message, read_key, shuffle_message
from fairdeal.protocols.mental_poker.player import Player, play_hand
from fairdeal.protocols.mental_poker.protocol import HandState, TableSetup, verify_hand
from fairdeal.protocols.mental_poker.shuffle import prove_shuffle, random_permutation
from fairdeal.protocols.mental_poker.tamper import leaves, with_field_changed

PLAYERS = ("north", "east", "west")
SETUP = TableSetup(HandContext("club-42", 5), get_pattern("russian"), PLAYERS)
KEYS, SHUFFLES, DEALS, TALONS = range(3), range(3, 6), range(6, 9), range(9, 12)


@pytest.fixture(scope="module")
def honest():
    return play_hand(SETUP)


def rejected(messages, player, step, setup=SETUP):
    with pytest.raises(MentalPokerError) as caught:
        verify_hand(setup, messages)
    assert (caught.value.player, caught.value.step) == (player, step), str(caught.value)
    return caught.value


def test_honest_hand_deals_every_card_once_and_each_player_sees_only_own_cards(honest):
    players, messages = honest
    verdict = verify_hand(SETUP, messages)
    hands = [p.hand() for p in players]
    assert sorted(sum(hands, ()) + verdict.talon) == list(range(32))
    assert all(len(h) == 10 for h in hands) and len(verdict.talon) == 2
    # A player's own positions carry no share from that player: the others cannot open them.
    for player in players:
        for position in SETUP.hand_positions(player.name):
            assert set(player.state.shares[position]) == set(PLAYERS) - {player.name}
            with pytest.raises(MentalPokerError, match="2 of 3 shares"):
                player.state.open_position(position)


def test_cards_land_where_the_deal_pattern_says(honest):
    players, messages = honest
    state = HandState(SETUP)
    for message in messages:
        state.apply(message)
    order = [None] * 32
    for player in players:
        for position, card in zip(SETUP.hand_positions(player.name), player.hand()):
            order[position] = card
    for position, card in zip(SETUP.talon_positions, state.talon()):
        order[position] = card
    dealt = deal_order(np.array(order, dtype=np.uint8), get_pattern("russian"))
    assert [tuple(h) for h in dealt.hands] == [p.hand() for p in players]
    assert tuple(dealt.talons[0]) == state.talon()


def test_transcript_survives_canonical_json(honest):
    _, messages = honest
    reread = json.loads(canonical_json(messages))
    assert verify_hand(SETUP, reread).talon == verify_hand(SETUP, messages).talon


def test_hand_may_stop_before_the_talon_but_not_before_the_deal(honest):
    _, messages = honest
    assert verify_hand(SETUP, messages[:9]).talon is None
    rejected(messages[:7], None, "deal")


def test_hussar_two_players_two_talons():
    setup = TableSetup(HandContext("club-42", 6), get_pattern("hussar"), ("north", "east"))
    players, messages = play_hand(setup)
    verdict = verify_hand(setup, messages)
    dealt = sum((p.hand() for p in players), ()) + verdict.talon
    assert sorted(dealt) == [int(c) for c in DeckKind.HUSSAR24.codes()]


def test_table_setup_is_checked():
    with pytest.raises(MentalPokerError, match="deals to 3 players"):
        TableSetup(SETUP.context, get_pattern("russian"), ("a", "b"))
    with pytest.raises(MentalPokerError, match="distinct"):
        TableSetup(SETUP.context, get_pattern("russian"), ("a", "a", "b"))


# --- hostile players -------------------------------------------------------------------------------------------


def replace(messages, index, new):
    out = list(messages)
    out[index] = new
    return out


@pytest.mark.parametrize("data", SMALL_ORDER)
def test_small_order_or_identity_key_is_rejected(honest, data):
    _, messages = honest
    bad = dict(messages[1], public=data.hex())
    rejected(replace(messages, 1, bad), "east", "keys")


def test_rogue_key_is_rejected(honest):
    _, messages = honest
    others = read_key(messages[0]).public + read_key(messages[1]).public
    rogue = dict(messages[2], public=(base_mult(Scalar.from_int(77)) - others).hex())
    rejected(replace(messages, 2, rogue), "west", "keys")


def test_key_message_from_another_hand_or_table_is_rejected(honest):
    _, messages = honest
    for context in (HandContext("club-42", 4), HandContext("club-41", 5)):
        _, share = make_key_share(context, "west")
        rejected(replace(messages, 2, key_message(share)), "west", "keys")


def test_shuffle_message_from_another_hand_is_rejected(honest):
    _, messages = honest
    other = TableSetup(HandContext("club-42", 99), SETUP.pattern, PLAYERS)
    _, other_messages = play_hand(other, open_talon=False)
    rejected(replace(messages, 4, other_messages[4]), "east", "shuffle")


def state_before(messages, index):
    state = HandState(SETUP)
    for message in messages[:index]:
        state.apply(message, check_proofs=False)
    return state


def cheating_shuffle(messages, index, player, sources, tamper=None):
    """Replace message ``index`` by ``player``'s shuffle that takes ``sources`` and applies ``tamper``."""
    state = state_before(messages, index)
    rerand = [Scalar.random() for _ in sources]
    deck = [state.deck[s].rerandomise(state.joint_key, r) for s, r in zip(sources, rerand)]
    if tamper:
        deck = tamper(deck, state)
    proof = prove_shuffle(SETUP.context, player, state.joint_key, state.deck, tuple(deck), tuple(sources), rerand)
    return replace(messages, index, shuffle_message(player, tuple(deck), proof))


def test_shuffle_that_duplicates_a_card_is_rejected(honest):
    _, messages = honest
    sources = list(random_permutation(32))
    sources[5] = sources[6]
    rejected(cheating_shuffle(messages, 4, "east", sources), "east", "shuffle")


def test_shuffle_that_drops_a_card_is_rejected(honest):
    _, messages = honest
    bad = copy.deepcopy(messages[5])
    del bad["deck"][17]
    rejected(replace(messages, 5, bad), "west", "shuffle")


def test_shuffle_that_substitutes_a_card_is_rejected(honest):
    _, messages = honest

    def plant_ace(deck, state):
        deck[0] = encrypt(card_point(7), state.joint_key, Scalar.random())
        return deck

    rejected(cheating_shuffle(messages, 3, "north", list(random_permutation(32)), plant_ace), "north", "shuffle")


def test_shuffle_with_wrong_rerandomisation_is_rejected(honest):
    _, messages = honest

    def skew(deck, state):
        deck[9] = Ciphertext(deck[9].c1, deck[9].c2 + state.joint_key)
        return deck

    rejected(cheating_shuffle(messages, 5, "west", list(random_permutation(32)), skew), "west", "shuffle")


def test_wrong_decryption_share_is_rejected(honest):
    _, messages = honest
    bad = copy.deepcopy(messages[7])
    entry = bad["shares"][3]
    entry["share"] = (Point(bytes.fromhex(entry["share"])) + BASE).hex()
    rejected(replace(messages, 7, bad), "east", "decrypt")


def test_share_for_own_card_or_missing_share_is_rejected(honest):
    _, messages = honest
    missing = copy.deepcopy(messages[6])
    del missing["shares"][0]
    rejected(replace(messages, 6, missing), "north", "deal")
    talon_early = copy.deepcopy(messages[6])
    talon_early["shares"].append(dict(messages[9]["shares"][0]))
    rejected(replace(messages, 6, talon_early), "north", "deal")


def test_message_out_of_turn_is_rejected(honest):
    _, messages = honest
    swapped = list(messages)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    rejected(swapped, "east", "shuffle")


def test_a_listening_player_rejects_a_hostile_message_naming_the_sender(honest):
    _, messages = honest
    listener = Player(SETUP, "north")
    listener.receive(messages[0])  # north's recorded key message, as if north had sent it
    listener.receive(messages[1])
    bad = dict(messages[2], c=messages[1]["c"])
    with pytest.raises(MentalPokerError) as caught:
        listener.receive(bad)
    assert (caught.value.player, caught.value.step) == ("west", "keys")


@pytest.mark.parametrize("broken", [[], "x", {"player": 3, "step": "keys"}, {"player": "north"}])
def test_malformed_messages_are_rejected_with_a_clear_error(honest, broken):
    _, messages = honest
    with pytest.raises(MentalPokerError):
        verify_hand(SETUP, replace(messages, 0, broken))


def test_malformed_fields_name_the_sender(honest):
    _, messages = honest
    for field, value in (("public", "zz" * 32), ("public", "AB" * 32), ("c", None), ("s", "ff" * 32)):
        rejected(replace(messages, 1, dict(messages[1], **{field: value})), "east", "keys")
    bad = copy.deepcopy(messages[4])
    bad["proof"]["k"] = bad["proof"]["k"][:3]
    rejected(replace(messages, 4, bad), "east", "shuffle")


# --- random single-field mutations ---------------------------------------------------------------------------


def mutated(value, digit):
    if isinstance(value, int):
        return value + 1
    if len(value) == 64:
        position = digit % 64
        old = value[position]
        new = "0123456789abcdef"[(int(old, 16) + 1 + digit % 15) % 16]
        return value[:position] + new + value[position + 1 :]
    return value + "x"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 11), st.integers(0, 10**6), st.integers(0, 10**6))
def test_any_single_field_mutation_is_rejected(honest, index, pick, digit):
    _, messages = honest
    paths = list(leaves(messages[index]))
    changed = with_field_changed(messages, index, paths[pick % len(paths)], lambda old: mutated(old, digit))
    with pytest.raises(MentalPokerError):
        verify_hand(SETUP, changed)


def test_two_colluders_cannot_open_a_card_dealt_to_the_third(honest):
    players, _ = honest
    north, east, west = players
    for position in SETUP.hand_positions("east"):
        ciphertext = north.state.deck[position]
        colluders = ciphertext.c1 * north._secret + ciphertext.c1 * west._secret
        with pytest.raises(MentalPokerError, match="not a card"):
            card_of_point(ciphertext.c2 - colluders)
    assert len(east.hand()) == 10


def _opened_after_discard(lay_open):
    """Deal (talon opened), north commits a discard of two of his own cards and lays his hand open with
    ``lay_open(north, held, discarded)`` positions; every message checked by the others."""
    players, messages = play_hand(SETUP)
    north = players[0]
    cards = north.hand()[:2]
    message = north.discard(cards)
    for other in players[1:]:
        other.receive(message)
    held = [p for p in north._held_positions() if p not in north._discard[0]]
    opened = dict(north._shares("open", lay_open(held, list(north._discard[0]))), prev=north.state.head)
    try:  # a cheat's own copy of the hand need not accept what he sends; an honest seat's does
        north.state.apply(opened, check_proofs=False)
        for other in players[1:]:
            other.receive(opened)
    except MentalPokerError:
        pass
    return players, messages + [message, opened]


def test_a_hand_laid_open_is_the_holders_cards_and_everyone_can_read_it():
    players, messages = _opened_after_discard(lambda held, discarded: held)
    state = verify_hand(SETUP, messages, partial=True).state
    north = players[0]
    assert sorted(state.open_position(p) for p in state.laid_open["north"]) == sorted(
        north.card_at(p) for p in north._held_positions() if p not in north._discard[0]
    )


def test_laying_open_a_card_not_held_or_too_few_is_refused():
    foreign = SETUP.hand_positions("east")[0]
    _, swapped = _opened_after_discard(lambda held, discarded: held[1:] + [foreign])
    rejected(swapped, "north", "open")
    _, short = _opened_after_discard(lambda held, discarded: held[1:])
    error = rejected(short, "north", "open")
    assert "not the 10 unplayed cards of his" in str(error)


def test_a_discarded_card_laid_open_as_held_is_caught_when_the_discard_opens():
    """The discard is hidden when the hand is laid open; its opening must show none of the cards laid open."""
    players, messages = _opened_after_discard(lambda held, discarded: held[2:] + discarded)
    for player in players:
        message = player.reveal()
        for other in players:
            if other is not player:
                other.receive(message)
        messages.append(message)
    north = players[0]
    messages.append(dict(discard_open_message(north.name, *north._discard), prev=north.state.head))
    error = rejected(messages, "north", "discard-open")
    assert "were laid open as cards he held" in str(error)
