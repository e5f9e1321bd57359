"""The whole audit of a log file — what ``fairdeal audit LOG`` runs: the statistical pass (with the shuffle's
tells for files up to ``TELLS_AUTO_BYTES``, targeting and per-hand shuffle quality for logs of up to
``TARGETING_AUTO_HANDS`` hands), then legality (for logs small enough, or on request), then the opt-in
weak-server seed search for digital logs.

Exit status contract (used by ``fairdeal audit``): 0 when nothing is flagged; 1 when a test is significant after
Holm's correction at the family-wise ``alpha`` (among them each dealer's e-processes over his weighed hands: deals
that differ from their logged shuffle beyond what honest log errors explain, false cuts, same-effort targeting),
or a finding no honest hand shows is present (a deal with a card too many or too few, an illegal cut, a cut by
the wrong player, a rules breach, a cooked score line, a repeated digital deal, a deal drawn from a searchable
server seed);
2 when the input cannot be audited at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fairdeal.audit.legality import LegalityReport, check_legality
from fairdeal.audit.play.report import PlayReport, check_play, play_suspects
from fairdeal.audit.quality import MEASURES
from fairdeal.audit.report.evidence import Evidence, Fetch, choose_evidence
from fairdeal.audit.report.json import report_json
from fairdeal.audit.scan import Header, Merged, Progress, scan_log
from fairdeal.audit.seeds import scan_seeds, unix_time
from fairdeal.audit.summary import BlockContext
from fairdeal.audit.targeting import CROSS_NULL, SAME_EFFORT_NULL
from fairdeal.audit.verdict import CERTAIN_FINDINGS, Verdict, build_verdict
from fairdeal.errors import AuditError
from fairdeal.log.reader import lines_at
from fairdeal.progress import Phases

if TYPE_CHECKING:
    from fairdeal.audit.replay import Finding
    from fairdeal.audit.verdict import TestResult

LEGALITY_AUTO_HANDS = 50_000  # legality runs by default on logs up to this many hands (~1.5k hands/s on 2 cores)
TELLS_AUTO_BYTES = 32 << 20  # the shuffle's tells run by default on files up to this size (a Monte Carlo a hand)
TARGETING_AUTO_HANDS = 50_000  # targeting (a Monte Carlo a hand) and per-hand rows: on for logs up to this many hands
SAMPLE_BYTES = 1 << 16  # the file's head, read to estimate its number of hands before the pass


@dataclass(frozen=True)
class RunOptions:
    alpha: float = 0.01
    workers: int = 1
    legality: bool | None = None  # None: on for logs of at most LEGALITY_AUTO_HANDS hands
    cheat_rate: float = 0.25  # the CUSUM's alternative: an ace stacked into the talon in this share of deals
    min_each_side: int = 4  # legal cut (Codex, seed 002)
    seed: int = 0
    keep: int = 1000  # findings per kind and malformed lines kept for the report (all are counted)
    tells: bool | None = None  # the shuffle's own tells; None: on for files of at most TELLS_AUTO_BYTES
    server_seed_window: int | None = None  # bits of the weak-server seed search (digital logs; None: not run)
    server_time: int | None = None  # Unix time the window centres on (None: the header's ``started``)
    targeting: bool | None = None  # per-hand same-effort Monte Carlo; None: on for logs of at most TARGETING_AUTO_HANDS
    play: bool = False  # the play signals (``audit/play``): every defender's card double-dummy solved
    draw_hands: bool = False  # draw the hands that carry a flagged log's evidence (the report's)


def _phase(progress: Progress | None, name: str) -> Progress | None:
    return progress.phase(name) if isinstance(progress, Phases) else None


@dataclass(frozen=True)
class AuditResult:
    verdict: Verdict
    legality: LegalityReport | None
    scan_seconds: float
    seconds: float
    play: PlayReport | None = None
    evidence: Evidence | None = None  # the hands the report draws (``RunOptions.draw_hands``, flagged logs only)

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict.clean else 1

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The report as JSON (``protocols/audit-report.schema.json``); ``lang``: the language of its sentences."""
        return report_json(self, self._statistics_json(), lang)

    def _statistics_json(self) -> dict[str, Any]:
        v = self.verdict
        return {
            "summary": {
                "players": list(v.players),
                "pattern": v.pattern,
                "dealing": v.dealing,
                "hands": v.hands,
                "lines": v.lines,
                "alpha": v.alpha,
                "clean": v.clean,
                "exit_code": self.exit_code,
                "malformed_lines": v.malformed_count,
                "hands_without_deal": v.undealt,
                "generator_flagged": v.generator_flagged(),
                "findings_by_kind": dict(sorted(v.finding_counts.items())),
                "tests": len(v.tests),
                "flagged_tests": len(v.flagged()),
                "seconds": round(self.seconds, 3),
                "hands_per_second": round(v.hands / self.scan_seconds) if self.scan_seconds > 0 else None,
                "notes": list(v.notes),
            },
            "suspects": [
                {
                    "dealer": name,
                    "evidence": [_test_json(t) for t in v.flagged() if name in (t.dealer, t.actor)],
                    "findings": sum(1 for f in v.certain() if f[2] == name),
                }
                for name in v.suspects()
            ],
            "cutters": list(v.cutters()),
            "findings": [
                {
                    "line": line,
                    "hand": hand,
                    "who": who,
                    "kind": f.kind,
                    "certain": f.kind in CERTAIN_FINDINGS,
                    "e_value": f.e_value,
                    "message": f.message,
                    "cards": list(f.cards),
                    "explanations": list(f.explanations),
                }
                for line, hand, who, f in v.findings
            ],
            "malformed": list(v.malformed),
            "tests": [_test_json(t) for t in sorted(v.tests, key=lambda t: t.pvalue)],
            "sequential": {
                "cusum_threshold": v.cusum_threshold,
                "cusum_horizon": v.cusum_horizon,
                "eprocess_log_bar": v.eprocess_bar,
                "dealers": [
                    {
                        "dealer": p.dealer,
                        "deals": p.deals,
                        "talon_aces": p.talon_aces,
                        "cusum_alarm_hand": p.cusum_alarm,
                        "eprocess_alarm_hand": p.eprocess_alarm,
                        "max_log_evalue": p.max_log_e,
                    }
                    for p in v.paths
                ],
            },
            "evidence": _evidence_json(v),
            "log_quality": [
                {"dealer": q.dealer, "mismatches": q.mismatches, "explained": q.explained, "unexplained": q.unexplained}
                for q in v.log_quality
            ],
            "targeting": _targeting_json(v),
            "quality": _quality_json(v),
            "play": None if self.play is None else _play_json(self.play, v),
            "legality": None
            if self.legality is None
            else {
                "hands": self.legality.hands,
                "replayed": self.legality.replayed,
                "seconds": round(self.legality.seconds, 3),
                "notes": list(self.legality.notes),
            },
        }


