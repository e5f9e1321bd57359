"""The auction of 19th-century preferans (seed 003, rules 20-24 and 59): announcements by suit, then the talon.

First every player, from the first hand, speaks once: ``pass`` or a suit announced without the talon
(«прямо объявляет масть козырную, но в таком случае игрок должен играть без талона»), each above the last («пики
перебиваются трефами, трефы бубнами»; hearts, the «преферанс», above all). The highest announcement plays. If all
passed, the talon is offered: without negotiation the first hand may ``buy`` it, else the next, then the third («если
же все трое спасуют от талона, то игра пересдаётся»); with negotiation (rule 59) each ``buy`` claims the next suit up
(«куплю» from spades to hearts) and the last buyer left takes the talon. A pass is final within each round. A game
announced with a one-card exchange (mixed full preferans, «малая бедность ... при относе одной карты») takes the
talon's first card and discards one before it is declared.
"""

from __future__ import annotations

from fairdeal.engine.actions import Phase
from fairdeal.engine.bids import PASS, ContractBid
from fairdeal.engine.numbers import contract_bid, contract_bids
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.state import HandState, evolve, per_state
from fairdeal.errors import IllegalAction

BUY = "buy"


def _players(state: HandState) -> list[int]:
    return [s for s in state.active if s != state.dummy]


def _announcing(state: HandState) -> bool:
    return len(state.auction) < len(_players(state))


@per_state
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
        named = {name: n for n, name in rules.named_games}.get(token)
        if named is not None:
            state = evolve(
                state,
                number_high=named,
                high_seat=seat,
                bidders=state.bidders | {seat},
                high=contract_bid(state, named, _announced_no_talon(state, named)),
            )
        if _announcing(state):
            return evolve(state, turn=_after(state, seat, set()))
        if state.number_high is not None:
            return _play_announced(state)
        return evolve(state, number_high=None, high_seat=None, turn=_players(state)[0])
    if token == PASS:
        state = evolve(state, passed=state.passed | {seat})
    else:
        following = rules.first_number if state.number_high is None else state.number_high + 1
        state = evolve(
            state,
            number_high=following,
            high_seat=seat,
            bidders=state.bidders | {seat},
            high=contract_bid(state, following, False),
        )
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


def _announced_no_talon(state: HandState, number: int) -> bool:
    """An announced game is played without the talon, except one that exchanges a card (rule 52)."""
    return number not in state.convention.bidding.one_card_exchange_numbers


def _play_announced(state: HandState) -> HandState:
    number, seat = state.number_high, state.high_seat
    assert number is not None and seat is not None  # the auction ended on an announced game
    final = contract_bid(state, number, _announced_no_talon(state, number))
    state = evolve(
        state, declarer=seat, turn=seat, final_number=number, final_bid=final, named_contract=True, phase=Phase.CONTRACT
    )
    if _announced_no_talon(state, number):
        return state
    # «при относе одной карты»: the talon's first card, unseen by the others, for one card of his own.
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + state.talon[:1]))
    return evolve(state, hands=tuple(hands), talon=state.talon[1:], phase=Phase.DISCARD)


def _buy(state: HandState) -> HandState:
    seat = state.high_seat
    assert seat is not None and state.number_high is not None  # the auction ended on a bid for the talon
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + state.talon))
    final = contract_bid(state, state.number_high, False)
    return evolve(
        state,
        declarer=seat,
        turn=seat,
        final_number=state.number_high,
        final_bid=final,
        high=final,
        hands=tuple(hands),
        talon=(),
        talon_shown=state.convention.bidding.talon_shown,
        phase=Phase.DISCARD,
    )


def legal_contracts(state: HandState) -> list[ContractBid]:
    """The announced contract (an announced «восемь» in the suit the declarer names); after buying the talon any
    contract not below the one bought for."""
    assert state.final_number is not None  # set when the auction ended
    if state.named_contract:
        return contract_bids(state, state.final_number, _announced_no_talon(state, state.final_number))
    rules = state.convention.bidding
    # A game played only on the cards dealt (rule 54, «не относя ни одной карты») cannot follow a bought talon.
    return [
        bid
        for n in range(state.final_number, rules.last_number + 1)
        for bid in contract_bids(state, n, False)
        if not bid.no_talon
    ]


def check_contract(state: HandState, bid: ContractBid, what: object) -> None:
    if bid not in legal_contracts(state):
        without = state.final_bid is not None and state.final_bid.no_talon
        raise IllegalAction(
            f"{what}: the contract must be a number not below {state.final_number} "
            f"{'without' if without else 'with'} the talon (or the named game)"
        )
