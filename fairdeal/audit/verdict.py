"""From merged sums to a verdict: the family of tests (Holm and Benjamini-Hochberg), the sequential detectors and
the named suspects.

The family: per dealer the talon's aces (exact) and value, the aces' mixture e-process (anytime-valid:
``1 / max E`` is a p-value by Ville's inequality), a repeated cut depth; per (dealer, receiving seat) the seat's
hand value and the talon's rank given the seat's hand (Fisher over exactly uniform per-hand p-values); when the
shuffle's tells ran (``tells``), per dealer a shuffle too weak for its riffles and aces brought together; for
digital deals the GLI battery; when targeting ran, per dealer the talon and per (dealer, seat) the hand value
against honest shuffles of the same effort (``targeting``; its per-hand p-values are Benjamini-Hochberg
adjusted across hands, and hands at q <= alpha are listed as findings that do not by themselves flag). A dealer
or player is flagged when a test of theirs has Holm-adjusted p <= alpha, so the family-wise false-alarm rate is
at most alpha. Findings no honest hand shows (a deal the logged shuffle
cannot give, an illegal or undone cut, a cut by the wrong player, a rules breach, a cooked score line) flag
without statistics. The CUSUM and the e-process say after which of his deals a dealer first became suspicious.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from math import comb
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats as sps

from fairdeal.audit.battery import battery_tests
from fairdeal.audit.exact import laws_for
from fairdeal.audit.quality import MEASURES, guessing_null
from fairdeal.audit.replay import CutDepthTally, Finding
from fairdeal.audit.scan import Merged
from fairdeal.audit.sequential import calibrated_threshold, cusum_path, eprocess_path, llr_table
from fairdeal.audit.stats import benjamini_hochberg, holm, talon_aces_total_pvalue
from fairdeal.audit.summary import HandTable
from fairdeal.audit.targeting import SAME_EFFORT_NULL
from fairdeal.audit.tells import LAZY_LEVEL, LAZY_NULL, TOGETHER_NULL
from fairdeal.cards import DeckKind

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fairdeal.audit.exact import Laws
    from fairdeal.audit.summary import Sums
    from fairdeal.deal import DealPattern

DEALER_FINDINGS = frozenset({"deal-mismatch", "bad-deal", "illegal-cut", "false-cut", "wrong-cutter"})
RULE_FINDINGS = frozenset(
    {"illegal-play", "illegal-bid", "cooked-score", "cooked-settlement", "wrong-streak", "dealer-out-of-turn"}
)
CERTAIN_FINDINGS = DEALER_FINDINGS | RULE_FINDINGS | {"repeated-deal", "weak-seed"}
MAX_CALIBRATED_HORIZON = 20_000
PATH_POINTS = 1500


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
    # For the report's sentences: which template reads this test, and what was counted against what honest play
    # expects of it (``None``: the test has no natural count).
    kind: str = ""
    observed: float | None = None
    expected: float | None = None


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

    def flagged(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if t.holm <= self.alpha)

    def certain(self) -> tuple[tuple[int, int, str, Finding], ...]:
        return tuple(f for f in self.findings if f[3].kind in CERTAIN_FINDINGS)

    def suspects(self) -> tuple[str, ...]:
        """Dealers with a Holm-significant test, or a finding no honest hand shows."""
        names = {t.dealer for t in self.flagged() if t.dealer and (t.player is None or t.test.startswith("talon"))}
        names |= {who for _, _, who, f in self.findings if who and f.kind in DEALER_FINDINGS}
        return tuple(sorted(names))

    def rule_breakers(self) -> tuple[str, ...]:
        """Players named by a legality finding (a renonce, an illegal bid, their cooked score line)."""
        return tuple(sorted({who for _, _, who, f in self.findings if who and f.kind in RULE_FINDINGS}))

    def beneficiaries(self) -> tuple[str, ...]:
        """Players whose hands, when a given dealer dealt, were stronger than chance allows (Holm-significant)."""
        return tuple(sorted({t.player for t in self.flagged() if t.player and t.test.startswith("hand value")}))

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
    threshold = (
        calibrated_threshold(pattern.name, talon_cards, cheat_rate, horizon, per_dealer, seed)
        if dealers_present
        else 0.0
    )
    if max(deals.values(), default=0) > MAX_CALIBRATED_HORIZON:
        notes.append(
            f"the CUSUM threshold is calibrated for {MAX_CALIBRATED_HORIZON:,} deals per dealer; beyond that "
            "its alarms are indicative, and the anytime-valid e-process carries the test"
        )
    paths = []
    for d in dealers_present:
        name = players[d]
        aces = np.concatenate(merged.aces[d]).astype(np.int64)
        numbers = np.concatenate(merged.numbers[d])
        log_e = eprocess_path(aces, pattern.deck.size, talon_cards)
        cusum = cusum_path(cusum_llr[aces])
        over_c, over_e = np.flatnonzero(cusum > threshold), np.flatnonzero(log_e >= bar)
        keep = _thin(aces)
        paths.append(
            DealerPath(
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
        )
        tests += _dealer_tests(name, d, merged, laws, pattern, float(log_e.max()), min_each_side)
    tests += _seat_tests(merged, players)
    findings = list(merged.findings) + list(extra_findings or [])
    counts = dict(merged.finding_counts)
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
    targeting = _targeting_hands(merged, alpha, findings, counts)
    if talon_cards != 2:
        notes.append(
            f"pattern {pattern.name} has {talon_cards} talon cards: the talon-rank test (231 pairs) does "
            "not apply; the talon-aces total uses a normal approximation"
        )
    return Verdict(
        players,
        pattern.name,
        header.dealing,
        merged.hands,
        merged.lines,
        alpha,
        tuple(_adjusted(tests)),
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
    )


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
        law = laws.talon_aces
        z = (total - 0.5 - hands * law.mean) / np.sqrt(hands * law.variance)
        p_aces = float(sps.norm.sf(z))
        aces_null = f"honest talons: aces hypergeometric, {talon_cards} cards; normal approximation of the total"
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
        ),
        TestResult(
            subject,
            "talon value, total",
            float(z),
            float(sps.norm.sf(z)),
            hands,
            "honest talons: exact subset-sum law of the value per hand, normal total",
            dealer=name,
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
                float(sps.binom.sf(low - 1, lazy, LAZY_LEVEL)),
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
                float(sps.chi2.sf(fisher, 2 * together)),
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
                float(sps.chi2.sf(fisher, 2 * targeted)),
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
                    p = float(sps.chi2.sf(fisher[d, s], 2 * k))
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


def _adjusted(tests: list[TestResult]) -> list[TestResult]:
    if not tests:
        return tests
    p = np.array([max(t.pvalue, np.finfo(float).tiny) for t in tests])
    return [replace(t, holm=float(h), bh=float(b)) for t, h, b in zip(tests, holm(p), benjamini_hochberg(p))]
