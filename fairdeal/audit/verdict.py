"""From merged sums to a verdict: the family of tests (Holm and Benjamini-Hochberg), the sequential detectors and
the named suspects.

The family: per dealer the talon's aces (exact) and value, the aces' mixture e-process (anytime-valid:
``1 / max E`` is a p-value by Ville's inequality), a repeated cut depth; per (dealer, receiving seat) the seat's
hand value and the talon's rank given the seat's hand (Fisher over exactly uniform per-hand p-values); when the
shuffle's tells ran (``tells``), per dealer a shuffle too weak for its riffles and aces brought together; for
digital deals the GLI battery; when targeting ran, per dealer the talon and per (dealer, seat) the hand value
against honest shuffles of the same effort (``targeting``; its per-hand p-values are Benjamini-Hochberg
adjusted across hands, and hands at q <= alpha are listed as findings that do not by themselves flag); per
(cutter, seat or talon) the rank of the chosen cut depth's value among the legal depths, two-sided
(``actors.cutter``; the actor is the cutter, named by ``cutters``); per dealer the e-processes of ``evidence``
over his hands' e-values (the replay's, weighed against honest log errors by ``benign``, and targeting's
calibrated p-values), which name the hands that carry the evidence. A dealer or player is flagged when a test of
theirs has Holm-adjusted p <= alpha, so the family-wise false-alarm rate is at most alpha. A deal that differs
from its logged shuffle and a false cut are weighed findings: listed with their likelihood ratio, flagging only
through the dealer's e-process; a mismatch honest log errors explain is log quality (``LogQuality``), not a
finding. Findings no honest hand shows (a deal with a card too many or too few, an illegal cut, a cut by the
wrong player or one naming no actor in a log that names actors (``actors.cuts``), a rules breach, a cooked score
line) flag without statistics. The CUSUM and the e-process say after which of his deals a dealer first became
suspicious. The tests of benefit (``benefit``) ask per (dealer | cutter -> seat, talon) whether the target was
fed or sunk, two-sided; they name the actor, the beneficiary and the direction, and the actor is a suspect. The
tests of steered features (``features``: a seat's aces and longest suit, the talon's points and low cards, per
dealer and target, exact binomial counts of each extreme tail) name the same; with the talon's aces total they
make the family of steered features.

The alpha budget is split (``ALPHA_SPLIT``) between the steered features and every other test: Holm (and
Benjamini-Hochberg) run within each family at its share of alpha, and each adjusted p-value is divided by its
share, so "adjusted p <= alpha" means significant at the family-wise level alpha over both (Bonferroni across
the families). A family with no test in a log gives its share to the others.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.actors.cuts import UNATTRIBUTED, WRONG
from fairdeal.audit.actors.cutter import TALON as CUT_TALON
from fairdeal.audit.actors.cutter import habit_pvalue
from fairdeal.audit.battery import battery_tests
from fairdeal.audit.benefit.family import EXACT_DEALS, HAND_TEST, TALON, TALON_TEST, benefit_tests, upper_tail
from fairdeal.audit.benefit.family import NULL as BENEFIT_NULL
from fairdeal.audit.benefit.family import subject as benefit_subject
from fairdeal.audit.benefit.fold import Lattice
from fairdeal.audit.benign import LOG_ERROR_NAMES
from fairdeal.audit.bulk_replay import DEAL_SOURCE, EVIDENCE_TABLE, FALSE_CUT_SOURCE
from fairdeal.audit.evidence import REPLAY, TARGETING, DealerEvidence, dealer_evidence
from fairdeal.audit.exact import laws_for
from fairdeal.audit.features.depth import NULL as DEPTH_NULL
from fairdeal.audit.features.depth import depth_tests
from fairdeal.audit.features.tests import NULL as FEATURE_NULL
from fairdeal.audit.features.tests import feature_tests
from fairdeal.audit.quality import MEASURES, guessing_null
from fairdeal.audit.replay import CutDepthTally, Finding
from fairdeal.audit.scan import Merged
from fairdeal.audit.sequential import calibrated_threshold, cusum_path, eprocess_path, llr_table
from fairdeal.audit.stats import benjamini_hochberg, holm, talon_aces_total_pvalue
from fairdeal.audit.summary import HandTable
from fairdeal.audit.tails import binomial_sf, chi2_sf, normal_sf
from fairdeal.audit.targeting import SAME_EFFORT_NULL
from fairdeal.audit.tells import LAZY_LEVEL, LAZY_NULL, TOGETHER_NULL
from fairdeal.cards import DeckKind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fairdeal.audit.exact import Laws
    from fairdeal.audit.summary import Sums
    from fairdeal.deal import DealPattern

DEALER_FINDINGS = frozenset({"bad-deal", "illegal-cut", WRONG, UNATTRIBUTED})
# Findings an honest hand can show by chance or through an imperfect log: listed with their likelihood ratio,
# which enters the dealer's replay e-process (a test of the family), never flagging by themselves.
WEIGHED_FINDINGS = frozenset({"deal-mismatch", "false-cut"})
RULE_FINDINGS = frozenset(
    {"illegal-play", "illegal-bid", "cooked-score", "cooked-settlement", "wrong-streak", "dealer-out-of-turn"}
)
CERTAIN_FINDINGS = DEALER_FINDINGS | RULE_FINDINGS | {"repeated-deal", "weak-seed"}
MAX_CALIBRATED_HORIZON = 20_000
PATH_POINTS = 1500
FEATURE_FAMILY = "steered features"
OTHER_FAMILY = "other tests"
# Shares of alpha: the steered features are few tests, each exact; the others many, some conservative.
ALPHA_SPLIT = ((FEATURE_FAMILY, 0.5), (OTHER_FAMILY, 0.5))


@dataclass(frozen=True)
class TestResult:
    subject: str  # "dealer Boris", "dealer Boris -> player Vera", "deal generator"
    test: str
    statistic: float
    pvalue: float
    count: int
    null: str
    holm: float = 1.0
    bh: float = 1.0
    # Who the test is about, as the log names them: never parsed back out of the display ``subject``.
    dealer: str | None = None
    player: str | None = None
    # Who acted, who gained or lost, which way (benefit, cut and play tests).
    actor: str | None = None
    beneficiary: str | None = None
    direction: str | None = None  # "fed" (too good) or "sunk" (too bad)
    # For the report's sentences: which template reads this test, and what was counted against what honest play
    # expects of it (``None``: the test has no natural count).
    kind: str = ""
    observed: float | None = None
    expected: float | None = None
    # A dealer's benefit test whose excess a flagged cutter's chosen depths account for: it does not flag.
    explained_by: str | None = None
    # The bound of the counted tail (steered-feature tests): "3 or more aces".
    bound: int | None = None
    family: str = OTHER_FAMILY  # the share of alpha the test is adjusted in (``ALPHA_SPLIT``)


@dataclass(frozen=True)
class DealerPath:
    """One dealer's sequential evidence: alarm moments and a thinned path for the plots."""

    dealer: str
    deals: int
    talon_aces: int
    talon_cards: int
    cusum_alarm: int | None  # hand number of the first CUSUM alarm
    eprocess_alarm: int | None  # hand number where the e-process first reached its bar
    max_log_e: float
    hands: tuple[int, ...] = field(repr=False, default=())
    cusum: tuple[float, ...] = field(repr=False, default=())
    log_e: tuple[float, ...] = field(repr=False, default=())


