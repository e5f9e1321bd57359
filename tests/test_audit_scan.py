"""The array-speed statistical pass: bulk readers and replays agree with the one-hand reference code, the exact
statistics match their definitions, honest per-hand p-values are uniform, and the verdict names the cheat."""

import io
from itertools import combinations

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fairdeal.audit.battery import battery_part, battery_tests, distinct_deals, join, match_moments
from fairdeal.audit.exact import hand_pvalues, laws_for, talon_rank_pvalues
from fairdeal.audit.fastpath import (
    CARD_CODE,
    RawHand,
    apply_compiled,
    decode_raw_block,
    layout_for,
    undone_windows,
)
from fairdeal.audit.replay import undone_actions
from fairdeal.audit.scan import scan_log
from fairdeal.audit.sequential import stacking_law
from fairdeal.audit.simulate import Evening, fast_evening_lines, simulated_records
from fairdeal.audit.stats import hypergeometric_null
from fairdeal.audit.summary import BlockContext
from fairdeal.audit.verdict import build_verdict
from fairdeal.cards import to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order, get_pattern
from fairdeal.log.bulk import compile_batch, compile_simple, raw_cards
from fairdeal.log.records import DealRecord, HandRecord, TableRecord
from fairdeal.log.writer import encode_record
from fairdeal.shuffle.notation import parse_notation

RUSSIAN = get_pattern("russian")
TOKENS = st.one_of(
    st.integers(1, 32).map(str),
    st.tuples(st.integers(1, 31), st.integers(0, 2)).map(lambda t: f"cut@{t[1]} {t[0]}"),
    st.integers(1, 31).map(lambda d: f"cut {d}"),
)


def context(header):
    return BlockContext(header.pattern_name, len(header.players), header.dealing != "physical")


def scan_bytes(data: bytes):
    return scan_log(io.BytesIO(data), context)


def uniform_receivers(rng, layout, m, dealers=None):
    dealers = np.zeros(m, dtype=np.int64) if dealers is None else dealers
    deck = layout.pattern.deck.codes()
    recv = np.full((m, 32), -1, dtype=np.int8)
    for k in range(m):
        recv[k, rng.permutation(deck)] = layout.template[dealers[k]]
    return recv


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(TOKENS, max_size=7), min_size=1, max_size=20), st.integers(0, 2**32 - 1))
def test_batch_replay_and_undone_windows_agree_with_the_notation(texts, seed):
    texts = [" ".join(t) for t in texts]
    compiled = compile_batch([compile_simple(t, 32) for t in texts])
    before = np.random.default_rng(seed).permuted(np.tile(np.arange(32), (len(texts), 1)), axis=1)
    after = apply_compiled(before, compiled)
    windows = undone_windows(compiled, np.asarray(RUSSIAN.targets))
    for row, (text, b, a) in enumerate(zip(texts, before, after)):
        sequence = parse_notation(text)
        assert (b[sequence.permutation(32)] == a).all()
        assert len([w for w in windows if w[0] == row]) == len(undone_actions(sequence, RUSSIAN))


def test_other_notations_are_left_to_the_full_parser():
    assert compile_simple("overhand 3,4", 32) is None
    assert compile_simple("cut ?", 32) is None
    assert compile_simple("40", 32) is None
    assert compile_simple("2@Boris", 32) is None
    assert compile_simple("4@1 cut@2 12", 32) == [(1, 4, 1), (2, 12, 2)]


def test_bulk_card_reader_matches_the_one_by_one_decoder():
    lines = b"".join(fast_evening_lines(np.random.default_rng(2), Evening(), 300)).split(b"\n")[1:-1]
    records, errors = decode_raw_block(lines, 1)
    hands = [r for _, r in records]
    layout = layout_for("russian", 3)
    dealers = np.array([h.dealer for h in hands])
    ok, codes = raw_cards([h.deal for h in hands], layout.lists[dealers], (b"hands", b"talons"), 32)
    reference = [[CARD_CODE[c] for part in h.narrow().deal.hands + h.narrow().deal.talons for c in part] for h in hands]
    assert not errors and ok.all() and (codes == np.array(reference)).all()
    odd = [bytes(h.deal) for h in hands[:4]]
    odd[0] = odd[0].replace(b'"AS"', '"A♠"'.encode())  # another spelling: the slow path reads it
    odd[1] = odd[1].replace(b'"talons"', b'"talonz"')
    odd[2] = odd[2].replace(b"],[", b",", 1)  # a hand of 20 cards
    ok, codes = raw_cards(odd, layout.lists[dealers[:4]], (b"hands", b"talons"), 32)
    assert ok.tolist() == [b'"AS"' not in bytes(hands[0].deal), False, False, True]


