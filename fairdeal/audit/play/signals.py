"""The play tests: per (defender, declarer) the double-dummy errors, per (whister, declarer) the passes when
whisting pays, each against the same player's decisions against the other declarers (``glm``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fairdeal.audit.play.evidence import CardChoice, WhistChoice
from fairdeal.audit.play.glm import design, fit, score_test
from fairdeal.audit.verdict import TestResult

MIN_CARDS = 10  # critical cards (some card loses a trick) on each side before a defence test
MIN_WHISTS = 8  # decisions on each side before a whist test
CARD_TEST = "defence double-dummy errors against this declarer (GLM score)"
WHIST_TEST = "passes when whisting pays against this declarer (GLM score)"
CARD_NULL = (
    "of the cards where some card gives a trick away double dummy, an honest defender picks a losing one at his "
    "own rate given his place after the declarer, the hand's kind and his number of legal cards, whoever "
    "declares: binomial logit with defender and situation effects, score test, Pearson dispersion"
)
WHIST_NULL = (
    "an honest whister passes at his own rate given the calls before his and the double-dummy margin of "
    "whisting, whoever declares: logit with whister and situation effects, score test"
)


@dataclass(frozen=True)
class PairRow:
    """Aggregates for the report: a defender against a declarer, or a defending pair (``partner`` set)."""

    defender: int
    declarer: int | None
    partner: int | None
    cards: int
    errors: int
    tricks_lost: int


Row = tuple[str, str, str, int, int]  # actor, declarer, context, trials, successes


def card_tests(cards: Sequence[CardChoice], players: Sequence[str]) -> list[TestResult]:
    counts: dict[tuple[int, int, int, str], list[int]] = defaultdict(lambda: [0, 0])
    for c in cards:
        if not c.critical:
            continue  # every card was as good as the best: the choice shows nothing
        cell = counts[(c.hand, c.actor, c.declarer, c.context)]
        cell[0] += 1
        cell[1] += c.cost > 0
    rows = [(players[a], players[d], ctx, n, k) for (_, a, d, ctx), (n, k) in counts.items()]
    return _tests(rows, "defender", CARD_TEST, CARD_NULL, MIN_CARDS)


def whist_tests(whists: Sequence[WhistChoice], players: Sequence[str]) -> list[TestResult]:
    rows = [
        (players[w.whister], players[w.declarer], f"{w.context}/{min(w.margin, 2)}", 1, int(w.passed))
        for w in whists
        if w.margin >= 0
    ]
    return _tests(rows, "whister", WHIST_TEST, WHIST_NULL, MIN_WHISTS)


def _tests(rows: list[Row], role: str, name: str, null: str, least: int) -> list[TestResult]:
    """One score test per (actor, declarer) with enough decisions on both sides, peeled: the cell most in excess
    is tested first, then absorbed into the model as an effect of its own before the others are tested. At three
    players each seat's place after the declarer is fixed by who declares, so a colluder's cell would otherwise
    move the shared place effect and make the other players' cells look extreme too (the others in deficit,
    which is why excess goes first; every p-value is two-sided)."""
    if not rows:
        return []
    trials, successes = np.array([r[3] for r in rows], float), np.array([r[4] for r in rows], float)
    base = design([[r[0] for r in rows], [r[2] for r in rows]])
    cells = {}
    for actor, declarer in sorted({(r[0], r[1]) for r in rows}):
        mine = np.array([r[0] == actor and r[1] == declarer for r in rows])
        others = np.array([r[0] == actor and r[1] != declarer for r in rows])
        if trials[mine].sum() >= least and trials[others].sum() >= least:
            cells[(actor, declarer)] = mine.astype(float)
    out: list[TestResult] = []
    absorbed: list[np.ndarray] = []
    while cells:
        model = fit(np.column_stack([base, *absorbed]) if absorbed else base, trials, successes)
        scores = {key: score_test(model, column) for key, column in cells.items()}
        key = max(scores, key=lambda k: (scores[k].z, k))
        score, column = scores[key], cells.pop(key)
        if score.z == 0.0 and score.pvalue == 1.0:
            continue  # nothing left to test in this cell: its decisions are explained by the cells absorbed
        absorbed.append(column)
        actor, declarer = key
        out.append(
            TestResult(
                f"{role} {actor} -> declarer {declarer}",
                name,
                score.z,
                score.pvalue,
                int(trials[column > 0].sum()),
                f"{null}; observed {score.observed:g}, expected {score.expected:.1f}",
                actor=actor,
                beneficiary=declarer if score.z > 0 else None,
            )
        )
    return out


def _successes(rows: list[Row]) -> np.ndarray:
    return np.array([r[4] for r in rows], dtype=float)


def pair_rows(cards: Sequence[CardChoice]) -> list[PairRow]:
    """Per (defender, declarer) and per defending pair: priced cards, errors and tricks lost."""
    by_declarer: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    defenders: dict[int, set[int]] = defaultdict(set)
    for c in cards:
        cell = by_declarer[(c.actor, c.declarer)]
        cell[0], cell[1], cell[2] = cell[0] + 1, cell[1] + (c.cost > 0), cell[2] + c.cost
        defenders[c.hand].add(c.actor)
    by_pair: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for c in cards:
        if len(defenders[c.hand]) == 2:
            a, b = sorted(defenders[c.hand])
            cell = by_pair[(a, b)]
            cell[0], cell[1], cell[2] = cell[0] + 1, cell[1] + (c.cost > 0), cell[2] + c.cost
    out = [PairRow(a, d, None, *v) for (a, d), v in sorted(by_declarer.items())]
    return out + [PairRow(a, None, b, *v) for (a, b), v in sorted(by_pair.items())]
