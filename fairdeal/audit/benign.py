"""Benign explanations first: a deal that differs from its logged shuffle, weighed against honest log errors.

An honest table writes imperfect logs: an action is left out (a riffle, a cut, a run), a packet is miscounted by
one or two cards, a cut is written at the wrong depth, two actions are written in the wrong order. Each such log
error has a stated prior rate (``LOG_ERRORS``) and, given the gathered order and the logged actions, a stated
probability of producing the deal as received: for the deterministic errors the share of their variants that
deal it, for a missing riffle the GSR probability (counted exactly over the riffle's ``2^n`` equally likely
interleavings) summed over the places it could have gone. A small floor, "an unexplained log error", deals
uniformly.

The honest law of the received deal is therefore ``p0(x) = (1 - eps) [x = logged] + sum_m rate_m P_m(x)``; the
cheating alternative keeps the logged deal's mass and spreads the rest over the manipulations the replay knows
(a card from the bottom, a second deal, an unlogged or skipped cut, a talon switched with a hand) and, for
anything else, over all deals. The likelihood ratio ``q(x) / p0(x)`` is 1 on a matching deal and has mean 1
under ``p0``: an e-value, so a dealer's hands combine into an anytime-valid test (``evidence``). A mismatch
whose ratio is at most 1 is a benign log error (log quality, not a finding); one above 1 is a weighed finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lgamma

import numpy as np

from fairdeal.cards import NUM_CODES
from fairdeal.deal import Deal, DealPattern
from fairdeal.errors import ShuffleError
from fairdeal.shuffle.models import DEFAULT_MEAN_PACKET
from fairdeal.shuffle.ops import Action, Cut, Overhand, Run, RunUnder, ShuffleOp, ShuffleSequence, Strip, cut_is_legal
from fairdeal.shuffle.perm import compose, identity, inverse


@dataclass(frozen=True)
class LogErrorModel:
    """One kind of honest log error: its name, its prior rate per hand and what it means in words."""

    name: str
    rate: float
    words: str


LOG_ERRORS = (
    LogErrorModel("missing-riffle", 0.01, "a riffle not logged"),
    LogErrorModel("missing-cut", 0.01, "a cut not logged"),
    LogErrorModel("missing-overhand", 0.01, "an overhand shuffle not logged"),
    LogErrorModel("missing-run", 0.005, "a run of cards not logged"),
    LogErrorModel("miscounted-packet", 0.01, "a packet logged one or two cards off"),
    LogErrorModel("cut-depth", 0.01, "a cut logged at the wrong depth"),
    LogErrorModel("wrong-order", 0.005, "two actions logged in the wrong order"),
    LogErrorModel("unexplained", 0.002, "an unexplained log error (any deal)"),
)
LOG_ERROR_NAMES = tuple(m.name for m in LOG_ERRORS)
ERROR_RATE = sum(m.rate for m in LOG_ERRORS)
# The cheating alternative's weights over the mismatches: the known manipulations, then any deal at all.
MANIPULATIONS = {"bottom": 0.1, "second": 0.1, "unlogged-cut": 0.1, "skipped-cut": 0.1, "talon-switch": 0.1}
ANY_DEAL = 0.5
MISCOUNTS = (-2, -1, 1, 2)
MAX_MISSING_RUN = 16


@dataclass(frozen=True)
class Weighed:
    """A mismatching deal weighed: its likelihood ratio, and the likeliest benign log error with its share."""

    e_value: float
    explanation: str  # a LOG_ERROR_NAMES entry: the benign model that gives the received deal most probability
    share: float  # that model's share of the honest probability of the received deal

    @property
    def benign(self) -> bool:
        return self.e_value <= 1.0

    def words(self) -> str:
        model = LOG_ERRORS[LOG_ERROR_NAMES.index(self.explanation)]
        return f"likelihood ratio {self.e_value:.3g} against honest log errors (likeliest: {model.words})"


def receivers_of(deal: Deal, pattern: DealPattern) -> np.ndarray:
    """``(NUM_CODES,)``: the receiver index of each card code in ``deal`` (-1: not dealt)."""
    out = np.full(NUM_CODES, -1, dtype=np.int64)
    for r, cards in enumerate([*deal.hands, *deal.talons]):
        out[np.asarray(cards, dtype=np.int64)] = r
    return out


def _deals_of(orders: np.ndarray, pattern: DealPattern) -> np.ndarray:
    """``(m, NUM_CODES)``: receiver of each card code for each deck order row."""
    m = len(orders)
    out = np.full((m, NUM_CODES), -1, dtype=np.int64)
    out[np.arange(m)[:, None], orders] = np.asarray(pattern.targets)[None, :]
    return out


def _share(orders: np.ndarray, wants: np.ndarray, pattern: DealPattern) -> np.ndarray:
    """Per wanted deal (rows of ``wants``): the share of the orders that deal it."""
    if not len(orders):
        return np.zeros(len(wants))
    got = _deals_of(orders, pattern)
    return np.array([(got == want[None, :]).all(axis=1).mean() for want in wants])


def _inserted(sequence: ShuffleSequence, index: int, op: ShuffleOp) -> list[Action]:
    actions = list(sequence.actions)
    actions.insert(index, Action(op))
    return actions


def _replaced(sequence: ShuffleSequence, index: int, op: ShuffleOp) -> list[Action]:
    actions = list(sequence.actions)
    actions[index] = Action(op, actions[index].actor)
    return actions


def _perm(actions: list[Action], n: int) -> np.ndarray | None:
    try:
        return ShuffleSequence(tuple(actions)).permutation(n)
    except ShuffleError:  # a variant that does not fit the deck is simply not a variant
        return None


def _recounted(op: ShuffleOp, n: int) -> list[ShuffleOp]:
    """The op with one of its packet counts off by one or two (cuts are ``cut-depth``'s)."""
    out: list[ShuffleOp] = []
    if isinstance(op, (Run, RunUnder)):
        out += [type(op)(op.count + d) for d in MISCOUNTS if 0 < op.count + d <= n]
    elif isinstance(op, (Overhand, Strip)) and op.packets is not None:
        for i, size in enumerate(op.packets):
            for d in MISCOUNTS:
                packets = op.packets[:i] + (size + d,) + op.packets[i + 1 :]
                if size + d > 0 and sum(packets) <= n:
                    out.append(type(op)(packets))
    return out


def dealer_places(sequence: ShuffleSequence) -> int:
    """How many places a left-out shuffling action (a run, a riffle) can take: anywhere up to the final cut,
    since the dealer shuffles before the cut and deals after it."""
    actions = sequence.actions
    return len(actions) if actions and isinstance(actions[-1].op, Cut) else len(actions) + 1


def _variants(sequence: ShuffleSequence, n: int, min_each_side: int) -> dict[str, list[np.ndarray]]:
    """The shuffle permutations each deterministic log error allows."""
    legal = [d for d in range(1, n) if cut_is_legal(d, n, min_each_side)]
    found: dict[str, list[list[Action]]] = {name: [] for name in LOG_ERROR_NAMES}
    length = len(sequence)
    ends_cut = bool(length) and isinstance(sequence.actions[-1].op, Cut)
    # The neighbour's cut closes an honest shuffle: a log without it lacks it at the end.
    for j in range(length + 1) if ends_cut else (length,):
        found["missing-cut"] += [_inserted(sequence, j, Cut(d)) for d in legal]
    for j in range(dealer_places(sequence)):
        found["missing-run"] += [_inserted(sequence, j, Run(k)) for k in range(2, MAX_MISSING_RUN + 1)]
    for j, action in enumerate(sequence):
        op = action.op
        if isinstance(op, Cut) and op.depth is not None:
            found["cut-depth"] += [_replaced(sequence, j, Cut(d)) for d in legal if d != op.depth]
        found["miscounted-packet"] += [_replaced(sequence, j, other) for other in _recounted(op, n)]
        if j + 1 < length:
            swapped = list(sequence.actions)
            swapped[j], swapped[j + 1] = swapped[j + 1], swapped[j]
            found["wrong-order"].append(swapped)
    out: dict[str, list[np.ndarray]] = {}
    for name, lists in found.items():
        perms = [p for p in (_perm(actions, n) for actions in lists) if p is not None]
        out[name] = perms
    return out


def riffle_chance(deck: np.ndarray, wanted: np.ndarray, after: np.ndarray) -> float:
    """The GSR probability that one riffle of ``deck`` puts each card where ``wanted`` needs it.

    ``wanted[c]``: the receiver card ``c`` must reach; ``after[i]``: the receiver that position ``i`` of the
    riffled deck reaches. Every one of the ``2^n`` top/bottom choices of the positions is equally likely (GSR);
    for each size ``k`` of the top packet, a walk down the positions counts the choices that take ``t`` top
    cards so far and give every position a card bound for its receiver.
    """
    n = len(deck)
    need = np.append(wanted[deck], -2)  # a sentinel that matches nothing for out-of-range packet indices
    k = np.arange(n + 1)[:, None]
    t = np.arange(n + 1)[None, :]
    ways = np.zeros((n + 1, n + 1))
    ways[:, 0] = 1.0
    for i in range(n):
        top = (t < k) & (need[np.minimum(t, n)] == after[i])
        bottom_index = k + i - t
        bottom = (t <= i) & (bottom_index < n) & (need[np.clip(bottom_index, 0, n)] == after[i])
        moved = np.zeros_like(ways)
        moved[:, 1:] = (ways * top)[:, :-1]
        ways = moved + ways * bottom
    return float(ways[np.arange(n + 1), np.arange(n + 1)].sum() / 2.0**n)


def overhand_chance(deck: np.ndarray, wanted: np.ndarray, after: np.ndarray, mean_packet: float) -> float:
    """The chance that one Pemantle overhand of the whole ``deck`` puts each card where ``wanted`` needs it.

    Each of the ``n - 1`` gaps is a packet boundary with chance ``1 / mean_packet``; the packets come off the top
    and land in reverse order, so the new deck is the old one's segments from the bottom up. A walk over the new
    deck's positions adds one segment at a time: ``ways[b]`` is the chance of the first ``b`` new positions
    (the old deck's bottom ``b`` cards) being dealt right.
    """
    n = len(deck)
    need = wanted[deck]
    cut, stay = 1.0 / mean_packet, 1.0 - 1.0 / mean_packet
    ways = np.zeros(n + 1)
    ways[0] = 1.0
    for b in range(n):
        if ways[b] == 0.0:
            continue
        for size in range(1, n - b + 1):
            # The segment of old positions n-b-size .. n-b-1 fills the new positions b .. b+size-1 in order.
            if np.array_equal(need[n - b - size : n - b], after[b : b + size]):
                ways[b + size] += ways[b] * stay ** (size - 1) * (cut if b + size < n else 1.0)
    return float(ways[n])


def _missing_shuffle(
    before: np.ndarray, sequence: ShuffleSequence, wants: np.ndarray, pattern: DealPattern, riffle: bool
) -> np.ndarray:
    """Per wanted deal: the chance a riffle (or an overhand) left out of the log, at a uniformly chosen place,
    deals it."""
    n = len(before)
    steps = sequence.steps(n)
    targets = np.asarray(pattern.targets)
    total = np.zeros(len(wants))
    places = dealer_places(sequence)
    for j in range(places):
        prefix = compose(*steps[:j]) if j else identity(n)
        suffix = compose(*steps[j:]) if j < len(steps) else identity(n)
        after = np.empty(n, dtype=np.int64)
        after[suffix] = targets
        deck = before[prefix]
        total += [
            riffle_chance(deck, want, after) if riffle else overhand_chance(deck, want, after, DEFAULT_MEAN_PACKET)
            for want in wants
        ]
    returned: np.ndarray = total / places
    return returned


def _uniform_chance(pattern: DealPattern) -> float:
    sizes = np.bincount(np.asarray(pattern.targets))
    return float(np.exp(sum(lgamma(int(s) + 1) for s in sizes) - lgamma(pattern.deck.size + 1)))


def honest_chances(
    before: np.ndarray, sequence: ShuffleSequence, wants: np.ndarray, pattern: DealPattern, min_each_side: int
) -> np.ndarray:
    """``(len(LOG_ERRORS), len(wants))``: each log error's probability of each wanted deal."""
    n = len(before)
    variants = _variants(sequence, n, min_each_side)
    rows = []
    for name in LOG_ERROR_NAMES:
        if name in ("missing-riffle", "missing-overhand"):
            rows.append(_missing_shuffle(before, sequence, wants, pattern, name == "missing-riffle"))
        elif name == "unexplained":
            rows.append(np.full(len(wants), _uniform_chance(pattern)))
        else:
            perms = variants[name]
            orders = before[np.array(perms)] if perms else np.zeros((0, n), dtype=before.dtype)
            rows.append(_share(orders, wants, pattern))
    return np.array(rows)


def manipulation_chance(matched: dict[str, tuple[int, int]], pattern: DealPattern) -> float:
    """The cheating alternative's probability of a mismatching deal: ``matched[kind] = (variants dealing it,
    variants of that kind)`` for the known manipulations; any deal at all gets the uniform share."""
    known = sum(MANIPULATIONS[kind] * hits / total for kind, (hits, total) in matched.items() if total)
    return known + ANY_DEAL * _uniform_chance(pattern)


def weigh(
    before: np.ndarray,
    sequence: ShuffleSequence,
    received: Deal,
    expected: Deal,
    pattern: DealPattern,
    matched: dict[str, tuple[int, int]],
    min_each_side: int,
) -> Weighed:
    """The likelihood ratio of a received deal that differs from the ``expected`` (logged) one."""
    wants = np.stack([receivers_of(received, pattern), receivers_of(expected, pattern)])
    chances = honest_chances(np.asarray(before, dtype=np.int64), sequence, wants, pattern, min_each_side)
    rates = np.array([m.rate for m in LOG_ERRORS])
    parts = rates * chances[:, 0]
    honest = float(parts.sum())
    logged = (1.0 - ERROR_RATE) + float(rates @ chances[:, 1])
    # q keeps p0's mass on the logged deal and spreads the rest over the manipulations: sum q = 1, so E_p0[q/p0] = 1.
    e_value = max(0.0, 1.0 - logged) * manipulation_chance(matched, pattern) / honest
    best = int(np.argmax(parts))
    return Weighed(e_value, LOG_ERROR_NAMES[best], float(parts[best] / honest))


def false_cut_chance(sequence: ShuffleSequence, start: int, stop: int, n: int, min_each_side: int) -> float:
    """The chance that honest cuts (uniform legal depths) make actions ``start..stop-1`` cancel: for each cut in
    the window, the share of legal depths that would still leave the deck as before; the largest share. A window
    only an illegal depth cancels counts as one legal depth's chance: the illegal cut is a finding of its own."""
    steps = sequence.steps(n)
    legal = [d for d in range(1, n) if cut_is_legal(d, n, min_each_side)]
    best = 0.0
    for j in range(start, stop):
        if not isinstance(sequence.actions[j].op, Cut) or not legal:
            continue
        before = compose(*steps[start:j]) if j > start else identity(n)
        after = compose(*steps[j + 1 : stop]) if j + 1 < stop else identity(n)
        # before . cut(d) . after == identity  <=>  cut(d) == before^-1 . after^-1
        need = compose(inverse(before), inverse(after))
        hits = sum(1 for d in legal if np.array_equal(Cut(d).permutation(n), need))
        best = max(best, max(hits, 1) / len(legal))
    return best


def false_cut_evalue(chance: float) -> float:
    """``1 / chance`` when honest cuts cancel with that chance: its mean under honest cuts is 1."""
    return 1.0 / chance if chance > 0 else 1.0
