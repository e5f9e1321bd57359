"""The report a tournament director reads (issue 17, item 6): the verdict in sentences in English and Russian with
the computed numbers, the evidence hands drawn with their cards, beneficiaries with their dealer, shuffle logging in
words, the JSON validated against its shipped schema, phase progress, exit codes in --help. No golden files: every
assertion recomputes its number from the log or the verdict."""

import json
import re

import jsonschema
import msgspec
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from fairdeal.audit.html import render_html
from fairdeal.audit.report.drawing import card_line, hand_text
from fairdeal.audit.report.evidence import HANDS_PER_DEALER
from fairdeal.audit.report.narrative import beneficiary_pairs, narrate, sentence_of_test
from fairdeal.audit.report.numbers import about_one_in, counted, one_in, ru_plural
from fairdeal.audit.report.shuffles import bits_words, record_words
from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.verdict import DealerQuality
from fairdeal.audit.verdict import TestResult as Result
from fairdeal.cards import Rank, parse_card, to_ascii_list
from fairdeal.cli import cli
from fairdeal.deal import deal_by_seat, deal_order
from fairdeal.log.reader import records
from fairdeal.log.records import DealRecord, HandRecord, TableRecord
from fairdeal.log.writer import write_log
from fairdeal.progress import Phases
from fairdeal.resources import protocol_file
from fairdeal.systems import registered
from fairdeal.tricks.catalogue import get_trick
from fairdeal.tricks.power import PLAYERS, cheating_evening, honest_evening

SCHEMA = json.loads(protocol_file("audit-report.schema.json").read_text(encoding="utf-8"))
FAST = RunOptions(legality=False, targeting=False, tells=False, draw_hands=True)
CHEAT = PLAYERS[1]  # tricks.power seats the cardsharp at seat 1
TABLES = [(system, players) for system in registered() for players in system.players]


@pytest.fixture(scope="module")
def stacked(tmp_path_factory):
    """A casebook evening: the cardsharp stacks the talon with card-by-card runs in half of his deals."""
    path = tmp_path_factory.mktemp("report") / "stacked.jsonl"
    rows, _ = cheating_evening(get_trick("talon-runs"), 0.5, 90, np.random.default_rng(5))
    write_log(path, rows)
    return path, run_audit(path, FAST)


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "honest.jsonl"
    write_log(path, honest_evening(60, np.random.default_rng(2)))
    return path, run_audit(path, FAST)


@pytest.fixture(scope="module")
def fed(tmp_path_factory):
    """Vera deals Anna all four aces whenever she deals (no shuffle logged: only the hand tests can see it)."""
    path = tmp_path_factory.mktemp("report") / "fed.jsonl"
    rows = []
    for row in honest_evening(60, np.random.default_rng(3)):
        if isinstance(row, HandRecord):
            row = msgspec.structs.replace(row, order_before=msgspec.UNSET, shuffle=msgspec.UNSET)
            if row.dealer == 2:
                row = msgspec.structs.replace(row, deal=_aces_to(row.deal, 0))
        rows.append(row)
    write_log(path, rows)
    return path, run_audit(path, FAST)


def _is_ace(card):
    return parse_card(card).rank is Rank.ACE


def _aces_to(deal, seat):
    """The same deal with every ace moved into ``seat``'s hand (swapped for its first non-aces)."""
    hands = [list(h) for h in deal.hands]
    talons = [list(t) for t in deal.talons]
    for pile_index, pile in enumerate(hands + talons):
        if pile_index == seat:
            continue
        for i, card in enumerate(pile):
            if _is_ace(card):
                j = next(k for k, c in enumerate(hands[seat]) if not _is_ace(c))
                pile[i], hands[seat][j] = hands[seat][j], card
    return DealRecord(hands=hands, talons=talons)


