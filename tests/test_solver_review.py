"""`fairdeal review`: the double-dummy cost of each logged play, computed from the log alone."""

from __future__ import annotations

import hashlib
import itertools
import json
import subprocess
import sys

import pytest

from fairdeal.cli.solving import review_log
from fairdeal.solver.review import ReviewError


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    path = tmp_path_factory.mktemp("review") / "evening.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "fairdeal",
            "play",
            "--system",
            "sochi",
            "--players",
            "3",
            "--hands",
            "8",
            "--seed",
            "7",
            "--out",
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return path


def _hands(path):
    return [json.loads(line) for line in path.read_text().splitlines() if '"type":"hand"' in line.replace(" ", "")]


def test_values_chain_and_end_at_the_result(evening):
    reviewed = 0
    for record in _hands(evening):
        if not record.get("tricks"):
            continue
        review = review_log(evening, record["hand"])
        reviewed += 1
        plays = review.plays
        assert len(plays) == sum(len(t["cards"]) for t in record["tricks"])
        assert all(p.cost >= 0 and (p.cost == 0) == (p.card in p.best_cards) for p in plays)
        if review.kind == "raspasy":
            # after the last card every seat's count is the tricks it took
            assert plays[-1].value == record["result"]["tricks"][plays[-1].seat]
            continue
        declarer = record["contract"]["declarer"]
        assert plays[-1].value == record["result"]["tricks"][declarer]
        # the value after a card is the value of the next position: the next seat's best card keeps it
        for before, after in itertools.pairwise(plays):
            assert before.value == after.best
    assert reviewed >= 3


def test_the_log_is_not_changed(evening):
    digest = hashlib.sha256(evening.read_bytes()).hexdigest()
    hand = next(r["hand"] for r in _hands(evening) if r.get("tricks"))
    run = subprocess.run(
        [sys.executable, "-m", "fairdeal", "review", str(evening), "--hand", str(hand)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith(f"hand {hand} (")
    assert "total double-dummy cost" in run.stdout
    assert hashlib.sha256(evening.read_bytes()).hexdigest() == digest


def test_missing_hand_is_one_clear_line(evening):
    run = subprocess.run(
        [sys.executable, "-m", "fairdeal", "review", str(evening), "--hand", "999"], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [f"Error: {evening}: no valid hand 999 in the log"]
    with pytest.raises(ReviewError, match="no valid hand"):
        review_log(evening, 0)
