"""The sampling bot: deal the cards it cannot see in ways consistent with its view, solve each layout double dummy, and
play the card with the best expected score.

What the view has seen constrains the layouts: cards played, hands lying face up, the talon shown (those cards are
with the declarer or in his discard), and voids (a seat that did not follow the led suit holds none of it, and none
of the trumps either when it did not trump). The score of a layout's outcome is its worth in whists to the seat to
play, scored and settled by the table's own rules (``pricing``), and in raspasy the tricks taken. Levels: "easy" is
the heuristic bot; "medium" and "hard" play the cards by sampling (8 and 24 layouts a decision) and answer the
declared game by simulation (8 and 16 layouts): they deal the declarer's and the partner's hands (shown talon cards
with the declarer or in his discard), fitting the calls made (``inference.py``), and pass, whist or half-whist
(Hussar: or whist with the own talon, dealt unseen in each layout), and play a lone whist open or closed (or
invite), by the expected price of each answer (``whist.py``), at two- and three-seat tables (the kontra chain is
the heuristic's). They also bid, discard and name the contract by simulation (``simulate.py``, on the number and
suit ladders ``ladders.py``: 10 and 16 layouts) where that module models the table; elsewhere those phases, and
all the others, are the heuristic's.
Every priced decision is the argmax of its prices, kept in ``SamplingBot.priced``.
The choice depends only on the view and the seed: each decision's generator is seeded from both. Each decision also
has a budget of solver nodes (``BUDGETS``, about a third of a second of one core): once it is spent the decision
stands on the layouts solved so far, so no move thinks for more than a second, deterministically.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fairdeal.engine.actions import Action, Concede, Defend, Phase, Play
from fairdeal.engine.bids import NO_TRUMP
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.view import PlayerView
from fairdeal.solver import inference, ladders, pricing, simulate, whist
from fairdeal.solver.budget import Budget
from fairdeal.solver.dds import Position
from fairdeal.solver.pricing import Prices

# (play, whist, bidding/discard/contract) samples
LEVELS: dict[str, tuple[int, int, int]] = {"easy": (0, 0, 0), "medium": (8, 8, 10), "hard": (24, 16, 16)}
# solver nodes a decision may search (about 15 million a second on one core of the bench machine)
BUDGETS: dict[str, int] = {"easy": 0, "medium": 4_000_000, "hard": 6_000_000}
TRICKS = 10
SIMULATED = (Phase.AUCTION, Phase.DISCARD, Phase.CONTRACT, Phase.DEFENCE_DISCARD)
WHIST_PHASES = (Phase.DEFENCE, Phase.OPEN_CHOICE, Phase.INVITE)


@dataclass(frozen=True)
class Table:
    """What a view says about the play: trick seats in order, known hands, hidden seats with their sizes and
    voids, the cards the view cannot place, and the rules of the trick."""

    seats: tuple[int, ...]
    known: dict[int, tuple[int, ...]]
    hidden: tuple[tuple[int, int, int], ...]  # (seat, cards it holds, mask of suits it is void in)
    unseen: tuple[int, ...]
    declarer_only: frozenset[int]  # shown talon cards: with the declarer or in his discard
    future_talon: int  # raspasy talon cards still to turn after the current trick
    talon_owner: bool
    declarer: int | None


class SamplingBot:
    """Double-dummy play and priced decisions over sampled layouts; the heuristic bot where none is modelled."""

    def __init__(self, level: str = "medium", seed: int = 0, samples: int | None = None):
        if level not in LEVELS:
            raise ValueError(f"unknown bot level {level!r}: use {', '.join(LEVELS)}")
        play, whist, auction = LEVELS[level]
        self.samples = play if samples is None else samples
        self.whist_samples = whist
        self.auction_samples = auction if samples is None else max(simulate.MIN_SAMPLES, samples)
        self.seed = seed
        self.budget = BUDGETS[level]
        self.fallback = HeuristicBot()
        self.priced: Prices = {}  # the prices the last decision was the argmax of (empty: the heuristic's)

    def act(self, view: PlayerView) -> Action:
        self.priced = {}
        if view.phase in WHIST_PHASES and self.whist_samples and _plain_table(view) and len(view.legal) > 1:
            return self.defend(view) if view.phase is Phase.DEFENCE else self.lone_whister(view)
        if view.phase in SIMULATED and self.auction_samples and len(view.legal) > 1 and simulate.models(view):
            return self.simulate(view)
        if view.phase is not Phase.PLAY or self.samples == 0 or len(view.legal) == 1:
            return self.fallback.act(view)
        return self.play(view)

    def defend(self, view: PlayerView) -> Action:
        """Pass, whist or half-whist (or Hussar's whist with the whister's own talon) by the expected price of
        each answer over sampled layouts (``whist``); the heuristic where the call is forced."""
        calls = {a.call for a in view.legal if isinstance(a, Defend)}
        heuristic = self.fallback.act(view)
        if not {DefenceCall.PASS, DefenceCall.WHIST} <= calls:
            return heuristic
        if DefenceCall.WHIST_TALON in calls:
            return self._talon_whist(view, heuristic)
        return self._by_price(view, whist.defence_prices, heuristic)

    def _talon_whist(self, view: PlayerView, heuristic: Action) -> Action:
        """Hussar: each layout deals the declarer's hand and the bot's own talon from the cards it has not seen
        (the talon shown is the declarer's or in his discard); the whist with the talon is priced at the tricks
        the declarer takes against the bot's twelve cards less the two its count would put away, the pass and
        the plain whist at those against its ten."""
        rng = np.random.default_rng([self.seed, _view_digest(view)])
        budget = Budget(self.budget)
        seats = tuple(view.active)
        plain: list[int] = []
        with_talon: list[int] = []
        for _ in range(self.whist_samples):
            hands = _fitting_layout(view, rng)
            own = _own_talon(view, hands, rng)
            alone = _solved(view, hands, seats, 0, budget)
            kept = {**hands, view.seat: simulate.defence_keep(view, tuple(view.hand) + own)}
            helped = _solved(view, kept, seats, 0, budget)
            if alone is None or helped is None:
                break
            plain.append(alone)
            with_talon.append(helped)
        if not plain:
            return heuristic
        values = whist.defence_prices(view, plain)
        values[Defend(view.seat, DefenceCall.WHIST_TALON)] = whist.talon_price(view, with_talon)
        return self._chosen(values)

    def lone_whister(self, view: PlayerView) -> Action:
        """Open or closed play, or the invitation, by the expected price of each over sampled layouts."""
        return self._by_price(view, whist.help_prices, self.fallback.act(view))

    def _by_price(
        self, view: PlayerView, price: Callable[[PlayerView, list[int]], Prices], heuristic: Action
    ) -> Action:
        rng = np.random.default_rng([self.seed, _view_digest(view)])
        budget = Budget(self.budget)
        made = []
        for _ in range(self.whist_samples):
            tricks = self._declarer_tricks(view, rng, budget)
            if tricks is None:
                break
            made.append(tricks)
        values = price(view, made) if made else {}
        if len(values) < 2:
            return heuristic
        return self._chosen(values)

    def _chosen(self, values: Prices) -> Action:
        """The argmax of the prices (the first in legal order on a tie), kept as the decision's record."""
        self.priced = dict(values)
        return max(values, key=lambda a: values[a])

    def _declarer_tricks(self, view: PlayerView, rng: np.random.Generator, budget: Budget) -> int | None:
        hands = _fitting_layout(view, rng)
        return _solved(view, hands, tuple(view.active), 0, budget)

    def simulate(self, view: PlayerView) -> Action:
        """Bid, discard or name the contract by simulation; the heuristic where the simulation declines, and
        its concession «без трёх» stands."""
        rng = np.random.default_rng([self.seed, _view_digest(view)])
        heuristic = self.fallback.act(view)
        budget = Budget(self.budget)
        samples = self.auction_samples
        if view.phase is Phase.DEFENCE_DISCARD:
            action = simulate.defence_discard(view, rng, samples, budget)
            return heuristic if action is None else action
        if isinstance(heuristic, Concede):
            return heuristic
        if not simulate.russian(view):
            decide = ladders.discard if view.phase is Phase.DISCARD else ladders.decide
        else:
            decide = {Phase.AUCTION: simulate.bid, Phase.DISCARD: simulate.discard}.get(view.phase, simulate.declare)
        decided = decide(view, rng, samples, budget)
        return heuristic if decided is None else self._chosen(decided[1])

    def play(self, view: PlayerView) -> Action:
        table = read_table(view)
        rng = np.random.default_rng([self.seed, _view_digest(view)])
        legal = {a.card: a for a in view.legal if isinstance(a, Play)}  # the play phase's only actions
        totals = dict.fromkeys(legal, 0.0)
        done = 0
        budget = Budget(self.budget)
        for _ in range(self.samples):
            layout = sample_layout(table, rng)
            if layout is None:
                continue
            scores = card_scores(view, table, layout[0], layout[1], budget)
            if scores is None:
                break
            for card in totals:
                totals[card] += scores[card]
            done += 1
        if done == 0:
            return self.fallback.act(view)
        return self._chosen({legal[c]: totals[c] / done for c in sorted(totals)})


def _plain_table(view: PlayerView) -> bool:
    """Two or three seats at the tricks, a game contract of ten cards each: the case the whist simulation
    models."""
    return (
        len(view.active) in (2, 3)
        and tuple(view.trick_seats) == tuple(view.active)
        and view.contract is not None
        and not view.contract.misere
        and len(view.hand) == TRICKS
        and len(view.deck) >= TRICKS * len(view.active) + 2
    )


def _fitting_layout(view: PlayerView, rng: np.random.Generator) -> dict[int, tuple[int, ...]]:
    """The hands at the defence, of a few random deals the one that best fits the calls made: the defenders'
    as the declarer may see them, or the declarer's and the partner's as a defender may."""
    if view.seat == view.declarer:
        others = simulate.deal_others(view, simulate.hidden_cards(view, view.hand), rng)[0]
        return {**others, view.seat: tuple(view.hand)}
    said = inference.claims(view)
    named = inference.declarer_claim(view)
    said += (named,) if named is not None else ()
    best: tuple[float, dict[int, tuple[int, ...]]] | None = None
    for _ in range(inference.TRIES):
        hands = _defence_layout(view, rng)
        miss = inference.shortfall(said, hands)
        if best is None or miss < best[0]:
            best = (miss, hands)
        if miss == 0:
            break
    assert best is not None
    return best[1]


def _solved(
    view: PlayerView, hands: dict[int, tuple[int, ...]], seats: tuple[int, ...], leader: int, budget: Budget
) -> int | None:
    """The declarer's double-dummy tricks with ``seats`` at the tricks (the defenders loading him in a misère);
    ``None`` once the budget is spent."""
    assert view.contract is not None and view.declarer is not None  # a declared contract
    strain = view.contract.strain
    misere = view.contract.misere
    position = Position(
        tuple(tuple(sorted(hands[s])) for s in seats),
        leader,
        (),
        None if misere or strain == NO_TRUMP else strain,
        view.convention.play.must_overtake,
    )
    bit = 1 << seats.index(view.declarer)
    solution = budget.solve(position, bit, ((1 << len(seats)) - 1) & ~bit if misere else bit)
    return None if solution is None else solution.value


def _own_talon(view: PlayerView, hands: dict[int, tuple[int, ...]], rng: np.random.Generator) -> tuple[int, ...]:
    """Two of the cards the layout left out of the hands, none of them the shown talon (those cards are the
    declarer's discard): the bot's own talon, unseen."""
    held = {c for h in hands.values() for c in h}
    shown = set(view.talon_seen)
    left = [c for c in sorted(view.deck) if c not in held and c not in shown]
    rng.shuffle(left)
    return tuple(left[: simulate.TALON])


def _defence_layout(view: PlayerView, rng: np.random.Generator) -> dict[int, tuple[int, ...]]:
    """The hands at the whist: the shown talon cards are the declarer's or in his discard; the partner (at a
    three-seat table) holds ten of the cards nobody has seen."""
    shown = [c for c in view.talon_seen if c not in view.hand]
    pool = [c for c in sorted(view.deck - set(view.hand)) if c not in shown]
    rng.shuffle(pool)
    hands = {view.seat: tuple(view.hand)}
    for seat in view.active:
        if seat not in (view.seat, view.declarer):
            hands[seat], pool = tuple(sorted(pool[:TRICKS])), pool[TRICKS:]
    with_declarer = pool + shown
    rng.shuffle(with_declarer)
    assert view.declarer is not None
    hands[view.declarer] = tuple(sorted(with_declarer[:TRICKS]))  # the rest: his discard (and unused cards)
    return hands


def _view_digest(view: PlayerView) -> int:
    plays = tuple(t.plays for t in view.tricks) + (view.current,)
    return zlib.crc32(repr((view.seat, view.hand, view.auction, plays, view.contract, view.kind)).encode())


def read_table(view: PlayerView) -> Table:
    seats = view.trick_seats
    played = view.played
    known: dict[int, tuple[int, ...]] = {}
    hidden = []
    voids = _voids(view)
    for seat in seats:
        cards = view.hand_of(seat)
        if cards is not None:
            known[seat] = tuple(cards)
            continue
        plays = sum(1 for t in view.tricks for s, _ in t.plays if s == seat)
        plays += sum(1 for s, _ in view.current if s == seat)
        hidden.append((seat, TRICKS - plays, voids.get(seat, 0)))
    placed = set(played) | set(view.discard) | {c for h in known.values() for c in h}
    raspasy = view.kind is HandKind.RASPASY
    if raspasy:
        placed |= set(view.talon_seen)
    unseen = tuple(sorted(view.deck - placed))
    declarer_only: frozenset[int] = frozenset()
    if not raspasy and view.seat != view.declarer and view.talon_seen:
        declarer_only = frozenset(view.talon_seen) - played
    conv = view.convention
    future = 0
    if raspasy and getattr(conv.raspasy, "talon_leads", False):
        future = max(0, conv.raspasy.talon_tricks - len(view.tricks) - 1)
    return Table(
        seats, known, tuple(hidden), unseen, declarer_only, future, view.dealer not in view.active, view.declarer
    )


def _voids(view: PlayerView) -> dict[int, int]:
    """Suits (bit masks) each seat has shown it does not hold."""
    voids: dict[int, int] = {}
    tricks = [(t.plays, t.talon_card) for t in view.tricks] + [(view.current, view.current_talon_card)]
    for plays, talon in tricks:
        if not plays:
            continue
        led = talon // 8 if talon is not None else plays[0][1] // 8
        for seat, card in plays:
            if card // 8 != led:
                voids[seat] = voids.get(seat, 0) | 1 << led
                if view.trump is not None and card // 8 != view.trump:
                    voids[seat] |= 1 << view.trump
    return voids


Layout = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]