def _fed_table(path, system, players, deals_each=10, names=None):
    """An evening of ``system`` at ``players`` seats, deals only, where seat 0 deals seat 1 every ace."""
    pattern = system.pattern(players)
    names = names or [f"P{i}" for i in range(players)]
    rng = np.random.default_rng(players)
    header = TableRecord(
        format="fairdeal-log",
        version=1,
        system=system.name,
        players=names,
        deck=pattern.deck.value,
        deal_pattern=pattern.name,
        dealing="physical",
    )
    rows = [header]
    for number in range(1, deals_each * players + 1):
        dealer = (number - 1) % players
        split = deal_order(rng.permutation(pattern.deck.codes()), pattern)
        hands = [to_ascii_list(h) for h in deal_by_seat(split, pattern, dealer, players)]
        deal = DealRecord(hands=hands, talons=[to_ascii_list(t) for t in split.talons])
        rows.append(HandRecord(hand=number, dealer=dealer, deal=_aces_to(deal, 1) if dealer == 0 else deal))
    write_log(path, rows)
    return path


def _talon_aces(path, dealer_seat):
    hands = [r for r in records(path) if isinstance(r, HandRecord) and r.dealer == dealer_seat]
    return len(hands), sum(_is_ace(c) for r in hands for t in r.deal.talons for c in t)


def _shown(x, lang):
    """A figure as the report prints it: whole from 10 up, else to one decimal (a decimal comma in Russian)."""
    text = f"{round(x):,}" if x >= 10 else f"{x:.1f}".removesuffix(".0")
    return text.replace(",", "\u00a0").replace(".", ",") if lang == "ru" else text


def _test(result, kind, dealer):
    return next(t for t in result.verdict.flagged() if t.kind == kind and t.dealer == dealer)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_stacked_dealer_is_told_in_sentences_with_the_counted_aces(stacked, lang):
    path, result = stacked
    deals, aces = _talon_aces(path, 1)
    talon = _test(result, "talon-aces", CHEAT)
    assert (talon.observed, talon.count) == (aces, deals)
    expected = _shown(talon.expected, lang)
    sentence = next(s for s in narrate(result, lang).evidence if f"{aces} " in s and CHEAT in s)
    if lang == "en":
        assert f"{aces} aces reached {CHEAT}'s talons in {deals} deals where {expected} are expected." in sentence
        assert "Holm-adjusted" in sentence and "raw p-value" in sentence
    else:
        assert f"Тузов в прикупе при сдаче {CHEAT}: {aces} за {deals} сдач" in sentence
        assert f"ожидается {expected}" in sentence and "Холма" in sentence
    assert about_one_in(talon.holm, lang) in sentence and about_one_in(talon.pvalue, lang) in sentence
    narrative = narrate(result, lang)
    assert CHEAT in narrative.headline
    assert len(narrative.evidence) == len(result.verdict.flagged())
    assert narrative.limits  # "what this does not show"


def test_the_clean_evening_says_what_was_tested_on_how_much_data(honest):
    _, result = honest
    v = result.verdict
    assert v.clean
    en, ru = narrate(result, "en"), narrate(result, "ru")
    assert en.headline == f"Nothing flagged in {v.hands} hands of {', '.join(v.players)}."
    assert f"Tested: {len(v.tests)} tests at the family-wise level 1 in 100" in en.limits[0]
    assert f"({v.hands} раздач;" in ru.headline
    assert f"{len(v.tests)} тест" in ru.limits[0]
    assert not en.evidence and not en.benefit
    assert any("does not prove" in s for s in en.limits)
    assert result.evidence is None  # nothing to draw


def test_the_evidence_hands_are_the_stacked_talons_drawn_with_their_cards(stacked):
    path, result = stacked
    hands = result.evidence.for_dealer(CHEAT)
    assert 0 < len(hands) <= HANDS_PER_DEALER
    logged = {r.hand: r for r in records(path) if isinstance(r, HandRecord)}
    for hand in hands:
        record = logged[hand.hand]
        assert record.dealer == 1 and hand.dealer == CHEAT
        assert [list(c) for _, c in hand.seats] == [list(h) for h in record.deal.hands]
        assert sum(_is_ace(c) for t in hand.talons for c in t) == 2  # a stacked talon: both aces
        assert hand.cutter == PLAYERS[0]  # the cheat's right-hand neighbour cuts
    page = render_html(result, "stacked", "en")
    for hand in hands:
        for card in (c for t in hand.talons for c in t):
            shown = str(parse_card(card))
            colour = "red" if parse_card(card).suit.is_red else "black"
            assert f"<span class='card {colour}'>{shown}</span>" in page
        assert f"hand {hand.hand} (line {hand.line}): dealt by {CHEAT}, cut by {PLAYERS[0]}" in page
    text = hand_text(hands[0], "ru")
    assert text[0].startswith(f"раздача {hands[0].hand}") and text[-1].split()[0] == "прикуп"


