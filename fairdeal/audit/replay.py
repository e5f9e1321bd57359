"""Replay a logged shuffle from the gathered order, deal by the pattern, and compare with the deal as received.

A difference is a finding that lists the cards that went astray and the manipulations that explain it exactly:
a card dealt from the bottom, a second card dealt in place of the top one, a talon switched with cards of a
hand, an unlogged or skipped cut, an extra card. The shuffle itself is also read for its own tells: a cut that
leaves fewer cards on a side than the convention allows, consecutive actions that undo each other (a false cut)
or leave every receiver's cards unchanged, and one cut depth repeated hand after hand by a dealer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from fairdeal.audit.benign import Weighed, false_cut_chance, false_cut_evalue, weigh
from fairdeal.audit.tails import binomial_sf
from fairdeal.cards import from_ascii_list, to_ascii_list
from fairdeal.deal import Deal, DealPattern, deal_batch, deal_from_seats, deal_order
from fairdeal.errors import AuditError
from fairdeal.shuffle.models import CODEX_MIN_EACH_SIDE
from fairdeal.shuffle.ops import Action, Cut, ShuffleSequence, cut_is_legal
from fairdeal.shuffle.perm import identity, inverse

if TYPE_CHECKING:
    from collections.abc import Iterator

    from fairdeal.audit.fastpath import NarrowHand


@dataclass(frozen=True)
class Finding:
    """Something the log shows that an honest hand would not: what, which cards, and what would explain it."""

    kind: str
    message: str
    cards: tuple[str, ...] = ()
    explanations: tuple[str, ...] = ()
    e_value: float | None = None  # a weighed finding's likelihood ratio (an e-value); None: no weight, certain


@dataclass(frozen=True)
class MovedCard:
    card: str
    expected: str  # the receiver the replay gives it to ("hand 0" = first hand, "talon 0")
    received: str


@dataclass(frozen=True)
class ReplayResult:
    expected: Deal
    moved: tuple[MovedCard, ...]
    findings: tuple[Finding, ...]
    weighed: Weighed | None = None  # a mismatch of a well-formed deal, weighed against honest log errors

    @property
    def matches(self) -> bool:
        return not self.moved and not self.findings

    @property
    def log_error(self) -> bool:
        """The deal differs from the replay, but an honest log error explains it better than a manipulation."""
        return self.weighed is not None and self.weighed.benign


def receiver_name(index: int, pattern: DealPattern) -> str:
    return f"hand {index}" if index < pattern.hands else f"talon {index - pattern.hands}"


def replay_deal(
    order_before: np.ndarray,
    sequence: ShuffleSequence,
    received: Deal,
    pattern: DealPattern,
    min_each_side: int = CODEX_MIN_EACH_SIDE,
) -> ReplayResult:
    """Replay ``sequence`` on ``order_before``, deal by ``pattern`` and explain any difference from ``received``.

    Hands and talons are compared as sets (a log need not keep the order a hand was received in). A
    well-formed deal that differs is weighed against honest log errors (``benign``): a finding only when a
    manipulation explains it better, and then a weighed one; a deal with a card too many or too few is certain.
    """
    before = np.asarray(order_before, dtype=np.uint8)
    n = pattern.deck.size
    if before.shape != (n,):
        raise AuditError(f"the gathered order must hold {n} cards, got {before.shape}")
    after = before[sequence.permutation(n)]
    expected = deal_order(after, pattern)
    moved = _moved_cards(expected, received, pattern)
    if not moved:
        return ReplayResult(expected, (), ())
    cards = tuple(m.card for m in moved)
    message = f"{len(moved)} card(s) not where the logged shuffle puts them: " + ", ".join(
        f"{m.card} ({m.expected} -> {m.received})" for m in moved
    )
    sizes = _size_findings(received, pattern)
    if sizes:
        return ReplayResult(expected, moved, (Finding("bad-deal", message, cards, sizes),))
    explanations, matched = _explanations(before, after, sequence, expected, received, pattern)
    weighed = weigh(before, sequence, received, expected, pattern, matched, min_each_side)
    if weighed.benign:
        return ReplayResult(expected, moved, (), weighed)
    finding = Finding(
        "deal-mismatch",
        f"{message}; {weighed.words()}",
        cards,
        explanations or ("no single known manipulation explains it",),
        weighed.e_value,
    )
    return ReplayResult(expected, moved, (finding,), weighed)


def _receivers(deal: Deal) -> list[np.ndarray]:
    return [np.asarray(h, dtype=np.int64) for h in deal.hands] + [np.asarray(t, dtype=np.int64) for t in deal.talons]


def _moved_cards(expected: Deal, received: Deal, pattern: DealPattern) -> tuple[MovedCard, ...]:
    got = _receivers(received)
    if len(got) != pattern.hands + pattern.talons:
        raise AuditError(f"pattern {pattern.name} deals {pattern.hands} hands and {pattern.talons} talons")
    where_expected = {int(c): r for r, cards in enumerate(_receivers(expected)) for c in cards}
    moved = []
    for r, cards in enumerate(got):
        for c in cards:
            want = where_expected.get(int(c))
            if want != r:
                label = "nowhere (not in the deck)" if want is None else receiver_name(want, pattern)
                moved.append(MovedCard(to_ascii_list([c])[0], label, receiver_name(r, pattern)))
    return tuple(moved)


def _size_findings(received: Deal, pattern: DealPattern) -> tuple[str, ...]:
    wrong = []
    for r, cards in enumerate(_receivers(received)):
        size = pattern.cards_per_hand if r < pattern.hands else pattern.talon_size
        if len(cards) != size:
            kind = "an extra card" if len(cards) > size else "a card short"
            wrong.append(f"{receiver_name(r, pattern)} holds {len(cards)} cards instead of {size}: {kind}")
    return tuple(wrong)


def _candidates(
    before: np.ndarray, after: np.ndarray, sequence: ShuffleSequence, n: int
) -> list[tuple[str, str, np.ndarray]]:
    """Deck orders each single manipulation would have dealt from, with its kind and description."""
    out: list[tuple[str, str, np.ndarray]] = []
    for i in range(n - 1):
        out.append(
            (
                "bottom",
                f"a card from the bottom ({to_ascii_list([after[-1]])[0]}) dealt as card {i + 1}",
                np.concatenate([after[:i], after[-1:], after[i:-1]]),
            )
        )
        swapped = after.copy()
        swapped[[i, i + 1]] = swapped[[i + 1, i]]
        out.append(
            (
                "second",
                f"a second card dealt at card {i + 1} (the top card {to_ascii_list([after[i]])[0]} held back)",
                swapped,
            )
        )
    for depth in range(1, n):
        out.append(("unlogged-cut", f"an unlogged cut of {depth} after the logged shuffle", np.roll(after, -depth)))
    cuts = [k for k, action in enumerate(sequence) if isinstance(action.op, Cut) and action.op.is_known]
    if cuts:
        # The shuffle without action k is the actions before it, then those after: prefix and suffix products keep
        # this linear in the number of actions.
        steps = sequence.steps(n)
        prefix, suffix = [identity(n)], [identity(n)]
        for step in steps:
            prefix.append(prefix[-1][step])
        for step in reversed(steps):
            suffix.append(step[suffix[-1]])
        suffix.reverse()  # suffix[k]: the actions from k on
        for k in cuts:
            out.append(
                (
                    "skipped-cut",
                    f"the logged cut (action {k + 1}, {sequence.actions[k].notation()}) was not made: a false cut",
                    before[prefix[k][suffix[k + 1]]],
                )
            )
    return out


def _explanations(
    before: np.ndarray,
    after: np.ndarray,
    sequence: ShuffleSequence,
    expected: Deal,
    received: Deal,
    pattern: DealPattern,
) -> tuple[tuple[str, ...], dict[str, tuple[int, int]]]:
    """The manipulations that deal ``received``, in words, and per kind (variants dealing it, variants)."""
    found = list(_switched_talon(expected, received, pattern))
    matched = {"talon-switch": (len(found), _talon_switches(pattern))}
    described = _candidates(before, after, sequence, pattern.deck.size)
    orders = np.array([order for _, _, order in described])
    hands, talons = deal_batch(orders, pattern)
    want_hands = np.sort(np.array([np.sort(h) for h in received.hands]), axis=-1)
    want_talons = np.sort(np.array([np.sort(t) for t in received.talons]), axis=-1)
    same = (np.sort(hands, axis=-1) == want_hands).all(axis=(1, 2)) & (np.sort(talons, axis=-1) == want_talons).all(
        axis=(1, 2)
    )
    found += [described[k][1] for k in np.flatnonzero(same)]
    for kind in ("bottom", "second", "unlogged-cut", "skipped-cut"):
        rows = [k for k, (which, _, _) in enumerate(described) if which == kind]
        matched[kind] = (int(same[rows].sum()) if rows else 0, len(rows))
    return tuple(found), matched


def _talon_switches(pattern: DealPattern) -> int:
    """How many ways a talon can exchange one or more of its cards with as many of one hand's."""
    size, hand = pattern.talon_size, pattern.cards_per_hand
    per_pair = sum(comb(size, j) * comb(hand, j) for j in range(1, size + 1))
    return pattern.talons * pattern.hands * per_pair


