"""What one block of a log contributes: additive sums, the per-hand sequences and capped lists of findings.

A ``BlockSummary`` holds per-dealer sums (they merge in any order), the talon-ace count of each hand in log
order (for the sequential detectors), and the first findings and malformed lines of each kind (all are
counted). Line numbers inside a summary count from the block's first line; the driver shifts them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from fairdeal.audit.battery import BatteryPart
from fairdeal.audit.candidates import Candidates
from fairdeal.audit.features.laws import FEATURES, WIDTH
from fairdeal.audit.quality import MEASURES
from fairdeal.audit.replay import Finding
from fairdeal.errors import one_line


@dataclass(frozen=True)
class BlockContext:
    pattern_name: str
    num_seats: int
    digital: bool
    min_each_side: int = 4
    seed: int = 0
    keep: int = 1000  # findings and malformed lines kept per block (all are counted); the run gives its own
    tells: bool = False  # the shuffle's own tells (``tells``): per-hand Monte Carlo, so only when asked
    targeting: bool = False  # per-hand same-effort Monte Carlo (``targeting``)
    per_hand: bool = False  # keep per-hand rows (shuffle quality) for the report
    system: str = "sochi"  # the header's system: its scoring values the hands (``benefit``)
    cutter_offset: int = 1  # the cutter's seat counted to the dealer's right (the system's ``table.cutter``)


@dataclass
class Sums:
    """Additive per-dealer (and per dealer x seat) statistics."""

    ace_counts: np.ndarray  # (dealers, max aces + 1)
    talon_value: np.ndarray  # (dealers,)
    hand_fisher: np.ndarray  # (dealers, seats): Σ -2 log p of the seat's hand value
    hand_tests: np.ndarray  # (dealers, seats)
    rank_fisher: np.ndarray  # (dealers, seats): Σ -2 log p of the talon's rank given the seat's hand
    rank_tests: np.ndarray
    cut_depths: np.ndarray  # (dealers, deck size)
    lazy_tests: np.ndarray  # (dealers,): riffled shuffles judged by the guessing score
    lazy_low: np.ndarray  # (dealers,): of those, hands with an exact p <= tells.LAZY_LEVEL
    together_fisher: np.ndarray  # (dealers,): Σ -2 log p of new ace neighbours against same-effort shuffles
    together_tests: np.ndarray
    targeting_talon_fisher: np.ndarray  # (dealers,): Σ -2 log p of the talon against same-effort shuffles
    targeting_talon_tests: np.ndarray
    targeting_seat_fisher: np.ndarray  # (dealers, seats): Σ -2 log p of the seat's hand value, same effort
    targeting_seat_tests: np.ndarray
    quality_hands: np.ndarray  # (dealers,): hands whose whole shuffle is logged, measured by ``quality``
    quality_totals: np.ndarray  # (dealers, len(quality.MEASURES)): sums of the measures
    guessing_counts: np.ndarray  # (dealers, deck size + 1): histogram of the cyclic guessing score
    budget_hands: np.ndarray  # (dealers,): hands whose logged shuffle was read
    zero_bits: np.ndarray  # (dealers,): of those, hands whose logged actions carry no randomness
    bits_total: np.ndarray  # (dealers,): Σ randomness bound (bits)
    # (dealers, cutters + no cut, seats + the buyer's talon), integers so blocks merge exactly (``benefit``)
    benefit_count: np.ndarray
    benefit_up: np.ndarray  # Σ log likelihood ratio "fed", in 1/64
    benefit_down: np.ndarray  # Σ log likelihood ratio "sunk", in 1/64
    benefit_points: np.ndarray  # Σ value in points, in 1/64
    cutter_high: np.ndarray  # (cutters, seats + 1): Σ -2 log p of the chosen depth's value rank, high tail
    cutter_low: np.ndarray  # (cutters, seats + 1): the same, low tail (the last column is the talon)
    cutter_tests: np.ndarray  # (cutters, seats + 1)
    cutter_observed: np.ndarray  # (cutters, seats + 1): Σ value the chosen depth gave
    cutter_expected: np.ndarray  # (cutters, seats + 1): Σ mean value over the legal depths
    cutter_depths: np.ndarray  # (cutters, seats + 1, deck): how often each depth was chosen
    cutter_chosen: np.ndarray  # (cutters, seats + 1, 2): Σ the chosen depth's tail score (high, low)
    cutter_by_depth: np.ndarray  # (cutters, seats + 1, 2, deck): Σ the tail score each depth would have had
    cutter_squares: np.ndarray  # (cutters, seats + 1, 2, deck): Σ the squared tail score each depth would have had
    cutter_untested: np.ndarray  # (cutters,): cuts by the seat whose order before the cut is not logged
    actor_actions: np.ndarray  # (dealers,): logged actions naming their actor (the log records who acts)
    gathered: np.ndarray  # (dealers,): hands with a logged gathered order (``order_before``)
    # (dealers, seats + the talon, features, values): deals giving the target each feature value (``features``)
    feature_counts: np.ndarray
    depth_aces: np.ndarray  # (dealers, deck + 1, max aces + 1): deals by last cut depth and talon aces (``features``)
    uniform_pvalues: int = 0  # per-hand p-values folded in (for the report)

    @staticmethod
    def empty(seats: int, max_aces: int, deck: int) -> Sums:
        z = np.zeros
        return Sums(
            z((seats, max_aces + 1), np.int64),
            z(seats),
            z((seats, seats)),
            z((seats, seats), np.int64),
            z((seats, seats)),
            z((seats, seats), np.int64),
            z((seats, deck), np.int64),
            z(seats, np.int64),
            z(seats, np.int64),
            z(seats),
            z(seats, np.int64),
            z(seats),
            z(seats, np.int64),
            z((seats, seats)),
            z((seats, seats), np.int64),
            z(seats, np.int64),
            z((seats, len(MEASURES)), np.int64),
            z((seats, deck + 1), np.int64),
            z(seats, np.int64),
            z(seats, np.int64),
            z(seats),
            z((seats, seats + 1, seats + 1), np.int64),
            z((seats, seats + 1, seats + 1), np.int64),
            z((seats, seats + 1, seats + 1), np.int64),
            z((seats, seats + 1, seats + 1), np.int64),
            z((seats, seats + 1)),
            z((seats, seats + 1)),
            z((seats, seats + 1), np.int64),
            z((seats, seats + 1)),
            z((seats, seats + 1)),
            z((seats, seats + 1, deck), np.int64),
            z((seats, seats + 1, 2)),
            z((seats, seats + 1, 2, deck)),
            z((seats, seats + 1, 2, deck)),
            z(seats, np.int64),
            z(seats, np.int64),
            z(seats, np.int64),
            z((seats, seats + 1, len(FEATURES), WIDTH), np.int64),
            z((seats, deck + 1, max_aces + 1), np.int64),
        )

    def add(self, other: Sums) -> Sums:
        return Sums(*(getattr(self, f) + getattr(other, f) for f in self.__dataclass_fields__))


@dataclass(frozen=True)
class HandTable:
    """Per-hand rows of one pass: columns of equal length, ``line`` counted from the block's (or file's) start."""

    columns: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.columns["line"])

    def shifted(self, base: int) -> HandTable:
        return HandTable({**self.columns, "line": self.columns["line"] + base})

    @staticmethod
    def concat(tables: list[HandTable]) -> HandTable | None:
        if not tables:
            return None
        return HandTable({name: np.concatenate([t.columns[name] for t in tables]) for name in tables[0].columns})


@dataclass
class BlockSummary:
    lines: int  # newlines in the block (for numbering the next one)
    sums: Sums
    hand_numbers: np.ndarray  # in log order
    dealers: np.ndarray
    talon_aces: np.ndarray
    keys: np.ndarray  # deal keys (digital logs only)
    battery: BatteryPart | None
    findings: list[tuple[int, int, int, Finding]] = field(default_factory=list)  # line, hand, dealer, finding
    finding_counts: dict[str, int] = field(default_factory=dict)
    malformed: list[tuple[int, str]] = field(default_factory=list)
    malformed_count: int = 0
    headers: int = 0  # table lines met inside the block
    undealt: int = 0  # valid hand lines that log no deal: nothing to audit, and nothing malformed
    notes: list[str] = field(default_factory=list)
    tables: dict[str, HandTable] = field(default_factory=dict)  # per-hand rows by pass ("targeting", "quality")
    candidates: Candidates | None = None  # the hands the report may draw (``candidates``)

    def finding(self, line: int, hand: int, dealer: int, finding: Finding, keep: int) -> None:
        self.finding_counts[finding.kind] = self.finding_counts.get(finding.kind, 0) + 1
        if self.finding_counts[finding.kind] <= keep:
            # A message may quote what the log holds (a shuffle, a card): it stays one short line.
            message = one_line(finding.message)
            if message != finding.message:
                finding = replace(finding, message=message)
            self.findings.append((line, hand, dealer, finding))

    def problem(self, line: int, message: str, keep: int) -> None:
        self.malformed_count += 1
        if len(self.malformed) < keep:
            self.malformed.append((line, one_line(message)))
