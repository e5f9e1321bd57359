"""How many hands ``fairdeal audit`` needs to name a cardsharp, and how often it names an honest dealer.

For each technique: ``replicates`` simulated evenings at a 3-player table where seat 1 uses the technique in a
share ``rate`` of his deals (``table.quick_records``: order, shuffle and deal, no play). Each evening is audited
by ``audit.run.run_audit`` — exactly what ``fairdeal audit LOG`` runs, with the same options — on growing
prefixes (6, 12, 24, ... hands) until the auditor names the cheat (for a stacked partner's hand, the dealer or
the partner; for the weak server, the deal generator); the hands needed are the prefix length. The false-alarm
rate is the share of honest evenings (every dealer fair, ``HonestDealer``) of the longest length in which the
auditor names anyone. The auditor's level is ``alpha`` (1%), Holm-corrected across its whole family of tests.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from fairdeal.audit.run import AuditResult, RunOptions, run_audit
from fairdeal.audit.seeds import recover_deal, seed_window
from fairdeal.audit.verdict import WEIGHED_FINDINGS
from fairdeal.cards import from_ascii_list, to_ascii_list
from fairdeal.deal import deal_by_seat, deal_order
from fairdeal.log import write_log
from fairdeal.log.records import DealRecord, HandRecord, Record
from fairdeal.tricks.base import Technique
from fairdeal.tricks.plan import RUSSIAN
from fairdeal.tricks.table import Cheat, TableSource, quick_records, table_header
from fairdeal.tricks.weak_server import WeakServerSource

PLAYERS = ("Anna", "Boris", "Vera")
CHEAT_SEAT = 1
PARTNER_SEAT = 0  # the cheat's right-hand neighbour: he cuts when the cheat deals
ALPHA = 0.01
STEPS = (6, 12, 24, 48, 96, 192, 384)
WEAK_SERVER_START = 1_764_000_000  # a Unix time (late 2025): the server's clock when the evening began
SEED_WINDOW_BITS = 16  # ``fairdeal audit --server-seed-window 16``
GENERATOR = "the deal generator"  # who is named when the generator is flagged
DIGITAL_STEPS = (6, 12, 24, 48)


def audit_options(seed: int, digital: bool = False) -> RunOptions:
    """The options of ``fairdeal audit --alpha 0.01 --seed SEED [--server-seed-window 16]`` (legality aside: the
    measured evenings log no play)."""
    return RunOptions(
        alpha=ALPHA, seed=seed, legality=False, workers=1, server_seed_window=SEED_WINDOW_BITS if digital else None
    )


def named(result: AuditResult) -> set[str]:
    """Everyone the audit names: suspicious dealers, players who profited, a flagged deal generator."""
    v = result.verdict
    return set(v.suspects()) | set(v.beneficiaries()) | ({GENERATOR} if v.generator_flagged() else set())


def strongest(result: AuditResult) -> str:
    """The audit's strongest evidence, in one line."""
    v = result.verdict
    certain = v.certain()
    if certain:
        kind = certain[0][3].kind
        return f"finding [{kind}] in {sum(1 for f in certain if f[3].kind == kind)} hand(s)"
    if not v.tests:
        return "no tests"
    best = min(v.tests, key=lambda t: t.holm)
    text = f"{best.subject}: {best.test} holm p={best.holm:.3g}"
    weighed = [f for f in v.findings if f[3].kind in WEIGHED_FINDINGS and f[2] == best.dealer]
    if weighed and best.test.startswith("deals against their logged shuffles"):
        kind = weighed[0][3].kind
        return f"weighed finding [{kind}] in {sum(1 for f in weighed if f[3].kind == kind)} hand(s); {text}"
    return text


def named_by(path: Path, seed: int, digital: bool = False) -> tuple[set[str], str]:
    """Who ``fairdeal audit`` names in the log at ``path``, and its strongest evidence."""
    result = run_audit(path, audit_options(seed, digital))
    return named(result), strongest(result)


@dataclass(frozen=True)
class Catch:
    hands: int | None  # prefix length at which the cheat was first named (None: not within the longest)
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
    achieved: float  # share of the cheat's attempts that reached their goal
    attempts: int
    hit_share: float  # share of all aimed cards that landed where meant
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


def _prefix(records: Sequence[Record], hands: int, folder: Path) -> Path:
    path = folder / f"prefix-{hands}.jsonl"
    write_log(path, records[: hands + 1])
    return path


def first_catch(
    records: Sequence[Record], steps: Sequence[int], names: set[str], seed: int, folder: Path, digital: bool = False
) -> Catch:
    for hands in steps:
        found, evidence = named_by(_prefix(records, hands, folder), seed, digital)
        if found & names:
            return Catch(hands, evidence)
    return Catch(None, "not named")


def cheating_evening(
    trick: Technique, rate: float, hands: int, rng: np.random.Generator
) -> tuple[list[Record], TableSource]:
    source = TableSource(len(PLAYERS), rng, Cheat(CHEAT_SEAT, trick, rate, PARTNER_SEAT))
    return list(quick_records(PLAYERS, hands, rng, source=source)), source


def honest_evening(hands: int, rng: np.random.Generator) -> list[Record]:
    return list(quick_records(PLAYERS, hands, rng))


def _started(start: int) -> str:
    return datetime.fromtimestamp(start, UTC).isoformat()


