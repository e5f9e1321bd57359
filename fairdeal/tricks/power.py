"""How many hands the auditor needs to name a cardsharp, and how often it names an honest dealer.

For each technique: ``replicates`` simulated evenings at a 3-player table where seat 1 uses the technique in a
share ``rate`` of his deals (``table.quick_records``: order, shuffle and deal, no play). Each evening is audited
on growing prefixes (6, 12, 24, ... hands) until the technique's detector names the cheat (or, for a stacked
partner's hand, the partner); the hands needed are the prefix length. The false-alarm rate is the share of
honest evenings (every dealer fair, ``HonestDealer``) of the longest length in which the same detector names
anyone. Every detector runs at the level ``alpha`` (1%), Holm-corrected across the table.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from fairdeal.audit.evidence import AuditOptions
from fairdeal.audit.report import audit_log
from fairdeal.cards import to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order
from fairdeal.errors import TrickError
from fairdeal.log import write_log
from fairdeal.log.records import DealRecord, HandRecord
from fairdeal.tricks.base import Technique
from fairdeal.tricks.detect import clustered_aces, lazy_dealers, weak_server_seeds
from fairdeal.tricks.plan import RUSSIAN
from fairdeal.tricks.table import Cheat, TableSource, quick_records, table_header
from fairdeal.tricks.weak_server import WeakServerSource

PLAYERS = ("Anna", "Boris", "Vera")
CHEAT_SEAT = 1
PARTNER_SEAT = 0          # the cheat's right-hand neighbour: he cuts when the cheat deals
ALPHA = 0.01
STEPS = (6, 12, 24, 48, 96, 192, 384)
WEAK_SERVER_START = 1_764_000_000          # a Unix time (late 2025): the server's clock when the evening began

# Which detector the casebook credits for each technique (the report of fairdeal.audit unless named here).
DETECTOR_OF = {"lazy-shuffle": "shuffle quality", "talon-open-cut": "aces side by side", "weak-server": "seed search"}
AUDITOR = "auditor report"


def detector_for(trick: Technique) -> str:
    return DETECTOR_OF.get(trick.name, AUDITOR)


def named_by(detector: str, path: Path, seed: int) -> tuple[set[str], str]:
    """Who the detector names in the log at ``path``, and the evidence in one line."""
    if detector == AUDITOR:
        report = audit_log(path, AuditOptions(alpha=ALPHA, seed=seed))
        names = set(report.suspects()) | set(report.beneficiaries())
        return names, _strongest(report)
    if detector == "shuffle quality":
        found = lazy_dealers(path, ALPHA)
    elif detector == "aces side by side":
        found = clustered_aces(path, ALPHA, seed)
    else:
        raise TrickError(f"no log detector called {detector!r}")
    best = min(found.verdicts, key=lambda v: v.holm)
    return set(found.named()), f"{found.test}: {best.dealer} holm p={best.holm:.3g}"


def _strongest(report) -> str:
    certain = [f for _, _, f in report.findings if f.kind in ("deal-mismatch", "false-cut", "illegal-cut")]
    if certain:
        return f"replay finding [{certain[0].kind}] in {len(certain)} hand(s)"
    if not report.tests:
        return "no tests"
    best = min(report.tests, key=lambda t: t.holm)
    return f"{best.subject}: {best.test} holm p={best.holm:.3g}"


@dataclass(frozen=True)
class Catch:
    hands: int | None       # prefix length at which the cheat was first named (None: not within the longest)
    evidence: str


@dataclass(frozen=True)
class Measurement:
    trick: str
    detector: str
    rate: float
    catches: tuple[Catch, ...]
    false_alarms: int
    honest_evenings: int
    honest_hands: int
    achieved: float                      # share of the cheat's attempts that reached their goal
    attempts: int
    hit_share: float                     # share of all aimed cards that landed where meant
    seconds: float
    steps: tuple[int, ...] = field(default=STEPS)

    @property
    def caught_share(self) -> float:
        return sum(c.hands is not None for c in self.catches) / len(self.catches)

    @property
    def median_hands(self) -> float | None:
        found = sorted(c.hands for c in self.catches if c.hands is not None)
        if len(found) * 2 < len(self.catches):
            return None
        hands = [c.hands if c.hands is not None else float("inf") for c in self.catches]
        return float(np.median(hands))

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.honest_evenings if self.honest_evenings else 0.0


def _prefix(records: Sequence, hands: int, folder: Path) -> Path:
    path = folder / f"prefix-{hands}.jsonl"
    write_log(path, records[: hands + 1])
    return path


def first_catch(records: Sequence, steps: Sequence[int], detector: str, names: set[str], seed: int,
                folder: Path) -> Catch:
    for hands in steps:
        named, evidence = named_by(detector, _prefix(records, hands, folder), seed)
        if named & names:
            return Catch(hands, evidence)
    return Catch(None, "not named")


def cheating_evening(trick: Technique, rate: float, hands: int, rng: np.random.Generator) -> tuple[list, TableSource]:
    source = TableSource(len(PLAYERS), rng, Cheat(CHEAT_SEAT, trick, rate, PARTNER_SEAT))
    return list(quick_records(PLAYERS, hands, rng, source=source)), source


def honest_evening(hands: int, rng: np.random.Generator) -> list:
    return list(quick_records(PLAYERS, hands, rng))


def weak_server_records(hands: int, rng: np.random.Generator, start: int = WEAK_SERVER_START) -> Iterator:
    """A server-rng evening dealt by the weak server (order and deal only)."""
    source = WeakServerSource(start, rng)
    yield table_header(PLAYERS, dealing="server-rng")
    for number in range(1, hands + 1):
        dealer = (number - 1) % len(PLAYERS)
        split = deal_order(source.deal(number, dealer).order, RUSSIAN)
        seat_hands = [to_ascii_list(h) for h in deal_by_seat(split, RUSSIAN, dealer, len(PLAYERS))]
        yield HandRecord(hand=number, dealer=dealer,
                         deal=DealRecord(hands=seat_hands, talons=[to_ascii_list(t) for t in split.talons]))


def _server_rng_records(hands: int, rng: np.random.Generator) -> Iterator:
    """An honest server (numpy's PCG64, 128-bit state): the same shape of log."""
    yield table_header(PLAYERS, dealing="server-rng")
    for number in range(1, hands + 1):
        dealer = (number - 1) % len(PLAYERS)
        split = deal_order(rng.permutation(RUSSIAN.deck.codes()).astype(np.uint8), RUSSIAN)
        seat_hands = [to_ascii_list(h) for h in deal_by_seat(split, RUSSIAN, dealer, len(PLAYERS))]
        yield HandRecord(hand=number, dealer=dealer,
                         deal=DealRecord(hands=seat_hands, talons=[to_ascii_list(t) for t in split.talons]))


def measure_weak_server(replicates: int, seed: int, bits: int = 16) -> Measurement:
    """The seed search: named in the first hand it scans when the window holds the seed; never on an honest server."""
    began = time.perf_counter()
    rng = np.random.default_rng(seed)
    catches, false_alarms = [], 0
    with tempfile.TemporaryDirectory() as folder:
        for r in range(replicates):
            weak = Path(folder) / f"weak-{r}.jsonl"
            write_log(weak, weak_server_records(6, rng))
            scan = weak_server_seeds(weak, WEAK_SERVER_START, bits, max_hands=1)
            catches.append(Catch(1 if scan.weak else None,
                                 f"seed of hand {scan.found[0][0]} found at {scan.seeds_per_second:,.0f} seeds/s"
                                 if scan.weak else "no seed in the window"))
            fair = Path(folder) / f"fair-{r}.jsonl"
            write_log(fair, _server_rng_records(6, rng))
            false_alarms += weak_server_seeds(fair, WEAK_SERVER_START, bits, max_hands=1).weak
    found = sum(c.hands is not None for c in catches) / replicates
    return Measurement("weak-server", DETECTOR_OF["weak-server"], 1.0, tuple(catches), false_alarms, replicates, 1,
                       found, replicates, found, time.perf_counter() - began, (1,))


_FALSE_ALARMS: dict[tuple[str, int, int, int], tuple[int, int]] = {}


def false_alarms(detector: str, evenings: int, hands: int, seed: int) -> tuple[int, int]:
    """(evenings where anyone was named, evenings) on honest tables; cached per detector and size."""
    key = (detector, evenings, hands, seed)
    if key not in _FALSE_ALARMS:
        rng = np.random.default_rng([seed, 7])
        alarms = 0
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(evenings):
                named, _ = named_by(detector, _prefix(honest_evening(hands, rng), hands, Path(folder)), seed)
                alarms += bool(named)
        _FALSE_ALARMS[key] = (alarms, evenings)
    return _FALSE_ALARMS[key]


def measure(trick: Technique, replicates: int = 8, rate: float = 0.5, seed: int = 0,
            steps: Sequence[int] = STEPS, honest_evenings: int = 10,
            progress: Callable[[str], None] | None = None) -> Measurement:
    """Hands needed and false alarms for one technique (see the module docstring)."""
    if trick.name == "weak-server":
        return measure_weak_server(replicates, seed)
    began = time.perf_counter()
    detector = detector_for(trick)
    rng = np.random.default_rng([seed, len(trick.name)])
    wanted = {PLAYERS[CHEAT_SEAT], PLAYERS[PARTNER_SEAT]} if trick.name == "partner-stack" else {PLAYERS[CHEAT_SEAT]}
    catches, achieved, attempts, hits, aimed = [], 0, 0, 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for r in range(replicates):
            records, source = cheating_evening(trick, rate, max(steps), rng)
            plans = [h.plan for h in source.history if h.plan is not None]
            achieved += sum(p.achieved for p in plans)
            attempts += len(plans)
            hits += sum(p.hits for p in plans)
            aimed += sum(len(p.targeted) for p in plans)
            catches.append(first_catch(records, steps, detector, wanted, seed + r, Path(folder)))
            if progress is not None:
                progress(f"{trick.name}: evening {r + 1}/{replicates}: {catches[-1].hands or 'not'} named")
    alarms, evenings = false_alarms(detector, honest_evenings, max(steps), seed)
    return Measurement(trick.name, detector, rate, tuple(catches), alarms, evenings, max(steps),
                       achieved / attempts if attempts else 0.0, attempts, hits / aimed if aimed else 0.0,
                       time.perf_counter() - began, tuple(steps))