def _test_json(t: TestResult) -> dict[str, Any]:
    about: dict[str, Any] = {
        key: name
        for key, name in (
            ("dealer", t.dealer),
            ("player", t.player),
            ("actor", t.actor),
            ("beneficiary", t.beneficiary),
            ("direction", t.direction),
            ("observed", t.observed),
            ("expected", t.expected),
        )
        if name is not None
    }
    return {
        "subject": t.subject,
        **about,
        "test": t.test,
        "kind": t.kind,
        "statistic": t.statistic,
        "pvalue": t.pvalue,
        "holm": t.holm,
        "bh": t.bh,
        "count": t.count,
        "null": t.null,
        "observed": t.observed,
        "expected": t.expected,
    }


def _evidence_json(v: Verdict) -> list[dict[str, Any]]:
    return [
        {
            "dealer": e.dealer,
            "source": e.source,
            "hands_weighed": e.weighed,
            "max_log_evalue": e.max_log_e,
            "final_log_evalue": e.final_log_e,
            "pvalue": e.pvalue,
            "hands": [{"line": h.line, "hand": h.hand, "e_value": h.e_value, "reason": h.reason} for h in e.hands],
        }
        for e in v.evidence
    ]


def _number(x: float) -> float | None:
    """A float for JSON; NaN (absent) becomes null."""
    return None if np.isnan(x) else round(float(x), 6)


def _targeting_json(v: Verdict) -> dict[str, Any] | None:
    if v.targeting is None:
        return None
    c = v.targeting.columns
    hands = [
        {
            "line": int(c["line"][i]),
            "hand": int(c["hand"][i]),
            "dealer": v.players[int(c["dealer"][i])],
            "p": _number(c["p"][i]),
            "bh": _number(c["q"][i]),
            "talon_aces": int(c["talon_aces"][i]),
            "p_same_effort": _number(c["p_same"][i]),
            "p_talon": _number(c["p_talon"][i]),
            "p_seats": {v.players[s]: _number(p) for s, p in enumerate(c["p_seats"][i]) if not np.isnan(p)},
            "p_cross": _number(c["p_cross"][i]),
            "p_cross_talon": _number(c["p_cross_talon"][i]),
            "draws": int(c["draws"][i]),
        }
        for i in range(len(v.targeting))
    ]
    return {"null": SAME_EFFORT_NULL, "cross_match": CROSS_NULL, "hands": hands}


