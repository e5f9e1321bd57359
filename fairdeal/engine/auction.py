"""The auction («торговля») and the contract the declarer may name after it (seeds 000, 002, 003).

Bidding goes clockwise from the first hand; a pass is final («Тот игрок, который один раз спасовал, не имеет больше
права на торговлю»); each bid must outbid the last; the senior hand may hold a junior's bid with «мои» where the
convention allows; a misère is bid only as a player's first bid; after ``k`` raspasy in a row game bids start at
``raspasy_exit_levels[k]``. Classic adds calls made before looking at the cards (``dark-`` tokens, a player's first
call): a dark bid doubles the game and is beaten only from the next level, a dark pass is beaten only by a seven.
The auction ends when all have passed (raspasy, or a redeal where there are none) or one bidder is left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import wraps
from typing import TYPE_CHECKING, TypeVar

from fairdeal.engine.actions import Phase
from fairdeal.engine.bids import (
    DARK_PREFIX,
    MINE,
    NO_TALON_SUFFIX,
    PASS,
    BidError,
    ContractBid,
    all_game_bids,
    beats,
    misere_level_of,
    parse_bid,
    split_dark,
)
from fairdeal.engine.extra import russian
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.play import start_play
from fairdeal.engine.state import HandState, amend_fresh, evolve, per_state
from fairdeal.errors import IllegalAction

if TYPE_CHECKING:
    from fairdeal.rules.convention import BiddingRules

MISERE_TOKEN = "misere"
_TALON = Phase.TALON  # read on every bid: a module global is cheaper than a class attribute (3.11)

# Speed: a rule function that enumerates bids is remembered by the convention's bidding rules and a key of
# everything else it reads from the state, so a remembered answer is the rule's own answer
# (tests/test_engine_shortcuts.py compares them over random auctions of every convention). Whoever makes such a
# rule read another field adds that field to its key.
_REMEMBERED_LIMIT = 1 << 14  # house rules made on the fly (as the tests do) must not grow a memory unbounded
T = TypeVar("T")
_Memory = dict[tuple[object, ...], tuple[T, ...]]


def _remembered(
    key: Callable[[HandState], tuple[object, ...]],
) -> Callable[[Callable[[HandState], list[T]]], Callable[[HandState], list[T]]]:
    """Remember ``rule(state)`` by the bidding rules and ``key(state)``; every call returns a fresh list, as the
    rule itself does. The last rules' memory is kept at hand: a rules value hashes by all its fields."""

    def decorate(rule: Callable[[HandState], list[T]]) -> Callable[[HandState], list[T]]:
        memories: dict[BiddingRules, _Memory[T]] = {}
        last: list[tuple[BiddingRules | None, _Memory[T]]] = [(None, {})]

        @wraps(rule)
        def remembered(state: HandState) -> list[T]:
            rules = state.convention.bidding
            seen, memory = last[0]
            if seen is not rules:
                if len(memories) >= _REMEMBERED_LIMIT:
                    memories.clear()
                memory = memories.setdefault(rules, {})
                last[0] = (rules, memory)
            k = key(state)
            answer = memory.get(k)
            if answer is None:
                if len(memory) >= _REMEMBERED_LIMIT:
                    memory.clear()
                answer = memory[k] = tuple(rule(state))
            return list(answer)

        return remembered

    return decorate


def exit_level(state: HandState) -> int:
    """The lowest game level allowed now: after raspasy in a row (the last entry repeats) and after a dark pass."""
    rules = state.convention.bidding
    floor = rules.exit_level(state.raspasy_streak)
    rounds = russian(state.extra).dark_pass_rounds
    if rounds:
        floor = max(floor, rules.dark_pass_overcall_level + rounds - 1)
    return floor


def _misere_level(state: HandState) -> int:
    return misere_level_of(state.convention.bidding.misere_beats_up_to)