def test_a_fed_partner_is_named_with_the_dealer_who_fed_him(fed):
    path, result = fed
    assert ("Vera", "Anna") in beneficiary_pairs(result.verdict)
    count = result.evidence.seat_count("Vera", "Anna")
    deals = sum(1 for r in records(path) if isinstance(r, HandRecord) and r.dealer == 2)
    assert (count.deals, count.aces) == (deals, 4 * deals)
    en, ru = narrate(result, "en"), narrate(result, "ru")
    expected = _shown(count.expected, "en")
    assert f"Vera dealt; Anna received {4 * deals} aces in {deals} deals where {expected} are expected." in en.benefit
    assert any(f"Anna получил(а) тузов: {4 * deals} за {deals}" in s for s in ru.benefit)
    assert "Anna (received from Vera)" in en.headline
    drawn = result.evidence.for_dealer("Vera")
    assert drawn and all(h.why == "seat:Anna" for h in drawn)
    report = result.to_json()
    assert {"player": "Anna", "dealer": "Vera"}.items() <= report["beneficiaries"][0].items()
    assert "Anna (dealt by Vera)" in render_html(result, "fed")


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t[0].name}-{t[1]}p")
def test_every_system_and_table_size_names_the_fed_seat_with_its_dealer_and_draws_the_hands(tmp_path, table):
    system, players = table
    result = run_audit(_fed_table(tmp_path / "fed.jsonl", system, players), FAST)
    assert ("P0", "P1") in beneficiary_pairs(result.verdict)
    count = result.evidence.seat_count("P0", "P1")
    assert (count.deals, count.aces) == (10, 40)
    drawn = result.evidence.for_dealer("P0")
    assert drawn and all(h.why == "seat:P1" and sum(map(_is_ace, dict(h.seats)["P1"])) == 4 for h in drawn)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for lang in ("en", "ru"):
        assert any("P0" in s and "40" in s for s in narrate(result, lang).benefit)
        validator.validate(json.loads(json.dumps(result.to_json(lang))))
        assert hand_text(drawn[0], lang)[0]


def test_names_that_look_like_markup_or_templates_are_printed_as_names(tmp_path):
    names = ["<b>Anna</b>", "{dealer}'s {aces}", "Vera & Co"]
    result = run_audit(_fed_table(tmp_path / "odd.jsonl", TABLES[0][0], 3, names=names), FAST)
    assert (names[0], names[1]) in beneficiary_pairs(result.verdict)
    page = render_html(result, "odd")
    assert "<b>Anna</b>" not in page and "&lt;b&gt;Anna&lt;/b&gt; dealt; {dealer}&#x27;s {aces} received" in page
    assert "Vera &amp; Co" in page
    assert any(s.startswith("<b>Anna</b> dealt; {dealer}'s {aces} received 40 aces") for s in narrate(result).benefit)


def test_an_unknown_kind_or_a_template_without_its_fields_falls_back_to_the_generic_sentence():
    other = Result("dealer Boris", "a test added later", 3.5, 1e-4, 40, "a null", holm=1e-3, kind="new-kind")
    sentence = sentence_of_test(other, 10, "en")
    assert sentence.startswith(
        "dealer Boris: the test 'a test added later' over 40 observations gave the statistic 3.5."
    )
    assert "about 1 in 1,000" in sentence and "about 1 in 10,000" in sentence
    bare = Result("dealer Boris", "talon aces, total", 7.0, 0.5, 9, "a null", kind="talon-aces", dealer="Boris")
    assert sentence_of_test(bare, 1, "ru").startswith("dealer Boris: тест «talon aces, total» по 9 наблюдениям")