def sample_layout(table: Table, rng: np.random.Generator, tries: int = 20) -> Layout | None:
    """(hands per trick seat, talon cards still to turn) or ``None`` when no consistent deal turned up."""
    for _ in range(tries):
        deal = _try_deal(table, rng)
        if deal is not None:
            return deal
    return None


def _try_deal(table: Table, rng: np.random.Generator) -> Layout | None:
    hands: dict[int, list[int]] = {seat: [] for seat, _, _ in table.hidden}
    room = {seat: size for seat, size, _ in table.hidden}
    rest_room = len(table.unseen) - sum(room.values())
    if rest_room < 0:
        return None
    rest: list[int] = []
    cards = list(table.unseen)
    rng.shuffle(cards)
    # the most constrained cards first: those only a few holders may take
    holders_of = {c: _holders(c, table) for c in cards}
    cards.sort(key=lambda c: len(holders_of[c]))
    for card in cards:
        fits = [s for s in holders_of[card] if room[s] > 0]
        options: list[int | None] = list(fits)
        weights = [room[s] for s in fits]
        if rest_room > 0:  # the discard, the talon, a sitting-out dealer's hand
            options.append(None)
            weights.append(rest_room)
        if not options:
            return None
        pick = options[int(rng.choice(len(options), p=np.array(weights) / sum(weights)))]
        if pick is None:
            rest.append(card)
            rest_room -= 1
        else:
            hands[pick].append(card)
            room[pick] -= 1
    full = dict(table.known)
    full.update({s: tuple(sorted(h)) for s, h in hands.items()})
    talon = tuple(rest[: table.future_talon])
    if len(talon) < table.future_talon:
        return None
    return tuple(full[s] for s in table.seats), talon


