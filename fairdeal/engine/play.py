"""Trick play: which cards may be played and who wins a trick (seeds 000, 002).

«Ходить следует обязательно в масть, а если масти нет, то бить козырем. Необязательно бить старшей картой»
(seed 000): follow suit, else trump, else anything; overtaking is not required. Misère and raspasy have no trumps.
In raspasy the talon cards may set the suit of the first tricks: at three players a talon card «только показывает
масть» and the highest card of that suit among the players wins; at four the talon cards are the dealer's and a
trick the talon card wins is his. After the talon tricks the first hand leads («потом ход делает игрок, сидящий
слева от сдающего»).
"""

from __future__ import annotations


from fairdeal.cards import Card, Suit, suit_of
from fairdeal.engine.actions import Phase
from fairdeal.engine.bids import NO_TRUMP
from fairdeal.engine.outcome import HandKind
from fairdeal.engine.state import HandState, Trick, evolve
from fairdeal.errors import IllegalAction

TRICKS_PER_HAND = 10


def start_play(state: HandState, kind: HandKind) -> HandState:
    """Trick play begins; the first hand leads every kind of hand in the Russian game (Gusarik: the dummy, «Первый
    ход на висте всегда от болвана»; in raspasy the dummy sits out unless the convention says otherwise)."""
    seats = state.active
    if kind is HandKind.RASPASY and state.dummy is not None and not state.convention.table.dummy_in_raspasy:
        seats = state.players
    first = seats[0]
    return evolve(state, kind=kind, phase=Phase.PLAY, leader=first, turn=first, trick_seats=seats)


def trump_of(state: HandState) -> int | None:
    if state.kind is not HandKind.GAME or state.contract is None or state.contract.strain == NO_TRUMP:
        return None
    return state.contract.strain


def led_suit(state: HandState) -> int | None:
    """The suit the trick in progress must be followed in, ``None`` when the seat to play leads freely."""
    talon_card = state.current_talon_card
    if talon_card is not None:
        return suit_of(talon_card)
    if state.current:
        return suit_of(state.current[0][1])
    return None


def legal_cards(state: HandState) -> list[int]:
    hand = state.hands[state.turn]
    suit = led_suit(state)
    if suit is None:
        return list(hand)
    follow = [c for c in hand if c // 8 == suit]
    if follow:
        return follow
    trump = trump_of(state)
    trumps = [c for c in hand if trump is not None and c // 8 == trump]
    return trumps or list(hand)


def _check_card(state: HandState, card: int, what: str) -> None:
    hand = state.hands[state.turn]
    if card not in hand:
        raise IllegalAction(f"{what}: {_name(card)} is not in seat {state.turn}'s hand")
    if card in legal_cards(state):
        return
    suit = led_suit(state)
    if any(c // 8 == suit for c in hand):
        raise IllegalAction(f"{what}: must follow suit {Suit(suit).symbol}")
    raise IllegalAction(f"{what}: must trump (no {Suit(suit).symbol}, holds {Suit(trump_of(state)).symbol})")


def _name(card: int) -> str:
    return Card.from_code(card).ascii


def play_card(state: HandState, card: int, what: str) -> HandState:
    _check_card(state, card, what)
    seat = state.turn
    hands = list(state.hands)
    hands[seat] = tuple(c for c in hands[seat] if c != card)
    state = evolve(state, hands=tuple(hands), current=state.current + ((seat, card),))
    if (state.kind is HandKind.MISERE and len(state.tricks) == 0 and len(state.current) == 1
            and state.convention.defence.misere_cards_open_after_first_lead
            and not (state.dark and state.convention.defence.dark_misere_closed)):
        state = evolve(state, open_seats=frozenset(state.defenders), defence_open=True)
    if len(state.current) < len(state.trick_seats):
        return evolve(state, turn=_next_seat(state, seat))
    return _finish_trick(state)


def _next_seat(state: HandState, seat: int) -> int:
    at = state.trick_seats.index(seat)
    return state.trick_seats[(at + 1) % len(state.trick_seats)]


def _finish_trick(state: HandState) -> HandState:
    talon_card = state.current_talon_card
    winner = trick_winner(state.current, talon_card, trump_of(state), talon_owner=_talon_owner(state))
    trick = Trick(state.current, winner, talon_card)
    won = list(state.won)
    talon_won = state.talon_won
    if winner in state.active:
        won[winner] += 1
    else:
        talon_won += 1
    leader = state.trick_seats[0] if talon_card is not None else winner
    tricks = state.tricks + (trick,)
    phase = Phase.DONE if len(tricks) == TRICKS_PER_HAND else Phase.PLAY
    return evolve(state, tricks=tricks, current=(), won=tuple(won), talon_won=talon_won,
                   leader=leader, turn=leader, phase=phase)


def _talon_owner(state: HandState) -> int | None:
    """At four players the talon cards are the sitting-out dealer's; at three they only show the suit."""
    return state.dealer if state.dealer not in state.active else None



def trick_winner(plays: tuple[tuple[int, int], ...], talon_card: int | None, trump: int | None,
                 talon_owner: int | None = None) -> int:
    """The seat that takes the trick.

    With a raspasy talon card the talon's suit is the led suit; when the talon card has an owner it competes for
    the trick. At three players, when no one holds the talon's suit, the first card played sets the suit (the
    seeds are silent on that case; this is the engine's reading).
    """
    if talon_card is not None:
        suit = suit_of(talon_card)
        contenders = list(plays) + ([(talon_owner, talon_card)] if talon_owner is not None else [])
        of_suit = [(c, s) for s, c in contenders if suit_of(c) == suit]
        if of_suit:
            return max(of_suit)[1]
        return max((c, s) for s, c in plays if suit_of(c) == suit_of(plays[0][1]))[1]
    if trump is not None:
        trumps = [(c, s) for s, c in plays if suit_of(c) == trump]
        if trumps:
            return max(trumps)[1]
    suit = suit_of(plays[0][1])
    return max((c, s) for s, c in plays if suit_of(c) == suit)[1]
