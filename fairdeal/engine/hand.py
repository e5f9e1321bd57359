"""One hand of Russian preferans as a pure state machine (seeds 000, 001, 002, 003): the table conventions, Classic,
five players, Hussar (two talons) and Gusarik (a dummy) — each a set of parameters of this one machine.

``new_hand`` deals; ``legal_actions``/``apply``/``to_move``/``is_over``/``result`` drive it. Every rule variant is
read from the convention's fields (``bidding``, ``defence``, ``raspasy``), never from its name.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from fairdeal.cards import Card
from fairdeal.deal import get_pattern, seats_of_hands
from fairdeal.engine import auction as auction_rules
from fairdeal.engine import play as play_rules
from fairdeal.engine.actions import (
    Action, Bid, ChooseOpen, Concede, Declare, Defend, Discard, Phase, Play, TakeTalon,
)
from fairdeal.engine.bids import BidError, ContractBid, parse_bid
from fairdeal.engine.outcome import DefenceCall, HandKind, HandOutcome
from fairdeal.engine.state import HandState, evolve
from fairdeal.errors import IllegalAction

def new_hand(convention, num_seats: int, dealer: int, deal, raspasy_streak: int = 0,
             opening_round: int = 0) -> HandState:
    """Start a hand. ``deal.hands[i]`` is hand ``i`` of the convention's deal pattern (0 = first hand, left of the
    dealer, then clockwise over the seats dealt a hand: at four the dealer sits out, at five the dealer and his
    right-hand neighbour); Gusarik's dummy is hand 0 and takes the pseudo-seat ``num_seats``. ``opening_round``
    k > 0 starts the k-th opening raspasy of this dealer (Classic): no auction."""
    if num_seats not in convention.players:
        allowed = " or ".join(str(n) for n in convention.players)
        raise IllegalAction(f"{convention.title} is played by {allowed} seats, not {num_seats}")
    if not 0 <= dealer < num_seats:
        raise IllegalAction(f"dealer seat {dealer} is outside 0..{num_seats - 1}")
    table = convention.table
    if opening_round and not 0 < opening_round <= table.opening_raspasy_rounds:
        raise IllegalAction(f"opening raspasy round {opening_round} is outside 1..{table.opening_raspasy_rounds}")
    pattern = get_pattern(table.deal_pattern)
    holders = seats_of_hands(pattern, dealer, num_seats)
    dummy = num_seats if table.dummy else None
    active = tuple(dummy if seat is None else seat for seat in holders)
    hands = [tuple(int(c) for c in h) for h in deal.hands]
    talons = tuple(tuple(int(c) for c in t) for t in deal.talons)
    _check_deal(pattern, hands, talons)
    by_seat: list[tuple[int, ...]] = [() for _ in range(num_seats + (dummy is not None))]
    for seat, cards in zip(active, hands):
        by_seat[seat] = cards
    state = HandState(
        convention=convention, num_seats=num_seats, dealer=dealer, active=active,
        raspasy_streak=raspasy_streak, dealt_hands=tuple(by_seat), dealt_talon=talons[0] if talons else (),
        hands=tuple(tuple(sorted(h)) for h in by_seat), talon=sum(talons, ()), phase=Phase.AUCTION,
        turn=next(s for s in active if s != dummy), won=(0,) * len(by_seat), dealt_talons=talons, dummy=dummy,
        trick_seats=active, opening_round=opening_round,
        passed=frozenset() if dummy is None else frozenset({dummy}),   # «Он как бы всегда говорит пас»
    )
    if opening_round:    # «До начала собственно пульки играют несколько кругов распасовки»
        return play_rules.start_play(state, HandKind.RASPASY)
    return state


def _check_deal(pattern, hands: Sequence[tuple[int, ...]], talons: tuple[tuple[int, ...], ...]) -> None:
    if (len(hands) != pattern.hands or any(len(h) != pattern.cards_per_hand for h in hands)
            or len(talons) != pattern.talons or any(len(t) != pattern.talon_size for t in talons)):
        raise IllegalAction(
            f"a {pattern.name} deal is {pattern.hands} hands of {pattern.cards_per_hand} and {pattern.talons} "
            f"talon(s) of {pattern.talon_size}, got hands of {[len(h) for h in hands]} and talons of "
            f"{[len(t) for t in talons]}"
        )
    cards = [c for h in hands for c in h] + [c for t in talons for c in t]
    if sorted(cards) != [int(c) for c in pattern.deck.codes()]:
        raise IllegalAction(f"the deal does not hold each of the {pattern.deck.size} cards of the "
                            f"{pattern.deck.value} deck exactly once")


# ---- whose turn -------------------------------------------------------------------------------------------------

def to_move(state: HandState) -> int | None:
    """The seat that must act now (the open lone whister acts for the passer), ``None`` when the hand is over."""
    if state.phase is Phase.DONE:
        return None
    if state.phase is Phase.PLAY and state.turn == state.dummy:   # the dummy is played by the declarer's opponent
        return next(s for s in state.players if s != state.declarer)
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
    if phase is Phase.TALON:
        return [TakeTalon(state.turn), Bid(state.turn, auction_rules.MISERE_TOKEN)]
    if phase in (Phase.DISCARD, Phase.DEFENCE_DISCARD):
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
    rules = state.convention.defence
    if state.dark and state.contract.level == 6 and rules.dark_six_forced_whist:
        return [DefenceCall.WHIST]    # «шестерная игра, заказанная втёмную, вистуется принудительно обоими»
    calls = [DefenceCall.PASS, DefenceCall.WHIST]
    other_passed = (state.dummy in state.defenders) or (state.defence and state.defence[0][1] is DefenceCall.PASS)
    if other_passed and _half_whist_allowed(state):
        calls.append(DefenceCall.HALF_WHIST)
    if rules.whist_with_talon and _whister_talon(state) is not None:
        calls.append(DefenceCall.WHIST_TALON)
    return calls


def _whister_talon(state: HandState) -> int | None:
    """The talon the defender to call may take (Hussar: his own, still lying), ``None`` when there is none."""
    index = auction_rules.own_talon_index(state, state.turn)
    if index is None or not set(state.dealt_talons[index]) <= set(state.talon):
        return None
    return index


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


def _apply_take_talon(state: HandState, action: TakeTalon) -> HandState:
    return auction_rules.take_talon(state, action.seat)


def _checked_discard(state: HandState, action: Discard) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the two cards, the hand kept) of a legal discard."""
    cards = tuple(int(c) for c in action.cards)
    hand = state.hands[action.seat]
    if len(cards) != 2 or len(set(cards)) != 2:
        raise IllegalAction(f"{action}: the discard is exactly two different cards")
    foreign = [Card.from_code(c).ascii for c in cards if c not in hand]
    if foreign:
        raise IllegalAction(f"{action}: discard not from your hand ({' '.join(foreign)})")
    return cards, tuple(c for c in hand if c not in cards)


