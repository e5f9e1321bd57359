"""What the end of a hand is worth to a seat, in whists, under the table's own scoring.

The sampling bots solve layouts for the declarer's tricks; this module turns a number of tricks into money by
scoring the hand as the engine would (the system's own ``score_hand``) on a fresh sheet and settling that sheet
as the convention settles (``settlement.gora_parts`` and the whist balance). So a Hussar undertrick costs the
whists Hussar writes for it, a Leningrad made game the pulya difference it moves, and a defender's tricks the
whists they bring him. Pulya points have no money value until the end of the pulya; where the settlement does
not itself move pulya differences (``settlement.pulya_adjustments``), a point of pulya is priced as a point of
gora less, the trade the game offers. Premiums for the pulya as a whole (Classic's «скачки») are left out: they
belong to the sheet, not to one hand. System-specific outcome facts the view does not hold (bombs, a sold
talon's aces) are left out too.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache

from fairdeal.cards import Rank
from fairdeal.engine.actions import Action
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.settlement import gora_parts, moves_pulya_differences, pulya_adjustments
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.system import system_of
from fairdeal.engine.view import PlayerView
from fairdeal.errors import ScoringError
from fairdeal.rules.convention import Convention

TRICKS = 10
Calls = tuple[tuple[int, DefenceCall], ...]
Prices = dict[Action, float]  # a decision's priced actions, in whists, in legal order


def play_prices(view: PlayerView) -> tuple[float | None, ...]:
    """The worth to ``view.seat`` of the declarer ending the hand with 0..10 tricks (``None``: not reachable
    from the tricks already won), the defence's remaining tricks shared evenly between its seats."""
    assert view.kind in (HandKind.GAME, HandKind.MISERE) and view.declarer is not None and view.contract is not None
    people = people_of(view)
    won = list(view.won[: view.num_seats])
    if len(people) < len(view.active):
        # Gusarik's dummy (pseudo-seat num_seats): its tricks are the declarer's opponent's, as the engine scores.
        won[next(s for s in people if s != view.declarer)] += view.won[view.num_seats]
    return _prices(
        view.convention,
        view.num_seats,
        view.dealer,
        people,
        view.kind,
        view.declarer,
        view.contract.contract(),
        view.defence,
        _invited(view),
        tuple(won),
        view.seat,
        view_facts(view),
    )


def contract_prices(view: PlayerView, contract: Contract) -> tuple[float | None, ...]:
    """The worth to ``view.seat`` of declaring ``contract`` and taking 0..10 tricks, the defence answering as
    serves it best at that number of tricks: both pass (the game goes unplayed), one whists or both do."""
    people = people_of(view)
    won = (0,) * view.num_seats
    if contract.misere:
        return _prices(
            view.convention,
            view.num_seats,
            view.dealer,
            people,
            HandKind.MISERE,
            view.seat,
            contract,
            (),
            False,
            won,
            view.seat,
            (),
        )
    defenders = [s for s in people if s != view.seat]
    answers = [
        tuple((s, DefenceCall.WHIST if s in whisters else DefenceCall.PASS) for s in defenders)
        for whisters in _whister_sets(defenders)
    ]
    played = [
        _prices(
            view.convention,
            view.num_seats,
            view.dealer,
            people,
            HandKind.GAME,
            view.seat,
            contract,
            calls,
            False,
            won,
            view.seat,
            (),
        )
        for calls in answers
    ]
    passes = tuple((s, DefenceCall.PASS) for s in defenders)
    unplayed = _unplayed(view.convention, view.num_seats, view.dealer, people, view.seat, contract, passes)[view.seat]
    return tuple(min([unplayed, *(v for p in played if (v := p[t]) is not None)]) for t in range(TRICKS + 1))


def _whister_sets(defenders: list[int]) -> list[tuple[int, ...]]:
    """Who whists when the game is played: each defender alone, or all of them."""
    alone: list[tuple[int, ...]] = [(s,) for s in defenders]
    return alone if len(defenders) == 1 else [*alone, tuple(defenders)]


def answer_prices(view: PlayerView, calls: Calls, invited: bool, seat: int) -> tuple[float, ...]:
    """The worth to ``seat`` of the defence answering the declared game with ``calls`` (the lone whister playing
    with help when ``invited``) and the declarer taking 0..10 tricks; a game nobody whists is written unplayed."""
    assert view.declarer is not None and view.contract is not None and view.kind is HandKind.GAME
    people = people_of(view)
    contract = view.contract.contract()
    if not any(c in (DefenceCall.WHIST, DefenceCall.WHIST_TALON) for _, c in calls):
        worth = _unplayed(view.convention, view.num_seats, view.dealer, people, view.declarer, contract, calls)
        return (worth[seat],) * (TRICKS + 1)
    won = (0,) * view.num_seats
    args = (view.num_seats, view.dealer, people, HandKind.GAME, view.declarer, contract, calls, invited, won)
    prices = _prices(view.convention, *args, seat, view_facts(view))
    return tuple(p for p in prices if p is not None)  # nothing is out of reach before the first trick


@lru_cache(maxsize=1024)
def _unplayed(
    convention: Convention,
    num_seats: int,
    dealer: int,
    active: tuple[int, ...],
    declarer: int,
    contract: Contract,
    calls: Calls,
) -> tuple[float, ...]:
    """No defender whisted (both passed, or a pass and a half-whist): the game is written without play."""
    outcome = HandOutcome(
        num_seats, dealer, active, HandKind.GAME, (0,) * num_seats, declarer, contract, calls, played=False
    )
    return possible_worth(convention, outcome)