def test_talon_rank_counts_the_231_pairs_exactly():
    rng = np.random.default_rng(4)
    layout = layout_for("russian", 3)
    recv = uniform_receivers(rng, layout, 200)
    laws = laws_for(layout)
    held = recv == 0
    talon = recv >= 3
    p = talon_rank_pvalues(held, (laws.values * talon).sum(axis=1), laws, layout.pattern, np.ones(200))
    for row in range(200):  # brute force: every pair of the 22 cards outside the seat's hand
        outside = np.flatnonzero(laws.in_deck & ~held[row])
        totals = [laws.values[a] + laws.values[b] for a, b in combinations(outside, 2)]
        assert len(totals) == 231
        assert p[row] == pytest.approx(sum(t >= (laws.values * talon[row]).sum() for t in totals) / 231)


def test_honest_per_hand_pvalues_are_uniform():
    """Calibration: every tie-broken per-hand p-value of honest deals passes a Kolmogorov-Smirnov test."""
    rng = np.random.default_rng(11)
    layout = layout_for("russian", 3)
    recv = uniform_receivers(rng, layout, 6000, rng.integers(0, 3, 6000))
    for name, p in hand_pvalues(recv, layout, laws_for(layout), rng).items():
        assert sps.kstest(p, "uniform").pvalue > 0.001, name


def test_the_stacking_alternative_is_a_law_with_an_ace_in_the_talon():
    null = hypergeometric_null(32, 4, 2)
    # one ace put into a talon place, the other place an honest card of the 31 others (3 of them aces)
    assert np.allclose(stacking_law(null, 32, 2, 1.0), [0.0, 28 / 31, 3 / 31])
    assert np.allclose(stacking_law(null, 32, 2, 0.25), 0.75 * null.pmf + 0.25 * np.array([0.0, 28 / 31, 3 / 31]))
    four = stacking_law(hypergeometric_null(24, 4, 4), 24, 4, 1.0)
    assert four[0] == 0 and np.isclose(four.sum(), 1.0)


def test_battery_match_moments_and_distinct_deals_are_exact():
    assert distinct_deals([10, 10, 10, 2]) == pytest.approx(2_753_294_408_504_640)
    mean, var = match_moments([10, 10, 10, 2])
    rng = np.random.default_rng(5)
    a = uniform_receivers(rng, layout_for("russian", 3), 20_000)
    b = uniform_receivers(rng, layout_for("russian", 3), 20_000)
    matches = ((a == b) & (a >= 0)).sum(axis=1)
    assert mean == pytest.approx(9.5) and matches.mean() == pytest.approx(mean, abs=0.05)
    assert matches.var() == pytest.approx(var, rel=0.05)


def test_battery_parts_join_like_one_block():
    rng = np.random.default_rng(6)
    recv = uniform_receivers(rng, layout_for("russian", 3), 50)
    symbols = rng.integers(0, 2, 50)
    whole = battery_part(recv, symbols, 4)
    joined = join(battery_part(recv[:20], symbols[:20], 4), battery_part(recv[20:], symbols[20:], 4))
    assert (whole.runs, whole.matches, whole.pairs) == (joined.runs, joined.matches, joined.pairs)
    assert (whole.cells == joined.cells).all()


def test_a_stuck_generator_fails_the_battery():
    rng = np.random.default_rng(7)
    recv = uniform_receivers(rng, layout_for("russian", 3), 400)
    recv[1::2] = recv[0::2]  # every deal repeated once
    part = battery_part(recv, np.zeros(400, dtype=np.int64) + (np.arange(400) % 2), 4)
    tests = {t.name: t for t in battery_tests(part, [10, 10, 10, 2], 200, 400)}
    assert tests["repeated deals"].pvalue < 1e-9
    assert tests["serial matches between consecutive deals"].pvalue < 1e-9


