"""A hand run from what one party has seen: the engine on a deal that agrees with every fact shown so far.

At a mental-poker table nobody knows the deal until the rules open it, yet the service must know whose turn it is
and which actions are open, and each seat must see the hand as the rules show it to him. Each of them runs the
engine on an *imputed* deal: one that agrees with every card opened to that party (his own hand, the talon shown,
the cards played, a raspasy talon card turned, a hand laid open) and with the rules those plays obeyed. When a new
fact contradicts it, the unseen cards are matched again to the places they may lie, the deal is rebuilt from that
matching, and the hand is replayed on it. When no deal fits, ``NoConsistentDeal`` says which fact broke.

What the flow of a hand reads of hidden cards, and how each is met:

- which card a seat may play. Under every rule of following, trumping and overtaking a card is legal in a hand
  exactly when it is legal beside each other card of the hand alone, so each play forbids its seat, from then on,
  the cards beside which it would have been illegal;
- whether the declarer may announce that he holds no ace (Austrian): he says so or plays on, and the deal must
  agree with what he did.

Every replay is checked against the phase and the seat to act recorded before each action, so a hidden dependency
of the flow not listed here is a ``NoConsistentDeal``, never a silently different hand.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import chain
from typing import TYPE_CHECKING

from fairdeal.cards import NUM_CODES
from fairdeal.deal import get_pattern
from fairdeal.engine.actions import Action, Announce, Discard, Follow, Phase, Play
from fairdeal.engine.hand import ACE, announcement_open, apply, legal_actions, seats_of_deal, start_hand, to_move
from fairdeal.engine.play import legal_cards
from fairdeal.engine.state import HandState, evolve
from fairdeal.errors import FairdealError, IllegalAction, NoConsistentDeal

if TYPE_CHECKING:
    from fairdeal.rules.convention import Convention

Slot = tuple[str, int]  # where an unseen card lies now: (kind, seat); the talon and the hand laid aside use 0
HAND, DISCARD, DEFENCE_DISCARD, TALON, ASIDE = "hand", "discard", "defence discard", "talon", "aside"
_PUT_AWAY = {Phase.DISCARD: DISCARD, Phase.DEFENCE_DISCARD: DEFENCE_DISCARD}


class PublicHand:
    """One party's run of a hand. ``start`` is the hand begun on any deal of the right shape in which the party's
    own cards are true (``seat``; ``None`` for the service, who holds none)."""

    def __init__(self, start: HandState, seat: int | None = None):
        self._start = start
        self._seat = seat
        self._state = start
        self._actions: list[Action] = []
        self._flow: list[tuple[Phase, int | None]] = []  # the phase and the seat to act before each action
        self._hidden: dict[int, Slot] = {}  # an action's index -> the discard slot an imputed discard filled
        self._discarders: dict[str, int] = {}  # a discard slot's kind -> its seat
        self._forbidden: dict[int, set[int]] = defaultdict(set)  # per seat: cards its plays say it does not hold
        self._talons: dict[int, tuple[int, ...]] = {}  # talons opened to this party, by index
        self.turned: list[int] = []  # raspasy talon cards turned, in order
        self.rebuilt = 0  # deals rebuilt so far: how often a fact contradicted the imputed deal
        self._laid_open: dict[int, frozenset[int]] = {}  # a seat's hand laid open: the cards it held then
        self._mine = set(start.hands[seat]) if seat is not None else set()  # the cards the party has held
        self._aces: bool | None = None  # whether the declarer's hand and discard hold an ace, once he has shown it
        self._undecided: tuple[HandState | None, bool] = (None, False)  # ``undecided`` for the state last asked

    @property
    def state(self) -> HandState:
        """The hand on the deal imputed now: every public field is the true hand's (but see ``undecided``)."""
        return self._state

    def act(self, action: Action) -> HandState:
        """A public action (a seat's own discard included); raises ``NoConsistentDeal`` for a card or an
        announcement no deal allows, and ``IllegalAction`` for one the rules forbid whatever the deal."""
        if isinstance(action, Discard) and action.seat != self._seat:
            raise IllegalAction(f"{action}: only seat {action.seat} knows its discard; the others call put_away")
        if isinstance(action, Follow) and action.take:
            raise IllegalAction(
                f"{action}: the discard a Nachgehen follower takes is opened to him alone, and no run from what a "
                "party has seen follows the cards it moves (protocols/mental-poker.md, 'Not covered')"
            )
        with self._learning():
            if self._opening():
                self._aces = not isinstance(action, Announce)
                if self._aces is not (self._state.phase is Phase.PLAY):
                    self._impute(f"{action}")
            if isinstance(action, Play):
                self._before_play(action)
            if isinstance(action, Discard):
                self._discarders[_PUT_AWAY.get(self._state.phase, DISCARD)] = action.seat
            return self._apply(action)

    @property
    def laid_open(self) -> frozenset[int]:
        """The seats whose hands have been laid open to this party (their cards in ``state`` are the true ones)."""
        return frozenset(self._laid_open)

    @property
    def talons_shown(self) -> dict[int, tuple[int, ...]]:
        """The talons opened to this party, by index (their first cards only where only those were taken)."""
        return dict(self._talons)

    @property
    def undecided(self) -> bool:
        """Whether who acts next hangs on cards this party has not seen: the declarer alone knows whether he may
        announce a hand without aces (Austrian), and his announcement or the first card settles it."""
        if not self._opening():
            return False
        if self._undecided[0] is not self._state:  # asked again and again while the hand waits: worked out once
            saved = self._aces
            self._aces = self._state.phase is Phase.ANNOUNCE
            try:
                other = self._imputed(self._state.phase.value)[1].phase is not self._state.phase
            except NoConsistentDeal:
                other = False
            finally:
                self._aces = saved
            self._undecided = (self._state, other)
        return self._undecided[1]

    def no_announcement(self) -> HandState:
        """The declarer says he may not announce a hand without aces: he holds one."""
        if not self._opening():
            raise IllegalAction("no announcement of a hand without aces is open here")
        with self._learning():
            self._aces = True
            if self._state.phase is Phase.ANNOUNCE:
                self._impute("the declarer holds an ace")
        return self._state

    def put_away(self, seat: int) -> HandState:
        """``seat`` puts cards away unseen: an imputed discard stands for them until the deal is rebuilt."""
        kind = _PUT_AWAY.get(self._state.phase)
        options = [a for a in legal_actions(self._state) if isinstance(a, Discard) and a.seat == seat]
        if kind is None or not options:
            raise IllegalAction(f"seat {seat} has no cards to put away in the {self._state.phase.value} phase")
        self._discarders[kind] = seat
        self._hidden[len(self._actions)] = (kind, seat)
        return self._apply(options[0])

    def show_talon(self, index: int, cards: Iterable[int]) -> HandState:
        """Talon ``index`` (as dealt, in order; its first cards only, when only they were taken) has been opened to
        this party."""
        shown = tuple(cards)
        with self._learning():
            self._talons[index] = shown
            if self._seat is not None and self._owner(index) == self._seat:
                self._mine |= set(shown)
            if self._start.dealt_talons[index][: len(shown)] != shown:
                self._impute(f"talon {index} shown")
        return self._state

    def show_turned(self, card: int) -> HandState:
        """The next raspasy talon card has been turned."""
        with self._learning():
            self.turned.append(card)
            if self._start.dealt_talon[len(self.turned) - 1] != card:
                self._impute("a raspasy talon card turned")
        return self._state

    def lay_open(self, seat: int, cards: Iterable[int]) -> HandState:
        """``seat``'s hand has been laid open: ``cards`` are all it holds now."""
        with self._learning():
            self._laid_open[seat] = frozenset(cards)
            if set(self._state.hands[seat]) != self._laid_open[seat]:
                self._impute(f"seat {seat}'s hand laid open")
        return self._state

    @contextmanager
    def _learning(self) -> Iterator[None]:
        """A new fact is kept only if some deal agrees with it: a refused one leaves the party as it was."""
        facts = (dict(self._talons), list(self.turned), dict(self._laid_open), set(self._mine), self._aces)
        seen = (dict(self._discarders), {seat: set(cards) for seat, cards in self._forbidden.items()})
        self._undecided = (None, False)  # a new fact may settle it
        try:
            yield
        except FairdealError:
            self._talons, self.turned, self._laid_open, self._mine, self._aces = facts
            self._discarders, forbidden = seen
            self._forbidden = defaultdict(set, forbidden)
            raise

    def _apply(self, action: Action) -> HandState:
        self._flow.append((self._state.phase, to_move(self._state)))
        self._state = apply(self._state, action)
        self._actions.append(action)
        return self._state

    def _before_play(self, action: Play) -> None:
        """Fit the deal to the card before it is played: it lies in its seat's hand, beside no card that would
        make it illegal; from now on the seat holds none of those."""
        seat, card = action.seat, action.card
        state = self._state
        if state.phase is not Phase.PLAY or state.turn != seat or to_move(state) != action.by:
            raise IllegalAction(f"{action}: it is not that card's turn")
        if card in self._forbidden[seat]:
            raise NoConsistentDeal(f"{action}: an earlier card of seat {seat} was legal only if it did not hold it")
        beside = _illegal_beside(self._state, seat, card)
        if card not in self._state.hands[seat] or beside & set(self._state.hands[seat]):
            self._impute(f"{action}", must=(card, seat), beside=beside)
        self._forbidden[seat] |= beside

    def _opening(self) -> bool:
        """Whether the hand stands where the declarer may announce a hand without aces, not yet settled."""
        state = self._state
        at_first_lead = state.phase is Phase.ANNOUNCE or (
            state.phase is Phase.PLAY and not state.tricks and not state.current
        )
        return self._aces is None and at_first_lead and announcement_open(state)

    def _impute(self, fact: str, must: tuple[int, int] | None = None, beside: Iterable[int] = ()) -> None:
        """Match the unseen cards to their places again and replay the hand on the deal that makes."""
        self._start, self._state, self._actions = self._imputed(fact, must, beside)
        self.rebuilt += 1

    def _imputed(
        self, fact: str, must: tuple[int, int] | None = None, beside: Iterable[int] = ()
    ) -> tuple[HandState, HandState, list[Action]]:
        """The start, the state now and the actions of the hand replayed on a deal that fits every fact; ``must``:
        a card a seat plays now, ``beside``: the cards it cannot hold for that play to be legal."""
        places = _places(self._state, self._discarders)
        allowed = self._allowed(places, must)
        if must is not None:
            for card in set(beside) & allowed.keys():
                allowed[card].discard((HAND, must[1]))
        matched = self._matched(places, allowed)
        if matched is None:
            raise NoConsistentDeal(f"{fact}: no deal agrees with it and with everything shown before")
        return self._replayed(matched)

    def _allowed(self, places: Mapping[Slot, tuple[int, ...]], must: tuple[int, int] | None) -> dict[int, set[Slot]]:
        """For each unseen card, the places it may lie now."""
        slots = set(places)
        allowed = {card: set(slots) for card in chain(*places.values())}
        for seat, ruled_out in self._forbidden.items():
            for card in ruled_out & allowed.keys():
                allowed[card].discard((HAND, seat))
        for index, shown in self._talons.items():
            owner = self._owner(index)
            home = {(TALON, 0)} if owner is None else self._holdings(owner, slots)
            for card in set(shown) & allowed.keys():
                allowed[card] &= home
        for card in set(self.turned) & allowed.keys():
            allowed[card] &= {(TALON, 0)}
        for slot, known in self._exact(places).items():
            for card, where in allowed.items():
                if card in known:
                    where &= {slot}
                else:
                    where.discard(slot)
        if self._aces is False and self._state.declarer is not None:
            for card in [c for c in allowed if c % 8 == ACE]:
                allowed[card] -= self._holdings(self._state.declarer, slots)
        if must is not None:
            card, seat = must
            if card not in allowed:
                raise NoConsistentDeal(f"seat {seat} plays a card that is known to lie elsewhere")
            allowed[card] &= {(HAND, seat)}
        return allowed

    def _exact(self, places: Mapping[Slot, tuple[int, ...]]) -> dict[Slot, frozenset[int]]:
        """The places whose cards this party knows: hands laid open, and its own hand and discards."""
        exact = {(HAND, seat): cards for seat, cards in self._laid_open.items()}
        if self._seat is not None:
            held = self._mine - set(_played_by(self._state, self._seat))
            for kind, seat in self._discarders.items():
                if seat == self._seat:
                    exact[(kind, seat)] = frozenset(places.get((kind, seat), ()))
                    held -= exact[(kind, seat)]
            exact[(HAND, self._seat)] = frozenset(held)
        return exact

    def _holdings(self, seat: int, slots: Iterable[Slot]) -> set[Slot]:
        """Where a card of ``seat``'s may lie: his hand and the discards he made."""
        return {s for s in slots if s == (HAND, seat) or (s[0] in _PUT_AWAY.values() and s[1] == seat)}

    def _owner(self, index: int) -> int | None:
        """The seat that took talon ``index``, or ``None`` while it lies."""
        card = self._start.dealt_talons[index][0]
        if card in self._state.talon:
            return None
        return _seat_holding(self._state, self._discarders, card)

    def _matched(
        self, places: Mapping[Slot, tuple[int, ...]], allowed: dict[int, set[Slot]]
    ) -> dict[Slot, set[int]] | None:
        """A matching of the unseen cards to the places, each as full as now, or ``None``; with the declarer's ace
        shown by his playing on (no announcement), one ace held by him."""
        capacity = {slot: len(cards) for slot, cards in places.items()}
        now = {card: slot for slot, cards in places.items() for card in cards}
        declarer = self._state.declarer
        if not self._aces or declarer is None or any(c % 8 == ACE for c in _played_by(self._state, declarer)):
            return match_cards(capacity, allowed, now)
        home = self._holdings(declarer, places)
        for ace in sorted(c for c in allowed if c % 8 == ACE):
            with_ace = {**allowed, ace: allowed[ace] & home}
            matched = match_cards(capacity, with_ace, now)
            if matched is not None:
                return matched
        return None

    def _replayed(self, matched: Mapping[Slot, set[int]]) -> tuple[HandState, HandState, list[Action]]:
        """The hand replayed on the deal ``matched`` makes, the imputed discards taken from it; the flow (phase
        and seat to act before each action) must be the one seen."""
        start = state = self._rebuilt(matched)
        actions: list[Action] = []
        for index, (action, flow) in enumerate(zip(self._actions, self._flow)):
            if (state.phase, to_move(state)) != flow:
                raise NoConsistentDeal(f"the deal rebuilt for the facts seen changes who acts before {action}")
            if index in self._hidden:
                action = Discard(self._hidden[index][1], tuple(sorted(matched[self._hidden[index]])))
            try:
                state = apply(state, action)
            except IllegalAction as exc:
                raise NoConsistentDeal(f"the deal rebuilt for the facts seen refuses {action}: {exc}") from None
            actions.append(action)
        return start, state, actions

    def _rebuilt(self, matched: Mapping[Slot, set[int]]) -> HandState:
        """The deal the matching makes: talons opened or turned as seen, each seat's hand its cards now plus those
        it played and put away, less the talon cards it took (the old ones where they still fit)."""
        old, now = self._start, self._state
        pools: dict[int, set[int]] = defaultdict(set)
        for (kind, seat), cards in matched.items():
            if kind not in (TALON, ASIDE):
                pools[seat] |= cards
        for trick in chain((t.plays for t in now.tricks), (now.current,)):
            for seat, card in trick:
                pools[seat].add(card)
        lying = set(matched.get((TALON, 0), ()))
        fixed = set(chain(*self._talons.values(), self.turned))
        talons = [list(t) for t in old.dealt_talons]
        later: list[tuple[list[int], int, set[int]]] = []
        used = set(fixed)
        for index, talon in enumerate(talons):
            for at, card in enumerate(talon):
                if at < len(self._talons.get(index, ())):
                    talon[at] = self._talons[index][at]
                elif index == 0 and at < len(self.turned):
                    talon[at] = self.turned[at]
                else:
                    owner = None if card in now.talon else _seat_holding(now, self._discarders, card)
                    source = lying if owner is None else pools[owner]
                    if card in source and card not in fixed:
                        used.add(card)
                    else:
                        later.append((talon, at, source))
        for talon, at, source in later:
            spare = sorted(source - used - fixed)
            if not spare:
                raise NoConsistentDeal("the cards seen leave a talon short")
            talon[at] = spare[0]
            used.add(spare[0])
        taken = {seat: pool & used for seat, pool in pools.items()}
        hands = tuple(
            tuple(sorted(matched.get((ASIDE, 0), ()))) if seat is None else tuple(sorted(pools[seat] - taken[seat]))
            for seat in seats_of_deal(old.convention, old.num_seats, old.dealer)
        )
        try:
            return start_hand(
                old.convention,
                old.num_seats,
                old.dealer,
                hands,
                tuple(tuple(t) for t in talons),
                old.raspasy_streak,
                old.opening_round,
                old.refe_seats,
                old.mechanics,
            )
        except IllegalAction as exc:
            raise NoConsistentDeal(f"the cards seen do not make a deal: {exc}") from None


