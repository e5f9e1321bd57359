"""The evening's end in fairdeal-mental-poker/4 (issue 13): a hand abandoned during play, or refused, ends the
evening; the party at fault (the player the witnessed abandon names, or the refused message's signer, or the
refuser of a sound one) is charged the abort penalty, every other seat signs the settlement with that end, the
log's end line carries the charge, and verify checks the charge lands on that party and on no one else."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from fairdeal.audit.legality import check_legality
from fairdeal.cli.dealing import _deal_evening
from fairdeal.engine.recount import sheet_from_log
from fairdeal.engine.scoring import abort_penalty
from fairdeal.errors import MentalPokerError
from fairdeal.protocols import signed
from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.mental_poker.player import Player, Unresponsive
from fairdeal.protocols.mental_poker.source import MentalPokerSource, SettlementRefused
from fairdeal.protocols.mental_poker.statements import SETTLEMENT
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_log
from fairdeal.systems import get_convention

# One table per kind of deal: three and four players, two with two talons (hussar) or a dummy (gusarik), five.
TABLES = [("sochi", 3), ("leningrad", 4), ("hussar", 2), ("gusarik-sochi", 2), ("preferans-1800s", 5)]
NAMES = ("ann", "bob", "cyd", "dan", "eve")


class StopsPlaying(Player):
    """Walks away at his first card of the hand."""

    def play(self, card: int) -> Any:
        raise Unresponsive()


class Paranoid(Player):
    """Refuses a sound deal message: a refusal without cause, naming nobody's fault."""

    def receive(self, message: Any) -> None:
        if isinstance(message, dict) and message.get("kind") == "deal":
            raise MentalPokerError("I do not like these shares", None, "deal")
        super().receive(message)


def ended(
    tmp_path: Path, system: str, players: int, who: str, kind: type[Player], refused: bool = False
) -> tuple[Path, MentalPokerSource]:
    """The evening played until ``who`` ends it; with ``refused``, a seat refuses its settlement, so it does not
    settle (``SettlementRefused``: the refused settlement filed, no settlement line in the log)."""
    names = NAMES[:players]
    # Room for 40 hands: the deals are random, and at five a walker may sit out or see passed-out hands for a while;
    # the evening ends at his first card anyway.
    spec = TableSpec("club", "friday", 40, names, get_convention(system))
    source = MentalPokerSource(spec, make_player=lambda setup, name: (kind if name == who else Player)(setup, name))
    if refused:
        with pytest.raises(SettlementRefused):
            _deal_evening(source, spec, "mental-poker", tmp_path)
    else:
        _deal_evening(source, spec, "mental-poker", tmp_path)
    return tmp_path / "evening.log", source


def blamed(report: Report) -> set[tuple[str, str]]:
    return {(f.party, f.check) for f in report.failures}


def settlement(log: Path) -> dict[str, Any]:
    value: dict[str, Any] = decode((log.parent / "evening.log.transcripts" / "settlement.json").read_bytes())
    return value


@pytest.mark.parametrize(("system", "players"), TABLES, ids=lambda v: str(v))
def test_a_player_who_walks_away_mid_play_is_charged_and_the_others_sign(
    tmp_path: Path, system: str, players: int
) -> None:
    log, source = ended(tmp_path, system, players, "bob", StopsPlaying)
    assert source.end is not None and source.end["charged"] == ["bob"] and source.refusals == []
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[-1]["type"] == "end"
    convention = get_convention(system)
    assert lines[-1]["penalty"] == [line.to_record() for line in abort_penalty(convention, 1, players)]
    signers = [s["sender"] for s in settlement(log)["statements"]]
    assert signers == [seat for seat in range(players) if seat != 1]
    report = verify_log(log)
    assert report.ok, [f.line() for f in report.failures]
    recount = sheet_from_log(log)
    assert recount.problems == ()
    assert [float(a) for a in recount.settlement.amounts] == pytest.approx(list(lines[-1]["settlement"].values()))
    assert sum(recount.settlement.amounts) == 0
    assert check_legality(log).findings == ()


def test_a_refusal_without_cause_charges_the_refuser(tmp_path: Path) -> None:
    log, source = ended(tmp_path, "sochi", 3, "cyd", Paranoid)
    assert source.end == {"hand": 1, "charged": ["cyd"]}
    report = verify_log(log)
    # The refuser broke off without cause: verify names him, and the settlement's end stands.
    assert blamed(report) == {("player cyd", "refusal")}


def resign(log: Path, source: MentalPokerSource, end: dict[str, Any], signers: Sequence[str]) -> None:
    """The settlement with another ``end``, validly signed by ``signers``: what colluding players could publish."""
    path = log.parent / "evening.log.transcripts" / "settlement.json"
    doc = decode(path.read_bytes())
    first = signed.parse(doc["statements"][0])
    body = dict(first.body, end=end)
    seating = source.seating
    assert seating is not None
    doc["statements"] = [
        signed.seal(
            source.identities[name], seating.context(0), NAMES.index(name), SETTLEMENT, body, first.prev
        ).to_json()
        for name in signers
    ]
    path.write_bytes(encode(doc))