def _switched_talon(expected: Deal, received: Deal, pattern: DealPattern) -> Iterator[str]:
    """Talon cards exchanged with cards of one hand, every other receiver as replayed."""
    for t, (want, got) in enumerate(zip(expected.talons, received.talons)):
        if set(want.tolist()) == set(np.asarray(got).tolist()):
            continue
        for h in range(pattern.hands):
            others_same = all(
                set(a.tolist()) == set(np.asarray(b).tolist())
                for k, (a, b) in enumerate(zip(_receivers(expected), _receivers(received)))
                if k not in (h, pattern.hands + t)
            )
            if others_same and set(want.tolist()) - set(np.asarray(got).tolist()) <= set(
                np.asarray(received.hands[h]).tolist()
            ):
                yield f"talon {t} switched with cards of {receiver_name(h, pattern)}"


# --- Tells in the shuffle itself -------------------------------------------------------------------------


def cut_legality(sequence: ShuffleSequence, n: int, min_each_side: int = CODEX_MIN_EACH_SIDE) -> tuple[Finding, ...]:
    """Cuts that leave fewer than ``min_each_side`` cards on a side (Codex, seed 002: at least 4)."""
    found = []
    for index, action in enumerate(sequence, start=1):
        op = action.op
        if isinstance(op, Cut) and op.depth is not None and not cut_is_legal(op.depth, n, min_each_side):
            found.append(
                Finding(
                    "illegal-cut",
                    f"action {index} ({action.notation()}) leaves {min(op.depth, n - op.depth)} card(s) on one side; "
                    f"the convention asks at least {min_each_side}",
                )
            )
    return tuple(found)