def imputed_start(
    convention: Convention,
    num_seats: int,
    dealer: int,
    seat: int | None = None,
    cards: Iterable[int] = (),
    raspasy_streak: int = 0,
    opening_round: int = 0,
    refe_seats: frozenset[int] = frozenset(),
) -> HandState:
    """The hand begun on a deal of the right shape in which ``seat`` holds the ``cards`` it was dealt and every
    other card lies anywhere: the start of a ``PublicHand``."""
    pattern = get_pattern(convention.table.pattern_name(num_seats))
    own = tuple(sorted(cards))
    rest = iter(c for c in pattern.deck.int_codes() if c not in own)
    hands = tuple(
        own if holder == seat and seat is not None else tuple(next(rest) for _ in range(pattern.cards_per_hand))
        for holder in seats_of_deal(convention, num_seats, dealer)
    )
    talons = tuple(tuple(next(rest) for _ in range(pattern.talon_size)) for _ in range(pattern.talons))
    return start_hand(convention, num_seats, dealer, hands, talons, raspasy_streak, opening_round, refe_seats)


def _illegal_beside(state: HandState, seat: int, card: int) -> set[int]:
    """The cards beside which ``card`` would not be a legal play for ``seat`` now."""
    others = set(range(NUM_CODES)) - {card}
    hands = list(state.hands)
    illegal = set()
    for other in others:
        hands[seat] = (card, other) if card < other else (other, card)
        if card not in legal_cards(evolve(state, hands=tuple(hands), turn=seat)):
            illegal.add(other)
    return illegal


