"""The proven shuffle (Terelius–Wikström, protocols/mental-poker.md §5): complete, and cheating is rejected."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_mp_group import SMALL_ORDER

from fairdeal.cards import DeckKind
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.elgamal import Ciphertext, card_point, decrypt, encrypt, open_deck
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import BASE, MULTS, Point, Scalar, base_mult, hash_to_point
from fairdeal.protocols.mental_poker.shuffle import (
    Combination,
    ShuffleClaim,
    ShuffleProof,
    prove_shuffle,
    random_permutation,
    shuffle_deck,
    verify_shuffle,
    verify_shuffles,
)

CTX = HandContext("table-9", 3)
SECRETS = [Scalar.from_int(k) for k in (101, 202, 303)]
JOINT = base_mult(Scalar.from_int(606))
DECK = open_deck(DeckKind.PIQUET32, JOINT)


def codes(deck):
    return [decrypt(ct, [ct.c1 * x for x in SECRETS]) for ct in deck]


@pytest.fixture(scope="module")
def honest():
    permutation = random_permutation(32)
    out, proof = shuffle_deck(CTX, "east", JOINT, DECK, permutation)
    return permutation, out, proof


def test_honest_shuffle_verifies_and_permutes_the_cards(honest):
    permutation, out, proof = honest
    verify_shuffle(CTX, "east", JOINT, DECK, out, proof)
    assert codes(out) == list(permutation)
    assert all(a.c1 != b.c1 for a, b in zip(out, DECK))  # every card re-randomised


def test_successive_shuffles_of_a_small_deck_compose():
    deck = DECK[:5]
    first, p1 = shuffle_deck(CTX, "north", JOINT, deck, (4, 3, 2, 1, 0))
    second, p2 = shuffle_deck(CTX, "east", JOINT, first, (1, 2, 3, 4, 0))
    verify_shuffle(CTX, "north", JOINT, deck, first, p1)
    verify_shuffle(CTX, "east", JOINT, first, second, p2)
    assert codes(second) == [3, 2, 1, 0, 4]


@settings(max_examples=8, deadline=None)
@given(st.permutations(range(6)))
def test_any_permutation_proves(permutation):
    out, proof = shuffle_deck(CTX, "west", JOINT, DECK[:6], permutation)
    verify_shuffle(CTX, "west", JOINT, DECK[:6], out, proof)
    assert codes(out) == list(permutation)


def test_not_a_permutation_is_refused_before_proving():
    with pytest.raises(MentalPokerError, match="not a permutation"):
        shuffle_deck(CTX, "west", JOINT, DECK[:4], (0, 0, 1, 2))


def cheat(sources, rerand, tamper=None):
    """A cheating prover: runs the prover on outputs that are not an honest shuffle of DECK[:8]."""
    deck = DECK[:8]
    out = [deck[s].rerandomise(JOINT, r) for s, r in zip(sources, rerand)]
    if tamper:
        out = tamper(out)
    out = tuple(out)
    return deck, out, prove_shuffle(CTX, "west", JOINT, deck, out, tuple(sources), list(rerand))


def assert_rejected(deck, out, proof, player="west"):
    with pytest.raises(MentalPokerError) as caught:
        verify_shuffle(CTX, player, JOINT, deck, out, proof)
    assert (caught.value.player, caught.value.step) == (player, "shuffle")


RERAND = [Scalar.from_int(1000 + i) for i in range(8)]


def test_duplicated_card_is_rejected():
    assert_rejected(*cheat([0, 1, 2, 3, 4, 5, 6, 6], RERAND))  # card 7 dropped, card 6 twice


def test_substituted_card_is_rejected():
    def substitute(out):
        out[3] = encrypt(card_point(30), JOINT, RERAND[3] + Scalar.from_int(1))
        return out

    assert_rejected(*cheat(list(range(8)), RERAND, substitute))


def test_substituted_card_that_reuses_a_foreign_ciphertext_is_rejected():
    def substitute(out):
        out[3] = DECK[20].rerandomise(JOINT, RERAND[3])
        return out

    assert_rejected(*cheat(list(range(8)), RERAND, substitute))


def test_wrong_rerandomisation_is_rejected():
    def skew(out):
        out[5] = Ciphertext(out[5].c1, out[5].c2 + JOINT)  # c2 re-randomised with s+1, c1 with s
        return out

    assert_rejected(*cheat([7, 6, 5, 4, 3, 2, 1, 0], RERAND, skew))


def test_dropped_card_is_rejected(honest):
    _, out, proof = honest
    assert_rejected(DECK, out[:31], proof, player="east")


def test_invalid_points_in_output_are_rejected(honest):
    _, out, proof = honest
    for data in SMALL_ORDER:
        bad = list(out)
        bad[9] = Ciphertext(Point(data), out[9].c2)
        assert_rejected(DECK, tuple(bad), proof, player="east")


def test_proof_for_another_player_hand_table_or_deck_is_rejected(honest):
    _, out, proof = honest
    assert_rejected(DECK, out, proof, player="north")
    for context in (HandContext("table-9", 4), HandContext("table-8", 3)):
        with pytest.raises(MentalPokerError):
            verify_shuffle(context, "east", JOINT, DECK, out, proof)
    other_input = open_deck(DeckKind.PIQUET32, JOINT + BASE)
    assert_rejected(other_input, out, proof, player="east")


def mutate(proof: ShuffleProof, field: str, index: int) -> ShuffleProof:
    value = getattr(proof, field)
    if isinstance(value, Scalar):
        return dataclasses.replace(proof, **{field: value + Scalar.from_int(1)})
    items = list(value)
    item = items[index % len(items)]
    items[index % len(items)] = item + (Scalar.from_int(1) if isinstance(item, Scalar) else BASE)
    return dataclasses.replace(proof, **{field: tuple(items)})


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["commitments", "chain", "t", "t_chain", "responses", "chain_responses", "opening_responses"]),
    st.integers(0, 63),
)
def test_any_single_field_mutation_of_an_honest_proof_is_rejected(honest, field, index):
    _, out, proof = honest
    assert_rejected(DECK, out, mutate(proof, field, index), player="east")


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 31), st.booleans())
def test_any_single_ciphertext_mutation_is_rejected(honest, index, first):
    _, out, proof = honest
    bad = list(out)
    c1, c2 = bad[index].c1, bad[index].c2
    bad[index] = Ciphertext(c1 + BASE, c2) if first else Ciphertext(c1, c2 + BASE)
    assert_rejected(DECK, tuple(bad), proof, player="east")


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 2**64)), min_size=1, max_size=8))
def test_a_combination_gathers_terms_by_point_and_sums_them(terms):
    points = [hash_to_point(f"test/combination/{k}") for k in range(4)]
    combination = Combination()
    expected = None
    for which, value in terms:
        combination.add(Scalar.from_int(value), points[which])
        product = points[which] * Scalar.from_int(value)
        expected = product if expected is None else expected + product
    assert len(combination.terms) == len({which for which, _ in terms})
    assert combination.is_identity() == expected.is_identity
    for which, value in terms:
        combination.add(-Scalar.from_int(value), points[which])
    assert combination.is_identity()


def test_a_batch_of_shuffles_verifies_and_a_bad_one_in_it_is_named():
    first, p1 = shuffle_deck(CTX, "north", JOINT, DECK)
    second, p2 = shuffle_deck(CTX, "east", JOINT, first)
    third, p3 = shuffle_deck(CTX, "west", JOINT, second)
    claims = [
        ShuffleClaim("north", DECK, first, p1),
        ShuffleClaim("east", first, second, p2),
        ShuffleClaim("west", second, third, p3),
    ]
    MULTS.reset()
    verify_shuffles(CTX, JOINT, claims)
    distinct = MULTS.msm_points if MULTS.msm_calls else MULTS.variable + MULTS.fixed_base
    # G, H, Y, the H_j, the starting deck's c2, and per proof 2N deck and 3N + 5 proof points: each taken once.
    assert distinct == 17 * 32 + 18
    forged = list(second)
    forged[4], forged[5] = forged[5], Ciphertext(forged[5].c1, forged[5].c2 + BASE)
    bad = [claims[0], ShuffleClaim("east", first, tuple(forged), p2), ShuffleClaim("west", tuple(forged), third, p3)]
    with pytest.raises(MentalPokerError) as caught:
        verify_shuffles(CTX, JOINT, bad)
    assert (caught.value.player, caught.value.step) == ("east", "shuffle")