@dataclass(frozen=True)
class DealerQuality:
    """One dealer's shuffle quality: how much chance his logged actions could carry, and the measures' means."""

    dealer: str
    read: int  # hands whose logged shuffle was read
    zero_bits: int  # of those, hands whose logged actions carry no randomness
    mean_bits: float
    measured: int  # hands whose whole shuffle is logged (the measures apply)
    means: dict[str, float]  # measure -> mean over the measured hands
    guessing_counts: tuple[int, ...]  # histogram of the cyclic guessing score

    @property
    def zero_share(self) -> float:
        return self.zero_bits / self.read if self.read else float("nan")

    def honest_guessing_mean(self) -> float:
        return guessing_null(len(self.guessing_counts) - 1).mean


@dataclass(frozen=True)
class LogQuality:
    """One dealer's imperfect log: deals that differ from their logged shuffle, by the honest log error that
    explains each (``benign.LOG_ERRORS``), and those no log error explains (weighed findings)."""

    dealer: str
    mismatches: int
    explained: dict[str, int]  # log error name -> hands it explains best
    unexplained: int


@dataclass(frozen=True)
class Verdict:
    players: tuple[str, ...]
    pattern: str
    dealing: str
    hands: int
    lines: int
    alpha: float
    tests: tuple[TestResult, ...]
    paths: tuple[DealerPath, ...]
    cusum_threshold: float
    cusum_horizon: int
    eprocess_bar: float
    findings: tuple[tuple[int, int, str, Finding], ...]
    finding_counts: dict[str, int]
    malformed: tuple[str, ...]
    malformed_count: int
    notes: tuple[str, ...]
    targeting: HandTable | None = None  # per-hand targeting p-values with their BH q-values (column q)
    quality: HandTable | None = None  # per-hand shuffle quality rows (small logs)
    quality_dealers: tuple[DealerQuality, ...] = ()
    evidence: tuple[DealerEvidence, ...] = ()  # per dealer and source: the e-process and the hands that carry it
    log_quality: tuple[LogQuality, ...] = ()  # per dealer: mismatching deals and the log errors that explain them
    undealt: int = 0  # valid hand lines without a deal (a log may record only the play): not audited, not malformed

    def flagged(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if t.holm <= self.alpha and t.explained_by is None)

    def certain(self) -> tuple[tuple[int, int, str, Finding], ...]:
        return tuple(f for f in self.findings if f[3].kind in CERTAIN_FINDINGS)

    def suspects(self) -> tuple[str, ...]:
        """Dealers with a Holm-significant test, or a finding no honest hand shows."""
        names = {t.dealer for t in self.flagged() if t.dealer and (t.player is None or t.test.startswith("talon"))}
        names |= {t.actor for t in self.flagged() if t.actor and t.actor == t.dealer}
        names |= {who for _, _, who, f in self.findings if who and f.kind in DEALER_FINDINGS}
        return tuple(sorted(names))

    def rule_breakers(self) -> tuple[str, ...]:
        """Players named by a legality finding (a renonce, an illegal bid, their cooked score line)."""
        return tuple(sorted({who for _, _, who, f in self.findings if who and f.kind in RULE_FINDINGS}))

    def cutters(self) -> tuple[str, ...]:
        """Players whose chosen cut depths gave someone more (or less) than honest cuts do (Holm-significant)."""
        return tuple(sorted({t.actor for t in self.cutter_tests() if t.actor}))

    def cutter_tests(self) -> tuple[TestResult, ...]:
        """Flagged tests whose actor is a cutter: his chosen depths, or the benefit of the deals he cut."""
        return tuple(
            t
            for t in self.flagged()
            if t.actor and t.actor != t.dealer and (t.test.startswith(CUT_TEST) or t.direction is not None)
        )

    def beneficiaries(self) -> tuple[str, ...]:
        """Players whose hands, when a given dealer dealt, were stronger than chance allows (Holm-significant)."""
        return tuple(
            sorted(
                {t.player for t in self.flagged() if t.player and t.test.startswith("hand value")}
                | {t.player for t in self.flagged() if t.player and t.direction == "fed"}
            )
        )

    def victims(self) -> tuple[str, ...]:
        """Players whose hands or talons, when a given actor dealt or cut, were weaker than chance allows."""
        return tuple(sorted({t.player for t in self.flagged() if t.player and t.direction == "sunk"}))

    def generator_flagged(self) -> bool:
        """The digital deal generator failed the battery, repeated a deal or dealt from a searchable seed."""
        return any(t.subject == "deal generator" for t in self.flagged()) or any(
            f.kind in ("repeated-deal", "weak-seed") for _, _, _, f in self.findings
        )

    @property
    def clean(self) -> bool:
        return not self.flagged() and not self.certain()


