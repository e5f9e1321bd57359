"""The number auction of Austrian and Croatian preferans (seed 003): «раз, два, три, четыре» / «2, 3, 4, 5, 6, 7»
and «игра».

Each number stands for a contract of the convention's ``number_contracts``; the talon auction climbs the numbers one
step at a time («В торговле цифрами скачки не допускаются»), and a senior hand that bid a number may hold a junior's
with «здесь» (token ``mine``). «Игра» (no talon) is a player's first call only and beats every number; a game named
at once (Austrian ``hearts``, Croatian ``bettel``/``sanac``) beats only lower named games. When several players said
an unnamed game, they name their numbers in turn (``game-<number>``): the highest wins, an equal number goes to the
senior hand («преимущество имеет первая рука»), and a player may yield without naming («уступить право играть, не
обнаруживая контракта»). A pass is final. Tokens: ``pass``, ``mine``, ``one``..``eight``, ``game``, the named games,
``game-two``..
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairdeal.engine.actions import Phase
from fairdeal.engine.bids import MINE, PASS, ContractBid, parse_bid
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.play import start_play
from fairdeal.engine.state import HandState, evolve, per_state
from fairdeal.errors import IllegalAction

if TYPE_CHECKING:
    from fairdeal.rules.convention import BiddingRules

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
GAME = "game"
GAME_PREFIX = "game-"


def word(number: int) -> str:
    return NUMBER_WORDS[number]


def number_of_word(token: str) -> int | None:
    return NUMBER_WORDS.index(token) if token in NUMBER_WORDS else None


def contract_bid(state: HandState, number: int, no_talon: bool) -> ContractBid:
    """The (first) contract a number stands for: the auction's high bid and the declarer's floor."""
    return parse_bid(state.convention.bidding.number_token(number, no_talon))


def contract_bids(state: HandState, number: int, no_talon: bool) -> list[ContractBid]:
    """Every contract a number stands for (``8*``: the level in each suit)."""
    return [parse_bid(t) for t in state.convention.bidding.number_tokens(number, no_talon)]


def _rules(state: HandState) -> BiddingRules:
    return state.convention.bidding


def _senior(state: HandState, seat: int, other: int) -> bool:
    return state.active.index(seat) < state.active.index(other)


def _first_call(state: HandState, seat: int) -> bool:
    return all(s != seat for s, _ in state.auction)


def _named_numbers(state: HandState) -> set[int]:
    return {n for n, _ in _rules(state).named_games}


def _best_named(state: HandState) -> tuple[int, int] | None:
    """(number, seat) of the highest game named so far; the senior hand wins equal numbers."""
    named = [(n, s) for s, n in state.game_bids if n is not None]
    if not named:
        return None
    return max(named, key=lambda item: (item[0], -state.active.index(item[1])))


def _nameable(state: HandState) -> list[int]:
    """Numbers an unnamed game may name: every number except those bid only by their own name (Austrian: «любую
    масть, кроме червей»; Croatian: Bettel and Sanac «объявляются сразу»)."""
    rules = _rules(state)
    return [n for n in range(rules.first_number, rules.last_number + 1) if n not in _named_numbers(state)]


def _beats_best(state: HandState, seat: int, number: int) -> bool:
    best = _best_named(state)
    return best is None or number > best[0] or (number == best[0] and _senior(state, seat, best[1]))


@per_state
def legal_tokens(state: HandState) -> list[str]:
    if state.naming:
        return _naming_tokens(state)
    rules = _rules(state)
    seat = state.turn
    tokens = [PASS]
    if not state.game_bids:
        if (
            state.number_high is not None
            and state.high_seat is not None
            and seat in state.bidders
            and state.high_seat != seat
            and _senior(state, seat, state.high_seat)
        ):
            tokens.append(MINE)
        following = rules.first_number if state.number_high is None else state.number_high + 1
        if following <= rules.last_number:
            tokens.append(word(following))
    if _first_call(state, seat):
        if any(_beats_best(state, seat, n) for n in _nameable(state)):
            tokens.append(GAME)
        tokens.extend(name for n, name in rules.named_games if _beats_best(state, seat, n))
    return tokens


def _naming_tokens(state: HandState) -> list[str]:
    seat = state.turn
    names = [GAME_PREFIX + word(n) for n in _nameable(state) if _beats_best(state, seat, n)]
    others = [s for s, _ in state.game_bids if s != seat and s not in state.passed]
    return names + ([PASS] if others or not names else [])


def apply_bid(state: HandState, token: str) -> HandState:
    seat = state.turn
    if token not in legal_tokens(state):
        raise IllegalAction(f"seat {seat} bids {token}: {_explain(state, token)}")
    state = evolve(state, auction=state.auction + ((seat, token),))
    if state.naming:
        return _after_naming(state, seat, token)
    if token == PASS:
        return _advance(evolve(state, passed=state.passed | {seat}))
    if token == MINE:
        return _advance(evolve(state, high_seat=seat))
    number = number_of_word(token)
    if number is not None:
        return _advance(
            evolve(
                state,
                number_high=number,
                high_seat=seat,
                bidders=state.bidders | {seat},
                high=contract_bid(state, number, False),
            )
        )
    named = {name: n for n, name in _rules(state).named_games}.get(token)
    high = state.high if named is None else contract_bid(state, named, True)
    return _advance(
        evolve(
            state,
            game_bids=state.game_bids + ((seat, named),),
            bidders=state.bidders | {seat},
            high=high,
            high_seat=seat if named is not None else state.high_seat,
        )
    )


def _explain(state: HandState, token: str) -> str:
    if state.naming:
        return "the game bidders name a number above the highest named (an equal one only from the senior hand)"
    if token in (GAME, *(name for _, name in _rules(state).named_games)) or token.startswith(GAME_PREFIX):
        return (
            "«игра» is a player's first call («желающий играть без прикупа должен сделать соответствующую "
            "заявку в тот момент, когда он впервые получает право слова») and must beat the games named so far"
        )
    if token == MINE:
        return "«здесь» holds a junior's number, said by a senior hand that has bid a number, before any «игра»"
    if state.game_bids:
        return "after «игра» no number may be bid"
    return "the next number on the ladder only («В торговле цифрами скачки не допускаются»)"


def _advance(state: HandState) -> HandState:
    players = [s for s in state.active if s != state.dummy]
    gamers = {s for s, _ in state.game_bids}
    left = [s for s in players if s not in state.passed and s not in gamers]
    if not left and not gamers:
        if state.convention.table.all_pass == "redeal":
            return evolve(state, declarer=None, kind=HandKind.REDEAL, phase=Phase.DONE)
        return start_play(evolve(state, declarer=None), HandKind.RASPASY)
    if not gamers and left == [state.high_seat]:
        return _win_numbers(state)
    if not left:
        return _resolve_games(state)
    return evolve(state, turn=_next(state, left))


def _next(state: HandState, left: list[int]) -> int:
    at = state.active.index(state.turn)
    order = [state.active[(at + k) % len(state.active)] for k in range(1, len(state.active) + 1)]
    return next(s for s in order if s in left)


def _win_numbers(state: HandState) -> HandState:
    """The number auction's winner takes the talon: shown to all (Croatian) or unseen (Austrian)."""
    seat = state.high_seat
    assert seat is not None and state.number_high is not None  # the number auction has a winner
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
        talon_shown=_rules(state).talon_shown,
        phase=Phase.DISCARD,
    )


