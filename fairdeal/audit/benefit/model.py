"""A hand's value the way the game values it, for whole blocks of deals at once.

A hand's double-dummy tricks in a strain are modelled as a sum over its four suits of a holding value (a holding
is the set of ranks held in one suit, an 8-bit mask): one table for the trump suit, one for a side suit, one for
no trumps, and one for the tricks a misère player is loaded with, plus an intercept per hand index (the first hand
leads). The tables are fitted from solves of random deals by ``benchmarks/fit_hand_values.py`` and shipped as
``fairdeal/data/hand_values.npz``. The best contract's tricks are the best strain's; the residuals of the fit
(quantiles, shipped too) turn a predicted trick count into a law of the real one, and so into the expected score
of the best game and of misère under a convention. A hand's value is the larger of the two expected scores.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairdeal.cards import CARDS_PER_SUIT, DeckKind, Suit
from fairdeal.errors import AuditError
from fairdeal.resources import data

if TYPE_CHECKING:
    from fairdeal.deal import DealPattern
    from fairdeal.rules.convention import Convention

HOLDINGS = 1 << CARDS_PER_SUIT
SUITS = len(Suit)
TRICKS = 10
QUANTILES = 101
TABLES = ("trump", "side", "nt", "misere")


@dataclass(frozen=True)
class Geometry:
    """A deck dealt to some hands of ten: the setting one table of holding values is fitted for."""

    name: str
    deck: DeckKind
    hands: int
    cards_per_hand: int = TRICKS

    @property
    def deck_codes(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self.deck.codes())


GEOMETRIES = (Geometry("piquet3", DeckKind.PIQUET32, 3), Geometry("hussar2", DeckKind.HUSSAR24, 2))


def geometry_for(pattern: DealPattern) -> Geometry:
    """The fitted geometry of a pattern: its deck decides (two or three hands of ten at the tricks)."""
    for geometry in GEOMETRIES:
        if geometry.deck is pattern.deck:
            return geometry
    raise AuditError(f"no hand-value table for the {pattern.deck.value} deck")


def holdings_of(held: np.ndarray) -> np.ndarray:
    """``(m, 4)`` holding masks from ``(m, 32)`` booleans by card code (a card's bit is its rank)."""
    # Codes run suit by suit, rank 7 first: eight little-endian bits per suit are exactly the holding masks.
    returned: np.ndarray = np.packbits(np.asarray(held, dtype=bool), axis=1, bitorder="little").astype(np.intp)
    return returned


def holding_features() -> np.ndarray:
    """``(256, 17)``: a holding's length (one-hot 0..8) and the ranks it holds, the smooth part of each table."""
    masks = np.arange(HOLDINGS)
    ranks = (masks[:, None] >> np.arange(CARDS_PER_SUIT)[None, :]) & 1
    length = ranks.sum(axis=1)
    return np.hstack([np.eye(CARDS_PER_SUIT + 1)[length], ranks]).astype(float)


def _incidence(holdings: np.ndarray, weights: np.ndarray | None = None) -> Any:
    """Sparse ``(rows, 256)`` counts of each row's holdings (optionally weighted per suit)."""
    from scipy import sparse

    rows = np.repeat(np.arange(len(holdings)), SUITS)
    w = np.ones(holdings.size) if weights is None else weights.reshape(-1)
    return sparse.csr_matrix((w, (rows, holdings.reshape(-1))), shape=(len(holdings), HOLDINGS))


def _lstsq(blocks: list[Any], target: np.ndarray, damp: float) -> np.ndarray:
    from scipy import sparse
    from scipy.sparse.linalg import lsqr

    design = sparse.hstack(blocks).tocsr()
    solution: np.ndarray = lsqr(design, target, damp=damp, atol=1e-10, btol=1e-10, iter_lim=20_000)[0]
    return solution


def _table_blocks(incidence: Any, scale: float) -> list[Any]:
    """A table as its smooth part (features, scaled so the ridge barely touches it) plus free deviations."""
    from scipy import sparse

    features = sparse.csr_matrix(holding_features() * scale)
    return [incidence @ features, incidence]


def _unpack(solution: np.ndarray, scale: float) -> np.ndarray:
    f = holding_features().shape[1]
    returned: np.ndarray = holding_features() @ (solution[:f] * scale) + solution[f : f + HOLDINGS]
    return returned


def fit_tables(
    holdings: np.ndarray, tricks: np.ndarray, misere: np.ndarray, damp: float = 0.3, scale: float = 30.0
) -> dict[str, np.ndarray]:
    """Least-squares holding tables from solves: ``holdings (deals, hands, 4)``, ``tricks (deals, hands, 5)``
    (trumps in suits 0..3, no trumps), ``misere (deals, hands)``; also the residual quantiles of the best
    contract's tricks and of misère."""
    from scipy import sparse

    deals, hands, _ = holdings.shape
    flat = holdings.reshape(-1, SUITS)
    index = np.tile(np.arange(hands), deals)
    lead = sparse.csr_matrix(np.eye(hands)[index])
    suit_rows, suit_target, trump_w = [], [], []
    for t in range(SUITS):
        suit_rows.append(flat)
        trump_w.append(np.eye(SUITS)[np.full(len(flat), t)])
        suit_target.append(tricks[:, :, t].reshape(-1))
    rows = np.concatenate(suit_rows)
    is_trump = np.concatenate(trump_w)
    f = holding_features().shape[1]
    suit_solution = _lstsq(
        [
            *_table_blocks(_incidence(rows, is_trump), scale),
            *_table_blocks(_incidence(rows, 1 - is_trump), scale),
            sparse.vstack([lead] * SUITS),
        ],
        np.concatenate(suit_target).astype(float),
        damp,
    )
    width = f + HOLDINGS
    out = {
        "trump": _unpack(suit_solution[:width], scale),
        "side": _unpack(suit_solution[width : 2 * width], scale),
        "lead_suit": suit_solution[2 * width :],
    }
    for name, target in (("nt", tricks[:, :, 4]), ("misere", misere)):
        solution = _lstsq([*_table_blocks(_incidence(flat), scale), lead], target.reshape(-1).astype(float), damp)
        out[name] = _unpack(solution, scale)
        out[f"lead_{name}"] = solution[width:]
    best, mis = predict_tricks(out, flat, index)
    q = np.linspace(0, 1, QUANTILES)
    out["best_residuals"] = np.quantile(tricks.max(axis=2).reshape(-1) - best, q)
    out["misere_residuals"] = np.quantile(misere.reshape(-1) - mis, q)
    return out


def predict_tricks(tables: dict[str, np.ndarray], holdings: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(best contract's tricks, misère tricks)`` predicted for ``(m, 4)`` holdings of hands at ``index``."""
    side = tables["side"][holdings].sum(axis=1)
    suited = side[:, None] + tables["trump"][holdings] - tables["side"][holdings]
    no_trumps = tables["nt"][holdings].sum(axis=1) + tables["lead_nt"][index]
    best = np.maximum(suited.max(axis=1) + tables["lead_suit"][index], no_trumps)
    misere = tables["misere"][holdings].sum(axis=1) + tables["lead_misere"][index]
    return best, misere


@functools.lru_cache(maxsize=4)
def shipped_tables(geometry_name: str) -> dict[str, np.ndarray]:
    path = data("hand_values.npz")
    if not path.is_file():
        raise AuditError(f"the hand-value table {path} is missing: run benchmarks/fit_hand_values.py")
    with np.load(path) as stored:
        prefix = f"{geometry_name}_"
        return {k[len(prefix) :]: stored[k] for k in stored.files if k.startswith(prefix)}


GRID_STEP = 0.01
GRID = np.arange(-3.0, 15.0 + GRID_STEP / 2, GRID_STEP)  # predicted tricks (12-card hands may pass ten)
SCORE_UNITS = 64  # per-hand values are summed as integers of 1/64 point: block sums merge exactly


@dataclass(frozen=True)
class Scoring:
    """What a convention pays: contract values by level and misère's value (``None``: no misère)."""

    values: tuple[tuple[int, int], ...]
    misere: int | None

    @staticmethod
    def of_system(system: str) -> Scoring:
        """The scoring of a registered system; an unknown name scores 2/4/6/8/10 with misère 10."""
        from fairdeal.engine.system import conventions

        convention: Convention | None = conventions().get(system.strip().lower())
        if convention is None:
            return Scoring(((6, 2), (7, 4), (8, 6), (9, 8), (10, 10)), 10)
        scoring = convention.scoring
        return Scoring(scoring.contract_values, scoring.misere_value if convention.bidding.misere else None)


def _expected_curves(tables: dict[str, np.ndarray], scoring: Scoring) -> tuple[np.ndarray, np.ndarray | None]:
    """On ``GRID``: the best game's expected score and misère's, the real tricks being prediction + residual."""
    game = np.clip(np.rint(GRID[:, None] + tables["best_residuals"][None, :]), 0, TRICKS)
    best = np.full(len(GRID), -np.inf)
    for level, value in scoring.values:
        score = np.where(game >= level, value, -value * (level - game)).mean(axis=1)
        best = np.maximum(best, score)
    if scoring.misere is None:
        return best, None
    taken = np.clip(np.rint(GRID[:, None] + tables["misere_residuals"][None, :]), 0, TRICKS)
    return best, np.where(taken == 0, scoring.misere, -scoring.misere * taken).mean(axis=1)


@dataclass(frozen=True)
class ValueModel:
    """Hand values of one geometry under one scoring, ready for whole blocks."""

    tables: dict[str, np.ndarray]
    game: np.ndarray
    misere: np.ndarray | None

    def value(self, held: np.ndarray, index: np.ndarray) -> np.ndarray:
        """Expected score of the best of game and misère for ``(m, 32)`` held cards at hand ``index``."""
        return self.value_and_tricks(held, index)[0]

    def value_and_tricks(self, held: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The value, and the best contract's predicted tricks."""
        best, misere = predict_tricks(self.tables, holdings_of(held), index)
        score = self.game[_on_grid(best)]
        if self.misere is not None:
            score = np.maximum(score, self.misere[_on_grid(misere)])
        return score, best

    def tricks(self, held: np.ndarray, index: np.ndarray) -> np.ndarray:
        """The best contract's predicted tricks."""
        returned: np.ndarray = predict_tricks(self.tables, holdings_of(held), index)[0]
        return returned

    def misere_chance(self, held: np.ndarray, index: np.ndarray) -> np.ndarray:
        """The chance the hand plays misère clean (0 where the convention has no misère)."""
        if self.misere is None:
            return np.zeros(len(held))
        _, misere = predict_tricks(self.tables, holdings_of(held), index)
        clean = (np.rint(misere[:, None] + self.tables["misere_residuals"][None, :]) <= 0).mean(axis=1)
        returned: np.ndarray = clean
        return returned


def _on_grid(tricks: np.ndarray) -> np.ndarray:
    """The nearest grid point of each predicted trick count (a table look-up is much faster than interpolation)."""
    returned: np.ndarray = np.clip(np.rint((tricks - GRID[0]) / GRID_STEP), 0, len(GRID) - 1).astype(np.intp)
    return returned


@functools.lru_cache(maxsize=16)
def value_model(geometry_name: str, scoring: Scoring) -> ValueModel:
    tables = shipped_tables(geometry_name)
    game, misere = _expected_curves(tables, scoring)
    return ValueModel(tables, game, misere)