def _apply_discard(state: HandState, action: Discard) -> HandState:
    cards, kept = _checked_discard(state, action)
    return evolve(state, hands=_with_hand(state, action.seat, kept), discard=cards, phase=Phase.CONTRACT)


def _apply_defence_discard(state: HandState, action: Discard) -> HandState:
    cards, kept = _checked_discard(state, action)
    state = evolve(state, hands=_with_hand(state, action.seat, kept), defence_discard=cards)
    return play_rules.start_play(state, HandKind.GAME)


def _apply_declare(state: HandState, action: Declare) -> HandState:
    try:
        bid = parse_bid(action.token)
    except BidError as exc:
        raise IllegalAction(f"{action}: {exc}") from None
    auction_rules.check_contract(state, bid, str(action))
    if bid.misere:
        return play_rules.start_play(evolve(state, contract=bid), HandKind.MISERE)
    return evolve(state, contract=bid, kind=HandKind.GAME, phase=Phase.DEFENCE, turn=state.callers[0])


def _apply_concede(state: HandState, action: Concede) -> HandState:
    if not _may_concede(state):
        raise IllegalAction(f"{action}: «без трёх» is not allowed here (convention or a misère)")
    return evolve(state, contract=state.final_bid, conceded=True, kind=HandKind.GAME, phase=Phase.DONE)