def _thin(values: np.ndarray) -> np.ndarray:
    if len(values) <= PATH_POINTS:
        return np.arange(len(values))
    return np.unique(np.linspace(0, len(values) - 1, PATH_POINTS).astype(np.int64))


def build_verdict(
    merged: Merged,
    alpha: float,
    cheat_rate: float = 0.25,
    min_each_side: int = 4,
    seed: int = 0,
    extra_findings: list[tuple[int, int, str, Finding]] | None = None,
    extra_notes: list[str] | None = None,
    extra_tests: Sequence[TestResult] = (),
) -> Verdict:
    header, layout = merged.header, merged.layout
    pattern = layout.pattern
    players = header.players
    laws = laws_for(layout)
    talon_cards = pattern.talons * pattern.talon_size
    notes = list(extra_notes or [])
    tests: list[TestResult] = []
    dealers_present = [d for d in range(len(players)) if merged.aces[d]]
    bar = float(np.log(max(len(dealers_present), 1) / alpha))
    cusum_llr = llr_table(pattern.deck.size, talon_cards, (cheat_rate,))[0]
    deals = {d: int(sum(len(a) for a in merged.aces[d])) for d in dealers_present}
    horizon = min(max(deals.values(), default=1), MAX_CALIBRATED_HORIZON)
    per_dealer = alpha / max(len(dealers_present), 1)
    # The threshold's simulation (in C and numpy, without the interpreter lock) runs in a thread while this one does
    # every test that does not need it: on two cores the verdict waits for the longer of the two.
    with ThreadPoolExecutor(max_workers=1) as pool:
        simulated = (
            pool.submit(calibrated_threshold, pattern.name, talon_cards, cheat_rate, horizon, per_dealer, seed)
            if dealers_present
            else None
        )
        stacking = _depth_tests(merged, players, laws)  # sparse stacking, by the last cut's depth
        sequences = {d: _sequence(merged, d, pattern.deck.size, talon_cards) for d in dealers_present}
        for d, (_, _, log_e) in sequences.items():
            tests += _dealer_tests(players[d], d, merged, laws, pattern, float(log_e.max()), min_each_side)
        tests += _seat_tests(merged, players)
        tests += _benefit_tests(merged, players)
        tests += _feature_tests(merged, players)
        tests += stacking
        threshold = simulated.result() if simulated is not None else 0.0
    if max(deals.values(), default=0) > MAX_CALIBRATED_HORIZON:
        notes.append(
            f"the CUSUM threshold is calibrated for {MAX_CALIBRATED_HORIZON:,} deals per dealer; beyond that "
            "its alarms are indicative, and the anytime-valid e-process carries the test"
        )
    paths = [_dealer_path(players[d], *sequences[d], talon_cards, cusum_llr, threshold, bar) for d in dealers_present]
    tests += _cutter_tests(merged, players)
    notes += _cutter_notes(merged, players)
    findings = list(merged.findings) + list(extra_findings or [])
    counts = dict(merged.finding_counts)
    if not merged.sums.actor_actions.any():
        # A log that never names an actor does not say who cut: a cut without one is no finding there.
        findings = [f for f in findings if f[3].kind != UNATTRIBUTED]
        counts.pop(UNATTRIBUTED, None)
    for f in extra_findings or []:
        counts[f[3].kind] = counts.get(f[3].kind, 0) + 1
    if header.dealing != "physical":
        pairs, repeated = _duplicates(merged)
        for finding in repeated:
            findings.append(finding)
            counts["repeated-deal"] = counts.get("repeated-deal", 0) + 1
        sizes = [pattern.cards_per_hand] * pattern.hands + [pattern.talon_size] * pattern.talons
        tests += [
            TestResult("deal generator", b.name, b.statistic, b.pvalue, b.count, b.null, kind="battery")
            for b in battery_tests(merged.battery, sizes, pairs, merged.hands)
        ]
    else:
        notes.append("physical deals: the GLI battery for digital deal generators is not applied")
    tests += extra_tests  # the play signals (``audit/play``), in the same Holm / BH family
    targeting = _targeting_hands(merged, alpha, findings, counts)
    evidence = _evidence(merged, targeting)
    tests += [_evidence_test(e) for e in evidence]
    if talon_cards != 2:
        notes.append(
            f"pattern {pattern.name} has {talon_cards} talon cards: the talon-rank test (231 pairs) does not apply"
        )
    judged = tuple(
        _explained(_cuts_for_a_stacker(_adjusted(tests), alpha, merged, notes), alpha, players, header.cutter)
    )
    return Verdict(
        players,
        pattern.name,
        header.dealing,
        merged.hands,
        merged.lines,
        alpha,
        judged,
        tuple(paths),
        threshold,
        horizon,
        bar,
        tuple(findings),
        counts,
        tuple(merged.malformed),
        merged.malformed_count,
        tuple(notes),
        targeting,
        merged.table("quality"),
        _dealer_quality(merged, players),
        evidence,
        _log_quality(merged),
        merged.undealt,
    )


