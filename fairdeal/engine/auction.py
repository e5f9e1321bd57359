"""The auction («торговля») and the contract the declarer may name after it (seeds 000, 002).

Bidding goes clockwise from the first hand; a pass is final («Тот игрок, который один раз спасовал, не имеет больше
права на торговлю»); each bid must outbid the last; the senior hand may hold a junior's bid with «мои» where the
convention allows; a misère is bid only as a player's first bid; after ``k`` raspasy in a row game bids start at
``raspasy_exit_levels[k]``. The auction ends when all have passed (raspasy) or one bidder is left.
"""

from __future__ import annotations


from fairdeal.engine.bids import (
    MINE, NO_TALON_SUFFIX, PASS, BidError, ContractBid, all_game_bids, beats, misere_level_of, parse_bid,
)
from fairdeal.engine.actions import Phase
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.play import start_play
from fairdeal.engine.state import HandState, evolve
from fairdeal.errors import IllegalAction


def exit_level(state: HandState) -> int:
    """The lowest game level allowed after ``state.raspasy_streak`` raspasy in a row (the last entry repeats)."""
    return state.convention.bidding.exit_level(state.raspasy_streak)


def _misere_level(state: HandState) -> int:
    return misere_level_of(state.convention.bidding.misere_beats_up_to)


def _outbids(state: HandState, bid: ContractBid) -> bool:
    return state.high is None or beats(bid, state.high, _misere_level(state))


def _game_bids(state: HandState) -> list[ContractBid]:
    """Game bids this seat may make now: above the last bid, at or above the exit level, one step if no jumps."""
    rules = state.convention.bidding
    floor = exit_level(state)
    candidates = [b for b in all_game_bids(frozenset(rules.no_talon_levels)) if b.level >= floor and _outbids(state, b)]
    if rules.jumps_allowed:
        return candidates
    plain = [b for b in candidates if not b.no_talon]
    return plain[:1] + [b for b in candidates if b.no_talon]


def _misere_bids(state: HandState, seat: int) -> list[ContractBid]:
    rules = state.convention.bidding
    if rules.misere_first_bid_only and seat in state.bidders:
        return []
    options = [ContractBid(None, None)]
    if rules.misere_without_talon:
        options.append(ContractBid(None, None, True))
    return [b for b in options if _outbids(state, b)]


def _may_hold(state: HandState, seat: int) -> bool:
    """«Мои»: a senior hand holds the last bid made by a junior hand (seat order from the first hand)."""
    if not state.convention.bidding.senior_may_hold or state.high is None or state.high.misere:
        return False
    return state.active.index(seat) < state.active.index(state.high_seat)


def legal_tokens(state: HandState) -> list[str]:
    seat = state.turn
    tokens = [PASS]
    if seat in state.misere_bidders:     # a misère bidder may not turn to a game («мизер можно объявить только сразу»)
        return tokens
    if _may_hold(state, seat):
        tokens.append(MINE)
    tokens.extend(b.token for b in _misere_bids(state, seat))
    tokens.extend(b.token for b in _game_bids(state))
    return tokens


def _explain(state: HandState, token: str) -> str:
    """Why ``token`` is not a legal bid now."""
    seat = state.turn
    if seat in state.misere_bidders:
        return "after a misère a player may only pass"
    if token == MINE:
        if not state.convention.bidding.senior_may_hold:
            return "«мои» is not part of this convention"
        return "«мои» holds only a game bid made by a junior hand"
    try:
        bid = parse_bid(token)
    except BidError as exc:
        return str(exc)
    if bid.misere:
        if bid.no_talon and not state.convention.bidding.misere_without_talon:
            return "misère without the talon is not part of this convention"
        if seat in state.bidders and state.convention.bidding.misere_first_bid_only:
            return "misère after a bid: a misère is allowed only as a player's first bid"
        return f"bid below the last: {token} does not outbid {state.high.token}"
    if bid.no_talon and bid.level not in state.convention.bidding.no_talon_levels:
        return f"no-talon bids at level {bid.level} are not part of this convention"
    if bid.level < exit_level(state):
        return f"after {state.raspasy_streak} raspasy in a row bids start at level {exit_level(state)}"
    if not _outbids(state, bid):
        return f"bid below the last: {token} does not outbid {state.high.token}"
    return f"jump not allowed: the next bid on the ladder is {_game_bids(state)[0].token}"


def apply_bid(state: HandState, token: str) -> HandState:
    seat = state.turn
    if token not in legal_tokens(state):
        raise IllegalAction(f"seat {seat} bids {token}: {_explain(state, token)}")
    state = evolve(state, auction=state.auction + ((seat, token),))
    if token == PASS:
        state = evolve(state, passed=state.passed | {seat})
    elif token == MINE:
        state = evolve(state, high_seat=seat, bidders=state.bidders | {seat})
    else:
        bid = parse_bid(token)
        misere = state.misere_bidders | {seat} if bid.misere else state.misere_bidders
        state = evolve(state, high=bid, high_seat=seat, bidders=state.bidders | {seat}, misere_bidders=misere)
    return _advance(state)


def _advance(state: HandState) -> HandState:
    left = [s for s in state.active if s not in state.passed]
    if not left:
        return start_play(evolve(state, declarer=None), HandKind.RASPASY)
    if len(left) == 1 and state.high_seat == left[0]:
        return _win(state, left[0])
    return evolve(state, turn=_next_bidder(state))


def _next_bidder(state: HandState) -> int:
    at = state.active.index(state.turn)
    for k in range(1, len(state.active) + 1):
        seat = state.active[(at + k) % len(state.active)]
        if seat not in state.passed:
            return seat
    raise AssertionError("no bidder left")


def _win(state: HandState, seat: int) -> HandState:
    """The last bidder takes the talon: shown to all and added to his hand, unless he bid without the talon."""
    state = evolve(state, declarer=seat, final_bid=state.high, turn=seat)
    if state.high.no_talon:
        return evolve(state, phase=Phase.CONTRACT)
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + state.talon))
    return evolve(state, hands=tuple(hands), talon=(), talon_shown=True, phase=Phase.DISCARD)


def legal_contracts(state: HandState) -> list[ContractBid]:
    """Contracts the declarer may name: not below the final bid; a misère only if bid; no-talon only if bid."""
    final = state.final_bid
    if final.misere:
        return [final]
    if not state.convention.bidding.contract_may_exceed_bid:
        return [final]
    level = _misere_level(state)
    return [
        b for b in all_game_bids(frozenset(state.convention.bidding.no_talon_levels) | {final.level})
        if b.no_talon == final.no_talon and (b == final or beats(b, final, level))
    ]


def check_contract(state: HandState, bid: ContractBid, what: str) -> None:
    if bid in legal_contracts(state):
        return
    final = state.final_bid
    if bid.misere != final.misere:
        raise IllegalAction(f"{what}: a misère is played only when bid, and a bid misère must be played")
    if bid.no_talon != final.no_talon:
        kind = "without" if final.no_talon else "with"
        raise IllegalAction(f"{what}: the auction was won {kind} the talon; the contract must be "
                            f"{'a' if final.no_talon else 'no'} {NO_TALON_SUFFIX} contract")
    if not state.convention.bidding.contract_may_exceed_bid:
        raise IllegalAction(f"{what}: this convention plays the final bid {final.token} as the contract")
    raise IllegalAction(f"{what}: contract below the final bid {final.token}")

