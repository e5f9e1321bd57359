"""Bidding, the discard and the contract by simulation: deal the cards the view cannot see at random (only the
cards it holds or was shown are placed), solve each layout double dummy in every strain the bot may still name,
and price the tricks in whists under the table's scoring (``pricing``, every other seat whisting). The decision's
node budget pays for the solves; a layout counts only once every strain it needs is solved, so all estimates stand
on the same layouts.

The model: two or three seats at the tricks (Hussar, Gusarik's dummy among them), ten cards each, the first hand
(``active[0]``) leading; the other seats' hands fit what their calls said (``inference``). On the Russian ladder
the bids are priced by expected worth; the number and suit ladders (the Central-European and the 19th-century
systems) price their calls and contracts in ``ladders`` on this module's layouts. Hussar's whister, having taken
his talon, discards by simulation too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from fairdeal.engine import evaluate
from fairdeal.engine.actions import Action, Bid, Declare, Discard
from fairdeal.engine.bids import DARK_PREFIX, MINE, NO_TRUMP, PASS, ContractBid, beats, misere_level_of, parse_bid
from fairdeal.engine.view import PlayerView
from fairdeal.solver import inference, pricing
from fairdeal.solver.budget import Budget
from fairdeal.solver.dds import Position
from fairdeal.solver.pricing import Prices

TRICKS = 10
TALON = 2
STRAINS = tuple(range(5))  # four trump suits, then no trump (the ladder's order)
DISCARD_CANDIDATES = 4  # discards kept by the heuristic's count before simulating
MISERE_CANDIDATES = 2  # misère solves cost ten times a game's: fewer discards, fewer layouts
MISERE_SAMPLE_SHARE = 0.6
MIN_SAMPLES = 4
ACE = 7
HOPELESS = 3.5  # counted tricks below which no talon makes a six: pass unsimulated
MISERE_RISK = 3.0  # the most misère danger worth simulating a misère for


Priced = tuple[Action, Prices]  # a decision and the prices it is the argmax of


def argmax(values: Prices) -> Priced:
    """The action of the highest price (the first on a tie) with the prices."""
    return max(values, key=lambda a: values[a]), values


@dataclass(frozen=True)
class Estimate:
    """The declarer's tricks in one strain (or misère, ``strain=None``) over the sampled layouts."""

    strain: int | None
    tricks: tuple[int, ...]

    def value(self, view: PlayerView, level: int | None) -> float:
        """The mean worth to the bidder, in whists, of declaring ``level`` in this strain (``None``: misère)."""
        bid = ContractBid(None, None) if level is None else ContractBid(level, self.strain)
        prices = pricing.contract_prices(view, bid.contract())
        return float(np.mean([prices[t] for t in self.tricks]))


def models(view: PlayerView) -> bool:
    """The case the simulation models: two or three seats at the tricks (a dummy's among them), ten cards
    each."""
    return (
        len(view.active) in (2, 3)
        and len(view.deck) >= TRICKS * len(view.active) + TALON
        and tuple(view.trick_seats) == tuple(view.active)
    )


def solve(view: PlayerView, hands: dict[int, tuple[int, ...]], strain: int | None, budget: Budget) -> int | None:
    """The bot's tricks as declarer in ``strain`` (``None``: misère, the others loading him); ``None`` when the
    budget is spent."""
    order = tuple(view.active)
    me = 1 << order.index(view.seat)
    trump = None if strain in (None, NO_TRUMP) else strain
    position = Position(tuple(tuple(sorted(hands[s])) for s in order), 0, (), trump, view.convention.play.must_overtake)
    maximisers = me if strain is not None else ((1 << len(order)) - 1) & ~me
    solution = budget.solve(position, me, maximisers)
    return None if solution is None else solution.value


Hands = dict[int, tuple[int, ...]]