def _places(state: HandState, discarders: Mapping[str, int]) -> dict[Slot, tuple[int, ...]]:
    """Every place an unseen card may lie now, with the cards the imputed deal puts there."""
    places: dict[Slot, tuple[int, ...]] = {(HAND, seat): cards for seat, cards in enumerate(state.hands) if cards}
    defence = getattr(state.extra, "defence_discard", ())
    for kind, cards in ((DISCARD, state.discard), (DEFENCE_DISCARD, defence)):
        if cards:
            places[(kind, discarders.get(kind, state.declarer or 0))] = tuple(cards)
    if state.talon:
        places[(TALON, 0)] = state.talon
    if state.aside:
        places[(ASIDE, 0)] = state.aside
    return places


def _played_by(state: HandState, seat: int) -> list[int]:
    return [
        card for trick in chain((t.plays for t in state.tricks), (state.current,)) for s, card in trick if s == seat
    ]


def _seat_holding(state: HandState, discarders: Mapping[str, int], card: int) -> int | None:
    """The seat whose hand, discard or plays hold ``card``."""
    for (kind, seat), cards in _places(state, discarders).items():
        if kind not in (TALON, ASIDE) and card in cards:
            return seat
    return next((seat for seat in range(len(state.hands)) if card in _played_by(state, seat)), None)


def match_cards(
    capacity: Mapping[Slot, int], allowed: Mapping[int, set[Slot]], now: Mapping[int, Slot]
) -> dict[Slot, set[int]] | None:
    """Each card to one of its ``allowed`` places, every place filled to its ``capacity`` (the capacities add up
    to the cards), the cards that may stay where they lie ``now`` kept there to begin with; ``None`` when no such
    assignment exists. Augmenting paths (Kuhn's method, a place standing for its units): at most 32 cards."""
    placed: dict[int, Slot] = {}
    holders: dict[Slot, set[int]] = defaultdict(set)

    def put(card: int, slot: Slot) -> None:
        if card in placed:
            holders[placed[card]].discard(card)
        holders[slot].add(card)
        placed[card] = slot

    def place(card: int, seen: set[Slot]) -> bool:
        for slot in sorted(allowed[card]):
            if slot in seen:
                continue
            seen.add(slot)
            if len(holders[slot]) < capacity[slot] or any(place(other, seen) for other in sorted(holders[slot])):
                put(card, slot)
                return True
        return False

    for card, slot in now.items():
        if slot in allowed[card]:
            put(card, slot)
    for card in sorted(set(allowed) - placed.keys()):
        if not place(card, set()):
            return None
    return dict(holders)
