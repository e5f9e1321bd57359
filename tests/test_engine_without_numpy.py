"""The engine's replay of game records runs without numpy and msgspec, as the offline verifier page runs it (Pyodide
with the standard library only): records of real hands, every registered system at every table size, replayed in
a subprocess where importing either raises, give exactly the problems, notes and settlement they give here.
"""

from __future__ import annotations

import copy
import inspect
import json
import subprocess
import sys
from typing import Any

import numpy as np

from fairdeal.cards import DeckKind
from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.deal_source import ShuffledDeckSource
from fairdeal.engine.match import play_match
from fairdeal.protocols.transcript import seat_deal
from fairdeal.rules.convention import Convention
from fairdeal.systems import conventions

HANDS = 4

# Installed before fairdeal is imported, ahead of every other finder (the editable install's among them).
BLOCKER = """
from __future__ import annotations

import sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "msgspec"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None

sys.meta_path.insert(0, Blocked())
"""

MAIN = """
import json

def blocked(name):
    try:
        __import__(name)
    except ModuleNotFoundError:
        return True
    return False

cases = json.load(sys.stdin)
results = [_replay(case) for case in cases]
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in ("numpy", "msgspec"))
json.dump({"results": results, "loaded": loaded, "blocked": blocked("numpy") and blocked("msgspec")}, sys.stdout)
"""


class _RecordingSource(ShuffledDeckSource):
    """Shuffled deals whose finished hands are kept as the docs ``replay_session`` takes (a transcript's hand,
    dealer, derived deal and record)."""

    def __init__(self, convention: Convention, num_seats: int, seed: int):
        super().__init__(DeckKind.parse(convention.table.deck), np.random.default_rng(seed))
        self.pattern_name = convention.table.pattern_name(num_seats)
        self.num_seats = num_seats
        self.orders: dict[int, np.ndarray] = {}
        self.docs: list[dict[str, Any]] = []

    def deal(self, hand, dealer):
        dealt = super().deal(hand, dealer)
        self.orders[hand] = dealt.order
        return dealt

    def finish(self, hand, record=None, plays=None):
        dealer = record["dealer"]
        deal = seat_deal(self.orders.pop(hand), self.pattern_name, dealer, self.num_seats)
        self.docs.append({"hand": hand, "dealer": dealer, "deal": deal, "record": dict(record)})
        return super().finish(hand, record, plays)


def _replay(case: dict[str, Any]) -> dict[str, Any]:
    """Replay one table's records; what it finds, as JSON values (run here and in the subprocess alike)."""
    from fairdeal.engine.settlement import settle
    from fairdeal.protocols.record_check import replay_session
    from fairdeal.systems import conventions

    convention = conventions()[case["system"]]
    problems, notes, sheet = replay_session(case["docs"], case["trusted"], convention, case["players"])
    return {
        "problems": [[p.index, p.check, p.detail] for p in problems],
        "notes": [list(note) for note in notes],
        "amounts": None if sheet is None else [str(a) for a in settle(sheet, convention).amounts],
    }


def _cases() -> list[dict[str, Any]]:
    """A few hands of every registered system at every table size, heuristic and random bots mixed."""
    cases = []
    for seed, (name, convention) in enumerate(sorted(conventions().items())):
        for players in convention.players:
            source = _RecordingSource(convention, players, seed * 10 + players)
            bots = [
                HeuristicBot() if seat % 2 else RandomBot(np.random.default_rng([seed, seat]))
                for seat in range(players)
            ]
            names = [f"p{seat}" for seat in range(players)]
            play_match(convention, names, bots, source=source, max_hands=HANDS)
            cases.append(
                {"system": name, "players": players, "docs": source.docs, "trusted": [True] * len(source.docs)}
            )
    return cases


def _tampered(case: dict[str, Any]) -> dict[str, Any]:
    """The case with one score line's points raised by one (in the first hand that writes a line)."""
    case = copy.deepcopy(case)
    record = next(doc["record"] for doc in case["docs"] if doc["record"]["score"])
    record["score"][0]["points"] += 1
    return case


def _without_numpy(cases: list[dict[str, Any]]) -> dict[str, Any]:
    script = BLOCKER + inspect.getsource(_replay) + MAIN
    done = subprocess.run(
        [sys.executable, "-c", script], input=json.dumps(cases), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def test_records_replay_alike_without_numpy_and_msgspec():
    cases = _cases()
    tampered = _tampered(next(c for c in cases if c["system"] == "sochi"))
    cases = json.loads(json.dumps([*cases, tampered]))  # both sides read the same JSON, as the page does
    here = [_replay(case) for case in cases]
    there = _without_numpy(cases)
    assert there["blocked"]
    assert there["loaded"] == []
    assert {(c["system"], c["players"]) for c in cases} == {
        (name, players) for name, convention in conventions().items() for players in convention.players
    }
    for case, mine, theirs in zip(cases, here, there["results"]):
        assert theirs == mine, (case["system"], case["players"])
    assert all(result["problems"] == [] and result["amounts"] is not None for result in here[:-1])
    assert [p[1] for p in here[-1]["problems"]] == ["score"]
