"""The number and suit ladders (the Central-European and the 19th-century systems) bid and named by price.

Each legal call is worth the expected whists of the best contract it lets the bot play, the double-dummy tricks of
sampled layouts priced by ``pricing.contract_prices`` (the defence answering as serves it best): a number (or
«здесь», or «куплю») any contract of that number or above with the talon, «игра» the best game named later without
it, a game named at once (or in the naming round) its own contract; a pass is worth nothing. The call chosen is the
argmax, the first in legal order on a tie, so a pass wins unless some contract pays and the lowest number that
reaches the best contract is bid. The discard is the one whose kept hand's best contract (of the number won or
above) is priced highest, and the contract named after it the legal one of best price. Contracts the count already
calls hopeless (and misères on hands of many takers) are not priced: they are no candidates.
"""

from __future__ import annotations

import numpy as np

from fairdeal.engine import evaluate, number_bot
from fairdeal.engine.actions import Bid, Declare, Discard, Phase
from fairdeal.engine.bids import MINE, PASS, ContractBid, parse_bid
from fairdeal.engine.numbers import GAME, GAME_PREFIX, number_of_word
from fairdeal.engine.suits import BUY
from fairdeal.engine.view import PlayerView
from fairdeal.solver import pricing
from fairdeal.solver.budget import Budget
from fairdeal.solver.pricing import Prices
from fairdeal.solver.simulate import (
    MIN_SAMPLES,
    MISERE_RISK,
    STRAINS,
    Hands,
    Priced,
    argmax,
    deal_others,
    discard_setup,
    hidden_cards,
    kept_estimates,
    quick_discard,
    solve,
)

HOPELESS = -2.5  # the count's tricks to spare below which a contract is not priced


class LadderPrices:
    """The bot's expected worth of declaring a contract: its double-dummy tricks over sampled layouts, with the
    talon (a random one joins the hand and the quick discard puts two away) or on the hand as dealt, each strain
    solved when first asked while the budget lasts."""

    def __init__(self, view: PlayerView, rng: np.random.Generator, samples: int, budget: Budget):
        self.view = view
        hidden = hidden_cards(view, view.hand)
        self.layouts: list[tuple[Hands, list[int]]] = [deal_others(view, hidden, rng) for _ in range(samples)]
        self.budget = budget
        self.solved: dict[tuple[int | None, bool], tuple[int, ...] | None] = {}
        self.talon = view.phase is Phase.AUCTION
        self.short = False  # the budget ran out before some contract could be priced

    def price(self, bid: ContractBid) -> float | None:
        """The mean worth in whists of declaring ``bid``; ``None`` when it is hopeless by the count or the
        budget cannot pay for enough layouts."""
        if not bid.misere and (bid.strain is None or bid.level is None):
            return None
        if number_bot.margin(self.view.hand, bid, MISERE_RISK) < HOPELESS:
            return None
        tricks = self.tricks(None if bid.misere else bid.strain, bid.no_talon or not self.talon)
        if tricks is None:
            return None
        return _mean_price(self.view, bid, tricks)

    def tricks(self, strain: int | None, as_dealt: bool) -> tuple[int, ...] | None:
        """The declarer's double-dummy tricks layout by layout (``strain=None``: misère)."""
        key = (strain, as_dealt)
        if key not in self.solved:
            values = []
            for others, talon in self.layouts:
                hands = dict(others)
                mine = tuple(self.view.hand)
                hands[self.view.seat] = mine if as_dealt else quick_discard(mine + tuple(talon), strain)
                value = solve(self.view, hands, strain, self.budget)
                if value is None:
                    break
                values.append(value)
            self.solved[key] = tuple(values) if len(values) >= MIN_SAMPLES else None
            self.short |= self.solved[key] is None
        return self.solved[key]


def _best(prices: LadderPrices, tokens: list[str]) -> float | None:
    """The price of the best of these contracts that could be priced."""
    values = [v for t in tokens if (v := prices.price(parse_bid(t))) is not None]
    return max(values, default=None)


def _with_talon(view: PlayerView, prices: LadderPrices, number: int) -> float | None:
    """Winning the talon at ``number``: any contract of that number or above that is played with the talon."""
    rules = view.convention.bidding
    tokens = [
        t
        for n in range(number, rules.last_number + 1)
        for t in rules.number_tokens(n, False)
        if not parse_bid(t).no_talon
    ]
    return _best(prices, tokens)


def _announced(view: PlayerView, prices: LadderPrices, number: int) -> float | None:
    """A game named without buying the talon (one exchanging a card is priced on the hand as dealt)."""
    rules = view.convention.bidding
    return _best(prices, list(rules.number_tokens(number, number not in rules.one_card_exchange_numbers)))


