"""Trick play: which cards may be played and who wins a trick (seeds 000, 002).

«Ходить следует обязательно в масть, а если масти нет, то бить козырем. Необязательно бить старшей картой»
(seed 000): follow suit, else trump, else anything; overtaking is not required. Misère and raspasy have no trumps.
In raspasy the talon cards may set the suit of the first tricks: at three players a talon card «только показывает
масть» and the highest card of that suit among the players wins; at four the talon cards are the dealer's and a
trick the talon card wins is his. After the talon tricks the first hand leads («потом ход делает игрок, сидящий
слева от сдающего»).
"""

from __future__ import annotations

from bisect import bisect_left

from fairdeal.cards import CARDS_PER_SUIT, Card, Suit, suit_of
from fairdeal.engine.actions import Phase
from fairdeal.engine.bids import NO_TRUMP
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.state import HandState, Trick, amend_fresh, evolve, successor
from fairdeal.errors import IllegalAction

TRICKS_PER_HAND = 10
# Read on every card: module globals are cheaper than class attributes (``HandKind.GAME``) in Python 3.11.
_GAME, _RASPASY, _PLAY, _DONE = HandKind.GAME, HandKind.RASPASY, Phase.PLAY, Phase.DONE


def start_play(state: HandState, kind: HandKind, seats: tuple[int, ...] | None = None) -> HandState:
    """Trick play begins among ``seats`` (default: every active seat); the first of them from the first hand leads
    (Gusarik: the dummy, «Первый ход на висте всегда от болвана»; in raspasy the dummy sits out unless the
    convention says otherwise). The convention's ``play`` rules move the first lead to the declarer (Austrian, two
    whists) or away from him in a no-trump six (Croatian Sanac, Austrian Sans Atout)."""
    if seats is None:
        seats = state.active
        if kind is HandKind.RASPASY and state.dummy is not None and not state.convention.table.dummy_in_raspasy:
            seats = state.players
    state = evolve(state, kind=kind, trick_seats=seats)
    first = _first_leader(state, seats)
    defence = state.convention.defence
    if (
        kind is HandKind.MISERE
        and first != state.declarer
        and defence.misere_open_before_defender_lead
        and not (state.dark and defence.dark_misere_closed)
    ):
        # Codex: «если ход должны сделать вистующие - они же и открывают карты ещё до первого хода»
        opened = frozenset(state.defenders)
        amend_fresh(state, open_seats=opened, defence_open=True, laid_open=state.laying_open(opened))
    return amend_fresh(state, phase=_PLAY, leader=first, turn=first)


def _first_leader(state: HandState, seats: tuple[int, ...]) -> int:
    rules = state.convention.play
    declarer = state.declarer
    if state.kind is not HandKind.GAME or declarer not in seats:
        return seats[0]
    if state.contract is not None and state.contract.strain == NO_TRUMP and rules.no_trump_lead != "first_hand":
        at = seats.index(declarer)
        if rules.no_trump_lead == "right_of_declarer":
            return seats[(at - 1) % len(seats)]
        return seats[(at + 1) % len(seats)] if seats[0] == declarer else seats[0]
    whists = sum(1 for _, call in state.defence if call is DefenceCall.WHIST)
    if rules.declarer_leads_two_whists and whists >= 2:
        return declarer
    return seats[0]


def trump_of(state: HandState) -> int | None:
    if state.kind is not _GAME or state.contract is None or state.contract.strain == NO_TRUMP:
        return None
    return state.contract.strain


def led_suit(state: HandState) -> int | None:
    """The suit the trick in progress must be followed in, ``None`` when the seat to play leads freely."""
    talon_card = state.current_talon_card if state.kind is _RASPASY else None
    if talon_card is not None:
        return talon_card // CARDS_PER_SUIT
    if state.current:
        return state.current[0][1] // CARDS_PER_SUIT
    return None


def suit_cards(hand: tuple[int, ...], suit: int) -> tuple[int, ...]:
    """The cards of ``suit`` in a sorted hand: a suit's codes are consecutive, so they are one slice of it."""
    low = bisect_left(hand, suit * CARDS_PER_SUIT)
    return hand[low : bisect_left(hand, (suit + 1) * CARDS_PER_SUIT, low)]


def legal_cards(state: HandState) -> tuple[int, ...]:
    hand = state.hands[state.turn]
    current = state.current
    # ``led_suit`` inline: it is asked once per card, and only raspasy has talon cards that set the suit.
    talon_card = state.current_talon_card if state.kind is _RASPASY else None
    if talon_card is not None:
        suit = talon_card // CARDS_PER_SUIT
    elif current:
        suit = current[0][1] // CARDS_PER_SUIT
    else:
        return hand
    low = bisect_left(hand, suit * CARDS_PER_SUIT)
    follow = hand[low : bisect_left(hand, (suit + 1) * CARDS_PER_SUIT, low)]
    overtake = current and state.convention.play.must_overtake
    if follow and not overtake:  # the commonest case: no trump to look up
        return follow
    trump = trump_of(state)
    if follow:
        allowed = follow
    else:
        allowed = suit_cards(hand, trump) if trump is not None else ()
        allowed = allowed or hand
    if overtake:
        best = _best_card(current, trump)
        heading = tuple(c for c in allowed if _beats(c, best, trump))
        return heading or allowed
    return allowed


def _best_card(plays: tuple[tuple[int, int], ...], trump: int | None) -> int:
    winner = trick_winner(plays, None, trump)
    return next(card for seat, card in plays if seat == winner)


