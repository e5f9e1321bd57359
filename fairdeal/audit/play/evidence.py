"""What a logged hand shows about its defenders: each card's double-dummy cost and each whist-or-pass decision
against the double-dummy value of whisting.

A card is priced only when its player had two or more legal cards (a forced card says nothing); the player is the
one who chose it (the open lone whister plays the passer's cards). Positions are cached and every solve has a node
limit, so a pathological position costs a bounded time and is counted, not guessed. Raspasy has no declarer to
help and is skipped, as are hands the engine cannot replay (the legality pass reports those).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairdeal.cards import parse_card
from fairdeal.engine.actions import ChooseOpen, Defend, Phase, Play
from fairdeal.engine.hand import apply, is_over, legal_actions, to_move
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.record import replay_record
from fairdeal.errors import FairdealError
from fairdeal.solver.dds import Position, Solution, solve, solve_batch
from fairdeal.solver.review import position_of, sides_of

if TYPE_CHECKING:
    from fairdeal.engine.state import HandState
    from fairdeal.rules.convention import Convention

NODE_LIMIT = 2_000_000  # far above a 10-card layout's usual search; a cut-off card is counted and left out
CACHE_SIZE = 50_000
HYPOTHETICAL_STEPS = 12  # defence calls, a defence discard, the open choice, an invitation: well under twelve


@dataclass(frozen=True)
class CardChoice:
    """One defender's card with a choice: what it gave away against his best card, in tricks for his side."""

    hand: int
    trick: int  # 1-based
    card: int
    actor: int  # the seat that chose the card
    declarer: int
    context: str  # the kind of hand and strain, the actor's place after the declarer, his legal cards (capped)
    cost: int
    critical: bool  # some legal card would have given a trick away: the choice mattered


@dataclass(frozen=True)
class WhistChoice:
    """One whist-or-pass decision where both were open, with the double-dummy margin of whisting."""

    hand: int
    whister: int
    declarer: int
    context: str  # the calls before it: "first", "after pass", "after whist", ...
    passed: bool
    margin: int  # the defenders' double-dummy tricks minus the whist quota (>= 0: whisting meets it)


@dataclass(frozen=True)
class HandEvidence:
    hand: int
    cards: tuple[CardChoice, ...]
    whists: tuple[WhistChoice, ...]
    skipped: str | None  # why the hand shows nothing (raspasy, no defence, not replayable)
    solves: int
    cut_off: int


class SolveCache:
    """Per-card values of positions already solved (bounded, least recently used out first)."""

    def __init__(self, size: int = CACHE_SIZE, node_limit: int = NODE_LIMIT) -> None:
        self.size, self.node_limit = size, node_limit
        self.items: OrderedDict[tuple[Position, int, int], Solution] = OrderedDict()
        self.hits = self.solves = 0

    def values(self, position: Position, count: int, maximisers: int) -> Solution:
        key = (position, count, maximisers)
        found = self.items.get(key)
        if found is not None:
            self.hits += 1
            self.items.move_to_end(key)
            return found
        self.solves += 1
        solution = solve(position, count, maximisers, values=True, node_limit=self.node_limit)
        self.items[key] = solution
        if len(self.items) > self.size:
            self.items.popitem(last=False)
        return solution


@dataclass(frozen=True)
class PendingWhist:
    """A hand's whist decisions before the batch solve fills in their margins."""

    choices: tuple[WhistChoice, ...]
    position: Position
    declarer: int  # the declarer's trick seat index in ``position``
    quota: int


def _bare(fields: Mapping[str, Any], *, defence: bool) -> dict[str, Any]:
    out = {k: v for k, v in fields.items() if k not in ("tricks", "result", "score")}
    if not defence:  # stop at the defence: the calls, and the kontra chain that follows them (Central Europe)
        out["defence"] = []
        out["extras"] = {k: v for k, v in fields.get("extras", {}).items() if k != "kontra"}
    return out


def card_choices(
    fields: Mapping[str, Any], convention: Convention, seats: int, cache: SolveCache
) -> tuple[list[CardChoice], str | None, int]:
    """Each defender's priced card of a hand record, why the hand has none, and the solves cut off."""
    hand = int(fields.get("hand", 0))
    start = replay_record(_bare(fields, defence=True), convention, seats)
    if start.kind is HandKind.RASPASY:
        return [], "raspasy (no declarer to help)", 0
    if start.phase is not Phase.PLAY or start.declarer is None:
        return [], "no trick play (the game was not whisted)", 0
    kind, declarer, state, out, cut = start.kind, start.declarer, start, [], 0
    assert kind is not None  # a hand in trick play knows its kind
    trick_seats = start.trick_seats
    for seat, card in _recorded_cards(fields, trick_seats):
        actor = to_move(state)
        assert actor is not None  # a hand in trick play has a seat to act
        legal = sum(isinstance(a, Play) for a in legal_actions(state))
        if actor != declarer and seat != declarer and legal >= 2:
            position, _ = position_of(state)
            count, maximisers, _ = sides_of(state, seat)
            solution = cache.values(position, count, maximisers)
            if solution.complete:
                loss = solution.losses(bool((maximisers >> trick_seats.index(seat)) & 1))
                place = (trick_seats.index(actor) - trick_seats.index(declarer)) % len(trick_seats)
                strain = "no-trump" if position.trump is None else "trumps"
                context = f"{kind.value}/{strain}/{place}/{min(legal, 4)}"
                trick = len(state.tricks) + 1
                choice = CardChoice(hand, trick, card, actor, declarer, context, loss[card], max(loss.values()) > 0)
                out.append(choice)
            else:
                cut += 1
        state = apply(state, Play(seat, card, actor))
    return out, None, cut