def deal_others(view: PlayerView, hidden: list[int], rng: np.random.Generator) -> tuple[Hands, list[int]]:
    """The other seats' hands from the cards the bot cannot place, fitting the calls made (``inference``), and
    the talon from what is left over."""
    shown = dict(view.open_hands)
    others = [s for s in view.active if s != view.seat and s not in shown]
    said = inference.claims(view)
    best: tuple[float, Hands, list[int]] | None = None
    for _ in range(inference.TRIES if said else 1):
        pool = list(hidden)
        rng.shuffle(pool)
        hands = {s: tuple(pool[k * TRICKS : (k + 1) * TRICKS]) for k, s in enumerate(others)}
        miss = inference.shortfall(said, hands)
        hands.update((s, shown[s]) for s in view.active if s in shown and s != view.seat)
        if best is None or miss < best[0]:
            best = (miss, hands, pool[TRICKS * len(others) : TRICKS * len(others) + TALON])
        if miss == 0:
            break
    assert best is not None
    return best[1], best[2]


def hidden_cards(view: PlayerView, mine: tuple[int, ...]) -> list[int]:
    shown = {c for _, cards in view.open_hands for c in cards}
    return sorted(view.deck - set(mine) - set(view.discard) - set(view.talon_seen) - shown)


def quick_discard(cards: tuple[int, ...], strain: int | None) -> tuple[int, ...]:
    """Ten of twelve cards for a sampled talon: in misère away go the two highest, else the two smallest cards
    of the shortest side suits (which may leave a void to ruff), aces last."""
    if strain is None:
        away = sorted(cards, key=lambda c: (c % 8, c))[-2:]
    else:
        length = {s: sum(1 for c in cards if c // 8 == s) for s in range(4)}
        side = [c for c in cards if c // 8 != strain] or list(cards)
        away = sorted(side, key=lambda c: (c % 8 == ACE, length[c // 8], c % 8, c))[:2]
    return tuple(c for c in cards if c not in away)


def auction_estimates(
    view: PlayerView, rng: np.random.Generator, samples: int, misere: bool, budget: Budget
) -> list[Estimate]:
    """Tricks in each strain (and misère when ``misere``) with the talon unseen: a random talon joins the hand
    and the strain's quick discard puts two cards away. Empty when the budget solves no layout."""
    strains = list(STRAINS) + ([None] if misere else [])
    tricks: dict[int | None, list[int]] = {s: [] for s in strains}
    hidden = hidden_cards(view, view.hand)
    for _ in range(samples):
        others, talon = deal_others(view, hidden, rng)
        layout: dict[int | None, int | None] = {}
        for strain in strains:
            hands = dict(others)
            hands[view.seat] = quick_discard(tuple(view.hand) + tuple(talon), strain)
            layout[strain] = solve(view, hands, strain, budget)
        solved = {s: v for s, v in layout.items() if v is not None}
        if len(solved) < len(layout):
            break
        for strain, value in solved.items():
            tricks[strain].append(value)
    if not tricks[strains[0]]:
        return []
    return [Estimate(s, tuple(t)) for s, t in tricks.items()]


def bid(view: PlayerView, rng: np.random.Generator, samples: int, budget: Budget) -> Priced | None:
    """The call of best price: a pass nothing, a game bid (or «мой») the best contract at or above it, a misère
    its own; ``None`` when no plain game bid is open (dark and no-talon bids: the heuristic). A hand no talon
    makes a six on prices nothing but the pass."""
    tokens = [a.token for a in view.legal if isinstance(a, Bid)]  # the auction's only actions
    games = [
        parse_bid(t)
        for t in tokens
        if t not in (PASS, MINE)
        and not t.startswith("misere")
        and not t.endswith("-bp")
        and not t.startswith(DARK_PREFIX)
    ]
    if PASS not in tokens or not (games or "misere" in tokens or MINE in tokens):
        return None
    values: Prices = {Bid(view.seat, PASS): 0.0}
    misere = "misere" in tokens and evaluate.misere_risk(view.hand) <= MISERE_RISK
    if evaluate.best_strain(view.hand)[1] < HOPELESS and not misere:
        return argmax(values)
    estimates = auction_estimates(view, rng, samples, misere, budget)
    if not estimates:
        return None
    priced = [
        (e.value(view, level), ContractBid(level, e.strain))
        for e in estimates
        if e.strain is not None
        for level in range(6, TRICKS + 1)
    ]
    level = misere_level_of(view.convention.bidding.misere_beats_up_to)
    misere_score = next((e.value(view, None) for e in estimates if e.strain is None), None)

    def reach(floor: ContractBid) -> float | None:
        if floor.misere:
            return misere_score
        if not floor.rung:  # a no-talon rung (Mail.Ru «9БП») is ranked as it stands
            floor = ContractBid(floor.level, floor.strain)
        return max((v for v, c in priced if c == floor or beats(c, floor, level)), default=None)

    if MINE in tokens:
        assert view.high is not None  # «мой» answers a bid
        if (value := reach(view.high)) is not None:
            values[Bid(view.seat, MINE)] = value
    if "misere" in tokens and misere_score is not None:
        values[Bid(view.seat, "misere")] = misere_score
    for game in games:
        if (value := reach(game)) is not None:
            values[Bid(view.seat, game.token)] = value
    return argmax(values)


def _open_contracts(view: PlayerView) -> list[ContractBid]:
    """The game contracts the declarer may name over the winning bid, lowest first."""
    high = view.high
    level = misere_level_of(view.convention.bidding.misere_beats_up_to)
    every = [ContractBid(lv, s) for lv in range(6, TRICKS + 1) for s in STRAINS]
    return [
        b
        for b in every
        if high is None
        or high.misere
        or b == ContractBid(high.level, high.strain)
        or beats(b, ContractBid(high.level, high.strain), level)
    ]


def kept_estimates(
    view: PlayerView,
    kepts: list[tuple[int, ...]],
    layouts: list[Hands],
    strains: Sequence[int | None],
    budget: Budget,
) -> list[list[Estimate]]:
    """Per kept hand, its estimates in each strain, layout by layout over all kept hands until the budget is
    spent (empty lists when not even the first layout is solved)."""
    tricks: list[dict[int | None, list[int]]] = [{s: [] for s in strains} for _ in kepts]
    for others in layouts:
        row: list[dict[int | None, int]] = []
        for kept in kepts:
            hands = dict(others)
            hands[view.seat] = kept
            solved = {s: solve(view, hands, s, budget) for s in strains}
            row.append({s: v for s, v in solved.items() if v is not None})
        if any(len(r) < len(strains) for r in row):
            break
        for out, r in zip(tricks, row):
            for strain, value in r.items():
                out[strain].append(value)
    if not tricks[0][strains[0]]:
        return [[] for _ in kepts]
    return [[Estimate(s, tuple(t[s])) for s in strains] for t in tricks]


def _best_contract(
    view: PlayerView, estimates: list[Estimate], contracts: list[ContractBid]
) -> tuple[float, ContractBid]:
    by_strain = {e.strain: e for e in estimates}
    priced = [(by_strain[b.strain].value(view, b.level), b) for b in contracts]

    def order(item: tuple[float, ContractBid]) -> tuple[float, int, int]:
        assert item[1].level is not None and item[1].strain is not None  # a game contract in a strain
        return item[0], -item[1].level, -item[1].strain

    return max(priced, key=order)


def discard(view: PlayerView, rng: np.random.Generator, samples: int, budget: Budget) -> Priced | None:
    """The discard (and so the contract) of best expected score, among the few the heuristic counts best."""
    setup = discard_setup(view)
    if setup is None:
        return None
    misere, candidates = setup
    if misere:
        samples = max(MIN_SAMPLES, int(samples * MISERE_SAMPLE_SHARE))
    hidden = hidden_cards(view, view.hand)
    layouts = [deal_others(view, hidden, rng)[0] for _ in range(samples)]
    contracts = [] if misere else _open_contracts(view)
    strains = [None] if misere else sorted({b.strain for b in contracts if b.strain is not None})
    if not misere and not contracts:
        return None
    kepts = [tuple(c for c in view.hand if c not in pair) for pair in candidates]
    per_kept = kept_estimates(view, kepts, layouts, strains, budget)
    if not per_kept[0]:
        return None
    values: Prices = {}
    for pair, estimates in zip(candidates, per_kept):
        score = estimates[0].value(view, None) if misere else _best_contract(view, estimates, contracts)[0]
        values[Discard(view.seat, tuple(pair))] = score
    return argmax(values)


def declare(view: PlayerView, rng: np.random.Generator, samples: int, budget: Budget) -> Priced | None:
    """The legal contract of best expected score for the hand kept."""
    declares = {parse_bid(a.token): a for a in view.legal if isinstance(a, Declare)}
    contracts = [b for b in declares if not b.misere and not b.no_talon and not b.rung]
    if len(view.hand) != TRICKS or not contracts or len(contracts) != len(declares):
        return None
    hidden = hidden_cards(view, view.hand)
    layouts = [deal_others(view, hidden, rng)[0] for _ in range(samples)]
    estimates = kept_estimates(
        view, [tuple(view.hand)], layouts, sorted({b.strain for b in contracts if b.strain is not None}), budget
    )[0]
    if not estimates:
        return None
    by_strain = {e.strain: e for e in estimates}
    return argmax({declares[b]: by_strain[b.strain].value(view, b.level) for b in contracts})


def russian(view: PlayerView) -> bool:
    return bool(view.convention.bidding.ladder == "russian")


def discard_setup(view: PlayerView) -> tuple[bool, list[tuple[int, ...]]] | None:
    """Whether the discard is for a misère, and the few discards the heuristic counts best; None when the hand
    is not the ten cards plus the talon the simulation expects."""
    first = view.legal[0]
    assert isinstance(first, Discard)  # the discard phase's only actions
    size = len(first.cards)
    if len(view.hand) != TRICKS + size:
        return None
    misere = view.high is not None and view.high.misere
    return misere, _discard_candidates(view, size, misere)


def _discard_candidates(view: PlayerView, size: int, misere: bool) -> list[tuple[int, ...]]:
    pairs = list(combinations(view.hand, size))
    if misere:
        pairs.sort(key=lambda p: (evaluate.misere_risk([c for c in view.hand if c not in p]), -sum(c % 8 for c in p)))
        return pairs[:MISERE_CANDIDATES]
    pairs.sort(key=lambda p: (-evaluate.best_strain([c for c in view.hand if c not in p])[1], sum(c % 8 for c in p)))
    return pairs[:DISCARD_CANDIDATES]


def _defence_discards(view: PlayerView, cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The pairs a whister holding twelve cards may put away, those keeping the most defence tricks by the count
    first."""

    def kept_count(pair: tuple[int, ...]) -> tuple[float, int]:
        kept = [c for c in cards if c not in pair]
        return -evaluate.defence_tricks(kept, view.trump), sum(c % 8 for c in pair)

    return sorted(combinations(cards, TALON), key=kept_count)


def defence_keep(view: PlayerView, cards: tuple[int, ...]) -> tuple[int, ...]:
    """The ten of ``cards`` a whister who took his talon keeps by the count."""
    away = _defence_discards(view, cards)[0]
    return tuple(sorted(c for c in cards if c not in away))


def defence_discard(view: PlayerView, rng: np.random.Generator, samples: int, budget: Budget) -> Action | None:
    """Hussar's whister with his talon taken: the discard that holds the declarer to the fewest double-dummy
    tricks, among the few the heuristic counts best."""
    contract = view.contract
    if contract is None or contract.misere or view.declarer is None or len(view.hand) != TRICKS + TALON:
        return None

    pairs = _defence_discards(view, tuple(view.hand))[:DISCARD_CANDIDATES]
    shown = [c for c in view.talon_seen if c not in view.hand]
    pool = [c for c in hidden_cards(view, view.hand) if c not in shown]
    strain = None if contract.strain in (None, NO_TRUMP) else contract.strain
    order = tuple(view.active)
    totals = [0] * len(pairs)
    done = 0
    for _ in range(samples):
        cards = pool + shown
        rng.shuffle(cards)
        declarer = tuple(sorted(cards[:TRICKS]))
        row = []
        for pair in pairs:
            hands = {view.seat: tuple(c for c in view.hand if c not in pair), view.declarer: declarer}
            if len(hands) != len(order) or set(hands) != set(order):
                return None
            position = Position(
                tuple(hands[s] for s in order),
                0,
                (),
                strain,
                view.convention.play.must_overtake,
            )
            bit = 1 << order.index(view.declarer)
            solution = budget.solve(position, bit, bit)
            if solution is None:
                break
            row.append(solution.value)
        if len(row) < len(pairs):
            break
        totals = [t + v for t, v in zip(totals, row)]
        done += 1
    if done == 0:
        return None
    best = min(range(len(pairs)), key=lambda i: (totals[i], i))
    return Discard(view.seat, tuple(pairs[best]))
