"""``fairdeal audit --json``: the statistics of ``AuditResult`` with the verdict in sentences, the beneficiaries
with their dealers and the evidence hands; the layout is ``protocols/audit-report.schema.json``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fairdeal.audit.report.evidence import SEAT_KINDS
from fairdeal.audit.report.narrative import beneficiary_pairs, hand_caption, narrate
from fairdeal.audit.report.shuffles import record_kind
from fairdeal.errors import one_line

if TYPE_CHECKING:
    from fairdeal.audit.report.evidence import DrawnHand
    from fairdeal.audit.run import AuditResult

FORMAT = "fairdeal-audit-report"
VERSION = 1


def report_json(result: AuditResult, statistics: dict[str, Any], lang: str) -> dict[str, Any]:
    """The whole report: ``statistics`` (the result's own JSON) with the reader's parts put after its summary."""
    v = result.verdict
    tests = statistics["tests"]
    beneficiaries = [
        {
            "player": player,
            "dealer": dealer,
            "evidence": [
                t for t in tests if t.get("dealer") == dealer and t.get("player") == player and t["kind"] in SEAT_KINDS
            ],
        }
        for dealer, player in beneficiary_pairs(v)
    ]
    hands = [_hand_json(h, lang) for h in result.evidence.hands] if result.evidence is not None else None
    for dealer, quality in zip(statistics["quality"]["dealers"], v.quality_dealers):
        dealer["shuffle_record"] = record_kind(quality)
    summary, rest = statistics["summary"], {k: x for k, x in statistics.items() if k != "summary"}
    return {
        "format": FORMAT,
        "version": VERSION,
        "summary": summary,
        "verdict": narrate(result, lang).to_json(),
        "beneficiaries": beneficiaries,
        "evidence_hands": hands,
        **rest,
    }


def _hand_json(hand: DrawnHand, lang: str) -> dict[str, Any]:
    return {
        "line": hand.line,
        "hand": hand.hand,
        "dealer": hand.dealer,
        "cutter": hand.cutter,
        "declarer": hand.declarer,
        "why": hand.why,
        "caption": hand_caption(hand, lang),
        "seats": [{"player": player, "cards": list(cards)} for player, cards in hand.seats],
        "talons": [list(t) for t in hand.talons],
        "shuffle": None if hand.shuffle is None else one_line(hand.shuffle),
    }
