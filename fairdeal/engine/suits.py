"""The auction of 19th-century preferans (seed 003, rules 20-24 and 59): announcements by suit, then the talon.

First every player, from the first hand, speaks once: ``pass`` or a suit announced without the talon
(«прямо объявляет масть козырную, но в таком случае игрок должен играть без талона»), each above the last («пики
перебиваются трефами, трефы бубнами»; hearts, the «преферанс», above all). The highest announcement plays. If all
passed, the talon is offered: without negotiation the first hand may ``buy`` it, else the next, then the third («если
же все трое спасуют от талона, то игра пересдаётся»); with negotiation (rule 59) each ``buy`` claims the next suit up
(«куплю» from spades to hearts) and the last buyer left takes the talon. A pass is final within each round.
"""

from __future__ import annotations

from fairdeal.engine.actions import Phase
from fairdeal.engine.bids import PASS, ContractBid
from fairdeal.engine.numbers import contract_bid, contract_bids
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.state import HandState, evolve
from fairdeal.errors import IllegalAction

BUY = "buy"


def _players(state: HandState) -> list[int]:
    return [s for s in state.active if s != state.dummy]


def _announcing(state: HandState) -> bool:
    return len(state.auction) < len(_players(state))


def legal_tokens(state: HandState) -> list[str]:
    rules = state.convention.bidding
    if _announcing(state):
        floor = state.number_high or 0
        return [PASS] + [name for n, name in rules.named_games if n > floor]
    following = rules.first_number if state.number_high is None else state.number_high + 1
    return [PASS] + ([BUY] if following <= rules.last_number else [])


def apply_bid(state: HandState, token: str) -> HandState:
    seat = state.turn
    if token not in legal_tokens(state):
        raise IllegalAction(f"seat {seat} bids {token}: {_explain(state)}")
    announcing = _announcing(state)
    state = evolve(state, auction=state.auction + ((seat, token),))
    rules = state.convention.bidding
    if announcing:
        named = dict((name, n) for n, name in rules.named_games).get(token)
        if named is not None:
            state = evolve(state, number_high=named, high_seat=seat, bidders=state.bidders | {seat},
                           high=contract_bid(state, named, True))
        if _announcing(state):
            return evolve(state, turn=_after(state, seat, set()))
        if state.number_high is not None:
            return _play_announced(state)
        return evolve(state, number_high=None, high_seat=None, turn=_players(state)[0])
    if token == PASS:
        state = evolve(state, passed=state.passed | {seat})
    else:
        following = rules.first_number if state.number_high is None else state.number_high + 1
        state = evolve(state, number_high=following, high_seat=seat, bidders=state.bidders | {seat},
                       high=contract_bid(state, following, False))
        if not rules.talon_negotiation:
            return _buy(state)
    left = [s for s in _players(state) if s not in state.passed]
    if not left:
        return evolve(state, declarer=None, kind=HandKind.REDEAL, phase=Phase.DONE)
    if left == [state.high_seat]:
        return _buy(state)
    return evolve(state, turn=_after(state, seat, state.passed))


def _explain(state: HandState) -> str:
    if _announcing(state):
        return "an announcement must name a suit above the last («пики перебиваются трефами, трефы бубнами»)"
    return "the talon round: buy or pass («имеет право взять талон, но не принуждается к этому»)"


def _after(state: HandState, seat: int, passed: set[int] | frozenset[int]) -> int:
    players = _players(state)
    at = players.index(seat)
    order = [players[(at + k) % len(players)] for k in range(1, len(players) + 1)]
    return next(s for s in order if s not in passed)


def _play_announced(state: HandState) -> HandState:
    final = contract_bid(state, state.number_high, True)
    return evolve(state, declarer=state.high_seat, turn=state.high_seat, final_number=state.number_high,
                  final_bid=final, named_contract=True, phase=Phase.CONTRACT)


def _buy(state: HandState) -> HandState:
    seat = state.high_seat
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + state.talon))
    final = contract_bid(state, state.number_high, False)
    return evolve(state, declarer=seat, turn=seat, final_number=state.number_high, final_bid=final, high=final,
                  hands=tuple(hands), talon=(), talon_shown=state.convention.bidding.talon_shown,
                  phase=Phase.DISCARD)


def legal_contracts(state: HandState) -> list[ContractBid]:
    """The announced contract (an announced «восемь» in the suit the declarer names); after buying the talon any
    contract not below the one bought for."""
    if state.named_contract:
        return contract_bids(state, state.final_number, True)
    rules = state.convention.bidding
    return [bid for n in range(state.final_number, rules.last_number + 1) for bid in contract_bids(state, n, False)]
