"""Bots: each sees only a ``PlayerView`` and returns one of its legal actions.

``RandomBot`` picks uniformly. ``HeuristicBot`` plays by the table advice of seed 000: bid on counted tricks plus
one from the talon («если на руках шесть взяток, прикупают на семь»; not for a ninth), misère on a hand without
takers, whist with its share of the quota, lead under the declarer with a small card and through him with a big one
(«под играющего ... с маленькой карты, а под вистующего ... с самой большой»), and in raspasy and misère shed high
cards under the trick instead of winning it.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Protocol

from fairdeal.engine import evaluate, number_bot
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
from fairdeal.engine.bids import DARK_PREFIX, MINE, PASS, ContractBid, beats, misere_level_of, parse_bid
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.view import PlayerView

if TYPE_CHECKING:
    import numpy as np

INVITE_TRICKS = 2.5  # the lone whister invites when he holds most of the four tricks he then answers for
KONTRA_DEFENCE_TRICKS = 4.5  # a defender doubles holding the contract's defeat (five tricks) nearly alone
KONTRA_SPARE = 2  # the declarer redoubles with two tricks to spare


class Bot(Protocol):
    def act(self, view: PlayerView) -> Action: ...


class RandomBot:
    """Uniform over the legal actions, from its own seeded generator."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def act(self, view: PlayerView) -> Action:
        legal = view.legal
        return legal[self.rng.integers(len(legal))]  # a NumPy integer indexes a tuple as it is


