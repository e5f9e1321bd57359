"""The heuristic bot's auction and contract choice on a number ladder (Austrian, Croatian, 19th century; seed 003).

Each number stands for a contract; the bot reckons the tricks each contract would bring (``evaluate``), bids the
numbers up to the highest contract it could make with the talon's help, says «игра» at its first call when a
contract stands without the talon, and names the contract with the widest margin. A caller with better trick
estimates (the sampling bot's simulation) passes them as ``estimate``: a contract's tricks to spare, or ``None``
where the count should stand.
"""

from __future__ import annotations

from collections.abc import Callable

from fairdeal.engine import evaluate
from fairdeal.engine.actions import Action, Bid, Declare, Follow
from fairdeal.engine.bids import MINE, PASS, ContractBid, parse_bid
from fairdeal.engine.numbers import GAME, GAME_PREFIX, number_of_word
from fairdeal.engine.suits import BUY
from fairdeal.engine.view import PlayerView

SURE_MARGIN = 0.5  # a no-talon game wants half a trick to spare: the counts are optimistic
Estimate = Callable[[ContractBid], "float | None"]


def margin(hand: tuple[int, ...], bid: ContractBid, misere_risk: float, estimate: Estimate | None = None) -> float:
    """Tricks to spare for ``bid`` (a misère: 1 on a hand within the risk accepted, else -5)."""
    spare = None if estimate is None else estimate(bid)
    if spare is not None:
        return spare
    if bid.misere:
        return 1.0 if evaluate.misere_risk(hand) <= misere_risk else -5.0
    assert bid.level is not None and bid.strain is not None  # the number ladders hold no no-talon rungs
    return evaluate.strain_tricks(hand, bid.strain) - bid.level


def _best(view: PlayerView, number: int, no_talon: bool, misere_risk: float, estimate: Estimate | None) -> float:
    """The margin of the best contract a number stands for (``8*``: the best suit at that level)."""
    tokens = view.convention.bidding.number_tokens(number, no_talon)
    return max(margin(view.hand, parse_bid(t), misere_risk, estimate) for t in tokens)


def bid(view: PlayerView, talon_hope: float, misere_risk: float, estimate: Estimate | None = None) -> Action:
    tokens = [a.token for a in view.legal if isinstance(a, Bid)]  # the auction's legal actions are all bids
    rules = view.convention.bidding
    named = {name: n for n, name in rules.named_games}
    if any(t.startswith(GAME_PREFIX) for t in tokens):  # naming round of several «игра»
        fits = [
            t
            for t in tokens
            if t.startswith(GAME_PREFIX)
            and (n := number_of_word(t[len(GAME_PREFIX) :])) is not None
            and _best(view, n, True, misere_risk, estimate) >= 0
        ]
        return Bid(view.seat, fits[-1] if fits else (PASS if PASS in tokens else tokens[0]))
    for token in tokens:
        if token in named and _best(view, named[token], True, misere_risk, estimate) >= SURE_MARGIN:
            return Bid(view.seat, token)
    nameable = [n for n in range(rules.first_number, rules.last_number + 1) if n not in named.values()]
    if GAME in tokens and any(_best(view, n, True, misere_risk, estimate) >= SURE_MARGIN for n in nameable):
        return Bid(view.seat, GAME)
    reach = [
        n
        for n in range(rules.first_number, rules.last_number + 1)
        if _best(view, n, False, misere_risk, estimate) + talon_hope >= 0
    ]
    target = max(reach, default=None)
    if target is None:
        return Bid(view.seat, PASS)
    numbers = [(n, t) for t in tokens if (n := number_of_word(t)) is not None]
    if BUY in tokens:  # 19th century: each «куплю» claims the next suit up
        following = rules.first_number + sum(1 for _, t in view.auction if t == BUY)
        return Bid(view.seat, BUY if following <= target else PASS)
    high = number_of_word(next((t for _, t in reversed(view.auction) if number_of_word(t) is not None), "zero"))
    assert high is not None  # "zero" and every number bid are number words
    if MINE in tokens and high <= target:
        return Bid(view.seat, MINE)
    affordable = [t for n, t in numbers if n <= target]
    return Bid(view.seat, affordable[0] if affordable else PASS)


def declare(view: PlayerView, misere_risk: float, estimate: Estimate | None = None) -> Action:
    """The legal contract with the most tricks to spare (the first, lowest, on a tie)."""
    declares = [a for a in view.legal if isinstance(a, Declare)]
    return max(declares, key=lambda a: margin(view.hand, parse_bid(a.token), misere_risk, estimate))


def follows(view: PlayerView, misere_risk: float) -> bool:
    """Nachgehen: take the discard when a contract above the one standing is sure on the bot's own ten cards."""
    if not any(isinstance(a, Follow) and a.take for a in view.legal):
        return False
    rules = view.convention.bidding
    standing = rules.number_of(view.contract.token) + 1 if view.contract is not None else rules.nachgehen_from_number
    return any(_best(view, n, False, misere_risk, None) >= SURE_MARGIN for n in range(standing, rules.last_number + 1))
