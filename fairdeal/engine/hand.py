"""One hand of Russian preferans as a pure state machine (seeds 000, 001, 002, 003): the table conventions, Classic,
five players, Hussar (two talons) and Gusarik (a dummy) — each a set of parameters of this one machine.

``new_hand`` deals; ``legal_actions``/``apply``/``to_move``/``is_over``/``result`` drive it. Every rule variant is
read from the convention's fields (``bidding``, ``defence``, ``raspasy``), never from its name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cache, lru_cache
from itertools import chain, combinations
from typing import TYPE_CHECKING, Any

from fairdeal.cards import NUM_CODES, Card
from fairdeal.deal import Deal, DealPattern, get_pattern, seats_of_hands
from fairdeal.engine import auction as auction_rules
from fairdeal.engine import numbers as number_rules
from fairdeal.engine import play as play_rules
from fairdeal.engine import suits as suit_rules
from fairdeal.engine.actions import (
    Action,
    Announce,
    Bid,
    ChooseOpen,
    Concede,
    Declare,
    Defend,
    Discard,
    Follow,
    Invite,
    Kontra,
    Phase,
    Play,
    TakeTalon,
)
from fairdeal.engine.bids import BidError, ContractBid, parse_bid
from fairdeal.engine.extra import CentralState, FamilyState, RussianState, central, russian
from fairdeal.engine.mechanics import Auction, Mechanics, PhaseRule
from fairdeal.engine.outcome import DefenceCall, HandKind, HandOutcome
from fairdeal.engine.state import HandState, amend_fresh, evolve, last_state, make_state
from fairdeal.errors import ConventionError, IllegalAction

if TYPE_CHECKING:
    import numpy as np

    from fairdeal.rules.convention import Convention

PASS_CALL = "pass"
# The phases the per-action paths test, as module globals: reading a class attribute (``Phase.PLAY``) costs
# several times a global's in Python 3.11, and these are read a few times per card.
_PLAY, _DONE = Phase.PLAY, Phase.DONE
_PASSED, _WHISTED = DefenceCall.PASS, DefenceCall.WHIST  # read on each card of an open whist, likewise
ACE = 7  # rank index of the ace in a card code (suit * 8 + rank)


def new_hand(
    convention: Convention,
    num_seats: int,
    dealer: int,
    deal: Deal,
    raspasy_streak: int = 0,
    opening_round: int = 0,
    refe_seats: frozenset[int] = frozenset(),
    mechanics: Mechanics | None = None,
) -> HandState:
    """Start a hand played by ``mechanics`` (default: those of the convention's system). ``deal.hands[i]`` is
    hand ``i`` of the convention's deal pattern (0 = first hand, left of the dealer, then clockwise over the seats
    dealt a hand: at four the dealer sits out, at five the dealer and his right-hand neighbour); Gusarik's dummy is
    hand 0 and takes the pseudo-seat ``num_seats``. ``opening_round`` k > 0 starts the k-th opening raspasy of this
    dealer (Classic): no auction. ``refe_seats`` hold a refe (Croatian, from the sheet)."""
    hands = tuple(_codes(h) for h in deal.hands)
    talons = tuple(_codes(t) for t in deal.talons)
    return start_hand(
        convention, num_seats, dealer, hands, talons, raspasy_streak, opening_round, refe_seats, mechanics
    )


def start_hand(
    convention: Convention,
    num_seats: int,
    dealer: int,
    hands: tuple[tuple[int, ...], ...],
    talons: tuple[tuple[int, ...], ...],
    raspasy_streak: int = 0,
    opening_round: int = 0,
    refe_seats: frozenset[int] = frozenset(),
    mechanics: Mechanics | None = None,
) -> HandState:
    """``new_hand`` from the card codes of the hands and talons as ints (the replay of a record deals no arrays)."""
    if num_seats not in convention.players:
        allowed = " or ".join(str(n) for n in convention.players)
        raise IllegalAction(f"{convention.title} is played by {allowed} seats, not {num_seats}")
    if not 0 <= dealer < num_seats:
        raise IllegalAction(f"dealer seat {dealer} is outside 0..{num_seats - 1}")
    table = convention.table
    if opening_round and not 0 < opening_round <= table.opening_raspasy_rounds:
        raise IllegalAction(f"opening raspasy round {opening_round} is outside 1..{table.opening_raspasy_rounds}")
    dummy = num_seats if table.dummy else None
    pattern, active, slots = _layout(table.pattern_name(num_seats), dealer, num_seats, dummy)
    _check_deal(pattern, hands, talons)
    by_seat: list[tuple[int, ...]] = [()] * (num_seats + (dummy is not None))
    for cards, slot in zip(hands, slots):
        if slot is not None:
            by_seat[slot] = cards
    plays_by = mechanics or mechanics_for(convention)
    state = make_state(
        convention=convention,
        mechanics=plays_by,
        extra=plays_by.extra,
        num_seats=num_seats,
        dealer=dealer,
        active=active,
        raspasy_streak=raspasy_streak,
        dealt_hands=tuple(by_seat),
        dealt_talon=talons[0] if talons else (),
        hands=tuple(tuple(sorted(h)) for h in by_seat),
        talon=sum(talons, ()),
        phase=Phase.AUCTION,
        turn=next(s for s in active if s != dummy),
        won=(0,) * len(by_seat),
        dealt_talons=talons,
        dummy=dummy,
        trick_seats=active,
        opening_round=opening_round,
        refe_seats=frozenset(refe_seats),
        passed=frozenset() if dummy is None else frozenset({dummy}),  # «Он как бы всегда говорит пас»
        aside=hands[pattern.aside_hand] if pattern.aside_hand is not None else (),
    )
    if opening_round:  # «До начала собственно пульки играют несколько кругов распасовки»
        return play_rules.start_play(state, HandKind.RASPASY)
    return state


def _codes(cards: np.ndarray | Iterable[int]) -> tuple[int, ...]:
    """Card codes as Python ints (a deal holds ``uint8`` arrays; ``tolist`` converts them at once)."""
    import numpy as np

    if isinstance(cards, np.ndarray) and cards.dtype.kind in "ui":
        return tuple(cards.tolist())
    return tuple(int(c) for c in cards)


def seats_of_deal(convention: Convention, num_seats: int, dealer: int) -> tuple[int | None, ...]:
    """The seat that holds each hand of the convention's deal pattern (Gusarik's dummy: seat ``num_seats``;
    ``None``: the hand laid aside)."""
    dummy = num_seats if convention.table.dummy else None
    return _layout(convention.table.pattern_name(num_seats), dealer, num_seats, dummy)[2]


@lru_cache(maxsize=256)
def _layout(
    pattern_name: str, dealer: int, num_seats: int, dummy: int | None
) -> tuple[DealPattern, tuple[int, ...], tuple[int | None, ...]]:
    """The deal pattern of a table, its active seats (first hand first) and the seat holding each of its hands
    (``None`` for the hand laid aside; a hand without a seat is the dummy's, which then exists)."""
    pattern = get_pattern(pattern_name)
    # Rule 6: the hand laid aside «не вскрываются до окончания игры» — no seat holds it and no view shows it.
    slots = tuple(
        None if index == pattern.aside_hand else (dummy if seat is None else seat)
        for index, seat in enumerate(seats_of_hands(pattern, dealer, num_seats))
    )
    active = tuple(slot for slot in slots if slot is not None)
    return pattern, active, slots


def _check_deal(pattern: DealPattern, hands: Sequence[tuple[int, ...]], talons: tuple[tuple[int, ...], ...]) -> None:
    shape = (pattern.cards_per_hand,) * pattern.hands, (pattern.talon_size,) * pattern.talons
    if (tuple(map(len, hands)), tuple(map(len, talons))) != shape:
        raise IllegalAction(
            f"a {pattern.name} deal is {pattern.hands} hands of {pattern.cards_per_hand} and {pattern.talons} "
            f"talon(s) of {pattern.talon_size}, got hands of {[len(h) for h in hands]} and talons of "
            f"{[len(t) for t in talons]}"
        )
    if tuple(sorted(chain(*hands, *talons))) != pattern.deck.int_codes():
        raise IllegalAction(
            f"the deal does not hold each of the {pattern.deck.size} cards of the "
            f"{pattern.deck.value} deck exactly once"
        )


# ---- whose turn -------------------------------------------------------------------------------------------------


def to_move(state: HandState) -> int | None:
    """The seat that must act now (the open lone whister acts for the passer), ``None`` when the hand is over."""
    phase = state.phase
    if phase is _PLAY:
        if state.turn == state.dummy:  # the dummy is played by the declarer's opponent
            return next(s for s in state.players if s != state.declarer)
        if state.defence_open and (state.turn, _PASSED) in state.defence:
            return _lone_whister(state)  # the passer's cards
    elif phase is _DONE:
        return None
    return state.turn


def is_over(state: HandState) -> bool:
    return state.phase is _DONE


def _lone_whister(state: HandState) -> int:
    for seat, call in state.defence:
        if call is _WHISTED:
            return seat
    raise AssertionError("an open defence has a whister")


# ---- legal actions ----------------------------------------------------------------------------------------------


def legal_actions(state: HandState) -> list[Action]:
    """Every action the rules allow now, for the seat ``to_move`` returns."""
    return list(legal_tuple(state))


@last_state
def legal_tuple(state: HandState) -> tuple[Action, ...]:
    """``legal_actions`` as a tuple, remembered for the last state asked (the bot's view, then ``apply``)."""
    if state.phase is _PLAY:  # the commonest phase first
        return _legal_plays(state)
    rule = state.mechanics.phases.get(state.phase)
    return () if rule is None else tuple(rule.legal(state))


def _legal_plays(state: HandState) -> tuple[Action, ...]:
    turn = state.turn
    actor = turn if turn != state.dummy and not state.defence_open else to_move(state)  # ``to_move``'s commonest
    plays = _plays(turn, None if actor == turn else actor)
    return tuple([plays[card] for card in play_rules.legal_cards(state)])


def _legal_bids(state: HandState) -> tuple[Action, ...]:
    bids = _seat_actions(Bid, state.turn)
    return tuple(map(bids.__getitem__, _auction(state).legal_tokens(state)))


def _legal_talon(state: HandState) -> list[Action]:
    return [_seat_action(TakeTalon, state.turn), _seat_actions(Bid, state.turn)[auction_rules.MISERE_TOKEN]]


def _legal_discards(state: HandState) -> tuple[Action, ...]:
    hand = state.hands[state.turn]
    discards = _seat_actions(Discard, state.turn)
    return tuple(map(discards.__getitem__, combinations(hand, _excess(state, state.turn))))


def _legal_contracts(state: HandState) -> list[Action]:
    declares = _seat_actions(Declare, state.turn)
    actions: list[Action] = [declares[b.token] for b in _auction(state).legal_contracts(state)]
    if _may_concede(state):
        actions.append(_seat_action(Concede, state.turn))
    return actions


def _legal_defence(state: HandState) -> list[Action]:
    defends = _seat_actions(Defend, state.turn)
    return [defends[call] for call in _legal_calls(state)]


def _legal_open_choice(state: HandState) -> list[Action]:
    return _both(ChooseOpen, state.turn)


def _legal_invite(state: HandState) -> list[Action]:
    return _both(Invite, state.turn)


def _legal_announce(state: HandState) -> list[Action]:
    return _both(Announce, state.turn)


def _legal_follow(state: HandState) -> list[Action]:
    follows = _seat_actions(Follow, state.turn)
    return [follows[False], *([follows[True]] if _follow_floor(state) is not None else [])]


def _legal_kontra(state: HandState) -> list[Action]:
    kontras = _seat_actions(Kontra, state.turn)
    return [kontras[False], *([kontras[True]] if _may_double(state) else [])]


# Actions are values: one object per distinct action serves every hand, instead of a new one per legal option.


class _SeatActions(dict[Any, Action]):
    """One seat's actions of one kind by their argument (a bid token, a discard's cards, ...), made on first use."""

    def __init__(self, kind: Callable[[int, Any], Action], seat: int):
        super().__init__()
        self.kind = kind
        self.seat = seat

    def __missing__(self, argument: Any) -> Action:
        action = self[argument] = self.kind(self.seat, argument)
        return action


@cache
def _seat_actions(kind: Callable[[int, Any], Action], seat: int) -> _SeatActions:
    return _SeatActions(kind, seat)


@cache
def _seat_action(kind: Callable[[int], Action], seat: int) -> Action:
    """``seat``'s action of a kind without an argument (take the talon, concede)."""
    return kind(seat)


def _both(kind: Callable[[int, bool], Action], seat: int) -> list[Action]:
    """A yes-or-no decision's two actions, yes first."""
    actions = _seat_actions(kind, seat)
    return [actions[True], actions[False]]


@lru_cache(maxsize=256)
def _plays(seat: int, actor: int | None) -> tuple[Play, ...]:
    """``seat``'s play of each card, indexed by card code."""
    return tuple(Play(seat, code, actor) for code in range(NUM_CODES))


def _auction(state: HandState) -> Auction:
    return state.mechanics.auction


def _may_concede(state: HandState) -> bool:
    if not state.convention.defence.concede_three:
        return False
    assert state.final_bid is not None  # a contract is named only after the auction's final bid
    return not state.final_bid.misere


@last_state  # asked for the defender's view, then for the check of the call he makes from it
def _legal_calls(state: HandState) -> tuple[DefenceCall, ...]:
    rules = state.convention.defence
    assert state.contract is not None  # the defence answers a declared contract
    if state.dark and state.contract.level == 6 and rules.dark_six_forced_whist:
        return (DefenceCall.WHIST,)  # «шестерная игра, заказанная втёмную, вистуется принудительно обоими»
    if rules.forced_whist_numbers and _number(state) in rules.forced_whist_numbers:
        return (DefenceCall.WHIST,)  # Austrian Illustrated: «защитники не могут отказаться от игры»
    calls = [DefenceCall.PASS, DefenceCall.WHIST]
    other_passed = (state.dummy in state.defenders) or (state.defence and state.defence[0][1] is DefenceCall.PASS)
    if other_passed and _half_whist_allowed(state):
        calls.append(DefenceCall.HALF_WHIST)
    if rules.whist_with_talon and _whister_talon(state) is not None:
        calls.append(DefenceCall.WHIST_TALON)
    return tuple(calls)


def _number(state: HandState) -> int:
    assert state.contract is not None  # asked only once the contract is declared
    return state.convention.bidding.number_of(state.contract.token)


def _whister_talon(state: HandState) -> int | None:
    """The talon the defender to call may take (Hussar: his own, still lying), ``None`` when there is none."""
    index = auction_rules.own_talon_index(state, state.turn)
    if index is None or not set(state.dealt_talons[index]) <= set(state.talon):
        return None
    return index


def _half_whist_allowed(state: HandState) -> bool:
    rules = state.convention.defence
    assert state.contract is not None  # the defence answers a declared contract
    return bool(rules.half_whist) and state.contract.level in rules.half_whist_levels


# ---- apply ------------------------------------------------------------------------------------------------------


def apply(state: HandState, action: Action) -> HandState:
    """The state after ``action``; raises ``IllegalAction`` naming the rule that forbids it."""
    if state.phase is _PLAY:
        # A card among the legal actions is the right seat's legal card: the checks of ``_checked_apply`` would only
        # repeat that. Equality after identity: a record's replay makes its own action objects.
        legal = legal_tuple(state)
        if _offered(action, legal) or action in legal:
            after = play_rules.play_legal_card(state, action.card)  # type: ignore[union-attr]
        else:
            after = _checked_apply(state, action)
    else:
        # An action offered in this state's view is the right seat's, in this phase, with a handler: the handler
        # alone checks it. The legal actions are not worked out for an action from elsewhere (a replay).
        shown = legal_tuple.known(state)
        handled = shown is not None and _offered(action, shown)
        after = _handled(state, action) if handled else _checked_apply(state, action)
    after.__dict__["steps"] = state.steps + 1  # a state the handler made for this step: not yet seen by anyone
    return after


def _offered(action: Action, legal: tuple[Action, ...]) -> bool:
    """Whether ``action`` is one of the very objects in ``legal``: a bot returns one its view offered, and asking
    identity spares the actions' dataclass equality, a Python call per action passed over."""
    for offered in legal:  # noqa: SIM110 - a loop, not ``any`` over a generator: asked for every action
        if offered is action:
            return True
    return False


def _checked_apply(state: HandState, action: Action) -> HandState:
    if state.phase is _DONE:
        raise IllegalAction(f"{action}: the hand is over")
    rule = state.mechanics.phases.get(state.phase)
    if rule is None or type(action) not in rule.handlers:
        raise IllegalAction(f"{action}: not allowed in the {state.phase.value} phase")
    if isinstance(action, Bid) and action.seat in state.passed:
        raise IllegalAction(
            f"{action}: passed players cannot bid again («Тот игрок, который один раз спасовал, "
            f"не имеет больше права на торговлю»)"
        )
    actor = action.by if isinstance(action, Play) else action.seat
    expected = to_move(state)
    if actor != expected:
        raise IllegalAction(f"{action}: not your turn, seat {expected} is to act")
    return _handled(state, action)


def _handled(state: HandState, action: Action) -> HandState:
    """The phase's handler of ``action``'s type applied (one the phase has: checked or offered)."""
    after = state.mechanics.phases[state.phase].handlers[type(action)](state, action)
    return evolve(state) if after is state else after


def _apply_bid(state: HandState, action: Bid) -> HandState:
    return _auction(state).apply_bid(state, action.token)


def _apply_take_talon(state: HandState, action: TakeTalon) -> HandState:
    return auction_rules.take_talon(state, action.seat)


def _excess(state: HandState, seat: int) -> int:
    """How many cards ``seat`` holds beyond a hand as dealt: two after a talon, one after the one-card
    exchange of «малая бедность» (rule 52)."""
    return len(state.hands[seat]) - len(state.dealt_hands[seat])


def _cards_word(count: int) -> str:
    return "one card" if count == 1 else f"{'two' if count == 2 else count} different cards"


def _checked_discard(state: HandState, action: Discard) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the cards, the hand kept) of a legal discard."""
    cards = tuple(map(int, action.cards))
    hand = state.hands[action.seat]
    count = _excess(state, action.seat)
    if len(cards) != count or len(set(cards)) != count:
        raise IllegalAction(f"{action}: the discard is exactly {_cards_word(count)}")
    foreign = [Card.from_code(c).ascii for c in cards if c not in hand]
    if foreign:
        raise IllegalAction(f"{action}: discard not from your hand ({' '.join(foreign)})")
    return cards, tuple([c for c in hand if c not in cards])


def _apply_discard(state: HandState, action: Discard) -> HandState:
    cards, kept = _checked_discard(state, action)
    state = evolve(state, hands=_with_hand(state, action.seat, kept), discard=cards, phase=Phase.CONTRACT)
    if _nachgehen(state) and not central(state.extra).follow_steps:  # «Я снёс» (Ich liege): the others may follow
        return _follow_round(_with_central(state, winner_discard=cards), action.seat)
    return state


def _nachgehen(state: HandState) -> bool:
    """Nachgehen applies after a number auction won with the talon in which another player bid too."""
    if not state.convention.bidding.nachgehen_from_number:
        return False
    assert state.final_bid is not None  # the discard follows the auction's final bid
    return not state.final_bid.no_talon and len(state.bidders) > 1


def _follow_round(state: HandState, seat: int) -> HandState:
    """Every other bidder, from ``seat``'s left, may take ``seat``'s discard."""
    at = state.active.index(seat)
    order = [state.active[(at + k) % len(state.active)] for k in range(1, len(state.active))]
    queue = tuple(s for s in order if s in state.bidders)
    if not queue:
        return state
    return _with_central(evolve(state, phase=Phase.FOLLOW, turn=queue[0]), follow_queue=queue)


def _follow_floor(state: HandState) -> int | None:
    """The lowest number a follower may name now: «не ниже чем 5 (Bettel)», then above the last named."""
    rules = state.convention.bidding
    named = [rules.number_of(token) for _, took, _, token in central(state.extra).follow_steps if took]
    floor = max(named) + 1 if named else rules.nachgehen_from_number
    return floor if floor <= rules.last_number else None


def _apply_follow(state: HandState, action: Follow) -> HandState:
    seat = action.seat
    follow = central(state.extra)
    if action.take:
        floor = _follow_floor(state)
        if floor is None:
            raise IllegalAction(f"{action}: no contract is left above the one named")
        hands = list(state.hands)
        hands[seat] = tuple(sorted(hands[seat] + state.discard))
        taken = evolve(
            state,
            hands=tuple(hands),
            discard=(),
            declarer=seat,
            final_number=floor,
            final_bid=number_rules.contract_bid(state, floor, False),
            phase=Phase.DISCARD,
            turn=seat,
        )
        return _with_central(taken, follow_queue=(), follow_steps=follow.follow_steps + ((seat, True, (), ""),))
    steps = follow.follow_steps + ((seat, False, (), ""),)
    state = _with_central(state, follow_queue=follow.follow_queue[1:], follow_steps=steps)
    if follow.follow_queue[1:]:
        return evolve(state, turn=follow.follow_queue[1])
    if state.contract is not None:  # the last follower's contract stands
        return _declared(state, state.contract)
    return evolve(state, phase=Phase.CONTRACT, turn=state.declarer)


def _apply_defence_discard(state: HandState, action: Discard) -> HandState:
    cards, kept = _checked_discard(state, action)
    state = evolve(
        state, hands=_with_hand(state, action.seat, kept), extra=replace(russian(state.extra), defence_discard=cards)
    )
    return play_rules.start_play(state, HandKind.GAME)


def _apply_declare(state: HandState, action: Declare) -> HandState:
    try:
        bid = parse_bid(action.token)
    except BidError as exc:
        raise IllegalAction(f"{action}: {exc}") from None
    _auction(state).check_contract(state, bid, action)  # spelt out only in an error
    steps = state.extra.follow_steps if isinstance(state.extra, CentralState) else ()
    if steps and steps[-1][1] and not steps[-1][3]:
        seat, _, _, _ = steps[-1]  # the follower named his contract: the others may follow
        named = steps[:-1] + ((seat, True, state.discard, bid.token),)
        following = _follow_round(_with_central(evolve(state, contract=bid), follow_steps=named), seat)
        if following.phase is Phase.FOLLOW:
            return following
    return _declared(state, bid)


def _declared(state: HandState, bid: ContractBid) -> HandState:
    """The contract stands: the defence (or, against a misère, the kontra chain or the play) follows."""
    if bid.misere:
        state = evolve(state, contract=bid, kind=HandKind.MISERE)
        return _after_defence(state) if _kontra_open(state) else play_rules.start_play(state, HandKind.MISERE)
    return evolve(state, contract=bid, kind=HandKind.GAME, phase=Phase.DEFENCE, turn=state.callers[0])


def _apply_concede(state: HandState, action: Concede) -> HandState:
    if not _may_concede(state):
        raise IllegalAction(f"{action}: «без трёх» is not allowed here (convention or a misère)")
    return evolve(state, contract=state.final_bid, conceded=True, kind=HandKind.GAME, phase=Phase.DONE)


def _apply_defend(state: HandState, action: Defend) -> HandState:
    call = action.call if type(action.call) is DefenceCall else DefenceCall(action.call)  # a record's string too
    if call not in _legal_calls(state):
        raise IllegalAction(f"{action}: {_why_not(state, call)}")
    defence = state.defence + ((action.seat, call),)
    state = evolve(state, defence=defence)
    if call is DefenceCall.WHIST_TALON:  # «с приглашением своей прикупки»: the whister buys his own talon
        return _whister_takes_talon(state, action.seat)
    if len(defence) < len(state.callers):
        return amend_fresh(state, turn=state.callers[len(defence)])
    whists = [s for s, c in defence if c is DefenceCall.WHIST]
    if not whists:  # both passed, or pass + half-whist: the contract is written without play
        return amend_fresh(state, phase=Phase.DONE)
    if len(whists) == 1 and state.convention.defence.lone_whister_invites and len(state.callers) > 1:
        return evolve(state, phase=Phase.INVITE, turn=whists[0])
    rules = state.convention.defence
    if rules.lone_whister_invites or rules.passer_sits_out or _kontra_open(state):
        return _after_defence(state)
    if state.dummy is not None:  # «вистовать и при этом открыть болвана»
        opened = frozenset({state.dummy})
        state = evolve(state, open_seats=opened, defence_open=True, laid_open=state.laying_open(opened))
        return play_rules.start_play(state, HandKind.GAME)
    assert state.contract is not None  # the defence answered a declared contract
    forced_closed = state.dark and state.convention.defence.dark_six_forced_whist and state.contract.level == 6
    if len(whists) == 1 and state.convention.defence.lone_whister_may_choose_open and not forced_closed:
        return evolve(state, phase=Phase.OPEN_CHOICE, turn=whists[0])
    return play_rules.start_play(state, HandKind.GAME)


def _why_not(state: HandState, call: DefenceCall) -> str:
    assert state.contract is not None  # the defence answers a declared contract
    if state.dark and state.convention.defence.dark_six_forced_whist and state.contract.level == 6:
        return "a six bid in the dark is whisted by both defenders («вистуется принудительно обоими»)"
    if call is DefenceCall.WHIST_TALON:
        return "whist with one's own talon is not part of this convention (or that talon is gone)"
    return "half-whist only by the second defender after a pass, where the convention allows it at this level"


def _whister_takes_talon(state: HandState, seat: int) -> HandState:
    index = _whister_talon(state)
    assert index is not None  # whist with the talon is legal only while that talon lies
    bought = state.dealt_talons[index]
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + bought))
    rest = tuple(c for c in state.talon if c not in bought)
    extra = replace(russian(state.extra), whist_talon=index)
    return evolve(state, hands=tuple(hands), talon=rest, extra=extra, phase=Phase.DEFENCE_DISCARD, turn=seat)


def _apply_choose_open(state: HandState, action: ChooseOpen) -> HandState:
    if action.open:
        opened = frozenset(state.defenders)
        state = evolve(state, defence_open=True, open_seats=opened, laid_open=state.laying_open(opened))
    return play_rules.start_play(state, HandKind.GAME)


def _apply_invite(state: HandState, action: Invite) -> HandState:
    return _after_defence(_with_central(state, invited=bool(action.invite)))


def _kontra_open(state: HandState) -> bool:
    rules = state.convention.defence
    return rules.kontra_levels > 0 and _number(state) >= rules.kontra_from_number


def _whisters(state: HandState) -> tuple[int, ...]:
    """The defenders in the play against a game (those who whisted), or every defender against a misère."""
    if state.kind is HandKind.MISERE:
        return state.callers
    return tuple(s for s, call in state.defence if call is DefenceCall.WHIST)


def _after_defence(state: HandState) -> HandState:
    """The kontra chain where the convention has one, then the play."""
    if _kontra_open(state):
        whisters = _whisters(state)
        state = _with_central(state, kontra_round=1, kontra_queue=whisters)
        return evolve(state, phase=Phase.KONTRA, turn=whisters[0])
    return _begin_play(state)


def _may_double(state: HandState) -> bool:
    return central(state.extra).kontra_round <= state.convention.defence.kontra_levels


def _apply_kontra(state: HandState, action: Kontra) -> HandState:
    """Odd rounds: each defender still in the chain may double (kontra, subkontra, ...); even rounds: the declarer
    answers every defender who doubled (rekontra, mortkontra, ...). A round without a double ends the chain."""
    if action.double and not _may_double(state):
        raise IllegalAction(f"{action}: the chain stops at {state.convention.defence.kontra_levels} doublings")
    chain = central(state.extra)
    round_ = chain.kontra_round
    levels = dict(chain.kontra)
    call = PASS_CALL
    if action.double:
        call = state.convention.defence.kontra_word(round_)
        raised = [action.seat] if round_ % 2 else [d for d, lv in levels.items() if lv == round_ - 1]
        levels.update(dict.fromkeys(raised, round_))
    calls = chain.kontra_calls + ((action.seat, call),)
    queue = chain.kontra_queue[1:]
    state = _with_central(state, kontra=tuple(sorted(levels.items())), kontra_calls=calls, kontra_queue=queue)
    if action.double and round_ == 1 and state.convention.defence.kontra_invites and len(_whisters(state)) == 1:
        state = _with_central(state, invited=True)  # «Заявка контра ... при пасе второго защитника: приглашение»
    if queue:
        return evolve(state, turn=queue[0])
    doubled = tuple(d for d in _whisters(state) if levels.get(d) == round_)
    if not doubled or round_ >= state.convention.defence.kontra_levels:
        return _begin_play(state)
    assert state.declarer is not None  # the kontra chain answers a declared contract
    queue = doubled if (round_ + 1) % 2 else (state.declarer,)
    return evolve(_with_central(state, kontra_round=round_ + 1, kontra_queue=queue), turn=queue[0])


def _begin_play(state: HandState) -> HandState:
    """Croatian: an undoubled two with the talon and no refe is won without play; a lone whister who did not
    invite plays alone against the declarer («его карты не участвуют»)."""
    assert state.contract is not None  # the play follows a declared contract
    if state.kind is HandKind.MISERE:
        return play_rules.start_play(state, HandKind.MISERE)
    if _may_announce(state):
        return evolve(state, phase=Phase.ANNOUNCE, turn=state.declarer)
    rules = state.convention.defence
    if (
        rules.kontra_required_numbers
        and _number(state) in rules.kontra_required_numbers
        and not state.contract.no_talon
        and state.declarer not in state.refe_seats
        and not central(state.extra).kontra
    ):
        return evolve(state, phase=Phase.DONE)
    whisters = _whisters(state)
    if (rules.lone_whister_invites or rules.passer_sits_out) and len(whisters) == 1 and not _passer_invited(state):
        seats = tuple(s for s in state.active if s in (state.declarer, whisters[0]))
        return play_rules.start_play(state, HandKind.GAME, seats)
    return play_rules.start_play(state, HandKind.GAME)


def _may_announce(state: HandState) -> bool:
    """«Если у разыгрывающего на руках нет ни одного туза и он объявил об этом до того, как сделать первый ход ...
    Нельзя снести тузов и объявить об их отсутствии»."""
    if not announcement_open(state):
        return False
    assert state.declarer is not None  # the contract is declared
    return not any(c % 8 == ACE for c in state.hands[state.declarer] + state.discard)


def announcement_open(state: HandState) -> bool:
    """Whether the declared contract's premium for a hand without aces may still be announced, as far as the
    table can see: the convention has it, it is not announced yet, the contract is not settled directly."""
    scoring = state.convention.scoring
    if not scoring.premium_no_aces or state.declarer is None or central(state.extra).no_aces is not None:
        return False
    return _number(state) not in dict(scoring.direct_values)


def _apply_announce(state: HandState, action: Announce) -> HandState:
    return _begin_play(_with_central(state, no_aces=bool(action.no_aces)))


def _apply_play(state: HandState, action: Play) -> HandState:
    if action.seat != state.turn:
        raise IllegalAction(f"{action}: it is seat {state.turn}'s card to play")
    return play_rules.play_card(state, int(action.card), action)


def _with_central(state: HandState, **changes: Any) -> HandState:
    """``state`` with its Central-European family state changed."""
    return evolve(state, extra=replace(central(state.extra), **changes))


def _passer_invited(state: HandState) -> bool:
    """The lone whister brought the passer in (the invitation or a kontra that invites); only Central Europe has
    it — elsewhere a passer who sits out stays out."""
    return isinstance(state.extra, CentralState) and state.extra.invited


def _with_hand(state: HandState, seat: int, cards: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    hands = list(state.hands)
    hands[seat] = tuple(sorted(cards))
    return tuple(hands)


# The phases every family plays, and those a family adds; each family's table is its ``Mechanics``.
CORE_PHASES = {
    Phase.AUCTION: PhaseRule(_legal_bids, {Bid: _apply_bid}),
    Phase.DISCARD: PhaseRule(_legal_discards, {Discard: _apply_discard}),
    Phase.CONTRACT: PhaseRule(_legal_contracts, {Declare: _apply_declare, Concede: _apply_concede}),
    Phase.DEFENCE: PhaseRule(_legal_defence, {Defend: _apply_defend}),
    Phase.OPEN_CHOICE: PhaseRule(_legal_open_choice, {ChooseOpen: _apply_choose_open}),
    Phase.PLAY: PhaseRule(_legal_plays, {Play: _apply_play}),
}
# Classic's dark six (take the talon unseen or switch to misère); Hussar's whist with one's own talon.
DARK_TALON = {Phase.TALON: PhaseRule(_legal_talon, {Bid: _apply_bid, TakeTalon: _apply_take_talon})}
WHIST_TALON = {Phase.DEFENCE_DISCARD: PhaseRule(_legal_discards, {Discard: _apply_defence_discard})}
# Central Europe: the invitation, the kontra chain, the no-aces announcement, Nachgehen.
INVITATION = {Phase.INVITE: PhaseRule(_legal_invite, {Invite: _apply_invite})}
KONTRA = {Phase.KONTRA: PhaseRule(_legal_kontra, {Kontra: _apply_kontra})}
NO_ACES = {Phase.ANNOUNCE: PhaseRule(_legal_announce, {Announce: _apply_announce})}
NACHGEHEN = {Phase.FOLLOW: PhaseRule(_legal_follow, {Follow: _apply_follow})}

RUSSIAN_AUCTION = Auction(
    "russian",
    auction_rules.legal_tokens,
    auction_rules.apply_bid,
    auction_rules.legal_contracts,
    auction_rules.check_contract,
)
NUMBER_AUCTION = Auction(
    "numbers",
    number_rules.legal_tokens,
    number_rules.apply_bid,
    number_rules.legal_contracts,
    number_rules.check_contract,
)
SUIT_AUCTION = Auction(
    "suits", suit_rules.legal_tokens, suit_rules.apply_bid, suit_rules.legal_contracts, suit_rules.check_contract
)
RUSSIAN = Mechanics("russian", RUSSIAN_AUCTION, {**CORE_PHASES, **DARK_TALON, **WHIST_TALON}, RussianState())
CENTRAL = Mechanics(
    "central", NUMBER_AUCTION, {**CORE_PHASES, **INVITATION, **KONTRA, **NO_ACES, **NACHGEHEN}, CentralState()
)
NINETEENTH = Mechanics("1800s", SUIT_AUCTION, CORE_PHASES, FamilyState())
_BY_LADDER = {"russian": RUSSIAN, "numbers": CENTRAL, "suits": NINETEENTH}


def mechanics_for(convention: Convention) -> Mechanics:
    """The registered system's mechanics for ``convention`` (a house rule keeps its system's name); a convention
    of no registered system plays its ladder family's. The registry sits above the engine's modules (it knows the
    bots), so it is looked up when a hand is dealt."""
    try:
        mechanics: Mechanics = _registry().get_system(convention.name).mechanics
        return mechanics
    except ConventionError:
        return _BY_LADDER[convention.bidding.ladder]


@cache
def _registry() -> Any:
    """``fairdeal.engine.system``, imported once it is first needed (not at this module's import: it imports us)."""
    return importlib.import_module("fairdeal.engine.system")


# ---- result -----------------------------------------------------------------------------------------------------


def result(state: HandState) -> HandOutcome:
    """What scoring needs about the finished hand."""
    if state.phase is not Phase.DONE:
        raise IllegalAction(f"the hand is not over (phase {state.phase.value})")
    contract: ContractBid | None = state.contract
    assert state.kind is not None  # every way to Phase.DONE sets the hand's kind
    invited = (state.defence_open or state.extra.whister_invited()) and state.kind is HandKind.GAME
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


def _declarer_aces(state: HandState) -> int:
    """Aces in the hand the declarer played with: as dealt, with the talon he took, less his discard."""
    assert state.declarer is not None  # asked about a declared contract only
    cards = set(state.dealt_hands[state.declarer])
    if state.final_bid is not None and not state.final_bid.no_talon:
        cards |= set(state.dealt_talons[state.talon_bought] if state.talon_bought is not None else state.dealt_talon)
    return sum(1 for c in cards - set(state.discard) if c % 8 == ACE)


def _player_tricks(state: HandState) -> tuple[int, ...]:
    """Tricks per table seat; the dummy's go to the player who played its cards (the declarer's opponent)."""
    won = list(state.won[: state.num_seats])
    if state.dummy is not None and state.won[state.dummy]:
        won[next(s for s in state.players if s != state.declarer)] += state.won[state.dummy]
    return tuple(won)


def public_facts(state: HandState) -> tuple[tuple[str, object], ...]:
    """The outcome facts every seat has seen announced: a dark contract, the opening round, the family's calls
    (the kontra chain, the no-aces announcement, dark passes)."""
    facts: list[tuple[str, object]] = []
    if state.dark and state.declarer is not None:
        facts.append(("dark", True))
    if state.opening_round:  # never with dark passers: an opening round has no auction
        facts.append(("opening_round", state.opening_round))
    facts.extend(state.extra.outcome_facts())
    return tuple(facts)


def _outcome_extras(state: HandState) -> tuple[tuple[str, object], ...]:
    """The facts the sheet needs: the public ones, the aces the declarer played with, aces in a sold talon."""
    extras = list(public_facts(state))
    if state.convention.scoring.premium_four_aces and state.declarer is not None:
        extras.append(("aces", _declarer_aces(state)))
    if state.declarer is not None and state.final_bid is not None and not state.final_bid.no_talon:
        bought = state.dealt_talons[state.talon_bought] if state.talon_bought is not None else state.dealt_talon
        extras.append(("talon_aces", sum(1 for c in bought if c % 8 == 7)))
    return tuple(extras)
