"""One hand of Russian preferans as a pure state machine (seeds 000, 002).

``new_hand`` deals; ``legal_actions``/``apply``/``to_move``/``is_over``/``result`` drive it. Every rule variant is
read from the convention's fields (``bidding``, ``defence``, ``raspasy``), never from its name.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from fairdeal.cards import Card
from fairdeal.engine import auction as auction_rules
from fairdeal.engine import play as play_rules
from fairdeal.engine.actions import Action, Bid, ChooseOpen, Concede, Declare, Defend, Discard, Phase, Play
from fairdeal.engine.bids import BidError, ContractBid, parse_bid
from fairdeal.engine.outcome import DefenceCall, HandKind, HandOutcome
from fairdeal.engine.state import HandState, evolve
from fairdeal.errors import IllegalAction

HAND_SIZE = 10
TALON_SIZE = 2


def new_hand(convention, num_seats: int, dealer: int, deal, raspasy_streak: int = 0) -> HandState:
    """Start a hand. ``deal.hands[i]`` is hand ``i`` (0 = first hand, left of the dealer, then clockwise over the
    seats that play: at four the dealer sits out); ``deal.talons[0]`` is the talon."""
    if num_seats not in (3, 4):
        raise IllegalAction(f"the Russian hand is played by 3 or 4 seats, not {num_seats}")
    if not 0 <= dealer < num_seats:
        raise IllegalAction(f"dealer seat {dealer} is outside 0..{num_seats - 1}")
    active = tuple((dealer + 1 + k) % num_seats for k in range(3))
    hands = [tuple(int(c) for c in h) for h in deal.hands]
    talon = tuple(int(c) for c in deal.talons[0]) if len(deal.talons) else ()
    _check_deal(hands, talon)
    by_seat: list[tuple[int, ...]] = [() for _ in range(num_seats)]
    for seat, cards in zip(active, hands):
        by_seat[seat] = cards
    return HandState(
        convention=convention, num_seats=num_seats, dealer=dealer, active=active,
        raspasy_streak=raspasy_streak, dealt_hands=tuple(by_seat), dealt_talon=talon,
        hands=tuple(tuple(sorted(h)) for h in by_seat), talon=talon, phase=Phase.AUCTION, turn=active[0],
        won=(0,) * num_seats,
    )


def _check_deal(hands: Sequence[tuple[int, ...]], talon: tuple[int, ...]) -> None:
    if len(hands) != 3 or any(len(h) != HAND_SIZE for h in hands) or len(talon) != TALON_SIZE:
        raise IllegalAction(
            f"a Russian deal is three hands of {HAND_SIZE} and a talon of {TALON_SIZE}, got hands of "
            f"{[len(h) for h in hands]} and a talon of {len(talon)}"
        )
    cards = [c for h in hands for c in h] + list(talon)
    if sorted(cards) != list(range(32)):
        raise IllegalAction("the deal does not hold each of the 32 piquet cards exactly once")


# ---- whose turn -------------------------------------------------------------------------------------------------

def to_move(state: HandState) -> int | None:
    """The seat that must act now (the open lone whister acts for the passer), ``None`` when the hand is over."""
    if state.phase is Phase.DONE:
        return None
    if state.phase is Phase.PLAY and state.defence_open and state.turn in _passers(state):
        return _lone_whister(state)
    return state.turn


def is_over(state: HandState) -> bool:
    return state.phase is Phase.DONE


def _passers(state: HandState) -> tuple[int, ...]:
    return tuple(s for s, call in state.defence if call is DefenceCall.PASS)


def _lone_whister(state: HandState) -> int:
    return next(s for s, call in state.defence if call is DefenceCall.WHIST)


# ---- legal actions ----------------------------------------------------------------------------------------------

def legal_actions(state: HandState) -> list[Action]:
    """Every action the rules allow now, for the seat ``to_move`` returns."""
    phase = state.phase
    if phase is Phase.AUCTION:
        return [Bid(state.turn, t) for t in auction_rules.legal_tokens(state)]
    if phase is Phase.DISCARD:
        return [Discard(state.turn, pair) for pair in combinations(state.hands[state.turn], 2)]
    if phase is Phase.CONTRACT:
        actions: list[Action] = [Declare(state.turn, b.token) for b in auction_rules.legal_contracts(state)]
        if _may_concede(state):
            actions.append(Concede(state.turn))
        return actions
    if phase is Phase.DEFENCE:
        return [Defend(state.turn, call) for call in _legal_calls(state)]
    if phase is Phase.OPEN_CHOICE:
        return [ChooseOpen(state.turn, True), ChooseOpen(state.turn, False)]
    if phase is Phase.PLAY:
        actor = to_move(state)
        return [Play(state.turn, c, None if actor == state.turn else actor) for c in play_rules.legal_cards(state)]
    return []


def _may_concede(state: HandState) -> bool:
    return bool(state.convention.defence.concede_three) and not state.final_bid.misere


def _legal_calls(state: HandState) -> list[DefenceCall]:
    calls = [DefenceCall.PASS, DefenceCall.WHIST]
    if state.defence and state.defence[0][1] is DefenceCall.PASS and _half_whist_allowed(state):
        calls.append(DefenceCall.HALF_WHIST)
    return calls


def _half_whist_allowed(state: HandState) -> bool:
    rules = state.convention.defence
    return bool(rules.half_whist) and state.contract.level in rules.half_whist_levels


# ---- apply ------------------------------------------------------------------------------------------------------

def apply(state: HandState, action: Action) -> HandState:
    """The state after ``action``; raises ``IllegalAction`` naming the rule that forbids it."""
    if state.phase is Phase.DONE:
        raise IllegalAction(f"{action}: the hand is over")
    handler = _HANDLERS.get((state.phase, type(action)))
    if handler is None:
        raise IllegalAction(f"{action}: not allowed in the {state.phase.value} phase")
    if isinstance(action, Bid) and action.seat in state.passed:
        raise IllegalAction(f"{action}: passed players cannot bid again («Тот игрок, который один раз спасовал, "
                            f"не имеет больше права на торговлю»)")
    actor = action.by if isinstance(action, Play) else action.seat
    expected = to_move(state)
    if actor != expected:
        raise IllegalAction(f"{action}: not your turn, seat {expected} is to act")
    return evolve(handler(state, action), steps=state.steps + 1)


def _apply_bid(state: HandState, action: Bid) -> HandState:
    return auction_rules.apply_bid(state, action.token)


def _apply_discard(state: HandState, action: Discard) -> HandState:
    cards = tuple(int(c) for c in action.cards)
    hand = state.hands[action.seat]
    if len(cards) != TALON_SIZE or len(set(cards)) != TALON_SIZE:
        raise IllegalAction(f"{action}: the discard is exactly two different cards")
    foreign = [Card.from_code(c).ascii for c in cards if c not in hand]
    if foreign:
        raise IllegalAction(f"{action}: discard not from your hand ({' '.join(foreign)})")
    kept = tuple(c for c in hand if c not in cards)
    return evolve(state, hands=_with_hand(state, action.seat, kept), discard=cards, phase=Phase.CONTRACT)


def _apply_declare(state: HandState, action: Declare) -> HandState:
    try:
        bid = parse_bid(action.token)
    except BidError as exc:
        raise IllegalAction(f"{action}: {exc}") from None
    auction_rules.check_contract(state, bid, str(action))
    if bid.misere:
        return play_rules.start_play(evolve(state, contract=bid), HandKind.MISERE)
    return evolve(state, contract=bid, kind=HandKind.GAME, phase=Phase.DEFENCE, turn=state.defenders[0])


def _apply_concede(state: HandState, action: Concede) -> HandState:
    if not _may_concede(state):
        raise IllegalAction(f"{action}: «без трёх» is not allowed here (convention or a misère)")
    return evolve(state, contract=state.final_bid, conceded=True, kind=HandKind.GAME, phase=Phase.DONE)


def _apply_defend(state: HandState, action: Defend) -> HandState:
    call = DefenceCall(action.call)
    if call not in _legal_calls(state):
        raise IllegalAction(f"{action}: half-whist only by the second defender after a pass, where the convention "
                            f"allows it at this level")
    defence = state.defence + ((action.seat, call),)
    state = evolve(state, defence=defence)
    if len(defence) < len(state.defenders):
        return evolve(state, turn=state.defenders[len(defence)])
    whists = [s for s, c in defence if c is DefenceCall.WHIST]
    if not whists:     # both passed, or pass + half-whist: the contract is written without play
        return evolve(state, phase=Phase.DONE)
    if len(whists) == 1 and state.convention.defence.lone_whister_may_choose_open:
        return evolve(state, phase=Phase.OPEN_CHOICE, turn=whists[0])
    return play_rules.start_play(state, HandKind.GAME)


def _apply_choose_open(state: HandState, action: ChooseOpen) -> HandState:
    if action.open:
        state = evolve(state, defence_open=True, open_seats=frozenset(state.defenders))
    return play_rules.start_play(state, HandKind.GAME)


def _apply_play(state: HandState, action: Play) -> HandState:
    if action.seat != state.turn:
        raise IllegalAction(f"{action}: it is seat {state.turn}'s card to play")
    return play_rules.play_card(state, int(action.card), str(action))


def _with_hand(state: HandState, seat: int, cards: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    hands = list(state.hands)
    hands[seat] = tuple(sorted(cards))
    return tuple(hands)


_HANDLERS = {
    (Phase.AUCTION, Bid): _apply_bid,
    (Phase.DISCARD, Discard): _apply_discard,
    (Phase.CONTRACT, Declare): _apply_declare,
    (Phase.CONTRACT, Concede): _apply_concede,
    (Phase.DEFENCE, Defend): _apply_defend,
    (Phase.OPEN_CHOICE, ChooseOpen): _apply_choose_open,
    (Phase.PLAY, Play): _apply_play,
}


# ---- result -----------------------------------------------------------------------------------------------------

def result(state: HandState) -> HandOutcome:
    """What scoring needs about the finished hand."""
    if state.phase is not Phase.DONE:
        raise IllegalAction(f"the hand is not over (phase {state.phase.value})")
    contract: ContractBid | None = state.contract
    return HandOutcome(
        num_seats=state.num_seats,
        dealer=state.dealer,
        active=state.active,
        kind=state.kind,
        tricks=state.won,
        declarer=state.declarer,
        contract=None if contract is None else contract.contract(),
        defence=state.defence,
        whister_invited=state.defence_open and state.kind is HandKind.GAME,
        conceded_undertricks=state.convention.defence.conceded_undertricks if state.conceded else None,
        played=bool(state.tricks),
        raspasy_talon_tricks=state.talon_won,
    )
