"""`fairdeal solve`: the line format, its errors (line and field), and a fuzz test of the parser."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.solver.problems import ProblemError, answer, parse_problem

GOOD = {
    "hands": {"0": ["AS", "KS", "7H"], "1": ["QS", "JS", "8H"], "2": ["10S", "9S", "AH"]},
    "lead": 0,
    "declarer": 0,
    "trump": None,
    "goal": "tricks",
}


def _line(**changes) -> str:
    data = dict(GOOD, **changes)
    return json.dumps({k: v for k, v in data.items() if v is not ...})


def test_a_worked_layout():
    """♠A K ♥7 against ♠Q J ♥8 and ♠10 9 ♥A, no trumps, the declarer leads: whatever he leads, his two spades
    are tricks and his ♥7 is not (after ♥7 the ♥A wins and the ♠10 comes back into his ♠A K)."""
    result = answer(parse_problem(_line(), 1))
    assert result == {"declarer_tricks": 2, "card_values": {"KS": 2, "AS": 2, "7H": 2}}


def test_misere_and_trumps():
    assert answer(parse_problem(_line(goal="misere"), 1))["declarer_tricks"] == 2  # the spades cannot be ducked
    # hearts trumps, the ♥A's holder declares: the ♥A is his one trick; both spades lose to the ♠A K and ♠Q J
    assert answer(parse_problem(_line(trump="H", lead=2, declarer=2), 1))["declarer_tricks"] == 1


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"hands": {"0": ["AS"], "1": ["KS"], "2": ["QS"], "3": ["JS"]}}, "hands"),
        ({"hands": {"0": ["AS", "KS"], "1": ["QS"], "2": ["JS"]}}, "hands"),
        ({"hands": {"0": ["AS"], "1": ["AS"], "2": ["JS"]}}, "hands.1"),
        ({"hands": {"0": ["ZZ"], "1": ["KS"], "2": ["JS"]}}, "hands.0"),
        ({"hands": {"0": [], "1": [], "2": []}}, "hands.0"),
        ({"lead": 3}, "lead"),
        ({"lead": True}, "lead"),
        ({"declarer": "0"}, "declarer"),
        ({"trump": "X"}, "trump"),
        ({"goal": "win"}, "goal"),
        ({"goal": ...}, "goal"),
        ({"extra": 1}, "extra"),
        ({"overtake": 1}, "overtake"),
    ],
)
def test_each_malformed_field_is_named(changes, field):
    with pytest.raises(ProblemError, match=rf"^line 4: field {field}: "):
        parse_problem(_line(**changes), 4)


def test_not_json_and_not_an_object():
    with pytest.raises(ProblemError, match=r"line 2: field .line.: not JSON"):
        parse_problem("{", 2)
    with pytest.raises(ProblemError, match="expected a JSON object"):
        parse_problem("[1, 2]", 2)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_any_text_parses_or_is_one_clear_error(text):
    try:
        parse_problem(text, 9)
    except ProblemError as exc:
        assert str(exc).startswith("line 9: field ") and "\n" not in str(exc)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 12) | st.sampled_from(["AS", "10H", "S", "x"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["0", "1", "2", "hands", "lead", "goal"]), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(
    st.fixed_dictionaries({}, optional=dict.fromkeys(("hands", "lead", "declarer", "trump", "goal", "overtake"), _json))
)
def test_fuzz_structured_mutations(data):
    try:
        problem = parse_problem(json.dumps(data), 3)
    except ProblemError as exc:
        assert str(exc).startswith("line 3: field ")
        return
    assert 0 <= answer(problem)["declarer_tricks"] <= len(problem.position.hands[0])


def test_the_command_keeps_line_order_and_names_a_bad_line(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(_line() + "\n" + _line(trump="H", lead=2, declarer=2) + "\n")
    run = subprocess.run(
        [sys.executable, "-m", "fairdeal", "solve", str(good), "--json"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert [json.loads(x)["declarer_tricks"] for x in run.stdout.splitlines()] == [2, 1]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_line() + "\n" + _line(trump="Q") + "\n")
    run = subprocess.run([sys.executable, "-m", "fairdeal", "solve", str(bad)], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == ['Error: line 2: field trump: expected one of S C D H or null, got "Q"']