class HeuristicBot:
    """Rules of thumb for every phase; deterministic given the view."""

    def __init__(self, talon_hope: float = 1.5, misere_risk: float = 0.0):
        # Tricks hoped for beyond the count when bidding: one from the talon («прикупает ... еще на одну») and
        # about a half from the honours the count takes at half value (measured in benchmarks/bench_engine.py).
        self.talon_hope = talon_hope
        self.misere_risk = misere_risk  # the most misère danger the bot accepts

    def act(self, view: PlayerView) -> Action:
        phase = view.phase
        numbers = view.convention.bidding.ladder != "russian"  # the number and suit ladders of seed 003
        if phase is Phase.AUCTION:
            return number_bot.bid(view, self.talon_hope, self.misere_risk) if numbers else self._bid(view)
        if phase is Phase.TALON:  # the dark six: switch to misère only on a hand without takers
            if evaluate.misere_risk(view.hand) <= self.misere_risk:
                return Bid(view.seat, "misere")
            return TakeTalon(view.seat)
        if phase is Phase.DISCARD:
            return self._discard(view)
        if phase is Phase.DEFENCE_DISCARD:
            return self._defence_discard(view)
        if phase is Phase.CONTRACT:
            return number_bot.declare(view, self.misere_risk) if numbers else self._declare(view)
        if phase is Phase.DEFENCE:
            return self._defend(view)
        if phase is Phase.OPEN_CHOICE:
            return ChooseOpen(view.seat, True)  # seed 000: «Игра виста делается с приглашением»
        if phase is Phase.INVITE:  # answering for four wants most of them in hand
            return Invite(view.seat, evaluate.defence_tricks(view.hand, view.trump) >= INVITE_TRICKS)
        if phase is Phase.KONTRA:
            return self._kontra(view)
        if phase is Phase.FOLLOW:  # the discard is taken unseen: follow only on a hand sure on its own
            return Follow(view.seat, number_bot.follows(view, self.misere_risk))
        if phase is Phase.ANNOUNCE:  # «если ... не уверен в выполнении контракта, он может и промолчать»
            assert view.contract is not None  # announced against a declared game
            spare = evaluate.strain_tricks(view.hand, _strain(view.contract)) - _level(view.contract)
            return Announce(view.seat, spare >= KONTRA_SPARE - 1)
        return Play(*_choose_card(view))

    # ---- auction ----------------------------------------------------------------------------------------------

    def _bid(self, view: PlayerView) -> Action:
        tokens = {a.token for a in view.legal if isinstance(a, Bid)}  # the auction's legal actions are all bids
        if "misere" in tokens and evaluate.misere_risk(view.hand) <= self.misere_risk:
            return Bid(view.seat, "misere")
        strain, tricks = evaluate.best_strain(view.hand)
        limit_level = int(tricks + (self.talon_hope if tricks < 8 else 0))
        if limit_level < 6:
            return Bid(view.seat, PASS)
        limit = ContractBid(min(limit_level, 10), strain)
        level = misere_level_of(view.convention.bidding.misere_beats_up_to)
        if MINE in tokens and view.high is not None and not beats(view.high, limit, level):
            return Bid(view.seat, MINE)
        ordered = [a.token for a in view.legal if isinstance(a, Bid)]  # legal bids come in ladder order
        games = [
            parse_bid(t)
            for t in ordered
            if t not in (PASS, MINE)
            and not t.startswith("misere")
            and not t.endswith("-bp")
            and not t.startswith(DARK_PREFIX)
        ]
        affordable = [b for b in games if not b.misere and not beats(b, limit, level)]
        if not affordable:
            return Bid(view.seat, PASS)
        return Bid(view.seat, affordable[0].token)

    # ---- talon, contract --------------------------------------------------------------------------------------

    def _discard(self, view: PlayerView) -> Action:
        hand = view.hand
        misere = view.high is not None and view.high.misere
        best = None
        first = view.legal[0]
        assert isinstance(first, Discard)  # the discard phase offers discards only
        for pair in combinations(hand, len(first.cards)):
            kept = [c for c in hand if c not in pair]
            if misere:
                score = (-evaluate.misere_risk(kept), sum(c % 8 for c in pair))
            else:
                score = (evaluate.best_strain(kept)[1], -sum(c % 8 for c in pair))
            if best is None or score > best[0]:
                best = (score, pair)
        assert best is not None  # a hand holds at least one such set of cards
        return Discard(view.seat, best[1])

    def _defence_discard(self, view: PlayerView) -> Action:
        """The whister who took his talon keeps his tricks: away go the two smallest cards of his shortest suits."""
        tricks = evaluate.defence_tricks
        pairs = combinations(view.hand, 2)
        best = max(
            pairs,
            key=lambda pair: (tricks([c for c in view.hand if c not in pair], view.trump), -sum(c % 8 for c in pair)),
        )
        return Discard(view.seat, best)

    def _declare(self, view: PlayerView) -> Action:
        declares = [a for a in view.legal if isinstance(a, Declare)]
        bids = [parse_bid(a.token) for a in declares]
        if bids[0].misere:
            return declares[0]
        made = [(b, evaluate.strain_tricks(view.hand, _strain(b))) for b in bids]
        feasible = [(b, t) for b, t in made if _level(b) <= t]
        if feasible:
            # raise the contract only with a trick to spare: the counts are optimistic
            comfortable = [(b, t) for b, t in feasible if _level(b) <= t - 1] or feasible[:1]
            choice = max(comfortable, key=lambda item: (_level(item[0]), item[1] - _level(item[0])))[0]
            return Declare(view.seat, choice.token)
        choice, tricks = min(made, key=lambda item: (_level(item[0]) - item[1], _level(item[0])))
        if _level(choice) - tricks >= 4 and any(isinstance(a, Concede) for a in view.legal):
            return Concede(view.seat)
        return Declare(view.seat, choice.token)

    # ---- defence ----------------------------------------------------------------------------------------------

    def _defend(self, view: PlayerView) -> Action:
        assert view.contract is not None  # the defence answers a declared game
        level = _level(view.contract)
        quota = view.convention.defence.quota(level)
        first_passed = bool(view.defence) and view.defence[0][1] is DefenceCall.PASS
        need = max(1.0, quota / 2 if not first_passed else quota * 0.75)
        mine = evaluate.defence_tricks(view.hand, view.trump)
        calls = {a.call for a in view.legal if isinstance(a, Defend)}  # the defence's legal actions are all calls
        if DefenceCall.PASS not in calls:  # a forced whist
            return view.legal[0]
        if DefenceCall.WHIST_TALON in calls and mine + 1 >= quota:
            return Defend(view.seat, DefenceCall.WHIST_TALON)
        if mine >= need:
            return Defend(view.seat, DefenceCall.WHIST)
        if DefenceCall.HALF_WHIST in calls and mine >= 1:
            return Defend(view.seat, DefenceCall.HALF_WHIST)
        return Defend(view.seat, DefenceCall.PASS)

    def _kontra(self, view: PlayerView) -> Action:
        """Double only with a clear surplus: the defender with the contract's defeat in hand, the declarer with
        tricks to spare; never on a misère."""
        may_double = any(isinstance(a, Kontra) and a.double for a in view.legal)
        if not may_double or view.kind is HandKind.MISERE:
            return Kontra(view.seat, False)
        assert view.contract is not None  # the kontra chain answers a declared game
        if view.seat == view.declarer:
            sure = evaluate.strain_tricks(view.hand, _strain(view.contract)) >= _level(view.contract) + KONTRA_SPARE
        else:
            sure = evaluate.defence_tricks(view.hand, view.trump) >= KONTRA_DEFENCE_TRICKS
        return Kontra(view.seat, sure)


