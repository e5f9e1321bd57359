"""A whole pulya (fairdeal.engine.match): rotation, scoring, streaming log, settlement, and the recount of a log."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.cards import Card, Suit
from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.deal_source import ShuffledDeckSource
from fairdeal.engine.hand import result
from fairdeal.engine.match import StopMatch, failed, play_match, seeded_source, with_pulya_size
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.record import replay_record, to_record
from fairdeal.engine.recount import sheet_from_log
from fairdeal.engine.sheet import SHEET_EXTRAS, is_finished, new_sheet
from fairdeal.errors import ConventionError, MatchError
from fairdeal.log import EndRecord, HandRecord, TableRecord, read_log
from fairdeal.systems import conventions, get_convention

NAMES = ("Anna", "Boris", "Vera", "Gleb", "Dasha")
TABLES = [(name, n) for name, conv in sorted(conventions().items()) for n in conv.players]
QUICK = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def bots_for(n: int, seed: int, kind: str = "heuristic"):
    if kind == "random":
        return [RandomBot(np.random.default_rng([seed, seat])) for seat in range(n)]
    return [HeuristicBot() for _ in range(n)]


def play(system: str, n: int, seed: int, max_hands=None, log=None, kind="heuristic", pulya=None, on_hand=None):
    convention = get_convention(system)
    if pulya is not None:
        convention = with_pulya_size(convention, pulya)
    return play_match(
        convention,
        NAMES[:n],
        bots_for(n, seed, kind),
        source=seeded_source(seed, convention),
        max_hands=max_hands,
        log=log,
        on_hand=on_hand,
    )


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---- settlement and the sheet -------------------------------------------------------------------------------


@QUICK
@given(
    table=st.sampled_from(TABLES),
    seed=st.integers(0, 2**32 - 1),
    hands=st.integers(1, 8),
    kind=st.sampled_from(["heuristic", "random"]),
)
def test_a_played_match_settles_to_exactly_zero(table, seed, hands, kind):
    system, n = table
    played = play(system, n, seed, max_hands=hands, kind=kind)
    assert sum(played.settlement.amounts) == 0
    assert all(isinstance(a, Fraction) for a in played.settlement.amounts)
    assert played.sheet.hands == len(played.hands) <= hands
    assert played.finished == is_finished(played.sheet, played.convention)


@QUICK
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32 - 1), hands=st.integers(1, 8))
def test_the_sheet_is_the_sum_of_the_written_lines(table, seed, hands):
    system, n = table
    played = play(system, n, seed, max_hands=hands)
    rebuilt = new_sheet(played.convention, n)
    for summary in played.hands:
        rebuilt = rebuilt.apply(summary.lines)
    assert (rebuilt.pulya, rebuilt.gora, rebuilt.whists) == (played.sheet.pulya, played.sheet.gora, played.sheet.whists)


@pytest.mark.parametrize("system,n", TABLES)
def test_a_pulya_is_played_to_its_end(system, n):
    played = play(system, n, seed=7, pulya=6)
    assert played.finished and played.stopped is None
    assert is_finished(played.sheet, played.convention)
    assert sum(played.settlement.amounts) == 0


def test_a_full_sochi_pulya_of_twenty_closes_every_pulya():
    played = play("sochi", 3, seed=11)
    assert played.finished
    assert all(p == 20 for p in played.sheet.pulya)  # excess goes to helping, never above the agreed pulya


@pytest.mark.parametrize("n", [3, 4])
def test_the_deal_passes_clockwise(n):
    # seed 003: «Очередь сдавать переходит по часовой стрелке»; «Если играют вчетвером, сдающий не играет.»
    played = play("sochi", n, seed=5, max_hands=9)
    assert [h.dealer for h in played.hands] == [k % n for k in range(9)]
    if n == 4:
        for h in played.hands:
            assert h.declarer != h.dealer


def test_the_raspasy_streak_reaches_every_new_hand(tmp_path):
    log = tmp_path / "game.jsonl"
    play("mailru", 3, seed=2, max_hands=40, log=log)
    hands = [r for r in lines_of(log) if r["type"] == "hand"]
    streak = 0
    for record in hands:
        assert record["extras"]["raspasy_streak"] == streak
        streak = streak + 1 if record["result"]["kind"] == "raspasy" else 0
    assert any(r["extras"]["raspasy_streak"] > 0 for r in hands), "seed 2 should give raspasy in a row"


def test_a_pulya_stopped_at_the_cap_is_settled_and_says_so(tmp_path):
    log = tmp_path / "game.jsonl"
    played = play("sochi", 3, seed=1, max_hands=2, log=log)
    assert not played.finished and "cap of 2 hands" in played.stopped
    end = lines_of(log)[-1]
    assert end["type"] == "end"
    assert list(end["settlement"]) == list(NAMES[:3])
    assert sum(Fraction(str(v)) for v in end["settlement"].values()) == pytest.approx(0, abs=1e-9)


class QuittingBot:
    """Plays like the heuristic bot for ``actions`` decisions, then leaves the table mid-hand."""

    def __init__(self, actions: int):
        self.inner, self.actions_left = HeuristicBot(), actions

    def act(self, view):
        self.actions_left -= 1
        if self.actions_left < 0:
            raise StopMatch("Anna left the table")
        return self.inner.act(view)


def test_a_player_who_leaves_ends_the_pulya_after_the_last_full_hand(tmp_path):
    log = tmp_path / "game.jsonl"
    convention = get_convention("sochi")
    bots = [QuittingBot(25), HeuristicBot(), HeuristicBot()]
    played = play_match(convention, NAMES[:3], bots, source=seeded_source(4), log=log)
    assert played.stopped == "Anna left the table" and not played.finished
    assert 1 <= len(played.hands) < 25  # every hand asks Anna at least once
    assert sum(played.settlement.amounts) == 0
    records = lines_of(log)
    assert sum(r["type"] == "hand" for r in records) == len(played.hands)
    assert records[-1]["type"] == "end"


def test_failed_contracts_are_told_apart():
    base = {"num_seats": 3, "dealer": 2, "active": (0, 1, 2)}
    made = HandOutcome(
        kind=HandKind.GAME,
        tricks=(7, 2, 1),
        declarer=0,
        contract=Contract(7, Suit.HEARTS),
        defence=((1, DefenceCall.WHIST), (2, DefenceCall.PASS)),
        **base,
    )
    down = HandOutcome(
        kind=HandKind.GAME,
        tricks=(6, 3, 1),
        declarer=0,
        contract=Contract(7, Suit.HEARTS),
        defence=((1, DefenceCall.WHIST), (2, DefenceCall.PASS)),
        **base,
    )
    unplayed = HandOutcome(
        kind=HandKind.GAME, tricks=(0, 0, 0), declarer=0, contract=Contract(6, None), played=False, **base
    )
    misere_down = HandOutcome(
        kind=HandKind.MISERE, tricks=(1, 5, 4), declarer=0, contract=Contract(None, None, misere=True), **base
    )
    conceded = HandOutcome(
        kind=HandKind.GAME,
        tricks=(0, 0, 0),
        declarer=0,
        contract=Contract(8, None),
        conceded_undertricks=3,
        played=False,
        **base,
    )
    raspasy = HandOutcome(kind=HandKind.RASPASY, tricks=(3, 3, 4), **base)
    assert [failed(o) for o in (made, down, unplayed, misere_down, conceded, raspasy)] == [
        False,
        True,
        False,
        True,
        True,
        False,
    ]


def test_bad_tables_are_refused_with_a_clear_error():
    sochi = get_convention("sochi")
    with pytest.raises(MatchError, match="distinct"):
        play_match(sochi, ["A", "A", "B"], bots_for(3, 0), source=seeded_source(0))
    with pytest.raises(MatchError, match="one player"):
        play_match(sochi, ["A", "B", "C"], bots_for(2, 0), source=seeded_source(0))
    with pytest.raises(MatchError, match="hand cap"):
        play_match(sochi, ["A", "B", "C"], bots_for(3, 0), source=seeded_source(0), max_hands=0)
    with pytest.raises(ConventionError, match="not 4"):
        play_match(get_convention("mailru"), NAMES[:4], bots_for(4, 0), source=seeded_source(0))


def test_recorded_physical_orders_deal_the_hands(tmp_path):
    rng = np.random.default_rng(9)
    orders = [rng.permutation(32).astype(np.uint8) for _ in range(3)]
    log = tmp_path / "game.jsonl"
    play_match(
        get_convention("rostov"),
        NAMES[:3],
        bots_for(3, 0),
        source=ShuffledDeckSource(orders=orders),
        max_hands=3,
        log=log,
    )
    header, *hands, _end = lines_of(log)
    assert header["dealing"] == "physical" and len(hands) == 3
    assert hands[0]["deal"]["talons"] == [[_ascii(orders[0][6]), _ascii(orders[0][7])]]  # positions 7-8 (seed 004)


def _ascii(code) -> str:
    return Card.from_code(int(code)).ascii


# ---- the log: streamed, valid, replayable -------------------------------------------------------------------


def test_hands_are_written_as_they_happen_and_the_log_appears_whole(tmp_path):
    log = tmp_path / "game.jsonl"
    seen = []

    def lines_so_far(summary, sheet):
        assert not log.exists()  # the log is put in place only when the pulya ends or stops
        (partial,) = tmp_path.glob(".game.jsonl.*.partial")
        seen.append(len(partial.read_text().splitlines()))

    play("sochi", 3, seed=3, max_hands=4, log=log, on_hand=lines_so_far)
    assert seen == [2, 3, 4, 5]  # the header plus one line per finished hand, before the next is dealt
    assert len(log.read_text().splitlines()) == 6 and list(tmp_path.iterdir()) == [log]


@QUICK
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32 - 1), hands=st.integers(1, 6))
def test_replaying_a_written_log_reproduces_every_hand_and_score_line(tmp_path_factory, table, seed, hands):
    system, n = table
    log = tmp_path_factory.mktemp("log") / "game.jsonl"
    played = play(system, n, seed, max_hands=hands, log=log)
    items = list(read_log(log))
    assert all(item.ok for item in items), [e for item in items for e in item.errors]
    assert isinstance(items[0].record, TableRecord) and isinstance(items[-1].record, EndRecord)
    convention = played.convention
    for item, summary in zip(items[1:-1], played.hands):
        record = json.loads(log.read_text().splitlines()[item.line - 1])
        for key in SHEET_EXTRAS:  # bombs come from the sheet, not from the hand's replay
            record["extras"].pop(key, None)
        state = replay_record(record, convention, n)
        replayed = dict(
            to_record(state), hand=record["hand"], type="hand", score=[line.to_record() for line in summary.lines]
        )
        assert replayed == record
        assert result(state).kind is summary.kind
    recount = sheet_from_log(log)
    assert recount.problems == ()
    assert recount.sheet == played.sheet
    assert recount.settlement == played.settlement
    assert recount.hands == len(played.hands) and recount.finished == played.finished


def _cook(log: Path, change) -> Path:
    records = lines_of(log)
    change(records)
    cooked = log.with_name("cooked.jsonl")
    cooked.write_text("".join(json.dumps(r) + "\n" for r in records))
    return cooked


def _hand_with_whists(records):
    return next(r for r in records if r["type"] == "hand" and any(s["column"] == "whists" for s in r["score"]))


def test_a_cooked_score_line_is_found_naming_hand_and_seat(tmp_path):
    log = tmp_path / "game.jsonl"
    play("sochi", 3, seed=6, max_hands=12, log=log)
    target = {}

    def cook(records):
        hand = _hand_with_whists(records)
        line = next(s for s in hand["score"] if s["column"] == "whists")
        line["points"] += 10
        target.update(hand=hand["hand"], seat=line["seat"])

    recount = sheet_from_log(_cook(log, cook))
    assert len(recount.problems) == 1
    assert f"hand {target['hand']}, seat {target['seat']} (" in recount.problems[0]
    assert "the replay gives" in recount.problems[0]
    assert recount.sheet == sheet_from_log(log).sheet  # the sheet comes from the replay, not the logged lines


def test_a_cooked_settlement_a_dealer_out_of_turn_and_a_false_trick_are_found(tmp_path):
    log = tmp_path / "game.jsonl"
    play("leningrad", 3, seed=8, max_hands=6, log=log)

    def cook(records):
        records[-1]["settlement"]["Anna"] += 5
        records[2]["dealer"] = 0
        hand = next(r for r in records[3:] if r["type"] == "hand" and r["tricks"])
        hand["tricks"][0]["winner"] = (hand["tricks"][0]["winner"] + 1) % 3

    problems = sheet_from_log(_cook(log, cook)).problems
    assert any(p.startswith(f"line {len(lines_of(log))}, settlement, Anna: logged") for p in problems)
    assert any(p.startswith("line 3, hand 2: dealer is seat 0") for p in problems)
    assert any("cannot be replayed" in p and "winner" in p for p in problems)


def test_a_log_without_a_header_is_refused(tmp_path):
    log = tmp_path / "game.jsonl"
    play("sochi", 3, seed=1, max_hands=2, log=log)
    headless = tmp_path / "headless.jsonl"
    headless.write_text("".join(log.read_text().splitlines(keepends=True)[1:]))
    with pytest.raises(MatchError, match="no usable table header"):
        sheet_from_log(headless)
    with pytest.raises(MatchError, match="cannot read"):
        sheet_from_log(tmp_path / "missing.jsonl")


def test_a_log_of_another_pulya_size_is_rescored_to_that_size(tmp_path):
    log = tmp_path / "game.jsonl"
    played = play("rostov", 3, seed=3, pulya=8, log=log)
    assert lines_of(log)[0]["pulya"] == 8
    recount = sheet_from_log(log)
    assert recount.problems == () and recount.finished and recount.convention.pulya.size == 8
    assert recount.settlement == played.settlement


def test_hand_records_are_typed_log_records(tmp_path):
    log = tmp_path / "game.jsonl"
    play("sochi", 4, seed=2, max_hands=3, log=log)
    items = list(read_log(log))
    assert [type(i.record) for i in items] == [TableRecord, HandRecord, HandRecord, HandRecord, EndRecord]
    for item in items[1:-1]:
        dealer = item.record.dealer
        assert item.record.deal.hands[dealer] == []  # at four the dealer sits out