def _recorded_cards(fields: Mapping[str, Any], trick_seats: tuple[int, ...]) -> list[tuple[int, int]]:
    cards = []
    for trick in fields.get("tricks", []):
        at = trick_seats.index(int(trick["lead"]))
        for k, text in enumerate(trick["cards"]):
            cards.append((trick_seats[(at + k) % len(trick_seats)], parse_card(str(text)).code))
    return cards


def whist_choices(fields: Mapping[str, Any], convention: Convention, seats: int) -> PendingWhist | None:
    """The hand's whist-or-pass decisions and the position whose double-dummy value prices whisting."""
    state = replay_record(_bare(fields, defence=False), convention, seats)
    if state.phase is not Phase.DEFENCE or state.kind is not HandKind.GAME or state.declarer is None:
        return None
    assert state.contract is not None  # a game being defended has its contract
    level = state.contract.level
    if level is None or level not in dict(convention.defence.quotas):
        return None
    played = _all_whist(state)
    if played is None:
        return None
    position, trick_seats = position_of(played)
    hand, declarer = int(fields.get("hand", 0)), state.declarer
    calls: list[DefenceCall] = []
    choices = []
    for entry in fields.get("defence", []):
        seat, call = int(entry["seat"]), DefenceCall(entry["call"])
        open_calls = {a.call for a in legal_actions(state) if isinstance(a, Defend)}
        if DefenceCall.PASS in open_calls and len(open_calls) > 1:
            context = "after " + " ".join(c.value for c in calls) if calls else "first"
            choices.append(WhistChoice(hand, seat, declarer, context, call is DefenceCall.PASS, 0))
        calls.append(call)
        state = apply(state, Defend(seat, call))
        if state.phase is not Phase.DEFENCE:
            break
    quota = convention.defence.quota(level)
    return PendingWhist(tuple(choices), position, trick_seats.index(declarer), quota) if choices else None


def _all_whist(state: HandState) -> HandState | None:
    """The hand as it would go to trick play if every defender whisted (the open choice: open)."""
    for _ in range(HYPOTHETICAL_STEPS):
        if state.phase is Phase.PLAY:
            return state
        if is_over(state):
            return None
        legal = legal_actions(state)
        whist = [a for a in legal if isinstance(a, Defend) and a.call is DefenceCall.WHIST]
        opened = [a for a in legal if isinstance(a, ChooseOpen) and a.open]
        state = apply(state, (whist or opened or legal)[0])
    return None


def price_whists(pending: list[PendingWhist]) -> list[WhistChoice]:
    """Fill in each decision's margin: one batch solve per table shape of the all-whist positions."""
    out: list[WhistChoice] = []
    groups: dict[tuple[int, bool], list[PendingWhist]] = {}
    for item in pending:
        groups.setdefault((item.position.seats, item.position.must_overtake), []).append(item)
    for (seats, overtake), items in groups.items():
        hands = np.array([[_mask(h) for h in p.position.hands] for p in items], dtype=np.uint32).reshape(-1, seats)
        tricks = solve_batch(
            hands,
            np.array([p.position.leader for p in items]),
            np.array([p.declarer for p in items]),
            np.array([-1 if p.position.trump is None else p.position.trump for p in items]),
            np.zeros(len(items), dtype=bool),
            overtake,
        )
        for p, won in zip(items, tricks):
            margin = len(p.position.hands[0]) - int(won) - p.quota
            out += [WhistChoice(c.hand, c.whister, c.declarer, c.context, c.passed, margin) for c in p.choices]
    return sorted(out, key=lambda c: c.hand)


def _mask(cards: tuple[int, ...]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def hand_evidence(
    fields: Mapping[str, Any], convention: Convention, seats: int, cache: SolveCache
) -> tuple[HandEvidence, PendingWhist | None]:
    """A hand record's priced cards and its whist decisions (their margins still to be solved in a batch)."""
    hand = int(fields.get("hand", 0))
    before, cut_before = cache.solves, 0
    try:
        cards, skipped, cut = card_choices(fields, convention, seats, cache)
        pending = whist_choices(fields, convention, seats)
    except (FairdealError, KeyError, ValueError, TypeError) as exc:
        return HandEvidence(hand, (), (), f"not replayable: {exc}", cache.solves - before, cut_before), None
    if skipped is not None and pending is not None:
        skipped = None  # a game both passed still shows its whist decisions
    return HandEvidence(hand, tuple(cards), (), skipped, cache.solves - before, cut), pending
