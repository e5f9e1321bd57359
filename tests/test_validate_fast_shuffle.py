"""The validator's fast acceptance of plain shuffles agrees with the full notation parser (property test)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.errors import NotationError, ShuffleError
from fairdeal.log.validate import plainly_valid_shuffle
from fairdeal.shuffle.notation import parse_notation

TOKENS = st.sampled_from(
    [
        "2",
        "4",
        "7",
        "0",
        "32",
        "33",
        "cut",
        "cut@1",
        "cut@3",
        "2@0",
        "5@2",
        "5@9",
        "12",
        "31",
        "Cut",
        "cut@x",
        "riffle",
        "LR",
        "?",
        "3,4",
        ";",
        "",
        "  ",
        "07",
        "2↑",
        "\t",
    ]
)


def full_check(text: str, seats: int, n: int) -> bool:
    try:
        sequence = parse_notation(text)
    except (NotationError, ShuffleError):
        return False
    for action in sequence.actions:
        if isinstance(action.actor, int) and action.actor >= seats:
            return False
        if action.op.is_known:
            try:
                action.op.permutation(n)
            except ShuffleError:
                return False
    return True


@settings(max_examples=600, deadline=None)
@given(st.lists(TOKENS, max_size=8), st.sampled_from([" ", "  "]), st.integers(2, 5), st.sampled_from([24, 32]))
def test_fast_acceptance_implies_the_full_parser_accepts(tokens, gap, seats, n):
    text = gap.join(tokens)
    if plainly_valid_shuffle(text, seats, n):
        assert full_check(text, seats, n), text


def test_the_common_shuffles_are_accepted_fast():
    assert plainly_valid_shuffle("3 11 6 2 7 cut@0 16", 3, 32)
    assert plainly_valid_shuffle("2 4 cut 12", 3, 32)
    assert not plainly_valid_shuffle("2 4 cut@5 12", 3, 32)  # the full parser words it
    assert not plainly_valid_shuffle("riffle 16 LRLR", 3, 32)