def _beats(card: int, best: int, trump: int | None) -> bool:
    """Whether ``card`` heads a trick whose best card so far is ``best``."""
    if card // 8 == best // 8:
        return card > best
    return trump is not None and card // 8 == trump


def _check_card(state: HandState, card: int, what: object) -> None:
    hand = state.hands[state.turn]
    if card not in hand:
        raise IllegalAction(f"{what}: {_name(card)} is not in seat {state.turn}'s hand")
    if card in legal_cards(state):
        return
    suit = led_suit(state)
    assert suit is not None  # on the lead every card in hand is legal
    holds_suit = any(c // 8 == suit for c in hand)
    if holds_suit and card // 8 != suit:
        raise IllegalAction(f"{what}: must follow suit {Suit(suit).symbol}")
    trump = trump_of(state)
    if not holds_suit and trump is not None and any(c // 8 == trump for c in hand) and card // 8 != trump:
        raise IllegalAction(f"{what}: must trump (no {Suit(suit).symbol}, holds {Suit(trump).symbol})")
    raise IllegalAction(f"{what}: must head the trick when able («Перебивать карту хода обязательно»)")


def _name(card: int) -> str:
    return Card.from_code(card).ascii


def play_card(state: HandState, card: int, what: object) -> HandState:
    """``what`` (the action, or a description of it) names the play in an error."""
    _check_card(state, card, what)
    return play_legal_card(state, card)


def play_legal_card(state: HandState, card: int) -> HandState:
    """``play_card`` of a card known to be legal; the next state is built once (the commonest transition)."""
    seat = state.turn
    hands = list(state.hands)
    hand = hands[seat]
    at = hand.index(card)
    hands[seat] = hand[:at] + hand[at + 1 :]
    current = state.current + ((seat, card),)
    seats = state.trick_seats
    after = successor(state)
    kept = after.__dict__
    kept["hands"] = tuple(hands)
    if len(current) == len(seats):
        _finish_trick(state, current, kept)
        return after
    kept["current"] = current
    kept["turn"] = seats[(seats.index(seat) + 1) % len(seats)]
    if len(current) == 1 and not state.tricks:
        kept.update(_opened_at_first_lead(after))
    return after


def _opened_at_first_lead(state: HandState) -> dict[str, object]:
    """The hands turned face up once the first card is led (``state`` holds it): the misère defenders' where the
    convention opens them then, and an open contract's declarer («После первого хода ... в открытую»)."""
    changes: dict[str, object] = {}
    defence = state.convention.defence
    if (
        state.kind is HandKind.MISERE
        and defence.misere_cards_open_after_first_lead
        and not (state.dark and defence.dark_misere_closed)
    ):
        changes = {"open_seats": frozenset(state.defenders), "defence_open": True}
    if state.contract is not None and state.contract.open:
        seats = changes.get("open_seats", state.open_seats)
        assert isinstance(seats, frozenset)
        changes["open_seats"] = seats | {state.declarer}
    if "open_seats" in changes:
        opened = changes["open_seats"]
        assert isinstance(opened, frozenset)
        changes["laid_open"] = state.laying_open(opened)
    return changes


def _finish_trick(state: HandState, current: tuple[tuple[int, int], ...], kept: dict[str, object]) -> None:
    """Write into ``kept`` (the next state's fields) what a full trick changes: the trick is kept, its winner
    counted and leading."""
    talon_card = state.current_talon_card if state.kind is _RASPASY else None
    if talon_card is None:
        winner = trick_winner(current, None, trump_of(state))
    else:
        winner = trick_winner(current, talon_card, None, talon_owner=_talon_owner(state))
    won = list(state.won)
    if winner in state.active:
        won[winner] += 1
    else:
        kept["talon_won"] = state.talon_won + 1
    leader = state.trick_seats[0] if talon_card is not None else winner
    trick = object.__new__(Trick)  # a frozen value made without its per-field ``object.__setattr__``
    trick.__dict__.update(plays=current, winner=winner, talon_card=talon_card)
    tricks = kept["tricks"] = state.tricks + (trick,)
    kept["current"] = ()
    kept["won"] = tuple(won)
    kept["leader"] = kept["turn"] = leader
    cap = state.convention.play.defence_trick_cap
    if len(tricks) == TRICKS_PER_HAND or (cap is not None and _defence_capped(state, won)):
        kept["phase"] = _DONE


def _defence_capped(state: HandState, won: list[int]) -> bool:
    """Croatian: «В тот момент, когда защита берёт пятую взятку, игра заканчивается (не доигрывается)»."""
    cap = state.convention.play.defence_trick_cap
    if cap is None or state.kind is not HandKind.GAME:
        return False
    return sum(won[s] for s in state.defenders) >= cap


def _talon_owner(state: HandState) -> int | None:
    """At four players the talon cards are the sitting-out dealer's; at three they only show the suit."""
    return state.dealer if state.dealer not in state.active else None


def trick_winner(
    plays: tuple[tuple[int, int], ...], talon_card: int | None, trump: int | None, talon_owner: int | None = None
) -> int:
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
    winner, best = plays[0]
    for seat, card in plays[1:]:
        suit = card // CARDS_PER_SUIT
        if (card > best) if suit == best // CARDS_PER_SUIT else suit == trump:  # higher in suit, or a first trump
            winner, best = seat, card
    return winner
