"""Two-sided tests of benefit for the verdict's family: per (dealer → seat), (dealer → the buyer's talon) and
(cutter → seat, talon), was the target fed (too good) or sunk (too bad)?

Under honest dealing each deal's value of a target is an independent draw from one law (``fold.honest_null``), so
the sum of its per-deal log likelihood ratios (``fold.ratios``) has the law of a sum of independent lattice draws:
computed exactly by FFT convolution for up to EXACT_DEALS deals, by the normal law beyond. Each direction gives an
upper tail; the two-sided p-value is twice the smaller. Dealer → another seat is the pair test (A's deals → B's
hands); dealer → himself is helping oneself. A cutter is tested apart only where his cuts are not all of one
dealer's deals: otherwise the dealer's tests ask the same question of the same deals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.benefit.fold import Lattice, honest_null, seated_hands
from fairdeal.audit.benefit.model import SCORE_UNITS, Scoring
from fairdeal.audit.tails import normal_isf, normal_sf

if TYPE_CHECKING:
    from collections.abc import Sequence

    from fairdeal.audit.fastpath import Layout
    from fairdeal.audit.summary import Sums

HAND_TEST = "benefit: hand value, two-sided"
TALON_TEST = "benefit: talon's value to its buyer, two-sided"
TALON = "the buyer's talon"
NULL = (
    "honest deals: each deal's value (expected score of the best game or misère, from double-dummy-fitted holding "
    "values) is a draw from one law (Monte Carlo, fixed seed); sum of log likelihood ratios against a quarter of "
    "the deals shifted, exact lattice law, two-sided"
)
EXACT_DEALS = 5000
TINY = float(np.finfo(float).tiny)


@dataclass(frozen=True)
class BenefitTest:
    """One actor → target question, its evidence and its two-sided p-value."""

    actor_role: str  # "dealer" or "cutter"
    actor: str
    beneficiary: str  # a player's name, or TALON
    deals: int
    z: float
    pvalue: float
    observed: float  # mean value per deal, in points
    expected: float

    @property
    def direction(self) -> str:
        return "fed" if self.z > 0 else "sunk"


def benefit_tests(sums: Sums, layout: Layout, players: Sequence[str], system: str) -> list[BenefitTest]:
    seats = len(players)
    count = sums.benefit_count
    # laws[d][t] = (fed law, sunk law, mean value) of target t when d deals
    laws: list[list[tuple[Lattice, Lattice, float] | None]] = [[None] * (seats + 1) for _ in range(seats)]
    for d in range(seats):
        seated = seated_hands(layout, d)
        if not seated or not count[d].any():
            continue
        null = honest_null(layout.pattern.name, seated, Scoring.of_system(system))
        for t in range(seats + 1):
            hand = int(layout.slot_hand[d, t]) if t < seats else -1
            if t == seats or hand >= 0:
                laws[d][t] = (null.up[hand], null.down[hand], float(null.mean_value[hand]))
    out = []
    for d in range(seats):
        mine = {k: getattr(sums, f"benefit_{k}")[d].sum(axis=0)[None] for k in ("count", "up", "down", "points")}
        out += _tests("dealer", players[d], mine, [laws[d]], players)
    for c in range(seats):
        if np.count_nonzero(count[:, c, :].sum(axis=1)) > 1:
            cut = {k: getattr(sums, f"benefit_{k}")[:, c] for k in ("count", "up", "down", "points")}
            out += _tests("cutter", players[c], cut, laws, players)
    return out


def _tests(
    role: str,
    actor: str,
    sums: dict[str, np.ndarray],
    laws: list[list[tuple[Lattice, Lattice, float] | None]],
    players: Sequence[str],
) -> list[BenefitTest]:
    """Over one actor's deals: sums by (dealer, target) with each dealer's laws (one row for a dealer)."""
    out = []
    for t in range(sums["count"].shape[-1]):
        counts = [int(n) for n in sums["count"][:, t]]
        deals = sum(counts)
        parts = [(n, row[t]) for n, row in zip(counts, laws) if n]
        if not deals or any(law is None for _, law in parts):
            continue
        known = [(n, law) for n, law in parts if law is not None]
        p_up = upper_tail([(n, law[0]) for n, law in known], int(sums["up"][:, t].sum()))
        p_down = upper_tail([(n, law[1]) for n, law in known], int(sums["down"][:, t].sum()))
        one_sided = min(p_up, p_down)
        out.append(
            BenefitTest(
                role,
                actor,
                players[t] if t < len(players) else TALON,
                deals,
                float(normal_isf(one_sided) * (1 if p_up <= p_down else -1)),
                float(min(1.0, 2 * one_sided)),
                float(sums["points"][:, t].sum()) / SCORE_UNITS / deals,
                sum(n * law[2] for n, law in known) / deals,
            )
        )
    return out


def upper_tail(parts: list[tuple[int, Lattice]], observed: int) -> float:
    """``P(S >= observed)`` for S the sum of ``n`` independent draws of each lattice law (exact up to EXACT_DEALS)."""
    deals = sum(n for n, _ in parts)
    if deals > EXACT_DEALS:
        mean = sum(n * law.mean for n, law in parts)
        sd = np.sqrt(sum(n * law.variance for n, law in parts))
        return float(normal_sf((observed - 0.5 - mean) / sd)) if sd > 0 else float(observed <= mean)
    offset = sum(n * law.offset for n, law in parts)
    length = sum(n * (len(law.pmf) - 1) for n, law in parts) + 1
    size = 1 << int(np.ceil(np.log2(length)))
    spectrum = np.ones(size // 2 + 1, dtype=complex)
    for n, law in parts:
        spectrum *= np.fft.rfft(law.pmf, size) ** n
    pmf = np.clip(np.fft.irfft(spectrum, size)[:length], 0.0, None)
    at = observed - offset
    if at <= 0:
        return 1.0
    return float(np.clip(pmf[at:].sum() / pmf.sum(), TINY, 1.0)) if at < length else TINY


def subject(test: BenefitTest) -> str:
    role = f"{test.actor_role} {test.actor}"
    if test.beneficiary == TALON:
        return f"{role} -> {TALON}"
    return f"{role} -> {'himself' if test.beneficiary == test.actor else 'player ' + test.beneficiary}"