def _outbids(state: HandState, bid: ContractBid, dark: bool = False) -> bool:
    if state.high is None:
        return True
    rules = state.convention.bidding
    if state.dark and state.high.misere and rules.dark_misere_overcall_levels is not None:
        dark_level, plain_level = rules.dark_misere_overcall_levels  # «девятерной ... втёмную или десятерной»
        return bid.level is not None and bid.level >= (dark_level if dark else plain_level)  # not a misère
    if (
        state.dark
        and rules.dark_overcall_next_level
        and bid.level is not None  # neither bid a misère
        and state.high.level is not None
        and bid.level <= state.high.level
    ):
        return False
    return beats(bid, state.high, _misere_level(state), rules.misere_bp_plain_overcall_level)


@_remembered(lambda state: (exit_level(state), state.high, state.dark))
def _game_bids(state: HandState) -> list[ContractBid]:
    """Game bids this seat may make now: above the last bid, at or above the exit level, one step if no jumps."""
    rules = state.convention.bidding
    floor = exit_level(state)
    ladder = all_game_bids(frozenset(rules.no_talon_levels), rules.no_talon_single_rung)
    candidates = [b for b in ladder if b.level is not None and b.level >= floor and _outbids(state, b)]
    if rules.jumps_allowed:
        return candidates
    plain = [b for b in candidates if not b.no_talon]
    return plain[:1] + [b for b in candidates if b.no_talon]


def _misere_bids(state: HandState, seat: int) -> list[ContractBid]:
    rules = state.convention.bidding
    if not rules.misere or (rules.misere_first_bid_only and seat in state.bidders):
        return []
    if rules.third_hand_no_misere_after_two_passes and _third_after_two_passes(state, seat):
        return []
    options = [ContractBid(None, None)]
    if rules.misere_without_talon:
        options.append(ContractBid(None, None, True))
    return [b for b in options if _outbids(state, b)]


def _may_hold(state: HandState, seat: int) -> bool:
    """«Мои»: a senior hand holds the last bid made by a junior hand (seat order from the first hand); a dark bid
    cannot be held, it is beaten only from the next level."""
    if not state.convention.bidding.senior_may_hold or state.high is None or state.high.misere or state.dark:
        return False
    return state.active.index(seat) < state.active.index(state.high_seat)


def _first_call(state: HandState, seat: int) -> bool:
    return all(s != seat for s, _ in state.auction)


def _third_after_two_passes(state: HandState, seat: int) -> bool:
    """The third hand to speak after the first and second hands both passed (Codex, 002)."""
    players = state.players
    return len(players) >= 3 and seat == players[2] and state.high is None and set(players[:2]) <= state.passed


def _dark_pass_open(state: HandState) -> bool:
    """A dark pass is open before any significant bid (003 Классика) and, where the Codex applies, against the game
    that beat an earlier dark pass («после семерной игры снова заказан пас втёмную»)."""
    rules = state.convention.bidding
    if not rules.dark_pass:
        return False
    if state.high is None:
        return True
    return rules.dark_pass_answers_overcall and russian(state.extra).dark_pass_rounds > 0 and not state.high.misere


def _dark_game_bids(state: HandState, open_bids: list[ContractBid]) -> list[ContractBid]:
    """Game bids in the dark: the open ones, or over a dark misère the dark games that beat it (Codex)."""
    rules = state.convention.bidding
    if not (state.dark and state.high is not None and state.high.misere and rules.dark_misere_overcall_levels):
        return [b for b in open_bids if not b.no_talon]
    floor = exit_level(state)
    candidates = [
        b
        for b in all_game_bids(frozenset())
        if b.level is not None and b.level >= floor and _outbids(state, b, dark=True)
    ]
    return candidates if rules.jumps_allowed else candidates[:1]


