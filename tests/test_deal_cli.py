"""`fairdeal deal` takes what `fairdeal play` takes: every system, 2-5 players as the system allows, --seed, --names,
--pulya, --rule and --json, with the same meaning; the same seed deals the same evening."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairdeal.cli import cli
from fairdeal.systems import conventions


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def transcripts(out: Path) -> list[dict]:
    folder = out / "evening.log.transcripts"
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("hand-*.json"))]


def published_deal(doc: dict) -> dict:
    """The deal a transcript publishes: v4 in the service's signed hand-close, mental poker at the top."""
    if doc.get("protocol") == "fairdeal-commit-reveal/4":
        return next(m["body"]["deal"] for m in doc["messages"] if m["kind"] == "hand-close")
    return doc["deal"]


def test_the_system_option_lists_every_registered_convention():
    result = run("deal", "--help")
    text = " ".join(result.output.split())
    assert result.exit_code == 0
    for name in conventions():
        assert name in text


def test_the_same_seed_deals_the_same_commit_reveal_evening_byte_for_byte(tmp_path):
    for folder in ("a", "b", "c"):
        seed = "5" if folder != "c" else "6"
        assert run("deal", "--seed", seed, "--hands", "3", "--out", str(tmp_path / folder)).exit_code == 0
    names = sorted(p.name for p in (tmp_path / "a" / "evening.log.transcripts").iterdir())
    for name in names:
        first, again = (tmp_path / f / "evening.log.transcripts" / name for f in ("a", "b"))
        assert first.read_bytes() == again.read_bytes()
    assert [published_deal(d) for d in transcripts(tmp_path / "a")] != [
        published_deal(d) for d in transcripts(tmp_path / "c")
    ]


def test_the_same_seed_deals_the_same_mental_poker_hands(tmp_path):
    for folder, seed in (("a", "2"), ("b", "2"), ("c", "3")):
        result = run(
            "deal", "--protocol", "mental-poker", "--seed", seed, "--hands", "2", "--out", str(tmp_path / folder)
        )
        assert result.exit_code == 0, result.output
    deals = {f: [d["deal"] for d in transcripts(tmp_path / f)] for f in "abc"}
    assert deals["a"] == deals["b"] != deals["c"]
    messages = [d["messages"][0] for d in transcripts(tmp_path / "a") + transcripts(tmp_path / "b")]
    assert messages[0] != messages[2]  # keys stay OS-random: only the shuffles come from the seed


def test_names_rules_and_pulya_reach_the_statement_and_the_log(tmp_path):
    result = run(
        "deal",
        "--system",
        "rostov",
        "--players",
        "4",
        "--names",
        "Ann,Ben,Cat,Dan",
        "--hands",
        "1",
        "--rule",
        "raspasy.price_per_trick=3",
        "--pulya",
        "15",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    header = json.loads((tmp_path / "evening.log").read_text(encoding="utf-8").splitlines()[0])
    assert header["players"] == ["Ann", "Ben", "Cat", "Dan"] and header["pulya"] == 15
    assert header["convention"] == {"raspasy.price_per_trick": 3}
    statement = transcripts(tmp_path)[0]["roster"]["roster"]
    assert [p["name"] for p in statement["seats"]] == ["Ann", "Ben", "Cat", "Dan"]
    assert (statement["system"], statement["convention"], statement["pulya"]) == (
        "rostov",
        {"raspasy.price_per_trick": 3},
        15,
    )
    assert run("verify", "--log", str(tmp_path / "evening.log")).exit_code == 0


@pytest.mark.parametrize("protocol", ["commit-reveal", "mental-poker"])
def test_json_reports_the_evening(tmp_path, protocol):
    result = run(
        "deal",
        "--protocol",
        protocol,
        "--system",
        "hussar",
        "--hands",
        "2",
        "--seed",
        "4",
        "--json",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["system"], data["protocol"], data["seed"], data["hands"]) == ("hussar", protocol, 4, 2)
    assert data["log"] == str(tmp_path / "evening.log") and sum(data["settlement"].values()) == 0


def test_json_of_deal_only_lists_each_transcript(tmp_path):
    result = run("deal", "--system", "gusarik-rostov", "--deal-only", "--hands", "2", "--json", "--out", str(tmp_path))
    data = json.loads(result.output)
    assert result.exit_code == 0 and [h["hand"] for h in data["dealt"]] == [1, 2]
    assert all(Path(h["file"]).exists() for h in data["dealt"]) and data["players"] == ["Anna", "Boris"]


@pytest.mark.parametrize(
    "args,message",
    [
        (("--system", "croatian", "--players", "5"), "croatian is played by 3 players, not 5"),
        (("--names", "a,b"), "give 3 distinct non-empty names"),
        (("--rule", "raspasy.nonesuch=1"), "convention.raspasy.nonesuch: no such parameter"),
        (("--players", "6"), "6 is not in the range 2<=x<=5"),
    ],
)
def test_bad_options_give_one_clear_error(tmp_path, args, message):
    result = run("deal", *args, "--out", str(tmp_path))
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
