"""The verdict in sentences: what is flagged and by how much, who benefited from whom, the rules broken, and what
the audit does not show — or, for a clean audit, what was tested on how much data.

Every sentence is filled from the verdict's own fields by the templates of ``templates``; a template that does not
fit its test (a field it needs is absent, a kind nobody wrote a template for) gives way to the generic sentence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairdeal.audit.features import tests as features
from fairdeal.audit.report import templates as words
from fairdeal.audit.report.evidence import SEAT_KINDS, TALON_KINDS, DrawnHand, Evidence
from fairdeal.audit.report.numbers import about_one_in, check_language, counted, number, one_in
from fairdeal.audit.verdict import CERTAIN_FINDINGS, DEALER_FINDINGS, RULE_FINDINGS
from fairdeal.cards import Rank, parse_card
from fairdeal.errors import FairdealError, one_line

if TYPE_CHECKING:
    from fairdeal.audit.run import AuditResult
    from fairdeal.audit.verdict import TestResult, Verdict

SHOWN_NUMBERS = 8  # hand numbers quoted in a finding's sentence
NAME_CHARS = 40  # a name as a sentence quotes it (the log's names are unbounded; keyed JSON fields keep them whole)
SENTENCE_CHARS = 480  # a sentence stays one readable line even when a log's names or messages are absurd
NOUN_OF_KIND = {"cut-depth": ("cuts", "cut"), "lazy-shuffle": ("shuffles", "shuffle")}
FAMILY_OF_KIND = {
    "talon-aces": "talon",
    "talon-value": "talon",
    "talon-aces-eprocess": "talon",
    "talon-aces-depth": "talon",
    "talon-same-effort": "talon",
    "hand-value": "hand",
    "talon-rank": "hand",
    "hand-same-effort": "hand",
    "cut-depth": "cut",
    "lazy-shuffle": "shuffle",
    "aces-together": "shuffle",
    "battery": "generator",
    **dict.fromkeys(features.SEAT_KINDS, "hand"),
    **dict.fromkeys(features.TALON_KINDS, "talon"),
}


@dataclass(frozen=True)
class Narrative:
    """The report's sentences in one language."""

    lang: str
    headline: str
    evidence: tuple[str, ...]  # one sentence per flagged test
    benefit: tuple[str, ...]  # who benefited from whom
    findings: tuple[str, ...]  # findings no honest hand shows, and rules broken, in plain words
    limits: tuple[str, ...]  # what this does not show, or what a clean audit tested

    def __post_init__(self) -> None:
        for name in ("headline", "evidence", "benefit", "findings", "limits"):
            value = getattr(self, name)
            capped = one_line(value, SENTENCE_CHARS) if isinstance(value, str) else tuple(map(_capped, value))
            object.__setattr__(self, name, capped)

    def paragraphs(self) -> tuple[str, ...]:
        return (self.headline, *self.evidence, *self.benefit, *self.findings, *self.limits)

    def to_json(self) -> dict[str, Any]:
        return {
            "lang": self.lang,
            "headline": self.headline,
            "evidence": list(self.evidence),
            "benefit": list(self.benefit),
            "findings": list(self.findings),
            "limits": list(self.limits),
        }


def _capped(sentence: str) -> str:
    return one_line(sentence, SENTENCE_CHARS)


def who(name: str) -> str:
    """A name as a sentence quotes it: control characters escaped, a long name cut in the middle."""
    return one_line(name, NAME_CHARS)


def _fill(template: str, fields: Mapping[str, object]) -> str | None:
    try:
        return template.format_map(fields)
    except (KeyError, IndexError, ValueError, AttributeError):
        return None  # the template asks for a field this test does not carry


def _figure(x: float, lang: str) -> str:
    """A count or a score as a person reads it: whole numbers whole, others to one decimal."""
    if math.isfinite(x) and (abs(x - round(x)) < 1e-9 or abs(x) >= 10):
        return number(round(x), lang)
    return number(x, lang, 1)


def _e_value(log_e: float, lang: str) -> str:
    """exp(log_e) in words: "8,300", "2.1 million" or "10^35"."""
    return one_in(math.exp(-log_e), lang)