def _apply_defend(state: HandState, action: Defend) -> HandState:
    call = DefenceCall(action.call)
    if call not in _legal_calls(state):
        raise IllegalAction(f"{action}: {_why_not(state, call)}")
    defence = state.defence + ((action.seat, call),)
    state = evolve(state, defence=defence)
    if call is DefenceCall.WHIST_TALON:    # «с приглашением своей прикупки»: the whister buys his own talon
        return _whister_takes_talon(state, action.seat)
    if len(defence) < len(state.callers):
        return evolve(state, turn=state.callers[len(defence)])
    whists = [s for s, c in defence if c is DefenceCall.WHIST]
    if not whists:     # both passed, or pass + half-whist: the contract is written without play
        return evolve(state, phase=Phase.DONE)
    if state.dummy is not None:            # «вистовать и при этом открыть болвана»
        state = evolve(state, open_seats=frozenset({state.dummy}), defence_open=True)
        return play_rules.start_play(state, HandKind.GAME)
    forced_closed = state.dark and state.convention.defence.dark_six_forced_whist and state.contract.level == 6
    if len(whists) == 1 and state.convention.defence.lone_whister_may_choose_open and not forced_closed:
        return evolve(state, phase=Phase.OPEN_CHOICE, turn=whists[0])
    return play_rules.start_play(state, HandKind.GAME)


def _why_not(state: HandState, call: DefenceCall) -> str:
    if state.dark and state.convention.defence.dark_six_forced_whist and state.contract.level == 6:
        return "a six bid in the dark is whisted by both defenders («вистуется принудительно обоими»)"
    if call is DefenceCall.WHIST_TALON:
        return "whist with one's own talon is not part of this convention (or that talon is gone)"
    return "half-whist only by the second defender after a pass, where the convention allows it at this level"


def _whister_takes_talon(state: HandState, seat: int) -> HandState:
    index = _whister_talon(state)
    bought = state.dealt_talons[index]
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + bought))
    rest = tuple(c for c in state.talon if c not in bought)
    return evolve(state, hands=tuple(hands), talon=rest, whist_talon=index, phase=Phase.DEFENCE_DISCARD, turn=seat)


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
    (Phase.TALON, Bid): _apply_bid,
    (Phase.TALON, TakeTalon): _apply_take_talon,
    (Phase.DISCARD, Discard): _apply_discard,
    (Phase.DEFENCE_DISCARD, Discard): _apply_defence_discard,
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
    invited = (state.defence_open or state.whist_talon is not None) and state.kind is HandKind.GAME
    return HandOutcome(
        num_seats=state.num_seats,
        dealer=state.dealer,
        active=state.players,
        kind=state.kind,
        tricks=_player_tricks(state),
        declarer=state.declarer,
        contract=None if contract is None else contract.contract(),
        defence=state.defence,
        whister_invited=invited,
        conceded_undertricks=state.convention.defence.conceded_undertricks if state.conceded else None,
        played=bool(state.tricks),
        raspasy_talon_tricks=state.talon_won,
        extras=_outcome_extras(state),
    )


def _player_tricks(state: HandState) -> tuple[int, ...]:
    """Tricks per table seat; the dummy's go to the player who played its cards (the declarer's opponent)."""
    won = list(state.won[: state.num_seats])
    if state.dummy is not None and state.won[state.dummy]:
        won[next(s for s in state.players if s != state.declarer)] += state.won[state.dummy]
    return tuple(won)


def _outcome_extras(state: HandState) -> tuple[tuple[str, object], ...]:
    """The facts the Classic sheet needs: dark contract, dark passers, the opening round, aces in a sold talon."""
    extras: list[tuple[str, object]] = []
    if state.dark and state.declarer is not None:
        extras.append(("dark", True))
    if state.dark_passers:
        extras.append(("dark_passers", tuple(sorted(state.dark_passers))))
    if state.opening_round:
        extras.append(("opening_round", state.opening_round))
    if state.declarer is not None and state.final_bid is not None and not state.final_bid.no_talon:
        bought = state.dealt_talons[state.talon_bought] if state.talon_bought is not None else state.dealt_talon
        extras.append(("talon_aces", sum(1 for c in bought if c % 8 == 7)))
    return tuple(extras)
