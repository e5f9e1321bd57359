"""House rules as data: every parameter round-trips through the header's JSON form, bad rules get one clear error,
and a house-rule evening reads back with no finding."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fairdeal.cli import cli
from fairdeal.errors import ConventionError
from fairdeal.rules import SOCHI, parse_rule, with_overrides
from fairdeal.rules.overrides import _value_of, parameter_types, to_json
from fairdeal.systems import conventions, house_rules, rebuild_convention

PATHS = sorted(parameter_types())
ALL = tuple(conventions().values())


def test_a_registered_convention_has_no_house_rules() -> None:
    for convention in ALL:
        assert house_rules(convention) == {}
        assert rebuild_convention(convention.name, {}) == convention


@settings(max_examples=300, deadline=None)
@given(base=st.sampled_from(ALL), donor=st.sampled_from(ALL), paths=st.lists(st.sampled_from(PATHS), max_size=4))
def test_any_mix_of_parameters_round_trips_through_json(base, donor, paths) -> None:
    overrides = {path: to_json(_value_of(donor, path)) for path in paths}
    try:
        changed = with_overrides(base, json.loads(json.dumps(overrides)))
    except ConventionError:
        assume(False)
    header = json.loads(json.dumps(house_rules(changed)))
    assert rebuild_convention(base.name, header) == changed
    assert set(header) <= set(paths)


def test_every_parameter_of_every_convention_is_expressible() -> None:
    for convention in ALL:
        for path in PATHS:
            value = json.loads(json.dumps(to_json(_value_of(convention, path))))
            assert _value_of(with_overrides(convention, {path: value}), path) == _value_of(convention, path)


def test_the_agreed_pulya_is_the_headers_own_field() -> None:
    assert "pulya.size" not in PATHS
    assert rebuild_convention("sochi", {}, 30).pulya.size == 30
    assert house_rules(replace(SOCHI, pulya=replace(SOCHI.pulya, size=30))) == {}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"raspasy.price": 2}, "convention.raspasy.price: no such parameter"),
        ({"price_per_trick": 2}, "did you mean raspasy.price_per_trick"),
        ({"raspasy.price_per_trick": "two"}, "convention.raspasy.price_per_trick: expected a whole number"),
        ({"raspasy.price_per_trick": True}, "expected a whole number"),
        ({"raspasy.progression": "cubic"}, "expected 'none' or 'arithmetic' or 'geometric'"),
        ({"defence.greedy_whist": 1}, "expected true or false"),
        ({"scoring.whist_responsibility": "1/0"}, "a fraction such as 1/2"),
        ({"bidding.no_talon_levels": 9}, "a list of a whole number"),
        ({"raspasy.price_per_trick": -1}, "must not be negative"),
        ({"table.deal_pattern": "hussar"}, "table.deck"),
    ],
)
def test_a_bad_rule_is_one_clear_error(overrides, message) -> None:
    with pytest.raises(ConventionError, match=None) as caught:
        with_overrides(SOCHI, overrides)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_command_line_values_are_json_or_bare_words() -> None:
    assert parse_rule("raspasy.price_per_trick=2") == ("raspasy.price_per_trick", 2)
    assert parse_rule("raspasy.progression = geometric") == ("raspasy.progression", "geometric")
    assert parse_rule("bidding.no_talon_levels=[9, 10]") == ("bidding.no_talon_levels", [9, 10])
    assert parse_rule("scoring.whist_responsibility=1/2") == ("scoring.whist_responsibility", "1/2")
    with pytest.raises(ConventionError, match=r"expected group.field=VALUE"):
        parse_rule("raspasy.price_per_trick")


def test_a_house_rule_evening_reads_back_with_no_finding(tmp_path) -> None:
    log = tmp_path / "evening.jsonl"
    runner = CliRunner()
    played = runner.invoke(
        cli,
        [
            "play",
            "--system",
            "sochi",
            "--rule",
            "raspasy.price_per_trick=2",
            "--rule",
            "defence.greedy_whist=no",
            "--hands",
            "30",
            "--seed",
            "11",
            "--out",
            str(log),
        ],
    )
    assert played.exit_code == 0, played.output
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["convention"] == {"defence.greedy_whist": False, "raspasy.price_per_trick": 2}
    for command in (["sheet", str(log)], ["log", "validate", str(log)]):
        result = runner.invoke(cli, command)
        assert result.exit_code == 0, result.output
    audit = runner.invoke(cli, ["audit", str(log), "--json"])
    report = json.loads(audit.output)
    assert audit.exit_code == 0 and report["summary"]["findings_by_kind"] == {}, audit.output


def test_the_same_evening_without_its_rule_is_caught(tmp_path) -> None:
    log = tmp_path / "evening.jsonl"
    runner = CliRunner()
    runner.invoke(
        cli, ["play", "--rule", "raspasy.price_per_trick=3", "--hands", "40", "--seed", "2", "--out", str(log)]
    )
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    del header["convention"]
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    report = json.loads(runner.invoke(cli, ["audit", str(log), "--json"]).output)
    assert "cooked-score" in report["summary"]["findings_by_kind"]


def test_play_refuses_a_bad_rule_in_one_line() -> None:
    result = CliRunner().invoke(cli, ["play", "--rule", "raspasy.price=2", "--hands", "1"])
    assert result.exit_code == 2
    assert "convention.raspasy.price: no such parameter" in result.output


def test_validate_names_a_bad_override_in_the_header(tmp_path) -> None:
    log = tmp_path / "bad.jsonl"
    runner = CliRunner()
    runner.invoke(cli, ["play", "--hands", "2", "--seed", "1", "--out", str(log)])
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["convention"] = {"raspasy.price_per_trick": "lots"}
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    result = runner.invoke(cli, ["log", "validate", str(log)])
    assert result.exit_code != 0
    assert ":1: convention.raspasy.price_per_trick: expected a whole number" in result.output