def _level(bid: ContractBid) -> int:
    """A game bid's level (these choices reckon game contracts only)."""
    assert bid.level is not None
    return bid.level


def _strain(bid: ContractBid) -> int:
    """A game contract's strain (a contract names its strain, even one bid as a no-talon rung)."""
    assert bid.strain is not None
    return bid.strain


# ---- card play --------------------------------------------------------------------------------------------------


def _choose_card(view: PlayerView) -> tuple[int, int, int | None]:
    """(card's seat, card, actor) for the play the view asks for."""
    first = view.legal[0]
    assert isinstance(first, Play)  # the play phase offers cards only
    seat = first.seat
    actor = first.actor
    cards = [a.card for a in view.legal if isinstance(a, Play)]
    card = _game_card(view, seat, cards) if view.kind is HandKind.GAME else _shedding_card(view, seat, cards)
    return seat, card, actor


def _unseen(view: PlayerView) -> set[int]:
    known = set(view.hand) | set(view.played) | set(view.discard) | set(view.talon_seen)
    for _, cards in view.open_hands:
        known |= set(cards)
    return set(view.deck - known)


def _is_master(card: int, unseen: set[int]) -> bool:
    return not any(c // 8 == card // 8 and c > card for c in unseen)


def _current_winner(view: PlayerView) -> tuple[int | None, int | None]:
    """(seat, card) winning the trick so far, counting a 4-player raspasy talon card as the dealer's."""
    plays = list(view.current)
    talon = view.current_talon_card
    if talon is not None and view.dealer not in view.active:
        plays.append((view.dealer, talon))
    suit = view.led_suit
    best: tuple[int | None, int | None] = (None, None)
    for seat, card in plays:
        if best[1] is None or _beats(card, best[1], suit, view.trump):
            best = (seat, card)
    if best[1] is not None and best[1] // 8 != suit and view.trump is None:
        return None, None  # only off-suit cards so far: nothing holds the trick yet
    return best


def _beats(card: int, other: int, suit: int | None, trump: int | None) -> bool:
    if trump is not None and card // 8 == trump and other // 8 != trump:
        return True
    if card // 8 != other // 8:
        return other // 8 != suit and card // 8 == suit
    return card > other


def _wins_now(card: int, view: PlayerView, holder: int | None) -> bool:
    return holder is None or _beats(card, holder, view.led_suit, view.trump)


def _is_last(view: PlayerView) -> bool:
    return len(view.current) == len(view.trick_seats) - 1


def _game_card(view: PlayerView, seat: int, cards: list[int]) -> int:
    unseen = _unseen(view)
    declarer_side = seat == view.declarer
    if not view.current:
        return _game_lead(view, seat, cards, unseen, declarer_side)
    winner_seat, winner_card = _current_winner(view)
    partner_winning = not declarer_side and winner_seat is not None and winner_seat != view.declarer
    winning = [c for c in cards if _wins_now(c, view, winner_card)]
    if (
        partner_winning
        and winner_card is not None
        and (_is_last(view) or _is_master(winner_card, unseen) or _declarer_played(view))
    ):
        return min(cards, key=_low_key)
    if winning:
        if _is_last(view):
            return min(winning, key=_low_key)
        masters = [c for c in winning if _is_master(c, unseen) or (view.trump is not None and c // 8 == view.trump)]
        return min(masters, key=_low_key) if masters else min(cards, key=_low_key)
    return min(cards, key=_low_key)


def _declarer_played(view: PlayerView) -> bool:
    return any(s == view.declarer for s, _ in view.current)


def _low_key(card: int) -> tuple[int, int]:
    return card % 8, card // 8


def _game_lead(view: PlayerView, seat: int, cards: list[int], unseen: set[int], declarer_side: bool) -> int:
    trump = view.trump
    masters = [c for c in cards if _is_master(c, unseen)]
    if declarer_side:
        trumps_out = trump is not None and any(c // 8 == trump for c in unseen)
        master_trumps = [c for c in masters if trump is not None and c // 8 == trump]
        if trumps_out and master_trumps:
            return max(master_trumps)
        side_masters = [c for c in masters if c // 8 != trump]
        if side_masters:
            return max(side_masters)
        return _from_longest(cards, trump, low=True)
    side_masters = [c for c in masters if c // 8 != trump]
    if side_masters:
        return max(side_masters)
    seats = view.trick_seats
    declarer_next = seats[(seats.index(seat) + 1) % len(seats)] == view.declarer
    # «под играющего ходи с семака, а под вистующего с тузующего»
    return _from_longest(cards, trump, low=declarer_next)


def _from_longest(cards: list[int], trump: int | None, low: bool) -> int:
    side = [c for c in cards if c // 8 != trump] or cards
    lengths = {s: sum(1 for c in side if c // 8 == s) for s in range(4)}
    longest = max(lengths, key=lambda s: (lengths[s], s))
    suit_cards = [c for c in side if c // 8 == longest]
    return min(suit_cards) if low else max(suit_cards)


def _shedding_card(view: PlayerView, seat: int, cards: list[int]) -> int:
    """Raspasy, misère declarer and misère defenders."""
    if view.kind is HandKind.MISERE and seat != view.declarer:
        return _misere_defender_card(view, cards)
    if not view.current and view.current_talon_card is None:
        return min(cards, key=_low_key)  # lead the smallest card
    _, winner_card = _current_winner(view)
    suit = view.led_suit
    following = all(c // 8 == suit for c in cards) and suit is not None
    if not following:
        return max(cards, key=_low_key)  # void: shed the biggest card
    ducks = [c for c in cards if not _wins_now(c, view, winner_card)]
    if ducks:
        return max(ducks)  # the highest card that still loses
    return max(cards) if _is_last(view) else min(cards)


def _misere_defender_card(view: PlayerView, cards: list[int]) -> int:
    if not view.current:
        return min(cards, key=_low_key)  # small leads keep the declarer under pressure
    winner_seat, winner_card = _current_winner(view)
    if not _declarer_played(view):
        return min(cards, key=_low_key)  # leave room for the declarer to take it
    if winner_seat == view.declarer:
        unders = [c for c in cards if not _wins_now(c, view, winner_card)]
        if unders:
            return max(unders, key=_low_key)  # «Никогда не нужно перекрывать взятку играющему»
    return max(cards, key=_low_key)