def _dark_tokens(state: HandState, seat: int, open_bids: list[ContractBid]) -> list[str]:
    """Calls before looking at the cards: only as the player's first call (003 Классика)."""
    rules = state.convention.bidding
    if not _first_call(state, seat):
        return []
    tokens = []
    if _dark_pass_open(state):
        tokens.append(DARK_PREFIX + PASS)
    if rules.dark_bids:
        tokens.extend(DARK_PREFIX + b.token for b in _dark_game_bids(state, open_bids))
    return tokens


@per_state
def legal_tokens(state: HandState) -> list[str]:
    if state.phase is _TALON:
        return [MISERE_TOKEN]
    # A misère bidder may not turn to a game («мизер можно объявить только сразу»).
    if state.turn in state.misere_bidders:
        return [PASS]
    return _open_tokens(state)


def _call_facts(state: HandState) -> tuple[object, ...]:
    """Everything ``_open_tokens`` reads from the state besides the bidding rules."""
    seat = state.turn
    third = state.convention.bidding.third_hand_no_misere_after_two_passes and _third_after_two_passes(state, seat)
    return (
        _may_hold(state, seat),
        seat in state.bidders,
        third,
        exit_level(state),
        state.high,
        state.dark,
        _first_call(state, seat),
        russian(state.extra).dark_pass_rounds,
    )


@_remembered(_call_facts)
def _open_tokens(state: HandState) -> list[str]:
    """The calls of a seat that has not bid a misère."""
    seat = state.turn
    tokens = [PASS]
    if _may_hold(state, seat):
        tokens.append(MINE)
    bids = _misere_bids(state, seat) + _game_bids(state)
    tokens.extend(b.token for b in bids)
    tokens.extend(_dark_tokens(state, seat, bids))
    return tokens


def _explain(state: HandState, token: str) -> str:
    """Why ``token`` is not a legal bid now."""
    seat = state.turn
    rules = state.convention.bidding
    if seat in state.misere_bidders:
        return "after a misère a player may only pass"
    if token == MINE:
        if not rules.senior_may_hold:
            return "«мои» is not part of this convention"
        return "«мои» holds only a game bid made by a junior hand (and never a dark bid)"
    dark, core = split_dark(token)
    if dark:
        if not (rules.dark_pass if core == PASS else rules.dark_bids):
            return "calls in the dark are not part of this convention"
        if not _first_call(state, seat):
            return "a call in the dark is a player's first call, made before looking at the cards"
        if core == PASS:
            if rules.dark_pass_answers_overcall:
                return "a dark pass answers only the game that beat an earlier dark pass, never another bid"
            return "«После того как кто-то сделал значащую заявку, заявить пас втёмную нельзя»"
    try:
        bid = parse_bid(core)
    except BidError as exc:
        return str(exc)
    if dark and bid.no_talon:
        return "a no-talon bid cannot be made in the dark (the dark bidder takes the talon unseen)"
    if bid.misere:
        if not rules.misere:
            return "misère is not part of this convention"
        if bid.no_talon and not rules.misere_without_talon:
            return "misère without the talon is not part of this convention"
        if seat in state.bidders and rules.misere_first_bid_only:
            return "misère after a bid: a misère is allowed only as a player's first bid"
        if rules.third_hand_no_misere_after_two_passes and _third_after_two_passes(state, seat):
            return (
                "after two passes the third hand takes the talon for any game but a misère («обязуется взять "
                "в игре цену любую, кроме мизера»)"
            )
        if _dark_misere_stands(state):
            return _DARK_MISERE_RULE
        assert state.high is not None  # a misère is outbid only by a bid
        return f"bid below the last: {token} does not outbid {state.high.token}"
    assert bid.level is not None  # not a misère
    if bid.no_talon and bid.level not in rules.no_talon_levels:
        return f"no-talon bids at level {bid.level} are not part of this convention"
    if bid.no_talon and bid.rung != rules.no_talon_single_rung:
        if rules.no_talon_single_rung:
            return (
                f"no-talon bids here are one rung per level («9БП»): {bid.level}{NO_TALON_SUFFIX}, the strain "
                f"named with the contract"
            )
        return f"a no-talon bid names its strain here ({bid.level}S{NO_TALON_SUFFIX} .. {bid.level}NT{NO_TALON_SUFFIX})"
    if bid.level < exit_level(state):
        if russian(state.extra).dark_passers:
            return f"a dark pass is beaten only by a bid of {exit_level(state)} or more"
        return f"after {state.raspasy_streak} raspasy in a row bids start at level {exit_level(state)}"
    if not _outbids(state, bid, dark):
        assert state.high is not None  # any bid outbids none
        if _dark_misere_stands(state):
            return _DARK_MISERE_RULE
        if state.dark and rules.dark_overcall_next_level:
            return f"a dark bid is beaten only from the next level: {state.high.token} in the dark"
        return f"bid below the last: {token} does not outbid {state.high.token}"
    following = _dark_game_bids(state, _game_bids(state)) if dark else _game_bids(state)
    return f"jump not allowed: the next bid on the ladder is {following[0].token}"


