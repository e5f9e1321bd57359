"""Whist or pass (or half-whist), and the lone whister's open or closed play (or his invitation), by price.

Each answer is worth its expected whists to the bot over sampled layouts (``pricing.answer_prices``): in each
layout the declarer's double-dummy tricks are the result when the game is played, a defender still to call
answers as serves him best at that result (among pass, whist and, after a pass where the system has it,
half-whist), and a lone whister who may play with help (open, or inviting the passer) takes it when it pays him.
Table defence is weaker than double dummy, so a played game is priced as if the declarer took half a trick more
(``TABLE_GIFT``). The answer chosen is the argmax, the first in legal order on a tie.
"""

from __future__ import annotations

from collections.abc import Sequence

from fairdeal.engine.actions import ChooseOpen, Defend, Invite
from fairdeal.engine.outcome import DefenceCall
from fairdeal.engine.view import PlayerView
from fairdeal.solver import pricing
from fairdeal.solver.pricing import Prices

PRICED = (DefenceCall.PASS, DefenceCall.WHIST, DefenceCall.HALF_WHIST)
TABLE_GIFT = 0.5  # the declarer's tricks beyond double dummy against a table defence
Calls = tuple[tuple[int, DefenceCall], ...]


def _played(prices: tuple[float, ...], tricks: int) -> float:
    """The price at ``tricks`` with the table's gift: half the time one trick more."""
    return (1 - TABLE_GIFT) * prices[tricks] + TABLE_GIFT * prices[min(tricks + 1, len(prices) - 1)]


def _defenders(view: PlayerView) -> list[int]:
    assert view.declarer is not None  # a declared game
    return [s for s in view.active if s < view.num_seats and s != view.declarer]


def _helps(view: PlayerView, calls: Calls) -> tuple[bool, ...]:
    """Whether the lone whister may play with help (inviting the passer, or open), in the engine's order: an
    invitation where the system has one, none where the passer sits out or a kontra chain follows, Gusarik's
    dummy always laid open, else open or closed as he chooses where the system lets him."""
    whists = [s for s, c in calls if c is DefenceCall.WHIST]
    if len(whists) != 1:
        return (False,)
    rules = view.convention.defence
    partnered = len(_defenders(view)) > 1
    if rules.lone_whister_invites:
        return (False, True) if partnered else (False,)
    if rules.passer_sits_out or _kontra_follows(view):
        return (False,)
    if not partnered and len(view.active) > len(_defenders(view)) + 1:  # Gusarik's dummy
        return (True,)
    return (False, True) if rules.lone_whister_may_choose_open else (False,)


def _kontra_follows(view: PlayerView) -> bool:
    rules = view.convention.defence
    if rules.kontra_levels == 0 or view.contract is None:
        return False
    return view.convention.bidding.number_of(view.contract.token) >= rules.kontra_from_number


def _worth(view: PlayerView, calls: Calls, tricks: int, seat: int, invited: bool | None = None) -> float:
    """The worth to ``seat`` of these calls at this result; the lone whister chooses his help unless given."""
    helps = _helps(view, calls) if invited is None else (invited,)
    whister = next((s for s, c in calls if c is DefenceCall.WHIST), None)
    if len(helps) > 1:
        assert whister is not None  # a choice of help belongs to the lone whister
        helps = (max(helps, key=lambda h: _played(pricing.answer_prices(view, calls, h, whister), tricks)),)
    return _played(pricing.answer_prices(view, calls, helps[0], seat), tricks)


def _answers_after(view: PlayerView, mine: DefenceCall) -> tuple[DefenceCall, ...]:
    """The calls open to the defender after the bot's (half-whist only after a pass, where the system has it)."""
    rules = view.convention.defence
    assert view.contract is not None and view.contract.level is not None  # a declared game
    half = mine is DefenceCall.PASS and rules.half_whist and view.contract.level in rules.half_whist_levels
    return (DefenceCall.PASS, DefenceCall.WHIST) + ((DefenceCall.HALF_WHIST,) if half else ())


def _call_worth(view: PlayerView, mine: DefenceCall, tricks: int) -> float:
    calls: Calls = (*view.defence, (view.seat, mine))
    called = {s for s, _ in calls}
    partner = next((s for s in _defenders(view) if s not in called), None)
    if partner is not None:
        answer = max(_answers_after(view, mine), key=lambda c: _worth(view, (*calls, (partner, c)), tricks, partner))
        calls = (*calls, (partner, answer))
    return _worth(view, calls, tricks, view.seat)


def defence_prices(view: PlayerView, made: Sequence[int]) -> Prices:
    """Each legal pass, whist or half-whist with its mean worth over the declarer's sampled tricks ``made``."""
    return {
        a: sum(_call_worth(view, a.call, t) for t in made) / len(made)
        for a in view.legal
        if isinstance(a, Defend) and a.call in PRICED
    }


def talon_price(view: PlayerView, made: Sequence[int]) -> float:
    """Hussar's whist with one's own talon («с приглашением своей прикупки»): its mean worth over the
    declarer's tricks ``made`` against the whister's kept ten, scored with the help the talon brings."""
    calls: Calls = (*view.defence, (view.seat, DefenceCall.WHIST_TALON))
    return sum(_played(pricing.answer_prices(view, calls, True, view.seat), t) for t in made) / len(made)


def help_prices(view: PlayerView, made: Sequence[int]) -> Prices:
    """The lone whister's open or closed play (or invitation or not), each with its mean worth over ``made``."""
    values: Prices = {}
    for action in view.legal:
        if isinstance(action, ChooseOpen | Invite):
            invited = action.open if isinstance(action, ChooseOpen) else action.invite
            values[action] = sum(_worth(view, view.defence, t, view.seat, invited) for t in made) / len(made)
    return values