def _server_records(hands: int, deck_of: Callable[[int, int], np.ndarray], start: int) -> Iterator[Record]:
    yield table_header(PLAYERS, dealing="server-rng", started=_started(start))
    for number in range(1, hands + 1):
        dealer = (number - 1) % len(PLAYERS)
        split = deal_order(deck_of(number, dealer), RUSSIAN)
        seat_hands = [to_ascii_list(h) for h in deal_by_seat(split, RUSSIAN, dealer, len(PLAYERS))]
        yield HandRecord(
            hand=number,
            dealer=dealer,
            deal=DealRecord(hands=seat_hands, talons=[to_ascii_list(t) for t in split.talons]),
        )


def weak_server_records(hands: int, rng: np.random.Generator, start: int = WEAK_SERVER_START) -> Iterator[Record]:
    """A server-rng evening dealt by the weak server (order and deal only; the header holds the start time)."""
    source = WeakServerSource(start, rng)
    return _server_records(hands, lambda number, dealer: source.deal(number, dealer).order, start)


def server_rng_records(hands: int, rng: np.random.Generator, start: int = WEAK_SERVER_START) -> Iterator[Record]:
    """An honest server (numpy's PCG64, 128-bit state): the same shape of log."""
    return _server_records(hands, lambda number, dealer: rng.permutation(RUSSIAN.deck.codes()).astype(np.uint8), start)


_FALSE_ALARMS: dict[tuple[bool, int, int, int], tuple[int, int]] = {}


def false_alarms(digital: bool, evenings: int, hands: int, seed: int) -> tuple[int, int]:
    """(evenings where anyone was named, evenings) on honest tables (a fair server when ``digital``); cached."""
    key = (digital, evenings, hands, seed)
    if key not in _FALSE_ALARMS:
        rng = np.random.default_rng([seed, 7])
        alarms = 0
        with tempfile.TemporaryDirectory() as folder:
            for _ in range(evenings):
                records = list(server_rng_records(hands, rng)) if digital else honest_evening(hands, rng)
                found, _ = named_by(_prefix(records, hands, Path(folder)), seed, digital)
                alarms += bool(found)
        _FALSE_ALARMS[key] = (alarms, evenings)
    return _FALSE_ALARMS[key]


def _weak_server_evening(hands: int, rng: np.random.Generator) -> tuple[list[Record], int, int]:
    """A weak-server evening, and whether the player of seat 0 recovered hand 1 from his own cards (1 of 1)."""
    source = WeakServerSource(WEAK_SERVER_START, rng)
    records = list(_server_records(hands, lambda number, dealer: source.deal(number, dealer).order, WEAK_SERVER_START))
    first = records[1]
    assert isinstance(first, HandRecord) and isinstance(first.deal, DealRecord)  # records[0] is the header
    hand_index = (0 - first.dealer - 1) % len(PLAYERS)
    start, stop = seed_window(source.seeds[1], SEED_WINDOW_BITS)
    recovery = recover_deal(from_ascii_list(first.deal.hands[0]).tolist(), hand_index, start, stop)
    return records, int(recovery.deal is not None), 1


def measure(
    trick: Technique,
    replicates: int = 8,
    rate: float = 0.5,
    seed: int = 0,
    steps: Sequence[int] = STEPS,
    honest_evenings: int = 10,
    progress: Callable[[str], None] | None = None,
) -> Measurement:
    """Hands needed and false alarms for one technique (see the module docstring)."""
    began = time.perf_counter()
    digital = is_digital(trick)
    steps = DIGITAL_STEPS if digital else tuple(steps)
    rng = np.random.default_rng([seed, len(trick.name)])
    wanted = (
        {GENERATOR}
        if digital
        else {PLAYERS[CHEAT_SEAT]} | ({PLAYERS[PARTNER_SEAT]} if trick.receives_partner else set())
    )
    catches, achieved, attempts, hits, aimed = [], 0, 0, 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for r in range(replicates):
            if digital:
                records, reached, tried = _weak_server_evening(max(steps), rng)
                achieved, attempts, hits, aimed = achieved + reached, attempts + tried, hits + reached, aimed + tried
            else:
                records, source = cheating_evening(trick, rate, max(steps), rng)
                plans = [h.plan for h in source.history if h.plan is not None]
                achieved += sum(p.achieved for p in plans)
                attempts += len(plans)
                hits += sum(p.hits for p in plans)
                aimed += sum(len(p.targeted) for p in plans)
            catches.append(first_catch(records, steps, wanted, seed + r, Path(folder), digital))
            if progress is not None:
                progress(f"{trick.name}: evening {r + 1}/{replicates}: {catches[-1].hands or 'not'} named")
    alarms, evenings = false_alarms(digital, honest_evenings, max(steps), seed)
    return Measurement(
        trick.name,
        credited(catches),
        1.0 if digital else rate,
        tuple(catches),
        alarms,
        evenings,
        max(steps),
        achieved / attempts if attempts else 0.0,
        attempts,
        hits / aimed if aimed else 0.0,
        time.perf_counter() - began,
        tuple(steps),
    )


def is_digital(trick: Technique) -> bool:
    """The weak server deals online: its evenings are digital logs, audited with the seed window."""
    return trick.name == "weak-server"


def steps_for(trick: Technique) -> tuple[int, ...]:
    return DIGITAL_STEPS if is_digital(trick) else STEPS


def credited(catches: Sequence[Catch]) -> str:
    """The evidence that named the cheat first in most evenings: a finding's kind or a test's name."""
    labels = [
        c.evidence.split(" holm p=")[0].split(": ", 1)[-1]
        if " holm p=" in c.evidence
        else c.evidence.split("]")[0].replace("finding [", "finding ")
        for c in catches
        if c.hands is not None
    ]
    return max(set(labels), key=labels.count) if labels else "nothing within the longest evening"