def apply_bid(state: HandState, token: str) -> HandState:
    seat = state.turn
    if token not in legal_tokens(state):
        raise IllegalAction(f"seat {seat} bids {token}: {_explain(state, token)}")
    auction = state.auction + ((seat, token),)
    if state.phase is _TALON:  # «может сменить заявку и заказать мизер ... как обычный мизер»
        misere = ContractBid(None, None)
        return _take_talon(evolve(state, auction=auction, high=misere, final_bid=misere, dark=False), seat)
    dark, core = split_dark(token)
    if core == PASS and dark:
        state = _dark_pass(evolve(state, auction=auction), seat)
    elif core == PASS:
        state = evolve(state, auction=auction, passed=state.passed | {seat})
    elif core == MINE:
        state = evolve(state, auction=auction, high_seat=seat, bidders=state.bidders | {seat})
    else:
        bid = parse_bid(core)
        misere_bidders = state.misere_bidders | {seat} if bid.misere else state.misere_bidders
        state = evolve(
            state,
            auction=auction,
            high=bid,
            high_seat=seat,
            bidders=state.bidders | {seat},
            misere_bidders=misere_bidders,
            dark=dark,
        )
    return _advance(state)


def _dark_pass(state: HandState, seat: int) -> HandState:
    """A dark pass sets the floor (a seven); answering the game that beat it, it takes that game off the table and
    raises the floor a level (Codex: «перебивают восьмёркой»)."""
    extra = russian(state.extra)
    rounds = extra.dark_pass_rounds
    if rounds == 0 or state.high is not None:
        rounds += 1
    extra = replace(extra, dark_passers=extra.dark_passers | {seat}, dark_pass_rounds=rounds)
    state = evolve(state, passed=state.passed | {seat}, extra=extra)
    if state.high is not None:
        state = evolve(state, high=None, high_seat=None, dark=False)
    return state


def _dark_misere_stands(state: HandState) -> bool:
    return (
        state.dark
        and state.high is not None
        and state.high.misere
        and state.convention.bidding.dark_misere_overcall_levels is not None
    )


_DARK_MISERE_RULE = (
    "a misère in the dark is beaten only by a nine in the dark or a ten («Перебивают такую игру "
    "только девятерной ставкой втёмную или десятерной всветлую»)"
)


def _advance(state: HandState) -> HandState:
    left = [s for s in state.active if s not in state.passed]
    if not left:
        if state.convention.table.all_pass == "redeal":
            return evolve(state, declarer=None, kind=HandKind.REDEAL, phase=Phase.DONE)
        return start_play(evolve(state, declarer=None), HandKind.RASPASY)
    if len(left) == 1 and state.high_seat == left[0]:
        return _win(state, left[0])
    return amend_fresh(state, turn=_next_bidder(state))  # the state ``apply_bid`` made for this bid


