"""Conventions as data: the eight characteristics of seed 003 per convention, Mail.Ru's from seed 002."""

import dataclasses
import inspect
import re
from fractions import Fraction
from pathlib import Path

import pytest

import fairdeal.engine.countdown as countdown
import fairdeal.engine.numbers as numbers
import fairdeal.engine.pot as pot
import fairdeal.engine.scoring as scoring
import fairdeal.engine.settlement as settlement
import fairdeal.engine.suits as suits
from fairdeal.errors import ConventionError, FairdealError
from fairdeal.rules import LENINGRAD, MAILRU, ROSTOV, SOCHI
from fairdeal.rules import convention as convention_module
from fairdeal.rules.table import markdown_table
from fairdeal.systems import conventions, get_convention


def test_get_convention_by_name_and_a_miss_lists_known_names():
    assert get_convention("Sochi") is SOCHI
    assert all(get_convention(name).name == name for name in conventions())
    with pytest.raises(
        ConventionError, match=r"known systems: austrian, .*, classic, codex, croatian, gusarik-leningrad, .*, sochi"
    ):
        get_convention("piter")
    assert issubclass(ConventionError, FairdealError)


@pytest.mark.parametrize(
    "conv, responsibility, consolation, greedy",
    [
        (SOCHI, Fraction(1), "game_value", True),  # 003 Сочинка 1)–3)
        (LENINGRAD, Fraction(1, 2), "game_value", False),  # 003 Ленинградка 1)–3)
        (ROSTOV, Fraction(1, 2), "fixed", False),  # 003 Ростов 1)–3): «10 вистов»
    ],
)
def test_seed003_whist_characteristics(conv, responsibility, consolation, greedy):
    assert conv.scoring.whist_responsibility == responsibility
    assert conv.scoring.consolation == consolation
    assert conv.defence.greedy_whist is greedy
    assert ROSTOV.scoring.consolation_fixed == 10


@pytest.mark.parametrize(
    "conv, mode, price, progression, series, talon_leads",
    [
        (SOCHI, "gora", 1, "arithmetic", (1, 2, 3), True),  # 4) «по одному очку», 5) «(1–2–3)», 7)
        (LENINGRAD, "gora", 2, "arithmetic", (2, 4, 6), True),  # 4) «по два очка», 5) «(2–4–6)», 7)
        (ROSTOV, "whists", 5, "none", (5, 5, 5), False),  # 4) «по пять вистов», 5), 7) «не открывается»
    ],
)
def test_seed003_raspasy_characteristics(conv, mode, price, progression, series, talon_leads):
    rules = conv.raspasy
    assert (rules.mode, rules.price_per_trick, rules.progression, rules.talon_leads) == (
        mode,
        price,
        progression,
        talon_leads,
    )
    assert tuple(price * rules.multiplier(k) for k in range(3)) == series
    # 6) «за ноль взяток ... стоимость одной взятки»: the base price where raspasy go to gora; Rostov writes the
    # «единицу» of 7) («сдатчик пишет единицу в пульку как за ноль взяток»).
    assert rules.zero_trick_reward == (price if mode == "gora" else 1)


def test_seed003_end_of_pulya():
    """003 8): Сочинка/Ростов — each reaches the pulya and helps; Ленинградка — total x players, double difference."""
    assert SOCHI.pulya.end == ROSTOV.pulya.end == "each"
    assert SOCHI.pulya.after_close == ROSTOV.pulya.after_close == "help"
    assert SOCHI.pulya.help_whist_factor == 10
    assert LENINGRAD.pulya.end == "total" and LENINGRAD.pulya.pulya_difference_factor == 2


def test_seed002_mailru_characteristics():
    assert MAILRU.players == (3,)
    assert MAILRU.bidding.no_talon_levels == frozenset({9, 10}) and MAILRU.bidding.misere_without_talon
    assert MAILRU.bidding.jumps_allowed and not SOCHI.bidding.jumps_allowed
    assert MAILRU.bidding.raspasy_exit_levels == (6, 6, 7, 8)
    assert MAILRU.defence.quotas == ((6, 4), (7, 2), (8, 1), (9, 1), (10, 1))
    assert MAILRU.defence.half_whist and MAILRU.defence.concede_three
    assert MAILRU.raspasy.payers == "all_but_fewest"
    assert MAILRU.pulya.after_close == "whists_on_all"