def fields_of_test(t: TestResult, lang: str) -> dict[str, object]:
    """Everything a template may use of one test (absent fields are left out)."""
    plural, noun = NOUN_OF_KIND.get(t.kind, ("deals", "deal"))
    fields: dict[str, object] = {
        "subject": t.subject,
        "test": t.test,
        "count": number(t.count, lang),
        "deals": counted(t.count, "deal", lang),
        plural: counted(t.count, noun, lang),
        "statistic": _figure(t.statistic, lang),
    }
    if t.kind == "talon-aces-eprocess":
        fields["e_value"] = _e_value(t.statistic, lang)
    for key, value in (("dealer", t.dealer), ("player", t.player)):
        if value is not None:
            fields[key] = who(value)
    for key, x in (("observed", t.observed), ("expected", t.expected), ("bound", t.bound)):
        if x is not None:
            fields[key] = _figure(x, lang)
    return fields


def sentence_of_test(t: TestResult, tests: int, lang: str) -> str:
    """One flagged test in words, then its chance under honest play (Holm-adjusted and raw)."""
    lang = check_language(lang)
    fields = fields_of_test(t, lang)
    template = words.TESTS.get(t.kind, {}).get(lang)
    text = (_fill(template, fields) if template else None) or _fill(words.GENERIC[lang], fields)
    assert text is not None  # the generic template uses only fields every test carries
    chance = {
        "chance": about_one_in(t.holm, lang),
        "raw_chance": about_one_in(t.pvalue, lang),
        "tests": counted(tests, "test", lang),
    }
    return text + words.CHANCE[lang].format_map(chance)


def narrate(result: AuditResult, lang: str = "en") -> Narrative:
    """The verdict of ``result`` in sentences."""
    lang = check_language(lang)
    v = result.verdict
    evidence = result.evidence
    flagged = sorted(v.flagged(), key=lambda t: (t.dealer or "", t.holm))
    sentences = tuple(sentence_of_test(t, len(v.tests), lang) for t in flagged)
    findings = _finding_sentences(v, lang)
    if v.clean:
        return Narrative(lang, _clean_headline(v, lang), (), (), findings, _tested(result, lang))
    return Narrative(
        lang, _headline(v, lang), sentences, _benefit(v, evidence, lang), findings, _limits(v, evidence, lang)
    )


def _names(v: Verdict, lang: str) -> list[str]:
    names = [who(name) for name in v.suspects()]
    received = words.PHRASES["received"][lang]
    names += [received.format(player=who(p), dealer=who(d)) for d, p in beneficiary_pairs(v) if p not in v.suspects()]
    if v.generator_flagged():
        names.append(words.PHRASES["generator"][lang])
    return names or list(v.rule_breakers())


def beneficiary_pairs(v: Verdict) -> tuple[tuple[str, str], ...]:
    """(dealer, player) of every Holm-significant test of a seat's hand: the beneficiary always with his dealer."""
    pairs = {(t.dealer, t.player) for t in v.flagged() if t.kind in SEAT_KINDS and t.dealer and t.player}
    return tuple(sorted((d, p) for d, p in pairs if d is not None and p is not None))


def _headline(v: Verdict, lang: str) -> str:
    names = ", ".join(_names(v, lang))
    if not v.flagged():
        return words.PHRASES["certain"][lang].format(names=names)
    return words.PHRASES["flagged"][lang].format(
        names=names,
        flagged=number(len(v.flagged()), lang),
        tests=counted(len(v.tests), "test", lang),
        level=_level(v.alpha, lang),
    )


def _level(alpha: float, lang: str) -> str:
    return about_one_in(alpha, lang).split(" ", 1)[1]  # "1 in 100": the level is exact, not "about"


def _clean_headline(v: Verdict, lang: str) -> str:
    players = ", ".join(map(who, v.players))
    return words.PHRASES["clean"][lang].format(hands=counted(v.hands, "hand", lang), players=players)


def _tested(result: AuditResult, lang: str) -> tuple[str, ...]:
    v = result.verdict
    families = sorted({FAMILY_OF_KIND.get(t.kind, "") for t in v.tests} - {""})
    kinds = ", ".join(words.KIND_NAMES[f][lang] for f in families) or "-"
    legality = result.legality
    replay = (
        words.PHRASES["legality"][lang].format(
            replayed=number(legality.replayed, lang), hands=counted(legality.hands, "hand", lang)
        )
        if legality is not None and legality.hands
        else words.PHRASES["no-legality"][lang]
    )
    tested = words.PHRASES["tested"][lang].format(
        tests=counted(len(v.tests), "test", lang), level=_level(v.alpha, lang), kinds=kinds, legality=replay
    )
    return (tested, *_skipped(v, lang), words.PHRASES["limit-clean"][lang])


def _skipped(v: Verdict, lang: str) -> tuple[str, ...]:
    skipped = [n for n in v.notes if "skipped" in n or "not checked" in n or "not applied" in n]
    return (words.PHRASES["skipped"][lang].format(what="; ".join(skipped)),) if skipped else ()