def test_shuffle_logging_is_said_in_words_never_as_zero_bits(honest):
    def quality(read, measured, bits):
        return DealerQuality("Anna", read, measured, bits, measured, {}, (0,))

    assert record_words(quality(10, 10, 0.0), "en") == "logged card by card"
    assert bits_words(quality(10, 10, 0.0), "en") == "-"
    assert record_words(quality(10, 0, 40.0), "en") == "shuffle not logged in detail"
    assert bits_words(quality(10, 0, 40.0), "en") == "at most 40 bits of chance"
    assert record_words(quality(10, 4, 12.0), "ru") == "покарточно в 4 из 10"
    assert bits_words(quality(10, 4, 12.0), "en") == "at most 20 bits of chance"
    _, result = honest
    page = render_html(result, "honest")
    assert "0 bits" not in page and "logged card by card" in page


def test_the_json_validates_against_its_schema_clean_flagged_and_many(stacked, honest, fed):
    validator = jsonschema.Draft202012Validator(SCHEMA)
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for path, _ in (stacked, honest, fed):
        for lang in ("en", "ru"):
            out = CliRunner().invoke(cli, ["audit", str(path), "--json", "--no-legality", "--lang", lang])
            report = json.loads(out.output)
            validator.validate(report)
            assert report["verdict"]["lang"] == lang
    many = CliRunner().invoke(cli, ["audit", str(stacked[0]), str(honest[0]), "--json", "--no-legality"])
    validator.validate(json.loads(many.output))
    flagged = json.loads(CliRunner().invoke(cli, ["audit", str(stacked[0]), "--json", "--no-legality"]).output)
    assert flagged["evidence_hands"] and flagged["summary"]["exit_code"] == 1
    broken = dict(flagged, verdict={"lang": "en"})
    assert not validator.is_valid(broken)


def test_every_phase_is_reported_and_help_lists_the_exit_codes(stacked):
    class Recorder(Phases):
        def __init__(self):
            self.names, self.read = [], 0

        def __call__(self, done, total):
            self.read += 1

        def phase(self, name):
            self.names.append(name)
            return lambda done, total: None

    recorder = Recorder()
    run_audit(stacked[0], RunOptions(legality=True, targeting=False, tells=False, draw_hands=True), recorder)
    assert recorder.names == ["legality replay", "statistics", "evidence hands"] and recorder.read
    help_text = CliRunner().invoke(cli, ["audit", "--help"]).output
    assert re.search(r"0\s+clean", help_text) and re.search(r"1\s+a finding", help_text)
    assert re.search(r"2\s+an input or usage error", help_text)
    quiet = CliRunner().invoke(cli, ["audit", str(stacked[0]), "--quiet", "--no-legality"])
    assert quiet.exit_code == 1 and "reading the log" not in quiet.output
    assert CliRunner().invoke(cli, ["audit", str(stacked[0]), "--lang", "fr"]).exit_code == 2


@given(st.floats(min_value=1e-11, max_value=1.0))
def test_one_in_n_is_within_five_percent_of_one_over_p(p):
    text = one_in(p, "en")
    scale = {"million": 1e6, "billion": 1e9}
    head, _, word = text.partition(" ")
    n = float(head.replace(",", "")) * scale.get(word, 1)
    assert n == pytest.approx(1 / p, rel=0.05)
    assert about_one_in(p, "ru").startswith("примерно 1 из ")


@given(st.integers(min_value=0, max_value=10**6))
def test_russian_plurals_follow_the_last_digits(n):
    form = ru_plural(n, ("сдача", "сдачи", "сдач"))
    last, tens = n % 10, n % 100
    assert form == (
        "сдача" if last == 1 and tens != 11 else "сдачи" if 2 <= last <= 4 and not 12 <= tens <= 14 else "сдач"
    )
    assert counted(n, "deal", "en").endswith("deal" if n == 1 else "deals")


def test_cards_are_drawn_sorted_by_suit_and_rank():
    assert card_line(("7H", "AS", "10S", "KC")) == "A♠ 10♠ K♣ 7♥"
    assert card_line(("7H", "AS"), sort=False) == "7♥ A♠"