def _game(view: PlayerView, prices: LadderPrices) -> float | None:
    """«Игра»: the best game the bot may name later, above the games named at once so far."""
    rules = view.convention.bidding
    named = {name: n for n, name in rules.named_games}
    floor = max((named[t] for _, t in view.auction if t in named), default=0)
    numbers = [n for n in range(rules.first_number, rules.last_number + 1) if n not in named.values() and n > floor]
    return max((v for n in numbers if (v := _announced(view, prices, n)) is not None), default=None)


def _token_value(view: PlayerView, prices: LadderPrices, token: str) -> float | None:
    rules = view.convention.bidding
    named = {name: n for n, name in rules.named_games}
    if token == PASS:
        return 0.0
    if token == MINE:
        high = max((n for _, t in view.auction if (n := number_of_word(t)) is not None), default=rules.first_number)
        return _with_talon(view, prices, high)
    if token == BUY:  # each «куплю» claims the next number up
        return _with_talon(view, prices, rules.first_number + sum(1 for _, t in view.auction if t == BUY))
    if token == GAME:
        return _game(view, prices)
    if token in named:
        return _announced(view, prices, named[token])
    if token.startswith(GAME_PREFIX):
        number = number_of_word(token[len(GAME_PREFIX) :])
        return None if number is None else _announced(view, prices, number)
    number = number_of_word(token)
    return None if number is None else _with_talon(view, prices, number)


def bid_prices(view: PlayerView, prices: LadderPrices) -> Prices:
    """Each legal call that could be priced, with its price."""
    values: Prices = {}
    for action in view.legal:
        assert isinstance(action, Bid)  # the auction's only actions
        value = _token_value(view, prices, action.token)
        if value is not None:
            values[action] = value
    return values


def declare_prices(view: PlayerView, prices: LadderPrices) -> Prices:
    """Each legal contract that could be priced, with its price."""
    values: Prices = {}
    for action in view.legal:
        if isinstance(action, Declare) and (value := prices.price(parse_bid(action.token))) is not None:
            values[action] = value
    return values


def decide(view: PlayerView, rng: np.random.Generator, samples: int, budget: Budget) -> Priced | None:
    """The call or contract of best price with the prices computed; ``None`` (the heuristic decides) when no
    contract could be priced because the budget ran out, or none is legal but hopeless ones."""
    prices = LadderPrices(view, rng, samples, budget)
    values = bid_prices(view, prices) if view.phase is Phase.AUCTION else declare_prices(view, prices)
    contracts = [a for a in values if not (isinstance(a, Bid) and a.token == PASS)]
    if not contracts and (prices.short or view.phase is not Phase.AUCTION or not values):
        return None
    return argmax(values)


def _open_after_discard(view: PlayerView, misere: bool) -> list[ContractBid]:
    """The contracts the declarer may name after this discard: the number won or above, with the talon; the
    misères only when the discard is for one, the games otherwise."""
    rules = view.convention.bidding
    assert view.high is not None  # the talon was won with a bid
    bids = [
        parse_bid(t)
        for n in range(rules.number_of(view.high.token), rules.last_number + 1)
        for t in rules.number_tokens(n, False)
    ]
    return [b for b in bids if not b.no_talon and b.misere == misere]


def discard(view: PlayerView, rng: np.random.Generator, samples: int, budget: Budget) -> Priced | None:
    """The discard of best price with the prices computed, among the few the heuristic counts best (strains
    within a trick of the best count only, to spare the budget); ``None`` when the layouts cannot be solved."""
    setup = discard_setup(view)
    if setup is None or view.high is None:
        return None
    misere, candidates = setup
    kepts = [tuple(c for c in view.hand if c not in pair) for pair in candidates]
    strains: list[int | None] = [None]
    if not misere:
        counts = {st: max(evaluate.strain_tricks(k, st) for k in kepts) for st in STRAINS}
        strains = [st for st in STRAINS if counts[st] >= max(counts.values()) - 1.0]
    contracts = [b for b in _open_after_discard(view, misere) if (None if b.misere else b.strain) in strains]
    if not contracts:
        return None
    strains = [s for s in strains if any((None if b.misere else b.strain) == s for b in contracts)]
    layouts = [deal_others(view, hidden_cards(view, view.hand), rng)[0] for _ in range(samples)]
    per_kept = kept_estimates(view, kepts, layouts, strains, budget)
    if not per_kept[0]:
        return None
    values: Prices = {}
    for pair, estimates in zip(candidates, per_kept):
        tricks = {e.strain: e.tricks for e in estimates}
        values[Discard(view.seat, pair)] = max(
            _mean_price(view, b, tricks[None if b.misere else b.strain]) for b in contracts
        )
    return argmax(values)


def _mean_price(view: PlayerView, bid: ContractBid, tricks: tuple[int, ...]) -> float:
    prices = pricing.contract_prices(view, bid.contract())
    return float(np.mean([prices[t] for t in tricks]))