def _quality_json(v: Verdict) -> dict[str, Any]:
    dealers = [
        {
            "dealer": q.dealer,
            "hands_read": q.read,
            "zero_bit_share": _number(q.zero_share),
            "mean_bits": _number(q.mean_bits),
            "hands_measured": q.measured,
            "means": {m: _number(x) for m, x in q.means.items()},
            "cyclic_guessing_counts": list(q.guessing_counts),
            "honest_cyclic_guessing_mean": round(q.honest_guessing_mean(), 6),
        }
        for q in v.quality_dealers
    ]
    hands = None
    if v.quality is not None:
        c = v.quality.columns
        hands = [
            {
                "line": int(c["line"][i]),
                "hand": int(c["hand"][i]),
                "dealer": v.players[int(c["dealer"][i])],
                "bits": _number(c["bits"][i]),
                "unrecorded_riffles": int(c["unrecorded_riffles"][i]),
                "riffle_tv": _number(c["riffle_tv"][i]),
                "can_randomise_deal": bool(c["can_randomise_deal"][i]),
                **({m: int(x) for m, x in zip(MEASURES, c["measures"][i])} if c["measures"][i][0] >= 0 else {}),
                "cyclic_guessing_p": _number(c["guessing_p"][i]),
            }
            for i in range(len(v.quality))
        ]
    return {"dealers": dealers, "hands": hands}


def _add_unreadable(merged: Merged, legality: LegalityReport) -> None:
    """Lines the narrow reader took but the full reader rejects (a bad field the statistics do not read); a line
    already reported as malformed, or judged as a finding (a deal with a card too many), is not counted again."""
    known = {_line_number(m) for m in merged.malformed} | {line for line, *_ in merged.findings}
    for line, message in legality.unreadable:
        if line not in known:
            merged.malformed_count += 1
            if len(merged.malformed) < merged.keep:
                merged.malformed.append(message)
    merged.malformed.sort(key=_line_number)


def _line_number(message: str) -> int:
    head = message.split(",", 1)[0].split(":", 1)[0]
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0


def _tells_skipped(options: RunOptions) -> str:
    why = (
        "not asked for"
        if options.tells is False
        else f"the file exceeds {TELLS_AUTO_BYTES >> 20} MB (--tells runs them)"
    )
    return f"the shuffle's tells (a shuffle too weak for its riffles, aces brought together) skipped: {why}"


def estimated_hands(path: str | Path) -> int:
    """Lines in the file, estimated from the length of the lines in its head (the decision precedes the pass)."""
    file = Path(path)
    if not file.is_file():
        return 0
    with open(file, "rb") as stream:
        head = stream.read(SAMPLE_BYTES)
    lines = max(head.count(b"\n"), 1)
    return round(file.stat().st_size * lines / max(len(head), 1))


def _targeting_skipped(options: RunOptions, estimate: int) -> str:
    if options.targeting is False:
        return "targeting (each deal against honest shuffles of the same effort) skipped: not asked for"
    return (
        f"targeting (each deal against honest shuffles of the same effort) and per-hand shuffle-quality rows "
        f"skipped: about {estimate:,} hands exceed {TARGETING_AUTO_HANDS:,} (--targeting runs them)"
    )


def _seed_findings(
    plain: Callable[[], Path], header: Header, options: RunOptions, notes: list[str]
) -> list[tuple[int, int, str, Finding]]:
    """The opt-in weak-server seed search over a window around the time the log started."""
    if options.server_seed_window is None:
        return []
    if header.dealing == "physical":
        notes.append("the server seed search applies to digital deals; this log was dealt by hand")
        return []
    around = (
        options.server_time
        if options.server_time is not None
        else (unix_time(header.started) if header.started else None)
    )
    if around is None:
        raise AuditError("the server seed search needs a time: the header has no 'started'; give --server-time")
    scan = scan_seeds(plain(), around, options.server_seed_window)
    notes.append(
        f"server seed search: 2^{options.server_seed_window} seeds around {around} for the first "
        f"{scan.hands} hand(s), {scan.seeds_per_second:,.0f} seeds/s; {len(scan.found)} deal(s) matched"
    )
    return scan.findings()


