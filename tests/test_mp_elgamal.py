"""Key shares with proofs of possession, ElGamal over the joint key, decryption shares with Chaum-Pedersen proofs."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_mp_group import SMALL_ORDER

from fairdeal.cards import DeckKind, parse_card
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.elgamal import (
    KeyShare,
    card_of_point,
    card_point,
    decrypt,
    encrypt,
    joint_key,
    make_decryption_shares,
    make_key_share,
    open_deck,
    verify_decryption_shares,
)
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import BASE, ONE, ORDER, Point, Scalar, base_mult
from fairdeal.protocols.mental_poker.proofs import prove_possession

CTX = HandContext("table-1", 7)
PLAYERS = ("north", "east", "west")


@pytest.fixture(scope="module")
def table():
    keys = {p: make_key_share(CTX, p) for p in PLAYERS}
    return keys, joint_key(CTX, [share for _, share in keys.values()])


def test_card_points_are_32_distinct_valid_points_and_invert():
    points = {card_point(code).data for code in range(32)}
    assert len(points) == 32
    assert card_of_point(card_point(parse_card("10H").code)) == parse_card("10H").code
    with pytest.raises(MentalPokerError, match="not a card"):
        card_of_point(BASE)


def test_joint_key_is_the_sum_of_shares(table):
    keys, joint = table
    total = sum((int(x) for x, _ in keys.values())) % ORDER
    assert joint == base_mult(Scalar.from_int(total))


def test_rogue_key_is_refused_and_the_rogue_named(table):
    keys, _ = table
    # West announces x*G - (north + east) so that the joint key would be x*G, known to west alone.
    others = keys["north"][1].public + keys["east"][1].public
    rogue_public = base_mult(Scalar.from_int(12345)) - others
    honest_proof = keys["west"][1].proof
    rogue = KeyShare("west", rogue_public, honest_proof)
    with pytest.raises(MentalPokerError) as caught:
        joint_key(CTX, [keys["north"][1], keys["east"][1], rogue])
    assert (caught.value.player, caught.value.step) == ("west", "keys")


def test_key_proof_from_another_hand_or_table_or_player_is_refused(table):
    keys, _ = table
    share = keys["east"][1]
    for context in (HandContext("table-1", 8), HandContext("table-2", 7)):
        with pytest.raises(MentalPokerError) as caught:
            joint_key(context, [share])
        assert caught.value.player == "east"
    with pytest.raises(MentalPokerError) as caught:
        joint_key(CTX, [KeyShare("north", share.public, share.proof)])
    assert caught.value.player == "north"


def test_duplicate_and_invalid_key_shares_are_refused(table):
    keys, _ = table
    with pytest.raises(MentalPokerError, match="second key share"):
        joint_key(CTX, [keys["east"][1], keys["east"][1]])
    bad_point = dataclasses.replace(keys["east"][1], public=base_mult(Scalar.from_int(0)))
    with pytest.raises(MentalPokerError) as caught:
        joint_key(CTX, [bad_point])
    assert caught.value.player == "east"


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 31), st.integers(1, ORDER - 1), st.integers(1, ORDER - 1))
def test_encrypt_rerandomise_decrypt_roundtrip(code, r, s):
    secrets = [Scalar.from_int(k) for k in (11, 22, 33)]
    joint = base_mult(Scalar.from_int(66))
    ciphertext = encrypt(card_point(code), joint, Scalar.from_int(r)).rerandomise(joint, Scalar.from_int(s))
    assert decrypt(ciphertext, [ciphertext.c1 * x for x in secrets]) == code


def test_open_deck_is_public_and_decrypts_in_code_order(table):
    keys, joint = table
    deck = open_deck(DeckKind.PIQUET32, joint)
    assert deck == open_deck(DeckKind.PIQUET32, joint)
    codes = [decrypt(ct, [ct.c1 * x for x, _ in keys.values()]) for ct in deck]
    assert codes == list(range(32))
    assert len(open_deck(DeckKind.HUSSAR24, joint)) == 24


def _deck(joint, cards=(5, 9, 12)):
    return [encrypt(card_point(code), joint, Scalar.random()) for code in cards]


def test_decryption_shares_verify_and_open_the_cards(table):
    keys, joint = table
    deck = _deck(joint)
    by_player = []
    for player, (secret, share) in keys.items():
        shares = make_decryption_shares(CTX, player, secret, share.public, deck, (2, 0))
        verify_decryption_shares(CTX, share, deck, shares)
        assert shares.positions == (2, 0) and shares.shares == (deck[2].c1 * secret, deck[0].c1 * secret)
        by_player.append(shares.shares)
    assert [decrypt(deck[p], [s[i] for s in by_player]) for i, p in enumerate((2, 0))] == [12, 5]


def test_one_proof_covers_every_share_and_any_wrong_one_is_refused_and_named(table):
    keys, joint = table
    deck = _deck(joint)
    secret, share = keys["east"]
    good = make_decryption_shares(CTX, "east", secret, share.public, deck, (0, 1, 2))
    wrong_value = dataclasses.replace(good, shares=(good.shares[0], good.shares[1] + BASE, good.shares[2]))
    swapped = dataclasses.replace(good, shares=(good.shares[1], good.shares[0], good.shares[2]))
    other_key = make_decryption_shares(CTX, "east", Scalar.random(), share.public, deck, (0, 1, 2))
    other_positions = dataclasses.replace(
        make_decryption_shares(CTX, "east", secret, share.public, deck, (0, 1, 2)), positions=(1, 0, 2)
    )
    replayed = make_decryption_shares(HandContext("table-1", 6), "east", secret, share.public, deck, (0, 1, 2))
    forged = dataclasses.replace(good, proof=dataclasses.replace(good.proof, response=good.proof.response + ONE))
    moved_commitment = dataclasses.replace(good, proof=dataclasses.replace(good.proof, a=good.proof.a + BASE))
    for bad in (wrong_value, swapped, other_key, other_positions, replayed, forged, moved_commitment):
        with pytest.raises(MentalPokerError) as caught:
            verify_decryption_shares(CTX, share, deck, bad)
        assert (caught.value.player, caught.value.step) == ("east", "decrypt")


def test_shares_offered_as_another_players_are_refused(table):
    keys, joint = table
    deck = _deck(joint)
    secret, share = keys["east"]
    shares = make_decryption_shares(CTX, "east", secret, share.public, deck, (1,))
    with pytest.raises(MentalPokerError, match="offered as west"):
        verify_decryption_shares(CTX, keys["west"][1], deck, shares, step="play")


def test_no_positions_need_no_proof(table):
    keys, joint = table
    secret, share = keys["north"]
    empty = make_decryption_shares(CTX, "north", secret, share.public, _deck(joint), ())
    assert (empty.shares, empty.proof) == ((), None)
    verify_decryption_shares(CTX, share, _deck(joint), empty)


def test_small_order_key_share_and_decryption_share_are_refused(table):
    keys, joint = table
    for data in SMALL_ORDER:
        with pytest.raises(MentalPokerError) as caught:
            joint_key(CTX, [dataclasses.replace(keys["west"][1], public=Point(data))])
        assert (caught.value.player, caught.value.step) == ("west", "keys")
    deck = _deck(joint)
    secret, share = keys["west"]
    good = make_decryption_shares(CTX, "west", secret, share.public, deck, (1,))
    for data in SMALL_ORDER:
        with pytest.raises(MentalPokerError, match="decryption share"):
            verify_decryption_shares(CTX, share, deck, dataclasses.replace(good, shares=(Point(data),)))
        with pytest.raises(MentalPokerError, match="proof commitment"):
            verify_decryption_shares(
                CTX, share, deck, dataclasses.replace(good, proof=dataclasses.replace(good.proof, b=Point(data)))
            )


def test_key_shares_that_cancel_are_refused():
    secret, first = make_key_share(CTX, "north")
    _, _second = make_key_share(CTX, "east")
    # Only a player who knows the other's secret could do this; the joint key must still never be the identity.
    negated = -secret
    cancelling = KeyShare("east", base_mult(negated), prove_possession(CTX, "east", negated, base_mult(negated)))
    with pytest.raises(MentalPokerError, match="cancel") as caught:
        joint_key(CTX, [first, cancelling])
    assert caught.value.player == "east"