def _sequence(
    merged: Merged, dealer: int, deck_size: int, talon_cards: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A dealer's talon aces and hand numbers in log order, and the log of his mixture e-value after each deal."""
    aces = np.concatenate(merged.aces[dealer]).astype(np.int64)
    return aces, np.concatenate(merged.numbers[dealer]), eprocess_path(aces, deck_size, talon_cards)


def _dealer_path(
    name: str,
    aces: np.ndarray,
    numbers: np.ndarray,
    log_e: np.ndarray,
    talon_cards: int,
    cusum_llr: np.ndarray,
    threshold: float,
    bar: float,
) -> DealerPath:
    cusum = cusum_path(cusum_llr[aces])
    over_c, over_e = np.flatnonzero(cusum > threshold), np.flatnonzero(log_e >= bar)
    keep = _thin(aces)
    return DealerPath(
        name,
        len(aces),
        int(aces.sum()),
        talon_cards,
        int(numbers[over_c[0]]) if len(over_c) else None,
        int(numbers[over_e[0]]) if len(over_e) else None,
        float(log_e.max()),
        tuple(int(h) for h in numbers[keep]),
        tuple(float(c) for c in cusum[keep]),
        tuple(float(v) for v in log_e[keep]),
    )


def _evidence(merged: Merged, targeting: HandTable | None) -> tuple[DealerEvidence, ...]:
    """Each dealer's e-processes: the replay's weighed hands, and targeting's calibrated same-effort p-values."""
    players = merged.header.players
    out = []
    replay = merged.table(EVIDENCE_TABLE)
    if replay is not None and len(replay):
        c = replay.columns
        for d in np.unique(c["dealer"]):
            rows = np.flatnonzero(c["dealer"] == d)
            reasons = ["false cut" if c["source"][i] == FALSE_CUT_SOURCE else "deal" for i in rows]
            out.append(
                dealer_evidence(players[int(d)], REPLAY, c["line"][rows], c["hand"][rows], c["e"][rows], reasons)
            )
    if targeting is not None and len(targeting):
        c = targeting.columns
        for d in np.unique(c["dealer"]):
            rows = np.flatnonzero(c["dealer"] == d)
            e = c["e_talon"][rows]
            reasons = ["talon aces against same-effort shuffles"] * len(rows)
            out.append(dealer_evidence(players[int(d)], TARGETING, c["line"][rows], c["hand"][rows], e, reasons))
    return tuple(out)


def _evidence_test(evidence: DealerEvidence) -> TestResult:
    what = (
        "deals against their logged shuffles, weighed against honest log errors (e-process)"
        if evidence.source == REPLAY
        else "talon aces against honest shuffles of the same effort (e-process)"
    )
    return TestResult(
        f"dealer {evidence.dealer}",
        what,
        evidence.max_log_e,
        evidence.pvalue,
        evidence.weighed,
        "per-hand e-values (mean <= 1 when honest) bet on in log order; 1/max is a p-value (Ville)",
        dealer=evidence.dealer,
    )


def _log_quality(merged: Merged) -> tuple[LogQuality, ...]:
    table = merged.table(EVIDENCE_TABLE)
    if table is None or not len(table):
        return ()
    c = table.columns
    deals = c["source"] == DEAL_SOURCE
    out = []
    for d in np.unique(c["dealer"][deals]):
        models = c["log_error"][deals & (c["dealer"] == d)]
        explained = {LOG_ERROR_NAMES[m]: int(np.count_nonzero(models == m)) for m in np.unique(models[models >= 0])}
        out.append(LogQuality(merged.header.players[int(d)], len(models), explained, int(np.count_nonzero(models < 0))))
    return tuple(out)


def _targeting_hands(
    merged: Merged, alpha: float, findings: list[tuple[int, int, str, Finding]], counts: dict[str, int]
) -> HandTable | None:
    """Per-hand targeting p-values with Benjamini-Hochberg q-values; hands at q <= alpha become findings."""
    table = merged.table("targeting")
    if table is None or not len(table):
        return None
    c = table.columns
    q = benjamini_hochberg(np.maximum(c["p"], np.finfo(float).tiny))
    table = HandTable({**c, "q": q})
    named = np.flatnonzero(q <= alpha)
    if len(named):
        counts["targeted-hand"] = len(named)
    for row in named[np.argsort(q[named], kind="stable")][: merged.keep]:
        cross = (
            ""
            if np.isnan(c["p_cross"][row])
            else (
                f"; against the dealer's other shuffles (cross-match) p = {c['p_cross'][row]:.3g}, talon "
                f"{c['p_cross_talon'][row]:.3g}"
            )
        )
        findings.append(
            (
                int(c["line"][row]),
                int(c["hand"][row]),
                merged.header.players[int(c["dealer"][row])],
                Finding(
                    "targeted-hand",
                    f"hand {int(c['hand'][row])}: a deal unlikely from its gathered "
                    f"order: p = {c['p'][row]:.3g} (BH q = {q[row]:.3g}); against honest shuffles of "
                    f"the same effort p = {c['p_same'][row]:.3g}, talon {c['p_talon'][row]:.3g} with "
                    f"{int(c['talon_aces'][row])} ace(s){cross}",
                ),
            )
        )
    return table


def targeting_row(verdict: Verdict, i: int) -> list[str]:
    """One hand of the targeting table in words: hand, dealer, talon aces, p, BH q, then each null and its talon."""
    assert verdict.targeting is not None  # rows are asked of a verdict with a targeting table
    c = verdict.targeting.columns

    def fmt(x: float) -> str:
        return "-" if np.isnan(x) else f"{x:.3g}"

    return [
        str(c["hand"][i]),
        verdict.players[int(c["dealer"][i])],
        str(c["talon_aces"][i]),
        fmt(c["p"][i]),
        fmt(c["q"][i]),
        fmt(c["p_same"][i]),
        fmt(c["p_talon"][i]),
        fmt(c["p_cross"][i]),
        fmt(c["p_cross_talon"][i]),
    ]


def _dealer_quality(merged: Merged, players: Sequence[str]) -> tuple[DealerQuality, ...]:
    sums = merged.sums
    out = []
    for d, name in enumerate(players):
        read, measured = int(sums.budget_hands[d]), int(sums.quality_hands[d])
        if not read and not measured:
            continue
        means = {
            m: float(sums.quality_totals[d, i]) / measured if measured else float("nan") for i, m in enumerate(MEASURES)
        }
        out.append(
            DealerQuality(
                name,
                read,
                int(sums.zero_bits[d]),
                float(sums.bits_total[d]) / read if read else float("nan"),
                measured,
                means,
                tuple(int(x) for x in sums.guessing_counts[d]),
            )
        )
    return tuple(out)


def _dealer_tests(
    name: str, d: int, merged: Merged, laws: Laws, pattern: DealPattern, max_log_e: float, min_each_side: int
) -> list[TestResult]:
    subject = f"dealer {name}"
    counts = merged.sums.ace_counts[d]
    hands = int(counts.sum())
    talon_cards = pattern.talons * pattern.talon_size
    total = int(counts @ np.arange(len(counts)))
    if pattern.deck is DeckKind.PIQUET32 and talon_cards == 2:
        p_aces = talon_aces_total_pvalue(counts, laws.talon_aces.pmf)
        aces_null = "honest talons: two of 32 cards, aces hypergeometric (P(2 aces) = 6/496), exact total"
    else:
        p_aces = upper_tail([(hands, Lattice(0, laws.talon_aces.pmf))], total)
        aces_null = (
            f"honest talons: aces hypergeometric, {talon_cards} cards; the total's law by convolution (exact up to "
            f"{EXACT_DEALS:,} deals, normal beyond)"
        )
    value_law = laws.talon_value
    z = (merged.sums.talon_value[d] - hands * value_law.mean) / np.sqrt(hands * value_law.variance)
    tests = [
        TestResult(
            subject,
            "talon aces, total",
            float(total),
            float(p_aces),
            hands,
            aces_null,
            dealer=name,
            kind="talon-aces",
            observed=float(total),
            expected=float(hands * laws.talon_aces.mean),
            family=FEATURE_FAMILY,  # the talon's aces are a feature a dealer steers, tested exactly
        ),
        TestResult(
            subject,
            "talon value, total, two-sided",
            float(z),
            min(1.0, 2 * float(normal_sf(abs(z)))),
            hands,
            "honest talons: exact subset-sum law of the value per hand, normal total, two-sided",
            dealer=name,
            actor=name,
            beneficiary=TALON,
            direction="fed" if z > 0 else "sunk",
            kind="talon-value",
            observed=float(merged.sums.talon_value[d]),
            expected=float(hands * value_law.mean),
        ),
        TestResult(
            subject,
            "talon aces, mixture e-process",
            max_log_e,
            float(min(1.0, np.exp(-max_log_e))),
            hands,
            "likelihood ratio vs an ace stacked in 5-100% of deals; 1/max E is a p-value (Ville)",
            dealer=name,
            kind="talon-aces-eprocess",
        ),
    ]
    tests += _tell_tests(subject, name, merged.sums, d)
    cuts = merged.sums.cut_depths[d]
    if cuts.sum():
        depth, p = CutDepthTally(tuple(int(c) for c in cuts)).repeated_depth(min_each_side)
        tests.append(
            TestResult(
                subject,
                f"cut depth {depth} repeated",
                float(cuts[depth]),
                p,
                int(cuts.sum()),
                "an honest cutter: uniform over legal depths; binomial tail, Bonferroni over depths",
                dealer=name,
                kind="cut-depth",
                observed=float(cuts[depth]),
                expected=float(cuts.sum()) / max(len(cuts) - 2 * min_each_side + 1, 1),
            )
        )
    return tests


def _tell_tests(subject: str, dealer: str, sums: Sums, d: int) -> list[TestResult]:
    """The shuffle's own tells (``tells``), when that pass ran and the dealer logged such shuffles."""
    tests = []
    lazy, low = int(sums.lazy_tests[d]), int(sums.lazy_low[d])
    if lazy:
        tests.append(
            TestResult(
                subject,
                "shuffle too weak for its riffles",
                float(low),
                float(binomial_sf(low - 1, lazy, LAZY_LEVEL)),
                lazy,
                LAZY_NULL,
                dealer=dealer,
                kind="lazy-shuffle",
                observed=float(low),
                expected=lazy * LAZY_LEVEL,
            )
        )
    together = int(sums.together_tests[d])
    if together:
        fisher = float(sums.together_fisher[d])
        tests.append(
            TestResult(
                subject,
                "aces brought together (Fisher)",
                fisher,
                float(chi2_sf(fisher, 2 * together)),
                together,
                TOGETHER_NULL,
                dealer=dealer,
                kind="aces-together",
                observed=fisher,
                expected=2.0 * together,
            )
        )
    targeted = int(sums.targeting_talon_tests[d])
    if targeted:
        fisher = float(sums.targeting_talon_fisher[d])
        tests.append(
            TestResult(
                subject,
                "talon vs honest shuffles of the same effort (Fisher)",
                fisher,
                float(chi2_sf(fisher, 2 * targeted)),
                targeted,
                SAME_EFFORT_NULL,
                dealer=dealer,
                kind="talon-same-effort",
                observed=fisher,
                expected=2.0 * targeted,
            )
        )
    return tests


def _seat_tests(merged: Merged, players: Sequence[str]) -> list[TestResult]:
    sums = merged.sums
    tests = []
    for d in range(len(players)):
        for s in range(len(players)):
            for kind, label, fisher, count, null in (
                (
                    "hand-value",
                    "hand value (Fisher)",
                    sums.hand_fisher,
                    sums.hand_tests,
                    "honest deals: exact subset-sum law of a hand's value, tie-broken p-values, Fisher",
                ),
                (
                    "talon-rank",
                    "talon rank given the hand (Fisher)",
                    sums.rank_fisher,
                    sums.rank_tests,
                    "the talon is a uniform pair of the 22 cards outside the seat's hand: rank among 231 pairs, Fisher",
                ),
                (
                    "hand-same-effort",
                    "hand value vs honest shuffles of the same effort (Fisher)",
                    sums.targeting_seat_fisher,
                    sums.targeting_seat_tests,
                    SAME_EFFORT_NULL,
                ),
            ):
                k = int(count[d, s])
                if k:
                    p = float(chi2_sf(fisher[d, s], 2 * k))
                    tests.append(
                        TestResult(
                            f"dealer {players[d]} -> player {players[s]}",
                            label,
                            float(fisher[d, s]),
                            p,
                            k,
                            null,
                            dealer=players[d],
                            player=players[s],
                            kind=kind,
                            observed=float(fisher[d, s]),
                            expected=2.0 * k,
                        )
                    )
    return tests


def _benefit_tests(merged: Merged, players: Sequence[str]) -> list[TestResult]:
    """The two-sided tests of benefit, one per actor and target, named by who acted and who gained or lost."""
    return [
        TestResult(
            benefit_subject(b),
            TALON_TEST if b.beneficiary == TALON else HAND_TEST,
            b.z,
            b.pvalue,
            b.deals,
            BENEFIT_NULL,
            dealer=b.actor if b.actor_role == "dealer" else None,
            player=None if b.beneficiary == TALON else b.beneficiary,
            actor=b.actor,
            beneficiary=b.beneficiary,
            direction=b.direction,
            observed=b.observed,
            expected=b.expected,
        )
        for b in benefit_tests(merged.sums, merged.layout, players, merged.header.system)
    ]


def _feature_tests(merged: Merged, players: Sequence[str]) -> list[TestResult]:
    """The steered features, per (dealer, target): the tail that stands out, named by dealer, target, direction."""
    out = []
    for f in feature_tests(merged.sums, merged.layout):
        dealer = players[f.dealer]
        player = players[f.target] if f.target < len(players) else None
        to = TALON if player is None else ("himself" if player == dealer else f"player {player}")
        out.append(
            TestResult(
                f"dealer {dealer} -> {to}",
                f"steered: {f.label}",
                float(f.observed),
                f.pvalue,
                f.deals,
                FEATURE_NULL,
                dealer=dealer,
                player=player,
                actor=dealer,
                beneficiary=TALON if player is None else player,
                direction=f.direction,
                kind=f.kind,
                observed=float(f.observed),
                expected=f.expected,
                bound=f.bound,
                family=FEATURE_FAMILY,
            )
        )
    return out


def _depth_tests(merged: Merged, players: Sequence[str], laws: Laws) -> list[TestResult]:
    """Per dealer, the talon's aces at the cut depth where they were most surprising (sparse stacking)."""
    return [
        TestResult(
            f"dealer {players[t.dealer]}",
            f"talon aces at one cut depth ({t.depth}), smallest tail over the depths or at the most frequent one",
            float(t.aces),
            t.pvalue,
            t.deals,
            DEPTH_NULL,
            dealer=players[t.dealer],
            kind="talon-aces-depth",
            observed=float(t.aces),
            expected=t.expected,
            bound=t.depth,
            family=FEATURE_FAMILY,
        )
        for t in depth_tests(merged.sums, merged.layout, laws.talon_aces.pmf)
    ]


CUTTER_NULL = (
    "an honest cutter: depth uniform over the legal depths, so the chosen depth's rank among them (ties broken at "
    "random) is uniform, Fisher on each tail; and, so that a dealer stacking for a habitual depth does not make "
    "the cutter its chooser, his own depths permuted among his cuts (the same scores, normal approximation, "
    "variance bounded above); per tail the larger p-value (intersection-union), two-sided over the tails"
)


CUT_TEST = "cut depth chosen for "


def _cutter_tests(merged: Merged, players: Sequence[str]) -> list[TestResult]:
    """Per (cutter, beneficiary): did his chosen depths give more or less than the legal depths he passed over?"""
    sums = merged.sums
    tests = []
    for c, cutter in enumerate(players):
        for b, who in enumerate((*(f"player {p}" for p in players), CUT_TALON)):
            k = int(sums.cutter_tests[c, b])
            if not k:
                continue
            high = float(chi2_sf(sums.cutter_high[c, b], 2 * k))
            low = float(chi2_sf(sums.cutter_low[c, b], 2 * k))
            habit = [
                habit_pvalue(
                    float(sums.cutter_chosen[c, b, t]),
                    sums.cutter_depths[c, b],
                    sums.cutter_by_depth[c, b, t],
                    sums.cutter_squares[c, b, t],
                )[1]
                for t in (0, 1)
            ]
            tests.append(
                TestResult(
                    f"cutter {cutter} -> {who}",
                    CUT_TEST + ("his own hand" if b == c else "this hand" if b < len(players) else who),
                    float(sums.cutter_high[c, b] if high <= low else sums.cutter_low[c, b]),
                    min(1.0, 2.0 * min(max(high, habit[0]), max(low, habit[1]))),
                    k,
                    CUTTER_NULL,
                    player=players[b] if b < len(players) else None,
                    actor=cutter,
                    beneficiary=players[b] if b < len(players) else CUT_TALON,
                    observed=float(sums.cutter_observed[c, b]),
                    expected=float(sums.cutter_expected[c, b]),
                )
            )
    return tests


def _cuts_for_a_stacker(tests: list[TestResult], alpha: float, merged: Merged, notes: list[str]) -> list[TestResult]:
    """A cutter whose cuts were all of one dealer's deals, when that dealer is flagged for the talon and his own
    shuffle brought the aces together (a tell the cut does not make: a cut moves one neighbour pair at most): the
    cutter's chosen depths cannot be told apart from the dealer's stacking. A dealer who stacks for the cut he
    will get (a crimp, an accomplice's habit) makes its depth the one that gives the most, so the cut test sees a
    choice either way; the dealer is named, and the cutter's tests are kept, explained by him, with a note.
    Without the dealer's own tell, a cutter choosing his depths over honest shuffles stays named."""
    players = merged.header.players
    flagged = [t for t in tests if t.holm <= alpha and t.explained_by is None and t.dealer in players]
    arranged = {t.dealer for t in flagged if t.kind == "aces-together"}
    stackers = {t.dealer for t in flagged if t.kind.startswith("talon") or t.beneficiary == TALON} & arranged
    dealt = merged.sums.benefit_count.sum(axis=2)  # (dealers, cutters)
    by: dict[str, str] = {}
    for c, cutter in enumerate(players):
        dealers = np.flatnonzero(dealt[:, c]) if c < dealt.shape[1] else np.array([], dtype=np.int64)
        if len(dealers) == 1 and players[int(dealers[0])] in stackers and players[int(dealers[0])] != cutter:
            by[cutter] = players[int(dealers[0])]
    out = []
    confounded: dict[str, int] = {}
    for t in tests:
        if t.test.startswith(CUT_TEST) and t.actor in by and t.explained_by is None:
            if t.holm <= alpha:
                confounded[t.actor] = confounded.get(t.actor, 0) + 1
            t = replace(t, explained_by=f"dealer {by[t.actor]}")
        out.append(t)
    notes += [
        f"cutter {cutter}: {n} test(s) of his chosen cut depths stand out, but he cut only dealer {by[cutter]}'s "
        f"deals, {by[cutter]} is flagged for the talon and {by[cutter]}'s own shuffles brought the aces together: "
        "a dealer who stacks for the cut makes its depth look chosen, so these tests cannot tell the cutter's "
        "choice from the dealer's stacking (not counted against him)"
        for cutter, n in confounded.items()
    ]
    return out


def _explained(tests: list[TestResult], alpha: float, players: Sequence[str], cutter: int) -> list[TestResult]:
    """A dealer's deals that fed the cutter himself, when the cutter's chosen depths are flagged as serving his own
    hand, are the cutter's doing: the same cards reach him either way, and only the cut test sees the choice among
    depths. Feeding a third seat stays the dealer's question (a dealer who stacks for his accomplice's cut)."""
    served = {
        (t.actor, t.beneficiary, t.observed > t.expected)
        for t in tests
        if t.test.startswith(CUT_TEST)
        and t.holm <= alpha
        and t.actor == t.beneficiary
        and t.observed is not None
        and t.expected is not None
    }
    out = []
    for t in tests:
        if t.dealer in players and t.actor == t.dealer and t.beneficiary in players and t.direction is not None:
            by = players[(players.index(t.dealer) - cutter) % len(players)]
            if (by, t.beneficiary, t.direction == "fed") in served:
                t = replace(t, explained_by=f"cutter {by}")
        out.append(t)
    return out


def _cutter_notes(merged: Merged, players: Sequence[str]) -> list[str]:
    sums = merged.sums
    notes = [
        f"cutter {name}: {int(n):,} cut(s) not tested for the chosen depth: the order before the cut is not "
        "logged (only the deal and the depth), or an action around it is logged without its details"
        for name, n in zip(players, sums.cutter_untested)
        if n
    ]
    if sums.gathered.any():
        notes.append(
            "the log does not say who gathered the cards (the format has no such field): each gathered order is "
            "taken as given, so a gatherer who arranges it for himself or a partner is not tested"
        )
    if merged.hands and not sums.actor_actions.any():
        notes.append(
            "no shuffle in this log names its actor: who cut cannot be checked, and the cutter's depths are not tested"
        )
    return notes


def _duplicates(merged: Merged) -> tuple[int, list[tuple[int, int, str, Finding]]]:
    if not merged.keys:
        return 0, []
    keys = np.concatenate(merged.keys)
    hands = np.concatenate(merged.key_hands)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    if not len(same):
        return 0, []
    _, counts = np.unique(sorted_keys, return_counts=True)
    pairs = int(sum(comb(int(c), 2) for c in counts if c > 1))
    groups: dict[int, list[int]] = {}
    for i in same:
        groups.setdefault(int(sorted_keys[i]), [int(hands[order[i]])]).append(int(hands[order[i + 1]]))
    findings = [
        (0, g[0], "", Finding("repeated-deal", f"hands {_some(g)} received exactly the same deal"))
        for g in list(groups.values())[:100]
    ]
    return pairs, findings


def _some(hands: list[int], most: int = 10) -> str:
    """The first hand numbers of a group, and how many more: a message stays one short line."""
    shown = ", ".join(map(str, hands[:most]))
    return shown if len(hands) <= most else f"{shown} and {len(hands) - most:,} more"


def alpha_shares(tests: Sequence[TestResult]) -> dict[str, float]:
    """Each family's share of alpha in this log: ``ALPHA_SPLIT`` renormalised over the families with a test."""
    present = {t.family for t in tests}
    split = {name: share for name, share in ALPHA_SPLIT if name in present}
    total = sum(split.values())
    return {name: share / total for name, share in split.items()}


def _adjusted(tests: list[TestResult]) -> list[TestResult]:
    out = list(tests)
    for family, share in alpha_shares(tests).items():
        rows = [i for i, t in enumerate(tests) if t.family == family]
        p = np.array([max(tests[i].pvalue, np.finfo(float).tiny) for i in rows])
        for i, h, b in zip(rows, holm(p), benjamini_hochberg(p)):
            out[i] = replace(tests[i], holm=float(min(1.0, h / share)), bh=float(min(1.0, b / share)))
    return out
