"""The play signals (``fairdeal/audit/play``): each defender's card priced by the double-dummy solver and checked
against an independent search; honest bot evenings not flagged; a defender who gives tricks to his partner, and a
whister who lets him play unwhisted, flagged with the partner named; every registered system and table size."""

import json

import msgspec
import numpy as np
import pytest
from click.testing import CliRunner
from solver_reference import make_search, winner_index

from fairdeal.audit.play.evidence import SolveCache, _recorded_cards, card_choices, hand_evidence, price_whists
from fairdeal.audit.play.glm import design, fit, score_test
from fairdeal.audit.play.report import analyse_records
from fairdeal.audit.play.simulate import Collusion, evening
from fairdeal.audit.stats import holm
from fairdeal.cli import cli
from fairdeal.engine.actions import Play
from fairdeal.engine.hand import apply, legal_actions, to_move
from fairdeal.engine.match import with_pulya_size
from fairdeal.engine.match_log import table_record
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.play import trump_of
from fairdeal.engine.record import replay_record
from fairdeal.engine.system import registered
from fairdeal.systems import get_convention

NAMES = ["Anna", "Boris", "Vera"]
ALPHA = 0.01
HANDS = 150


def flagged(report):
    """(actor, beneficiary) of the play tests Holm-significant within their own family."""
    if not report.tests:
        return set()
    adjusted = holm(np.array([max(t.pvalue, 1e-300) for t in report.tests]))
    return {(t.actor, t.beneficiary) for t, h in zip(report.tests, adjusted) if h <= ALPHA}


@pytest.fixture(scope="module")
def sochi():
    return with_pulya_size(get_convention("sochi"), 1000)  # a pulya longer than the evening: one sheet


def reference_losses(state, seat):
    """Each legal card's loss for ``seat`` by the independent search, from the engine state alone."""
    seats = state.trick_seats
    n = len(seats)
    hands = tuple(tuple(sorted(state.hands[s])) for s in seats)
    leader = seats.index(state.current[0][0] if state.current else state.turn)
    table = tuple(c for _, c in state.current)
    declarer = seats.index(state.declarer)
    others = frozenset(range(n)) - {declarer}
    maximisers = frozenset({declarer}) if state.kind is HandKind.GAME else others
    trump = trump_of(state)
    boundary, inside = make_search(trump, frozenset({declarer}), maximisers, state.convention.play.must_overtake)
    me = seats.index(seat)
    values = {}
    for action in legal_actions(state):
        if not isinstance(action, Play):
            continue
        rest = tuple(tuple(c for c in h if c != action.card) if i == me else h for i, h in enumerate(hands))
        played = (*table, action.card)
        if len(played) < n:
            values[action.card] = inside(rest, leader, played, 0)
        else:
            who = (leader + winner_index(played, None, trump, False)) % n
            values[action.card] = int(who == declarer) + boundary(rest, who, 0)
    best = (max if me in maximisers else min)(values.values())
    return {c: abs(best - v) for c, v in values.items()}


@pytest.mark.parametrize("system", ["sochi", "austrian-illustrated", "croatian"])
def test_card_costs_agree_with_an_independent_search(system):
    """Every priced card of the last five tricks (trumps, no-trump, misère, the overtaking rule): its cost is what
    a plain minimax written from the rules finds."""
    convention = get_convention(system)
    checked = 0
    for record in evening(convention, 3, 15, 11):
        cards, _, _ = card_choices(record, convention, 3, SolveCache())
        late = {(c.trick, c.card): c for c in cards if c.trick >= 6}
        if not late:
            continue
        state = replay_record({k: v for k, v in record.items() if k not in ("tricks", "result")}, convention, 3)
        for seat, card in _recorded_cards(record, state.trick_seats):
            actor = to_move(state)
            choice = late.get((len(state.tricks) + 1, card))
            if choice is not None:
                assert choice.cost == reference_losses(state, seat)[card]
                assert choice.critical == (max(reference_losses(state, seat).values()) > 0)
                checked += 1
            state = apply(state, Play(seat, card, actor))
    assert checked >= 10


@pytest.mark.parametrize(("goal", "losses"), [("tricks", {"QS": 2, "7H": 0}), ("misere", {"QS": 0, "7H": 2})])
def test_a_constructed_ending_prices_the_wrong_card(goal, losses):
    """Two cards each, no trumps: the declarer (seat 0) holds A-K of spades, seat 2 two hearts, seat 1 leads the
    queen of spades or the seven of hearts. The heart lets seat 2 win both tricks (the declarer discards); the
    queen makes the declarer win both. In a game the queen costs the defence two tricks; in a misère, where the
    defenders want the declarer to take tricks, the heart does."""
    from fairdeal.cards import parse_card
    from fairdeal.solver.dds import Position, sides

    def cards(text):
        return tuple(parse_card(c).code for c in text.split())

    position = Position((cards("AS KS"), cards("QS 7H"), cards("8H 9H")), leader=1)
    count, maximisers = sides(3, 0, goal)
    solution = SolveCache().values(position, count, maximisers)
    assert solution.losses(bool(maximisers & 0b010)) == {parse_card(c).code: v for c, v in losses.items()}


def test_solve_cache_returns_the_same_values_without_solving(sochi):
    record = next(r for r in evening(sochi, 3, 20, 4) if r.get("contract") and r.get("tricks"))
    cache = SolveCache()
    first, _, _ = card_choices(record, sochi, 3, cache)
    solves = cache.solves
    again, _, _ = card_choices(record, sochi, 3, cache)
    assert again == first and cache.solves == solves and cache.hits >= len(first)