def _next_bidder(state: HandState) -> int:
    at = state.active.index(state.turn)
    for k in range(1, len(state.active) + 1):
        seat = state.active[(at + k) % len(state.active)]
        if seat not in state.passed:
            return seat
    raise AssertionError("no bidder left")


def _win(state: HandState, seat: int) -> HandState:
    """The last bidder takes the talon (shown to all; unseen after a dark bid), unless he bid without it."""
    state = evolve(state, declarer=seat, final_bid=state.high, turn=seat)
    assert state.high is not None  # the last bidder's bid
    if state.high.no_talon:
        return evolve(state, phase=Phase.CONTRACT)
    rules = state.convention.bidding
    if state.dark and state.high.level == 6 and rules.dark_six_may_switch_to_misere and rules.misere:
        return evolve(state, phase=Phase.TALON)
    return _take_talon(state, seat)


def take_talon(state: HandState, seat: int) -> HandState:
    """The dark six's winner keeps his game and takes the talon (unseen)."""
    return _take_talon(state, seat)


def _take_talon(state: HandState, seat: int) -> HandState:
    """Add the talon the declarer may buy to his hand: the only talon, or with two talons his own."""
    index = own_talon_index(state, seat)
    bought = state.dealt_talons[index] if index is not None else state.talon
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + bought))
    rest = tuple(c for c in state.talon if c not in bought)
    return evolve(
        state, hands=tuple(hands), talon=rest, talon_shown=not state.dark, talon_bought=index, phase=Phase.DISCARD
    )


def own_talon_index(state: HandState, seat: int) -> int | None:
    """With one talon per player (Hussar), the index of ``seat``'s own talon; ``None`` with a single talon."""
    if len(state.dealt_talons) < 2:
        return None
    return state.convention.table.own_talon(state.players.index(seat))


@_remembered(lambda state: (state.final_bid,))
def legal_contracts(state: HandState) -> list[ContractBid]:
    """Contracts the declarer may name: not below the final bid; a misère only if bid; no-talon only if bid."""
    final = state.final_bid
    assert final is not None  # set when the auction ended
    if final.misere:
        return [final]
    assert final.level is not None  # not a misère
    if final.rung:  # 002: «БП ... при заказе – игру без прикупа»: any strain, without the talon
        exceed = state.convention.bidding.contract_may_exceed_bid
        return [
            b
            for b in all_game_bids(frozenset(range(final.level, 11)))
            if b.no_talon and b.level is not None and (b.level >= final.level if exceed else b.level == final.level)
        ]
    if not state.convention.bidding.contract_may_exceed_bid:
        return [final]
    level = _misere_level(state)
    return [
        b
        for b in all_game_bids(frozenset(state.convention.bidding.no_talon_levels) | {final.level})
        if b.no_talon == final.no_talon and (b == final or beats(b, final, level))
    ]


def check_contract(state: HandState, bid: ContractBid, what: object) -> None:
    if bid in legal_contracts(state):
        return
    if bid.rung:
        raise IllegalAction(
            f"{what}: a contract names its strain ({bid.level}S{NO_TALON_SUFFIX} .. {bid.level}NT{NO_TALON_SUFFIX})"
        )
    final = state.final_bid
    assert final is not None  # set when the auction ended
    if bid.misere != final.misere:
        raise IllegalAction(f"{what}: a misère is played only when bid, and a bid misère must be played")
    if bid.no_talon != final.no_talon:
        kind = "without" if final.no_talon else "with"
        raise IllegalAction(
            f"{what}: the auction was won {kind} the talon; the contract must be "
            f"{'a' if final.no_talon else 'no'} {NO_TALON_SUFFIX} contract"
        )
    if not state.convention.bidding.contract_may_exceed_bid:
        raise IllegalAction(f"{what}: this convention plays the final bid {final.token} as the contract")
    raise IllegalAction(f"{what}: contract below the final bid {final.token}")
