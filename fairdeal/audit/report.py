"""Audit a whole game log in one streaming pass and report who dealt suspiciously, with calibrated p-values.

Memory stays bounded: per-dealer and per-player evidence is counts and sums, each dealer keeps a window of recent
shuffles for the cross-match, and per-hand p-values are kept only when they could survive Benjamini-Hochberg
(``p <= alpha``). A malformed line is reported with its line number and the rest of the log is still audited.
The family of per-dealer and per-player tests is corrected by Holm (family-wise) and Benjamini-Hochberg (FDR).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

from fairdeal.audit.evidence import AuditOptions, DealerEvidence, RecentShuffles, audit_hand, hand_evidence
from fairdeal.audit.replay import Finding
from fairdeal.audit.sequential import CusumDetector, ace_stacking_test, calibrate_cusum
from fairdeal.audit.stats import benjamini_hochberg, holm
from fairdeal.audit.tally import DealerTally, tally_hands
from fairdeal.cards import DeckKind
from fairdeal.deal import get_pattern
from fairdeal.errors import AuditError, FairdealError
from fairdeal.log.reader import read_log
from fairdeal.log.records import UNSET, HandRecord, TableRecord

CALIBRATION_DRAWS = 10_000
CERTAIN_FINDINGS = frozenset({"deal-mismatch", "illegal-cut", "false-cut"})   # no honest hand shows these


@dataclass(frozen=True)
class TestResult:
    subject: str          # "dealer Boris" or "player Vera"
    test: str
    statistic: float
    pvalue: float
    count: int            # hands (or p-values) behind it
    holm: float = 1.0
    bh: float = 1.0


@dataclass(frozen=True)
class HandFlag:
    hand: int
    dealer: str
    pvalue: float
    bh: float


@dataclass(frozen=True)
class AuditReport:
    players: tuple[str, ...]
    hands: int
    malformed_count: int
    malformed: tuple[str, ...]
    finding_count: int
    findings: tuple[tuple[int, str, Finding], ...]    # hand, dealer, finding
    tests: tuple[TestResult, ...]
    hand_tests: int
    hand_flags: tuple[HandFlag, ...]
    first_alarm: tuple[tuple[str, int], ...]    # dealer, hand number where the CUSUM first crossed
    cusum_threshold: float
    alpha: float

    def suspects(self) -> tuple[str, ...]:
        """Dealers with a Holm-significant test, or whose hands the logged shuffle cannot explain."""
        names = {t.subject.split(" ", 1)[1] for t in self.tests if t.subject.startswith("dealer") and t.holm <= self.alpha}
        names |= {dealer for _, dealer, f in self.findings if f.kind in CERTAIN_FINDINGS}
        return tuple(sorted(names))

    def beneficiaries(self) -> tuple[str, ...]:
        """Players whose hands were stronger than the per-hand nulls allow (Holm-significant)."""
        return tuple(sorted(
            t.subject.split(" ", 1)[1] for t in self.tests if t.subject.startswith("player") and t.holm <= self.alpha
        ))

    def render(self) -> str:
        lines = [f"audited {self.hands} hands of {', '.join(self.players)}; {self.malformed_count} malformed line(s)"]
        lines += [f"  malformed: {m}" for m in self.malformed]
        kinds = Counter(f.kind for _, _, f in self.findings)
        lines.append(f"replay findings: {self.finding_count} ("
                     + ", ".join(f"{kind}: {count}" for kind, count in sorted(kinds.items())) + ")")
        lines += [f"  hand {hand} ({dealer} deals): [{f.kind}] {f.message}"
                  + (f"; explained by: {'; '.join(f.explanations)}" if f.explanations else "")
                  for hand, dealer, f in self.findings if f.kind in CERTAIN_FINDINGS]
        lines.append(f"tests (Holm and BH across {len(self.tests)}, alpha {self.alpha}; per-hand nulls: honest shuffles of "
                     "the same effort from the gathered order when logged, else the exact uniform deck):")
        for t in sorted(self.tests, key=lambda t: t.pvalue):
            mark = " <-- FLAG" if t.holm <= self.alpha else (" <-- fdr" if t.bh <= self.alpha else "")
            lines.append(f"  {t.subject:<18} {t.test:<44} n={t.count:<6} p={t.pvalue:.3g} holm={t.holm:.3g} bh={t.bh:.3g}{mark}")
        lines.append(f"CUSUM (threshold {self.cusum_threshold:.2f}) first alarms: "
                     + (", ".join(f"{d} at hand {h}" for d, h in self.first_alarm) or "none"))
        lines.append(f"single hands significant after BH over {self.hand_tests}: "
                     + (", ".join(f"hand {f.hand} ({f.dealer}, p={f.pvalue:.3g})" for f in self.hand_flags) or "none"))
        lines.append("suspects: " + (", ".join(self.suspects()) or "none"))
        lines.append("players whose hands were too strong: " + (", ".join(self.beneficiaries()) or "none"))
        return "\n".join(lines)


@dataclass
class _Run:
    """The mutable state of one streaming pass (evidence itself is immutable and merged in)."""

    options: AuditOptions
    players: tuple[str, ...] = ()
    pattern_name: str = ""
    detector: CusumDetector | None = None
    dealers: dict[int, DealerEvidence] = field(default_factory=dict)
    levels: dict[int, float] = field(default_factory=dict)
    first_alarm: dict[int, int] = field(default_factory=dict)
    seat_values: dict[int, DealerTally] = field(default_factory=dict)
    small: list[tuple[float, int, int]] = field(default_factory=list)
    hand_tests: int = 0
    hands: int = 0
    malformed: list[str] = field(default_factory=list)
    malformed_count: int = 0
    findings: list[tuple[int, str, Finding]] = field(default_factory=list)
    finding_count: int = 0

    def problem(self, message: str) -> None:
        self.malformed_count += 1
        if len(self.malformed) < self.options.max_findings:
            self.malformed.append(message)


def audit_log(source: str | Path | BinaryIO, options: AuditOptions = AuditOptions()) -> AuditReport:
    """Audit a fairdeal game log (path or binary stream) line by line."""
    if isinstance(source, (str, Path)) and not Path(source).is_file():
        raise AuditError(f"no game log at {source}")
    rng = np.random.default_rng(options.seed)
    run = _Run(options)
    recent = RecentShuffles(options.cross_window)
    test = ace_stacking_test(options.cheat_rate)
    for item in read_log(source):
        if item.errors:
            run.problem("; ".join(str(e) for e in item.errors))
        elif isinstance(item.record, TableRecord):
            _start(run, item.record, test, rng)
        elif isinstance(item.record, HandRecord):
            _hand(run, item.record, item.line, rng, recent, test)
    if run.detector is None:
        raise AuditError("the log has no usable table header: nothing can be audited")
    return _finish(run)


def _start(run: _Run, header: TableRecord, test, rng: np.random.Generator) -> None:
    pattern = get_pattern(header.deal_pattern)
    if pattern.deck is not DeckKind.PIQUET32 or pattern.talons != 1 or pattern.talon_size != 2:
        raise AuditError(f"the auditor's talon tests need a 32-card deck with one 2-card talon, not {pattern.name}")
    run.players = tuple(header.players)
    run.pattern_name = pattern.name
    # Bonferroni over the dealers keeps the table's family-wise false-alarm rate at alpha.
    per_dealer = run.options.alpha / len(run.players)
    run.detector = calibrate_cusum(test, run.options.horizon, per_dealer, CALIBRATION_DRAWS, rng)


def _hand(run: _Run, record: HandRecord, line: int, rng, recent: RecentShuffles, test) -> None:
    if run.detector is None:
        run.problem(f"line {line}: a hand before the table header")
        return
    if record.deal is UNSET:
        run.problem(f"line {line}: hand {record.hand} has no deal; nothing to audit")
        return
    try:
        audit = audit_hand(record, get_pattern(run.pattern_name), len(run.players), rng, run.options, recent)
    except FairdealError as exc:
        run.problem(f"line {line}: hand {record.hand} cannot be audited: {exc}")
        return
    run.hands += 1
    evidence = hand_evidence(audit, test)
    dealer = audit.dealer
    run.dealers[dealer] = run.dealers.get(dealer, DealerEvidence()).merge(evidence)
    level = evidence.cusum.end(run.levels.get(dealer, 0.0))
    run.levels[dealer] = level
    if level > run.detector.threshold and dealer not in run.first_alarm:
        run.first_alarm[dealer] = audit.hand
    for seat, p in audit.seat_value_pvalues:
        one = tally_hands(np.zeros(0, dtype=int), np.zeros(0), 0.0, 0.0, np.array([p]))
        run.seat_values[seat] = run.seat_values.get(seat, DealerTally()).merge(one)
    run.hand_tests += 1
    if audit.pvalue <= run.options.alpha:
        run.small.append((audit.pvalue, audit.hand, dealer))
    for finding in audit.findings:
        run.finding_count += 1
        if len(run.findings) < run.options.max_findings:
            run.findings.append((audit.hand, run.players[dealer], finding))


def _dealer_tests(name: str, evidence: DealerEvidence, min_each_side: int) -> list[TestResult]:
    subject = f"dealer {name}"
    tally = evidence.tally
    aces, value = tally.talon_aces_test(), tally.talon_value_test()
    tests = [
        TestResult(subject, "talon aces, total (exact)", aces.statistic, aces.pvalue, aces.count),
        TestResult(subject, "talon value, total (normal)", value.statistic, value.pvalue, value.count),
        TestResult(subject, "talon aces, mixture e-process", evidence.eprocess.log_evalue,
                   evidence.eprocess.pvalue, evidence.eprocess.hands),
    ]
    for label, source in (("talon aces per hand (Fisher)", tally), ("talon aces cross-match (Fisher)", evidence.cross)):
        if source.tests:
            combined = source.fisher()
            tests.append(TestResult(subject, label, combined.statistic, combined.pvalue, combined.count))
    if evidence.cuts is not None and sum(evidence.cuts.counts):
        depth, p = evidence.cuts.repeated_depth(min_each_side)
        tests.append(TestResult(subject, f"cut depth {depth} repeated", float(depth), p, sum(evidence.cuts.counts)))
    return tests


def _finish(run: _Run) -> AuditReport:
    tests: list[TestResult] = []
    for dealer in sorted(run.dealers):
        tests += _dealer_tests(run.players[dealer], run.dealers[dealer], run.options.min_each_side)
    for seat in sorted(run.seat_values):
        combined = run.seat_values[seat].fisher()
        tests.append(TestResult(f"player {run.players[seat]}", "hand value per hand (Fisher)",
                                combined.statistic, combined.pvalue, combined.count))
    tests = _adjusted(tests)
    hand_flags: tuple[HandFlag, ...] = ()
    if run.small:
        p = np.array([s[0] for s in run.small])
        q = benjamini_hochberg(p, total=run.hand_tests)
        hand_flags = tuple(
            HandFlag(hand, run.players[dealer], float(pv), float(qv))
            for (pv, hand, dealer), qv in zip(run.small, q) if qv <= run.options.alpha
        )
    return AuditReport(
        run.players, run.hands, run.malformed_count, tuple(run.malformed), run.finding_count, tuple(run.findings),
        tuple(tests), run.hand_tests, hand_flags,
        tuple((run.players[d], h) for d, h in sorted(run.first_alarm.items())), run.detector.threshold, run.options.alpha,
    )


def _adjusted(tests: list[TestResult]) -> list[TestResult]:
    if not tests:
        return tests
    p = np.array([max(t.pvalue, np.finfo(float).tiny) for t in tests])
    return [
        TestResult(t.subject, t.test, t.statistic, t.pvalue, t.count, float(h), float(b))
        for t, h, b in zip(tests, holm(p), benjamini_hochberg(p))
    ]