def _invited(view: PlayerView) -> bool:
    """The lone whister played with help: the passer's cards face up, or (Hussar) his own talon."""
    return view.invited and view.kind is HandKind.GAME


def view_facts(view: PlayerView) -> tuple[tuple[str, object], ...]:
    """The outcome facts the view holds: those announced to all, the declarer's own aces (for the four-aces
    premium) in his own view, and the aces of a talon lying face up."""
    assert view.contract is not None
    facts = list(view.facts)
    if view.convention.scoring.premium_four_aces and view.seat == view.declarer:
        played = [card for trick in view.tricks for seat, card in trick.plays if seat == view.seat]
        mine = [*view.hand, *played, *(card for seat, card in view.current if seat == view.seat)]
        facts.append(("aces", _aces(mine)))
    if view.talon_seen and not view.contract.no_talon:
        facts.append(("talon_aces", _aces(view.talon_seen)))
    return tuple(facts)


def _aces(cards: Iterable[int]) -> int:
    return sum(1 for c in cards if c % 8 == Rank.ACE)


def people_of(view: PlayerView) -> tuple[int, ...]:
    """The active seats that are players (Gusarik's dummy is the pseudo-seat ``num_seats``)."""
    return tuple(s for s in view.active if s < view.num_seats)


@lru_cache(maxsize=4096)
def _prices(
    convention: Convention,
    num_seats: int,
    dealer: int,
    active: tuple[int, ...],
    kind: HandKind,
    declarer: int,
    contract: Contract,
    defence: Calls,
    invited: bool,
    won: tuple[int, ...],
    seat: int,
    facts: tuple[tuple[str, object], ...],
) -> tuple[float | None, ...]:
    defenders = _in_play(convention, active, kind, declarer, defence, invited)
    prices: list[float | None] = []
    cap = convention.play.defence_trick_cap if kind is HandKind.GAME else None
    for tricks in range(TRICKS + 1):
        # Croatian: the hand stops when the defence takes its capped trick, so a failed game has only that many.
        defence_tricks = TRICKS - tricks if cap is None else min(TRICKS - tricks, cap)
        left = defence_tricks - sum(won[s] for s in defenders)
        if tricks < won[declarer] or left < 0:
            prices.append(None)
            continue
        worths = [
            possible_worth(
                convention,
                HandOutcome(num_seats, dealer, active, kind, split, declarer, contract, defence, invited, extras=facts),
            )
            for split in splits(won, declarer, defenders, tricks, left)
        ]
        prices.append(sum(w[seat] for w in worths) / len(worths))
    return tuple(prices)


def _in_play(
    convention: Convention,
    active: tuple[int, ...],
    kind: HandKind,
    declarer: int,
    defence: Calls,
    invited: bool,
) -> tuple[int, ...]:
    """The defenders at the tricks: a lone whister who did not bring the passer in plays alone against the
    declarer where the passer's cards take no part (Croatian, Austrian, the 19th century), and takes every
    defence trick himself; otherwise every defender."""
    rules = convention.defence
    whisters = tuple(s for s, c in defence if c is DefenceCall.WHIST)
    sits_out = rules.lone_whister_invites or rules.passer_sits_out
    if kind is HandKind.GAME and len(whisters) == 1 and sits_out and not invited:
        return whisters
    return tuple(s for s in active if s != declarer)


def splits(
    won: tuple[int, ...], declarer: int, defenders: tuple[int, ...], tricks: int, left: int
) -> list[tuple[int, ...]]:
    """The defence's ``left`` tricks shared as evenly as they go, each way round when they do not divide."""
    base, extra = divmod(left, len(defenders)) if defenders else (0, 0)
    splits = []
    for first in range(len(defenders) if extra else 1):
        seats = list(won)
        seats[declarer] = tricks
        for k, s in enumerate(defenders):
            seats[s] = won[s] + base + (1 if (k - first) % len(defenders) < extra else 0)
        splits.append(tuple(seats))
    return splits


def possible_worth(convention: Convention, outcome: HandOutcome) -> tuple[float, ...]:
    """``hand_worth`` of an end that may not happen: one the system's sheet cannot write (e.g. a concession it
    does not allow) is worth nothing to anyone."""
    try:
        return hand_worth(convention, outcome)
    except ScoringError:
        return (0.0,) * outcome.num_seats


def hand_worth(convention: Convention, outcome: HandOutcome) -> tuple[float, ...]:
    """Each seat's whists from this one hand: scored by the system on a fresh sheet and settled by the
    convention, a point of pulya counted as a point of gora less where the settlement does not move pulya."""
    sheet, _ = system_of(convention).score_hand(new_sheet(convention, outcome.num_seats), outcome)
    adjustments = pulya_adjustments(sheet, convention)
    credit = (Fraction(0),) * sheet.num_seats if moves_pulya_differences(convention) else sheet.pulya
    gora = tuple(g + a - c for g, a, c in zip(sheet.gora, adjustments, credit))
    _, parts = gora_parts(gora, convention)
    return tuple(float(parts[s] + sheet.whist_balance(s)) for s in range(sheet.num_seats))
