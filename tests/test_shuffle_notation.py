"""The shuffle notation: parsing, canonical printing, errors that point at the token, and the spec's vectors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_shuffle_strategies import deck_sizes, sequences_for

from fairdeal.errors import NotationError
from fairdeal.shuffle import (
    Action,
    Cut,
    Faro,
    NotationSyntaxError,
    Overhand,
    Perm,
    Pile,
    Riffle,
    Run,
    RunUnder,
    ShuffleSequence,
    Strip,
    format_notation,
    parse_notation,
)

SPEC = Path(__file__).resolve().parents[1] / "protocols" / "shuffle-notation.md"


def test_parses_every_op_kind_with_actors():
    text = "2 4↑@2 overhand 3,5 strip@Ivan 4,4 cut@C 14 riffle 2 LRLR faro in pile 3 perm 2,1,3 riffle ? cut ?"
    assert parse_notation(text) == ShuffleSequence(
        (
            Action(Run(2)),
            Action(RunUnder(4), 2),
            Action(Overhand((3, 5))),
            Action(Strip((4, 4)), "Ivan"),
            Action(Cut(14), "C"),
            Action(Riffle(2, "LRLR")),
            Action(Faro("in")),
            Action(Pile(3)),
            Action(Perm((2, 1, 3))),
            Action(Riffle(None, None)),
            Action(Cut(None)),
        )
    )


def test_messy_input_prints_canonically():
    text = "  2;4 ;CUT@c 12 ;; Overhand 3, 5 ,2\triffle 1 lrr 4^ faro OUT "
    canonical = "2 4 cut@c 12 overhand 3,5,2 riffle 1 LRR 4↑ faro out"
    assert format_notation(parse_notation(text)) == canonical
    assert format_notation(parse_notation(canonical)) == canonical


def test_empty_notation_is_the_empty_sequence():
    assert parse_notation("") == ShuffleSequence()
    assert parse_notation(" ; ") == ShuffleSequence()


def test_seat_actor_is_an_integer_and_names_are_kept():
    assert parse_notation("cut@1 9").actions[0].actor == 1
    assert parse_notation("2@Пётр").actions[0].actor == "Пётр"
    assert parse_notation("2").actions[0].actor is None


@pytest.mark.parametrize(
    "text, token, index, column, expected",
    [
        ("2 4 cut", "", 4, 8, "cut depth"),
        ("2 4 cut x", "x", 4, 9, "cut depth"),
        ("2 4 cut 0", "0", 4, 9, "positive integer"),
        ("2 shuffle 3", "shuffle", 2, 3, "an action"),
        ("riffle 3 LRLR", "LRLR", 3, 10, "exactly 3 L's"),
        ("riffle 3 LRXR", "LRXR", 3, 10, "pattern of L and R"),
        ("riffle 16", "", 3, 10, "pattern"),
        ("overhand 3,,2", "3,,2", 2, 10, "packet sizes"),
        ("strip 3,0", "3,0", 2, 7, "packet size must be a positive"),
        ("cut@ 4", "cut@", 1, 1, "an actor"),
        ("4@1x 2", "4@1x", 1, 1, "an actor"),
        ("faro up", "up", 2, 6, "'in' or 'out'"),
        ("pile two", "two", 2, 6, "number of piles"),
        ("perm 1,3", "1,3", 2, 6, "each of 1..2"),
        ("0", "0", 1, 1, "positive integer"),
        ("cut " + "9" * 5000, "9" * 5000, 2, 5, "at most 9 digits"),
        ("1" * 10, "1" * 10, 1, 1, "at most 9 digits"),
        ("perm 1," + "2" * 12, "1," + "2" * 12, 2, 6, "at most 9 digits"),
        ("2@" + "7" * 10, "2@" + "7" * 10, 1, 1, "at most 9 digits"),
    ],
)
def test_errors_point_at_the_offending_token(text, token, index, column, expected):
    with pytest.raises(NotationSyntaxError) as info:
        parse_notation(text)
    error = info.value
    assert (error.token, error.index, error.column) == (token, index, column)
    assert expected in error.expected
    assert f"token {index} at column {column}" in str(error)


def test_non_string_input_is_a_notation_error():
    with pytest.raises(NotationError):
        parse_notation(None)


@settings(max_examples=200, deadline=None)
@given(st.data(), deck_sizes)
def test_print_then_parse_round_trips(data, n):
    sequence = data.draw(sequences_for(n, with_unknown=True))
    text = format_notation(sequence)
    assert parse_notation(text) == sequence
    assert format_notation(parse_notation(text)) == text


NOTATION_ALPHABET = "0123456789 ;,@?↑^LRlrxX-_" + "cutoverhandriffleinfaropilestripperm" + "ЖÿЯ\t\n"
NOTATION_WORDS = ["cut", "overhand", "riffle", "faro", "in", "out", "pile", "strip", "perm", "?", "LRL", "3,4", "2@"]
NOTATION_NUMBERS = st.integers(0, 40).map(str) | st.integers(1, 20).map(lambda k: "9" * 400 * k)


@settings(max_examples=400, deadline=None)
@given(
    st.text()
    | st.text(alphabet=NOTATION_ALPHABET)
    | st.lists(st.sampled_from(NOTATION_WORDS) | NOTATION_NUMBERS).map(" ".join)
)
def test_garbage_gives_a_notation_error_or_a_sequence_never_another_exception(text):
    try:
        sequence = parse_notation(text)
    except NotationError:
        return
    assert parse_notation(format_notation(sequence)) == sequence


def _spec_vectors() -> list[tuple[int, str, list[int]]]:
    block = re.search(r"<!-- test-vectors:begin -->(.*?)<!-- test-vectors:end -->", SPEC.read_text(), re.S)
    assert block, "protocols/shuffle-notation.md lost its test-vector table"
    rows = []
    for line in block.group(1).strip().splitlines()[2:]:
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        rows.append((int(cells[0]), cells[1], [int(x) for x in cells[2].split()]))
    return rows


SPEC_VECTORS = _spec_vectors()


def test_spec_has_vectors_for_every_op_kind():
    texts = " ".join(text for _, text, _ in SPEC_VECTORS)
    for word in ("cut", "overhand", "riffle", "faro in", "faro out", "pile", "strip", "perm", "↑", "@"):
        assert word in texts
    assert len(SPEC_VECTORS) >= 12


@pytest.mark.parametrize("n, text, expected", SPEC_VECTORS)
def test_spec_vectors(n, text, expected):
    assert (parse_notation(text).permutation(n) + 1).tolist() == expected
