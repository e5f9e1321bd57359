"""The whole audit of a log file — what ``fairdeal audit LOG`` runs: the statistical pass (with the shuffle's
tells for files up to ``TELLS_AUTO_BYTES``), then legality (for logs small enough, or on request), then the opt-in
weak-server seed search for digital logs.

Exit status contract (used by ``fairdeal audit``): 0 when nothing is flagged; 1 when a test is significant after
Holm's correction at the family-wise ``alpha``, or a finding no honest hand shows is present (a deal the logged
shuffle cannot give, an illegal or undone cut, a rules breach, a cooked score line, a repeated digital deal, a
deal drawn from a searchable server seed);
2 when the input cannot be audited at all.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdeal.audit.legality import LegalityReport, check_legality
from fairdeal.audit.scan import Header, Progress, scan_log
from fairdeal.audit.seeds import scan_seeds, unix_time
from fairdeal.audit.summary import BlockContext
from fairdeal.audit.verdict import CERTAIN_FINDINGS, Verdict, build_verdict
from fairdeal.errors import AuditError

LEGALITY_AUTO_HANDS = 50_000     # legality runs by default on logs up to this many hands (~1.5k hands/s on 2 cores)
TELLS_AUTO_BYTES = 32 << 20      # the shuffle's tells run by default on files up to this size (a Monte Carlo a hand)


@dataclass(frozen=True)
class RunOptions:
    alpha: float = 0.01
    workers: int = 1
    legality: bool | None = None    # None: on for logs of at most LEGALITY_AUTO_HANDS hands
    cheat_rate: float = 0.25        # the CUSUM's alternative: an ace stacked into the talon in this share of deals
    min_each_side: int = 4          # legal cut (Codex, seed 002)
    seed: int = 0
    keep: int = 1000                # findings per kind and malformed lines kept for the report (all are counted)
    tells: bool | None = None       # the shuffle's own tells; None: on for files of at most TELLS_AUTO_BYTES
    server_seed_window: int | None = None   # bits of the weak-server seed search (digital logs; None: not run)
    server_time: int | None = None  # Unix time the window centres on (None: the header's ``started``)


@dataclass(frozen=True)
class AuditResult:
    verdict: Verdict
    legality: LegalityReport | None
    scan_seconds: float
    seconds: float

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict.clean else 1

    def to_json(self) -> dict[str, Any]:
        v = self.verdict
        return {
            "summary": {
                "players": list(v.players), "pattern": v.pattern, "dealing": v.dealing, "hands": v.hands,
                "lines": v.lines, "alpha": v.alpha, "clean": v.clean, "exit_code": self.exit_code,
                "malformed_lines": v.malformed_count, "generator_flagged": v.generator_flagged(), "findings_by_kind": dict(sorted(v.finding_counts.items())),
                "tests": len(v.tests), "flagged_tests": len(v.flagged()), "seconds": round(self.seconds, 3),
                "hands_per_second": round(v.hands / self.scan_seconds) if self.scan_seconds > 0 else None,
                "notes": list(v.notes),
            },
            "suspects": [
                {"dealer": name, "evidence": [_test_json(t) for t in v.flagged() if t.dealer == name],
                 "findings": sum(1 for f in v.certain() if f[2] == name)}
                for name in v.suspects()
            ],
            "beneficiaries": list(v.beneficiaries()),
            "findings": [
                {"line": line, "hand": hand, "who": who, "kind": f.kind, "certain": f.kind in CERTAIN_FINDINGS,
                 "message": f.message, "cards": list(f.cards), "explanations": list(f.explanations)}
                for line, hand, who, f in v.findings
            ],
            "malformed": list(v.malformed),
            "tests": [_test_json(t) for t in sorted(v.tests, key=lambda t: t.pvalue)],
            "sequential": {
                "cusum_threshold": v.cusum_threshold, "cusum_horizon": v.cusum_horizon,
                "eprocess_log_bar": v.eprocess_bar,
                "dealers": [{"dealer": p.dealer, "deals": p.deals, "talon_aces": p.talon_aces,
                             "cusum_alarm_hand": p.cusum_alarm, "eprocess_alarm_hand": p.eprocess_alarm,
                             "max_log_evalue": p.max_log_e} for p in v.paths],
            },
            "legality": None if self.legality is None else {
                "hands": self.legality.hands, "replayed": self.legality.replayed,
                "seconds": round(self.legality.seconds, 3), "notes": list(self.legality.notes),
            },
        }


def _test_json(t) -> dict[str, Any]:
    return {"subject": t.subject, "test": t.test, "statistic": t.statistic, "pvalue": t.pvalue, "holm": t.holm,
            "bh": t.bh, "count": t.count, "null": t.null}


def _add_unreadable(merged, legality: LegalityReport) -> None:
    """Lines the narrow reader took but the full reader rejects (a bad field the statistics do not read)."""
    known = {m.split(",", 1)[0].split(":", 1)[0] for m in merged.malformed}
    for line, message in legality.unreadable:
        if f"line {line}" not in known:
            merged.malformed_count += 1
            if len(merged.malformed) < merged.keep:
                merged.malformed.append(message)
    merged.malformed.sort(key=_line_number)


def _line_number(message: str) -> int:
    head = message.split(",", 1)[0].split(":", 1)[0]
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0


def _tells_skipped(options: RunOptions) -> str:
    why = "not asked for" if options.tells is False else f"the file exceeds {TELLS_AUTO_BYTES >> 20} MB (--tells runs them)"
    return f"the shuffle's tells (a shuffle too weak for its riffles, aces brought together) skipped: {why}"


def _seed_findings(path, header: Header, options: RunOptions, notes: list[str]) -> list:
    """The opt-in weak-server seed search over a window around the time the log started."""
    if options.server_seed_window is None:
        return []
    if header.dealing == "physical":
        notes.append("the server seed search applies to digital deals; this log was dealt by hand")
        return []
    around = options.server_time if options.server_time is not None else (
        unix_time(header.started) if header.started else None)
    if around is None:
        raise AuditError("the server seed search needs a time: the header has no 'started'; give --server-time")
    scan = scan_seeds(path, around, options.server_seed_window)
    notes.append(f"server seed search: 2^{options.server_seed_window} seeds around {around} for the first "
                 f"{scan.hands} hand(s), {scan.seeds_per_second:,.0f} seeds/s; {len(scan.found)} deal(s) matched")
    return scan.findings()


def run_audit(path: str | Path, options: RunOptions = RunOptions(), progress: Progress | None = None) -> AuditResult:
    """Audit the log at ``path``; raises ``AuditError`` only when nothing at all can be audited."""
    started = time.perf_counter()

    tells = options.tells if options.tells is not None else (
        Path(path).is_file() and Path(path).stat().st_size <= TELLS_AUTO_BYTES)

    def context_of(header: Header) -> BlockContext:
        return BlockContext(header.pattern_name, len(header.players), header.dealing != "physical",
                            options.min_each_side, options.seed, min(options.keep, 200), tells)

    merged = scan_log(path, context_of, options.workers, progress, options.keep)
    scan_seconds = time.perf_counter() - started
    legality = None
    notes = [] if tells else [_tells_skipped(options)]
    wanted = options.legality if options.legality is not None else merged.hands <= LEGALITY_AUTO_HANDS
    if wanted:
        legality = check_legality(path, options.workers)
        notes += list(legality.notes)
        _add_unreadable(merged, legality)
    elif options.legality is None:
        notes.append(f"legality replay skipped: {merged.hands:,} hands exceed {LEGALITY_AUTO_HANDS:,} "
                     "(ask for it with --legality)")
    extra = list(legality.findings) if legality else []
    extra += _seed_findings(path, merged.header, options, notes)
    verdict = build_verdict(merged, options.alpha, options.cheat_rate, options.min_each_side, options.seed,
                            extra, notes)
    return AuditResult(verdict, legality, scan_seconds, time.perf_counter() - started)