def _holders(card: int, table: Table) -> list[int]:
    out = []
    for seat, _, voids in table.hidden:
        if voids >> (card // 8) & 1:
            continue
        if card in table.declarer_only and seat != table.declarer:
            continue
        out.append(seat)
    return out


def card_scores(
    view: PlayerView,
    table: Table,
    hands: tuple[tuple[int, ...], ...],
    future_talon: tuple[int, ...],
    budget: Budget,
) -> dict[int, float] | None:
    """The expected score for the seat to play of each of its legal cards, in this layout; ``None`` when the
    budget cannot pay for the solve."""
    seats = table.seats
    index = {s: i for i, s in enumerate(seats)}
    leader = index[view.current[0][0]] if view.current else index[view.legal[0].seat]
    current = tuple(c for _, c in view.current)
    talon = ((view.current_talon_card,) if view.current_talon_card is not None else ()) + future_talon
    position = Position(
        hands,
        leader,
        current,
        view.trump,
        view.convention.play.must_overtake,
        talon if view.current_talon_card is not None else (),
        table.talon_owner,
    )
    mover = view.legal[0].seat
    if view.kind is HandKind.RASPASY:
        me = index[mover]
        others = ((1 << len(seats)) - 1) & ~(1 << me)
        solution = budget.solve(position, 1 << me, others, values=True)
        if solution is None:
            return None
        return {c: -float(view.won[mover] + v) for c, v in solution.card_values.items()}
    assert view.declarer is not None  # a game or a misère has a declarer
    declarer = index[view.declarer]
    count = 1 << declarer
    maximisers = count if view.kind is HandKind.GAME else ((1 << len(seats)) - 1) & ~count
    solution = budget.solve(position, count, maximisers, values=True)
    if solution is None:
        return None
    prices = pricing.play_prices(view)
    wants_tricks = (mover == view.declarer) == (view.kind is HandKind.GAME)
    tie = 0.01 if wants_tricks else -0.01  # once the result is settled, the side's own tricks still count a little
    scores = {}
    for card, value in solution.card_values.items():
        tricks = view.won[view.declarer] + value
        price = prices[tricks]
        assert price is not None  # the solver's result is reachable from the tricks won so far
        scores[card] = price + tie * tricks
    return scores