def undone_actions(
    sequence: ShuffleSequence, pattern: DealPattern, min_each_side: int = CODEX_MIN_EACH_SIDE
) -> tuple[Finding, ...]:
    """Runs of consecutive actions that cancel out (a false cut), or that leave every receiver's cards unchanged.

    Only the shortest cancelling windows are reported: a window containing another such window is skipped. A
    false cut is weighed, not certain: an honest cut at a uniform legal depth cancels what precedes it by chance
    (a two-packet overhand is a cut), so its weight is one over that chance (``benign.false_cut_evalue``).
    Linear in the number of actions: with ``Q_k`` the deck after ``k`` actions, the window of actions
    ``a+1..b`` is the identity iff ``Q_a == Q_b``, and leaves every receiver's cards alone iff the receivers
    ``targets[Q_a^-1]`` and ``targets[Q_b^-1]`` agree; so windows are pairs of equal prefix keys.
    """
    n = pattern.deck.size
    steps = sequence.steps(n)
    targets = np.asarray(pattern.targets)
    decks, receivers = _prefix_keys(steps, targets, n)
    stops = _shortest_stops(receivers)
    windows = [(start, stop) for start, stop in enumerate(stops) if stop is not None]
    found: list[Finding] = []
    for start, stop in sorted(windows, key=lambda window: (window[1] - window[0], window[0])):
        actions = sequence.actions[start:stop]
        where = f"actions {start + 1}-{stop} ({_listed(actions)})"
        if decks[start] == decks[stop] and any(isinstance(a.op, Cut) for a in actions):
            found.append(false_cut(sequence, start, stop, where, n, min_each_side))
        elif decks[start] == decks[stop]:
            found.append(Finding("cancelling-actions", f"{where} undo each other: the deck is as before them"))
        else:
            found.append(
                Finding("no-op-shuffle", f"{where} change no receiver's cards: every hand and talon as before them")
            )
    return tuple(found)


def false_cut(sequence: ShuffleSequence, start: int, stop: int, where: str, n: int, min_each_side: int) -> Finding:
    """The weighed false-cut finding of actions ``start..stop-1``, which leave the deck as before them."""
    chance = false_cut_chance(sequence, start, stop, n, min_each_side)
    e_value = false_cut_evalue(chance)
    return Finding(
        "false-cut",
        f"{where} undo each other: the deck is as before them; honest cuts do so with chance {chance:.3g} "
        f"(likelihood ratio {e_value:.3g})",
        e_value=e_value,
    )