def test_the_verdict_names_the_stacker_and_clears_an_honest_table():
    cheat = scan_bytes(b"".join(fast_evening_lines(np.random.default_rng(8), Evening(cheater=2), 900)))
    verdict = build_verdict(cheat, 0.01)
    assert verdict.suspects() == ("Vera",) and verdict.hands == 900
    alarm = {p.dealer: p.eprocess_alarm for p in verdict.paths}
    assert alarm["Vera"] is not None and alarm["Anna"] is None
    honest = build_verdict(scan_bytes(b"".join(fast_evening_lines(np.random.default_rng(9), Evening(), 900))), 0.01)
    assert honest.clean and honest.suspects() == ()


def test_the_bulk_log_and_the_reference_log_audit_alike():
    records = list(simulated_records(np.random.default_rng(10), Evening(cheater=1), 300))
    merged = scan_bytes(b"".join(encode_record(r) for r in records))
    counts = np.zeros((3, 3), dtype=int)
    for r in records[1:]:
        talon = r.deal.talons[0]
        counts[r.dealer, sum(c.startswith("A") for c in talon)] += 1
    assert (merged.sums.ace_counts == counts).all()


def two_player_log(pattern_name: str, hands: int, seed: int) -> bytes:
    pattern = get_pattern(pattern_name)
    rng = np.random.default_rng(seed)
    header = TableRecord(
        format="fairdeal-log",
        version=1,
        system="sochi",
        players=["Anna", "Boris"],
        deck=pattern.deck.value,
        deal_pattern=pattern.name,
        dealing="server-rng",
    )
    lines = [encode_record(header)]
    for number in range(1, hands + 1):
        dealt = deal_order(rng.permutation(pattern.deck.codes()).astype(np.uint8), pattern)
        seats = [to_ascii(h) for h in deal_by_seat(dealt, pattern, (number - 1) % 2, 2)]
        lines.append(
            encode_record(
                HandRecord(
                    hand=number,
                    dealer=(number - 1) % 2,
                    deal=DealRecord(hands=seats, talons=[to_ascii(t) for t in dealt.talons]),
                )
            )
        )
    return b"".join(lines)


def to_ascii(codes):
    return to_ascii_list(codes)


@pytest.mark.parametrize("pattern_name", ["hussar", "gusarik"])
def test_other_patterns_are_audited_with_notes(pattern_name):
    verdict = build_verdict(scan_bytes(two_player_log(pattern_name, 400, 12)), 0.01)
    assert verdict.hands == 400 and verdict.malformed_count == 0 and verdict.clean
    names = {t.test for t in verdict.tests}
    assert "talon aces, total" in names and "card x receiver chi-square" in names
    if pattern_name == "hussar":
        assert any("talon-rank test" in n for n in verdict.notes)


def test_malformed_lines_are_reported_and_the_rest_audited():
    lines = b"".join(fast_evening_lines(np.random.default_rng(13), Evening(), 60)).split(b"\n")
    lines.insert(5, b'{"type": "hand", "hand": oops}')
    lines.insert(9, b"not json at all")
    lines.insert(12, b'{"type":"hand","hand":7,"dealer":9,"deal":{"hands":[],"talons":[]}}')
    merged = scan_bytes(b"\n".join(lines))
    assert merged.hands == 60 and merged.malformed_count == 3
    assert merged.malformed[0].startswith("line 6,") and merged.malformed[1].startswith("line 10,")
    assert "dealer seat 9" in merged.malformed[2]


def test_a_raw_hand_decodes_its_cards_on_demand():
    raw = msgspec.json.decode(
        b'{"type":"hand","hand":1,"dealer":0,"deal":{"hands":[["AS"]],"talons":[]}}', type=RawHand
    )
    assert raw.narrow().deal.hands == [["AS"]] and raw.narrow().order_before is None


def test_only_ascii_digits_make_a_simple_shuffle():
    # '²' is a digit to str.isdigit but not to int(); the audit once stopped with an internal error on it.
    assert compile_simple("5² 3", 32) is None
    assert compile_simple("3@¹", 32) is None
    assert compile_simple("cut ٣", 32) is None
