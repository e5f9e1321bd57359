"""The log vocabulary of issue 4: dark calls, redeals, two talons and bombs in logs written and recounted."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairdeal.engine.bots import RandomBot
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.engine.recount import sheet_from_log
from fairdeal.log import read_log
from fairdeal.log.tokens import is_bid, is_contract
from fairdeal.rules import CLASSIC, HUSSAR


@pytest.mark.parametrize(
    "token, ok",
    [
        ("dark-6S", True),
        ("dark-misere", True),
        ("dark-pass", True),
        ("dark-mine", False),
        ("dark-9S-bp", False),
        ("6S-bp", True),
    ],
)
def test_dark_words(token, ok):
    assert is_bid(token, "classic") is ok


def test_a_contract_is_never_a_pass():
    assert is_contract("dark-7H", "classic") and not is_contract("dark-pass", "classic")


def write(tmp_path, convention, seats, seed, hands):
    log = tmp_path / f"{convention.name}.jsonl"
    bots = [RandomBot(np.random.default_rng([seed, s])) for s in range(seats)]
    played = play_match(
        convention,
        [f"P{s}" for s in range(seats)],
        bots,
        source=seeded_source(seed, convention),
        max_hands=hands,
        log=log,
    )
    return log, played


def test_random_classic_logs_hold_dark_calls_and_bombs_and_recount_exactly(tmp_path):
    log, played = write(tmp_path, CLASSIC, 4, 11, 40)
    items = list(read_log(log))
    assert all(item.ok for item in items), [e for item in items for e in item.errors]
    lines = [json.loads(line) for line in log.read_text().splitlines()[1:-1]]
    assert any(b["bid"].startswith("dark-") for line in lines for b in line["auction"])
    assert [line["extras"].get("opening_round", 0) for line in lines[:8]] == [1, 2] * 4
    assert lines[0]["extras"]["bombs_earned"] == {str(s): [1] for s in range(4)}
    recount = sheet_from_log(log)
    assert recount.problems == () and recount.sheet == played.sheet


def test_hussar_logs_name_the_bought_talon_and_a_false_one_is_caught(tmp_path):
    log, _played = write(tmp_path, HUSSAR, 2, 3, 30)
    lines = log.read_text().splitlines()
    assert all(item.ok for item in read_log(log))
    docs = [json.loads(line) for line in lines]
    kinds = {doc["result"]["kind"] for doc in docs[1:-1]}
    assert "redeal" in kinds
    bought = next(i for i, doc in enumerate(docs) if "talon_bought" in doc.get("extras", {}))
    docs[bought]["extras"]["talon_bought"] = 5
    redeal = next(i for i, doc in enumerate(docs) if doc.get("result", {}).get("kind") == "redeal")
    docs[redeal]["contract"] = {"declarer": 0, "bid": "6S"}
    log.write_text("\n".join(json.dumps(doc) for doc in docs) + "\n")
    errors = [e for item in read_log(log) for e in item.errors]
    assert any("extras.talon_bought" in str(e) for e in errors)
    assert any("redeal has no contract" in str(e) for e in errors)