def test_a_node_limit_cuts_off_and_is_counted(sochi):
    record = next(r for r in evening(sochi, 3, 20, 4) if r.get("contract") and r.get("tricks"))
    cards, _, cut = card_choices(record, sochi, 3, SolveCache(node_limit=1))
    full, _, _ = card_choices(record, sochi, 3, SolveCache())
    assert cut > 0 and len(cards) + cut == len(full)


def test_whist_margins_agree_with_single_solves(sochi):
    """The batch solve of the all-whist positions gives what the declarer takes double dummy."""
    from fairdeal.solver.dds import declarer_tricks

    pending = [p for r in evening(sochi, 3, 40, 8) if (p := hand_evidence(r, sochi, 3, SolveCache())[1])]
    assert pending
    priced = {(w.hand, w.whister): w.margin for w in price_whists(pending)}
    for p in pending:
        tricks = declarer_tricks(p.position, p.declarer).value
        for c in p.choices:
            assert priced[(c.hand, c.whister)] == len(p.position.hands[0]) - tricks - p.quota


@pytest.fixture(scope="module")
def colluded(sochi):
    """Anna gives a trick away double dummy whenever she can while Vera declares."""
    return evening(sochi, 3, HANDS, 1, Collusion(0, 2, 1.0))


def test_an_honest_evening_is_not_flagged(sochi):
    report = analyse_records(evening(sochi, 3, HANDS, 1), sochi, NAMES)
    assert report.tests and not flagged(report)
    assert report.skipped.get("raspasy (no declarer to help)", 0) > 0


def test_a_defender_giving_tricks_to_his_partner_is_named_with_him(sochi, colluded):
    report = analyse_records(colluded, sochi, NAMES)
    assert flagged(report) == {("Anna", "Vera")}


def test_a_whister_passing_for_his_partner_is_named_with_him(sochi):
    report = analyse_records(evening(sochi, 3, HANDS, 1, Collusion(1, 0, 0.0, passes=True)), sochi, NAMES)
    assert flagged(report) == {("Boris", "Anna")}
    (test,) = [t for t in report.tests if (t.actor, t.beneficiary) == ("Boris", "Anna")]
    assert test.test.startswith("passes when whisting pays")


def test_score_test_is_calibrated_on_exchangeable_data():
    """Decisions whose rate depends on the player and the situation only: the score test's p-values are about
    uniform (a Kolmogorov-Smirnov bound), so a weak player is not flagged for being weak."""
    from scipy import stats

    rng = np.random.default_rng(0)
    pvalues = []
    for _ in range(200):
        actors = rng.integers(0, 3, 600)
        declarers = (actors + rng.integers(1, 3, 600)) % 3
        place = (declarers - actors) % 3
        logit = -3.0 + 1.2 * (actors == 0) + 0.8 * (place == 1)  # Anna is weak; place 1 is harder for all
        errors = rng.random(600) < 1 / (1 + np.exp(-logit))
        model = fit(design([list(map(str, actors)), list(map(str, place))]), np.ones(600), errors.astype(float))
        pvalues.append(score_test(model, ((actors == 0) & (declarers == 2)).astype(float)).pvalue)
    assert stats.kstest(pvalues, "uniform").pvalue > 0.001


def every_table():
    for system in registered():
        for seats in range(2, 6):
            try:
                system.convention.check_players(seats)
            except Exception:
                continue
            yield system.convention.name, seats


def test_every_system_and_table_size_is_handled():
    """Trumps, no-trump and misère contracts are priced; raspasy hands are skipped with the reason; no hand of an
    honest evening is refused."""
    contexts: set[str] = set()
    for name, seats in every_table():
        convention = get_convention(name)
        records = evening(convention, seats, 6, 5, bots="random")
        report = analyse_records(records, convention, [f"p{i}" for i in range(seats)])
        assert report.hands == len(records), name
        assert not any(why.startswith("not replayable") for why in report.skipped), (name, seats, report.skipped)
        assert set(report.skipped) <= {"raspasy (no declarer to help)", "no trick play (the game was not whisted)"}
        assert all(c.actor != c.declarer for c in report.cards)
        contexts |= {"/".join(c.context.split("/")[:2]) for c in report.cards}
    assert {"game/trumps", "game/no-trump", "misere/no-trump"} <= contexts


def write_log(path, convention, records):
    header = msgspec.json.encode(table_record(convention, NAMES, "server-rng")).decode()
    path.write_text("\n".join([header, *(json.dumps(r) for r in records)]) + "\n")
    return path


def test_audit_play_names_actor_and_beneficiary_in_the_verdict(sochi, colluded, tmp_path):
    log = write_log(tmp_path / "colluded.jsonl", sochi, colluded)
    args = ["audit", str(log), "--play", "--json", "--workers", "1", "--no-targeting", "--no-tells"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    assert document["play"]["flagged"][0]["actor"] == "Anna"
    assert {(f["actor"], f["beneficiary"]) for f in document["play"]["flagged"]} == {("Anna", "Vera")}
    play_tests = [t for t in document["tests"] if "actor" in t]
    assert play_tests and all("holm" in t and "bh" in t for t in play_tests)
    assert document["summary"]["tests"] > len(play_tests)  # one family with the dealing tests
    text = CliRunner().invoke(cli, [a for a in args if a != "--json"])
    assert "defender Anna -> declarer Vera: Anna helped Vera" in text.output


def test_audit_play_on_an_honest_log_flags_nothing(sochi, tmp_path):
    log = write_log(tmp_path / "honest.jsonl", sochi, evening(sochi, 3, 60, 2))
    result = CliRunner().invoke(cli, ["audit", str(log), "--play", "--json", "--workers", "1"])
    assert result.exit_code == 0, result.output
    play = json.loads(result.output)["play"]
    assert play["flagged"] == [] and play["cards_priced"] > 0 and play["hands"] == 60
