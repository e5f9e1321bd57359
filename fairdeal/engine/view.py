"""What one seat may see of a hand: its own cards and the public record, nothing else.

Bots receive only a ``PlayerView``; the hidden cards of the others (and the discard, for anyone but the declarer)
never reach them. Hands lying face up (the open lone whister's pair, the misère defenders after the first lead)
are public.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from fairdeal.cards import DeckKind
from fairdeal.engine.actions import Action, Phase
from fairdeal.engine.bids import ContractBid
from fairdeal.engine.hand import legal_actions, to_move
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.play import led_suit, trump_of
from fairdeal.engine.state import HandState, Trick


@dataclass(frozen=True)
class PlayerView:
    seat: int
    num_seats: int
    dealer: int
    active: tuple[int, ...]
    raspasy_streak: int
    phase: Phase
    to_move: int | None
    hand: tuple[int, ...]
    open_hands: tuple[tuple[int, tuple[int, ...]], ...]   # (seat, cards) of hands lying face up
    auction: tuple[tuple[int, str], ...]
    high: ContractBid | None
    high_seat: int | None
    declarer: int | None
    talon_seen: tuple[int, ...]          # the shown talon, or the raspasy talon cards turned so far
    discard: tuple[int, ...]             # only the declarer knows his discard
    contract: ContractBid | None
    kind: HandKind | None
    defence: tuple[tuple[int, DefenceCall], ...]
    defence_open: bool
    tricks: tuple[Trick, ...]
    current: tuple[tuple[int, int], ...]
    current_talon_card: int | None
    led_suit: int | None
    trump: int | None
    won: tuple[int, ...]
    legal: tuple[Action, ...]            # the actions open to this seat now (empty when it is not to act)
    convention: object
    trick_seats: tuple[int, ...] = ()    # seats playing to the tricks (the dummy too; not in Gusarik's raspasy)
    deck: frozenset[int] = frozenset(range(32))   # the codes of the deck in play

    def hand_of(self, seat: int) -> tuple[int, ...] | None:
        """Cards this seat can see for ``seat``: its own, or a hand lying face up; ``None`` when hidden."""
        if seat == self.seat:
            return self.hand
        return dict(self.open_hands).get(seat)

    @property
    def played(self) -> frozenset[int]:
        cards = {c for t in self.tricks for _, c in t.plays} | {c for _, c in self.current}
        return frozenset(cards)


def view_for(state: HandState, seat: int) -> PlayerView:
    actor = to_move(state)
    return PlayerView(
        seat=seat,
        num_seats=state.num_seats,
        dealer=state.dealer,
        active=state.active,
        raspasy_streak=state.raspasy_streak,
        phase=state.phase,
        to_move=actor,
        hand=state.hands[seat],
        open_hands=tuple((s, state.hands[s]) for s in sorted(state.open_seats) if s != seat),
        auction=state.auction,
        high=state.high,
        high_seat=state.high_seat,
        declarer=state.declarer,
        talon_seen=_talon_seen(state),
        discard=state.discard if seat == state.declarer else (),
        contract=state.contract,
        kind=state.kind,
        defence=state.defence,
        defence_open=state.defence_open,
        tricks=state.tricks,
        current=state.current,
        current_talon_card=state.current_talon_card if state.phase is Phase.PLAY else None,
        led_suit=led_suit(state) if state.phase is Phase.PLAY else None,
        trump=trump_of(state),
        won=state.won,
        legal=tuple(legal_actions(state)) if actor == seat else (),
        convention=state.convention,
        trick_seats=state.trick_seats,
        deck=_deck(state),
    )


def _deck(state: HandState) -> frozenset[int]:
    return deck_codes(state.convention.table.deck)


@lru_cache(maxsize=None)
def deck_codes(name: str) -> frozenset[int]:
    return frozenset(int(c) for c in DeckKind.parse(name).codes())


def _talon_seen(state: HandState) -> tuple[int, ...]:
    if state.talon_shown:
        return state.dealt_talons[state.talon_bought] if state.talon_bought is not None else state.dealt_talon
    turned = [t.talon_card for t in state.tricks if t.talon_card is not None]
    if state.phase is Phase.PLAY and state.current_talon_card is not None:
        turned.append(state.current_talon_card)
    return tuple(turned)