def test_book_defaults_from_seed000():
    book = (c for c in conventions().values() if c.table.deck == "piquet32" and c.scoring.method == "pulya")
    for conv in book:  # Hussar has its own prices; the seed-003 sheets (countdown, pot) their own
        assert conv.scoring.contract_values == ((6, 2), (7, 4), (8, 6), (9, 8), (10, 10))
        assert conv.scoring.misere_value == 10
        assert conv.pulya.gora_multiplier == 10
        assert conv.bidding.misere_beats_up_to == "8NT" and conv.bidding.misere_first_bid_only


def test_house_rule_is_a_replace():
    house = dataclasses.replace(SOCHI, name="sochi-2", raspasy=dataclasses.replace(SOCHI.raspasy, price_per_trick=2))
    assert house.raspasy.price_per_trick == 2 and SOCHI.raspasy.price_per_trick == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        SOCHI.name = "x"


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: convention_module.DefenceRules(quotas=((6, 4),)), "quotas must list the levels"),
        (lambda: convention_module.BiddingRules(raspasy_exit_levels=(5,)), "raspasy_exit_levels"),
        (lambda: convention_module.PulyaRules(size=0), "pulya size"),
        (lambda: convention_module.RaspasyRules(progression_cap=0), "progression_cap"),
        (lambda: dataclasses.replace(SOCHI, players=()), "players"),
        (lambda: convention_module.TableRules(deal_pattern="hussar"), "is not the deck of pattern hussar"),
        (lambda: convention_module.TableRules(deal_pattern="gusarik", hand_players=2), "and a dummy"),
        (lambda: convention_module.TableRules(deal_pattern="whist"), "table.deal_pattern"),
    ],
)
def test_bad_parameters_raise_convention_error(build, message):
    with pytest.raises(ConventionError, match=message):
        build()


def test_geometric_progression_and_cap():
    rules = dataclasses.replace(SOCHI.raspasy, progression="geometric", progression_cap=None)
    assert [rules.multiplier(k) for k in range(4)] == [1, 2, 4, 8]
    assert [SOCHI.raspasy.multiplier(k) for k in range(5)] == [1, 2, 3, 3, 3]


def test_scoring_never_reads_a_convention_name():
    """DESIGN: «the engine reads parameters, it never branches on a convention's name»."""
    for module in (scoring, settlement, countdown, pot, numbers, suits):
        source = inspect.getsource(module)
        assert re.search(r"\.name\b", source) is None
        for name in conventions():
            assert f'"{name}"' not in source.lower()


def _comment_above(lines: list[str], index: int) -> str:
    """The comment block above a field line, skipping fields that share it."""
    i = index - 1
    while i >= 0 and not lines[i].strip().startswith("#") and ":" in lines[i]:
        i -= 1
    block = []
    while i >= 0 and lines[i].strip().startswith("#"):
        block.append(lines[i])
        i -= 1
    return "\n".join(block)


@pytest.mark.parametrize(
    "group", ["BiddingRules", "DefenceRules", "RaspasyRules", "ScoringRules", "PulyaRules", "TableRules", "PlayRules"]
)
def test_every_parameter_carries_a_seed_citation(group):
    """Each parameter sits under a comment quoting a seed («...») or naming one (000, 002, 003)."""
    cls = getattr(convention_module, group)
    lines = inspect.getsource(cls).splitlines()
    for f in dataclasses.fields(cls):
        index = next(i for i, line in enumerate(lines) if line.startswith(f"    {f.name}:"))
        comment = _comment_above(lines, index)
        assert "«" in comment or any(seed in comment for seed in ("000", "002", "003")), f"{group}.{f.name}"


def test_docs_conventions_table_matches_the_values():
    doc = Path(__file__).resolve().parents[1] / "docs" / "conventions.md"
    assert markdown_table(list(conventions().values())) in doc.read_text(encoding="utf-8")