def _limits(v: Verdict, evidence: Evidence | None, lang: str) -> tuple[str, ...]:
    out = [words.PHRASES["limit-how"][lang]]
    if beneficiary_pairs(v) or (evidence is not None and evidence.talon_takers):
        out.append(words.PHRASES["limit-benefit"][lang])
    if evidence is not None and evidence.hands:
        out.append(words.PHRASES["limit-log"][lang])
    return (*out, *_skipped(v, lang))


def _benefit(v: Verdict, evidence: Evidence | None, lang: str) -> tuple[str, ...]:
    out = []
    for dealer, player in beneficiary_pairs(v):
        count = evidence.seat_count(dealer, player) if evidence is not None else None
        if count is None:
            continue
        out.append(
            words.PHRASES["benefit"][lang].format(
                dealer=who(dealer),
                player=who(player),
                aces=counted(count.aces, "ace", lang) if lang == "en" else number(count.aces, lang),
                deals=counted(count.deals, "deal", lang),
                expected=_figure(count.expected, lang),
            )
        )
    talon_dealers = sorted({t.dealer for t in v.flagged() if t.dealer and t.kind in TALON_KINDS})
    for dealer in talon_dealers:
        takers = [t for t in (evidence.talon_takers if evidence else ()) if t.dealer == dealer]
        if not takers:
            continue
        listed = ", ".join(
            words.PHRASES["taker"][lang].format(
                player=who(t.player), deals=counted(t.deals, "deal", lang), aces=counted(t.aces, "ace", lang)
            )
            for t in sorted(takers, key=lambda t: -t.aces)
        )
        out.append(words.PHRASES["takers"][lang].format(dealer=who(dealer), takers=listed))
    return tuple(out)


def _finding_sentences(v: Verdict, lang: str) -> tuple[str, ...]:
    groups: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for _, hand, person, finding in v.findings:
        if finding.kind in CERTAIN_FINDINGS or finding.kind == "targeted-hand":
            groups.setdefault((finding.kind, person), []).append((hand, finding.message))
    out = []
    order = sorted(groups, key=lambda k: (k[0] not in DEALER_FINDINGS, k[0] not in RULE_FINDINGS, k))
    for kind, person in order:
        items = groups[(kind, person)]
        total = v.finding_counts.get(kind, len(items)) if len({w for k, w in groups if k == kind}) == 1 else len(items)
        numbers = sorted({h for h, _ in items if h})
        shown = ", ".join(str(h) for h in numbers[:SHOWN_NUMBERS]) + (" …" if len(numbers) > SHOWN_NUMBERS else "")
        fields = {
            "n": number(total, lang),
            "who": who(person) if person else ("the table" if lang == "en" else "стол"),
            "hands": counted(total, "hand", lang),
            "numbers": (("hands " if lang == "en" else "раздачи ") + shown) if shown else "-",
            "kind": kind,
            "message": items[0][1],
        }
        template = words.FINDINGS.get(kind, {}).get(lang)
        text = (_fill(template, fields) if template else None) or _fill(words.GENERIC_FINDING[lang], fields)
        assert text is not None  # the generic finding template uses only the fields above
        out.append(text)
    if v.rule_breakers():
        out.append(words.PHRASES["rules"][lang].format(names=", ".join(map(who, v.rule_breakers()))))
    return tuple(out)


def hand_caption(hand: DrawnHand, lang: str) -> str:
    """One drawn hand's heading: its number, who dealt and cut, and the evidence it carries."""
    lang = check_language(lang)
    cut = words.CUT_BY[lang].format(cutter=hand.cutter) if hand.cutter else ""
    return words.CAPTION[lang].format(hand=hand.hand, line=hand.line, dealer=hand.dealer, cut=cut, why=_why(hand, lang))


def _why(hand: DrawnHand, lang: str) -> str:
    what, _, detail = hand.why.partition(":")
    if what == "talon":
        n = sum(_is_ace(c) for t in hand.talons for c in t)
        return words.WHY["talon"][lang].format(aces=counted(n, "ace", lang), count=n)
    if what == "seat":
        cards = dict(hand.seats).get(detail, ())
        n = sum(_is_ace(c) for c in cards)
        return words.WHY["seat"][lang].format(player=who(detail), aces=counted(n, "ace", lang), count=n)
    if what == "cut":
        return words.WHY["cut"][lang].format(depth=detail)
    return words.WHY["finding"][lang].format(kind=hand.why)


def _is_ace(text: str) -> bool:
    try:
        return parse_card(text).rank is Rank.ACE
    except FairdealError:
        return False