def _prefix_keys(steps: list[np.ndarray], targets: np.ndarray, n: int) -> tuple[list[bytes], list[bytes]]:
    """For k = 0..len(steps): the deck permutation after k actions, and which receiver each card goes to."""
    deck = identity(n)
    decks, receivers = [deck.tobytes()], [targets[inverse(deck)].tobytes()]
    for step in steps:
        deck = deck[step]
        decks.append(deck.tobytes())
        receivers.append(targets[inverse(deck)].tobytes())
    return decks, receivers


def _shortest_stops(keys: list[bytes]) -> list[int | None]:
    """For each start, the stop of the shortest window of two or more actions with equal keys at both ends,
    kept only if no other such window lies inside it (None otherwise)."""
    positions: dict[bytes, list[int]] = {}
    for index, key in enumerate(keys):
        positions.setdefault(key, []).append(index)
    stops: list[int | None] = [None] * len(keys)
    for places in positions.values():
        for i, start in enumerate(places):
            later = [stop for stop in places[i + 1 : i + 3] if stop >= start + 2]
            stops[start] = later[0] if later else None
    tightest = len(keys)
    for start in range(len(keys) - 1, -1, -1):
        stop = stops[start]
        if stop is None:
            continue
        if stop >= tightest:
            stops[start] = None  # a window starting later ends no later: it lies inside this one
        tightest = min(tightest, stop)
    return stops


def _listed(actions: Sequence[Action], most: int = 8) -> str:
    text = " ".join(a.notation() for a in actions[:most])
    return text if len(actions) <= most else f"{text} … ({len(actions)} actions)"


@dataclass(frozen=True)
class CutDepthTally:
    """How often each cut depth was logged in one dealer's hands; merges by addition."""

    counts: tuple[int, ...]

    @staticmethod
    def empty(n: int) -> CutDepthTally:
        return CutDepthTally((0,) * n)

    @staticmethod
    def of(sequence: ShuffleSequence, n: int) -> CutDepthTally:
        counts = [0] * n
        for action in sequence:
            if isinstance(action.op, Cut) and action.op.depth is not None and action.op.depth < n:
                counts[action.op.depth] += 1
        return CutDepthTally(tuple(counts))

    def merge(self, other: CutDepthTally) -> CutDepthTally:
        if len(self.counts) != len(other.counts):
            raise AuditError("cannot merge cut tallies of different deck sizes")
        return CutDepthTally(tuple(a + b for a, b in zip(self.counts, other.counts)))

    def repeated_depth(self, min_each_side: int = CODEX_MIN_EACH_SIDE) -> tuple[int, float]:
        """The most frequent depth and a p-value against uniform legal depths (binomial tail, Bonferroni)."""
        n = len(self.counts)
        legal = np.arange(min_each_side, n - min_each_side + 1)
        counts = np.asarray(self.counts)
        total = int(counts.sum())
        if not total or not len(legal):
            return 0, 1.0
        depth = int(np.argmax(counts))
        tail = float(binomial_sf(counts[depth] - 1, total, 1.0 / len(legal)))
        return depth, min(1.0, len(legal) * tail)


def replay_findings(
    order_before: np.ndarray,
    sequence: ShuffleSequence,
    received: Deal,
    pattern: DealPattern,
    min_each_side: int = CODEX_MIN_EACH_SIDE,
) -> tuple[Finding, ...]:
    """Every replay finding of one hand: the deal comparison, illegal cuts and self-cancelling actions."""
    n = pattern.deck.size
    return (
        replay_deal(order_before, sequence, received, pattern, min_each_side).findings
        + cut_legality(sequence, n, min_each_side)
        + undone_actions(sequence, pattern, min_each_side)
    )


def received_deal(record: NarrowHand, pattern: DealPattern, num_seats: int) -> Deal:
    """The deal a hand record logs (its seats' hands and the talons), as the pattern's hands."""
    assert record.deal is not None  # hands without a deal are left out before
    hands = [from_ascii_list(h) for h in record.deal.hands]
    talons = [from_ascii_list(t) for t in record.deal.talons]
    return deal_from_seats(hands, talons, pattern, record.dealer, num_seats)