def test_verify_puts_the_charge_on_the_walker_even_if_everyone_else_signs_another(tmp_path: Path) -> None:
    log, source = ended(tmp_path, "sochi", 3, "bob", StopsPlaying)
    end = dict(source.end or {})
    resign(log, source, dict(end, charged=["ann"]), ["bob", "cyd"])
    assert ("record", "settlement end") in blamed(verify_log(log))
    resign(log, source, dict(end, charged=[]), ["ann", "bob", "cyd"])
    assert ("record", "settlement end") in blamed(verify_log(log))


def test_a_truncated_or_altered_log_after_the_end_fails(tmp_path: Path) -> None:
    log, _ = ended(tmp_path, "sochi", 3, "bob", StopsPlaying)
    text = log.read_text().splitlines()
    end = json.loads(text[-1])
    log.write_text("\n".join([*text[:-1], json.dumps(dict(end, penalty=[dict(end["penalty"][0], seat=0)]))]) + "\n")
    assert ("record", "end penalty") in blamed(verify_log(log))
    log.write_text("\n".join(text[:-1]) + "\n")
    assert ("record", "game log") in blamed(verify_log(log))
    log.write_text("\n".join(text) + "\n")
    stopped = sorted((log.parent / "evening.log.transcripts").glob("hand-*.json"))[-1]
    stopped.unlink()  # the end's evidence dropped
    assert not verify_log(log).ok


def statements(log: Path) -> list[Any]:
    return [signed.parse(s) for s in settlement(log)["statements"]]


@pytest.mark.parametrize(("system", "players"), [("sochi", 3), ("leningrad", 4), ("hussar", 2)], ids=str)
def test_honest_players_refuse_a_settlement_after_a_false_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, system: str, players: int
) -> None:
    import fairdeal.protocols.mental_poker.source as mp_source

    # The service charges ann for bob's walk-away: every player asked checks the end against the stopped hand and
    # signs a refusal instead of the settlement, which does not settle the evening (the log has no settlement
    # line); verify names the publisher, never a player.
    monkeypatch.setattr(mp_source, "_at_fault", lambda stopped, players: ["ann"])
    log, source = ended(tmp_path, system, players, "bob", StopsPlaying, refused=True)
    assert "end" not in [json.loads(line)["type"] for line in log.read_text().splitlines()]
    asked = list(NAMES[1:players])
    assert source.end is not None and source.end["charged"] == ["ann"] and source.refusals == asked
    signed_ = statements(log)
    assert [(e.sender, e.body["agrees"]) for e in signed_] == [(seat, False) for seat in range(1, players)]
    assert all("the stopped hand proves {'hand'" in e.body["reason"] and "'bob'" in e.body["reason"] for e in signed_)
    report = verify_log(log)
    assert blamed(report) == {("record", "settlement")}  # the amounts proposed carry the false charge too
    assert not any(f.party.startswith("player ") for f in report.failures), [f.line() for f in report.failures]


def test_honest_players_refuse_an_end_that_charges_no_one_or_amounts_off_the_sheet(tmp_path: Path) -> None:
    from fairdeal.protocols.mental_poker.statements import settlement_proposal

    log, source = ended(tmp_path, "sochi", 3, "bob", StopsPlaying)
    assert source.refusals == []
    seating = source.seating
    assert seating is not None and source.end is not None
    honest = statements(log)[0].body
    amounts = [Fraction(honest["settlement"][name]) for name in NAMES[:3]]
    for end, paid in (
        ({"hand": source.end["hand"], "charged": []}, amounts),
        (source.end, [amounts[1], amounts[0], amounts[2]]),
    ):
        source.end = end
        proposal = settlement_proposal(seating, honest["hands"], honest["last"], paid, end)
        assert proposal != honest
        doc = source.close_session(paid)
        assert doc is not None and source.refusals == [n for n in NAMES[:3] if n not in end["charged"]]
        assert all(signed.parse(s).body["agrees"] is False for s in doc["statements"])


def test_a_player_who_refuses_an_honest_settlement_is_named(tmp_path: Path) -> None:
    from fairdeal.protocols.mental_poker.statements import sign_settlement

    log, source = ended(tmp_path, "sochi", 3, "bob", StopsPlaying)
    assert verify_log(log).ok
    seating = source.seating
    assert seating is not None
    path = log.parent / "evening.log.transcripts" / "settlement.json"
    doc = decode(path.read_bytes())
    proposal = dict(signed.parse(doc["statements"][1]).body)
    doc["statements"][1] = sign_settlement(source.identities["cyd"], seating, proposal, "I do not like the end")
    path.write_bytes(encode(doc))
    report = verify_log(log)
    assert blamed(report) == {("player cyd", "settlement refusal")}