def _resolve_games(state: HandState) -> HandState:
    unnamed = [s for s, n in state.game_bids if n is None and s not in state.passed]
    if len(state.game_bids) == 1 and unnamed:  # the only game bidder names his contract after the auction
        return _win_game(state, unnamed[0], min(_nameable(state)), named=False)
    if unnamed:
        return evolve(state, naming=True, turn=unnamed[0])
    best = _best_named(state)
    assert best is not None  # every game bidder has named his game
    number, seat = best
    return _win_game(state, seat, number, named=True)


def _after_naming(state: HandState, seat: int, token: str) -> HandState:
    if token == PASS:
        state = evolve(state, passed=state.passed | {seat})
    else:
        number = number_of_word(token[len(GAME_PREFIX) :])
        assert number is not None  # the token was checked against the legal naming tokens
        bids = tuple((s, number if s == seat else n) for s, n in state.game_bids)
        state = evolve(state, game_bids=bids, high=contract_bid(state, number, True), high_seat=seat)
    waiting = [s for s, n in state.game_bids if n is None and s not in state.passed]
    if waiting:
        return evolve(state, turn=waiting[0])
    contenders = [(n, s) for s, n in state.game_bids if n is not None and s not in state.passed]
    number, winner = max(contenders, key=lambda item: (item[0], -state.active.index(item[1])))
    return _win_game(evolve(state, naming=False), winner, number, named=True)


def _win_game(state: HandState, seat: int, number: int, named: bool) -> HandState:
    final = contract_bid(state, number, True)
    return evolve(
        state,
        declarer=seat,
        turn=seat,
        final_number=number,
        final_bid=final,
        high=final,
        high_seat=seat,
        named_contract=named,
        phase=Phase.CONTRACT,
    )


def legal_contracts(state: HandState) -> list[ContractBid]:
    """The contracts the declarer may name: his named game exactly; after an unnamed game any nameable number
    without the talon; after the talon any number not below the final one («не ниже заявки»)."""
    assert state.final_number is not None and state.final_bid is not None  # set when the auction ended
    number, no_talon = state.final_number, state.final_bid.no_talon
    if state.named_contract:
        return contract_bids(state, number, no_talon)
    rules = _rules(state)
    numbers = _nameable(state) if no_talon else range(number, rules.last_number + 1)
    return [bid for n in numbers if n >= number for bid in contract_bids(state, n, no_talon)]


def number_of_contract(state: HandState, bid: ContractBid) -> int:
    return _rules(state).number_of(bid.token)


def check_contract(state: HandState, bid: ContractBid, what: object) -> None:
    if bid not in legal_contracts(state):
        without = state.final_bid is not None and state.final_bid.no_talon
        raise IllegalAction(
            f"{what}: the contract must be a number not below {state.final_number} "
            f"{'without' if without else 'with'} the talon (or the named game)"
        )