@dataclass(frozen=True)
class ScanInput:
    """What the audit needs of its input: its size (for the automatic choices), the statistical pass, a plain
    log file for the second passes (legality, the seed search), made only when one runs, and a few of its lines
    by number (the evidence hands)."""

    size: int  # bytes of the log as JSON Lines
    estimate: int  # hands, estimated or known
    scan: Callable[[Callable[[Header], BlockContext], RunOptions, Progress | None], Merged]
    plain: Callable[[], Path]
    fetch: Fetch


def file_input(path: str | Path) -> ScanInput:
    file = Path(path)
    return ScanInput(
        file.stat().st_size if file.is_file() else 0,
        estimated_hands(file),
        lambda context_of, options, progress: scan_log(file, context_of, options.workers, progress, options.keep),
        lambda: file,
        lambda wanted: lines_at(file, wanted),
    )


def run_audit(path: str | Path, options: RunOptions = RunOptions(), progress: Progress | None = None) -> AuditResult:
    """Audit the log at ``path``; raises ``AuditError`` only when nothing at all can be audited."""
    return audit_input(file_input(path), options, progress)


def audit_input(source: ScanInput, options: RunOptions = RunOptions(), progress: Progress | None = None) -> AuditResult:
    """The whole audit of one table, whatever holds it."""
    started = time.perf_counter()

    tells = options.tells if options.tells is not None else 0 < source.size <= TELLS_AUTO_BYTES

    estimate = source.estimate
    targeting = options.targeting if options.targeting is not None else estimate <= TARGETING_AUTO_HANDS

    def context_of(header: Header) -> BlockContext:
        return BlockContext(
            header.pattern_name,
            len(header.players),
            header.dealing != "physical",
            options.min_each_side,
            options.seed,
            options.keep,  # each block keeps as many as the report: its first ones per kind, however split
            tells,
            targeting,
            targeting or estimate <= TARGETING_AUTO_HANDS,
            system=header.system,
            cutter_offset=header.cutter,
        )

    merged = source.scan(context_of, options, progress)
    scan_seconds = time.perf_counter() - started
    legality = None
    notes = [] if tells else [_tells_skipped(options)]
    if not targeting:
        notes.append(_targeting_skipped(options, estimate))
    wanted = options.legality if options.legality is not None else merged.hands <= LEGALITY_AUTO_HANDS
    if wanted:
        _phase(progress, "legality replay")
        legality = check_legality(source.plain(), options.workers)
        notes += list(legality.notes)
        _add_unreadable(merged, legality)
    elif options.legality is None:
        notes.append(
            f"legality replay skipped: {merged.hands:,} hands exceed {LEGALITY_AUTO_HANDS:,} "
            "(ask for it with --legality)"
        )
    extra = list(legality.findings) if legality else []
    if options.server_seed_window is not None:
        _phase(progress, "server seed search")
    extra += _seed_findings(source.plain, merged.header, options, notes)
    play = check_play(source.plain()) if options.play else None
    notes += play.notes() if play is not None else []
    _phase(progress, "statistics")
    verdict = build_verdict(
        merged,
        options.alpha,
        options.cheat_rate,
        options.min_each_side,
        options.seed,
        extra,
        notes,
        play.tests if play is not None else (),
    )
    evidence = None
    if options.draw_hands and not verdict.clean:
        _phase(progress, "evidence hands")
        evidence = choose_evidence(merged.candidates, verdict, source.fetch)
    return AuditResult(verdict, legality, scan_seconds, time.perf_counter() - started, play=play, evidence=evidence)


def _play_json(play: PlayReport, v: Verdict) -> dict[str, Any]:
    names = v.players
    return {
        "hands": play.hands,
        "cards_priced": len(play.cards),
        "whist_decisions": len(play.whists),
        "solves": play.solves,
        "cache_hits": play.cache_hits,
        "cut_off": play.cut_off,
        "hands_per_second_cpu": round(play.hands_per_second, 1),
        "skipped": dict(sorted(play.skipped.items())),
        "flagged": [
            {"actor": actor, "beneficiary": beneficiary, "test": t.test, "holm": t.holm}
            for actor, beneficiary, t in play_suspects(v)
        ],
        "defence": [
            {
                "defender": names[r.defender],
                **({"declarer": names[r.declarer]} if r.declarer is not None else {}),
                **({"partner": names[r.partner]} if r.partner is not None else {}),
                "cards": r.cards,
                "errors": r.errors,
                "tricks_lost": r.tricks_lost,
            }
            for r in play.pairs
        ],
    }
