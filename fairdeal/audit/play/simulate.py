"""Evenings of bots for calibrating the play signals: honest ones, and ones where a defender helps a partner.

The colluder knows his partner's cards (they are partners off the table), so when the partner declares he knows
the whole layout: at the given rate he plays a card that gives a trick away double dummy (when one exists), and
he may always pass when the partner's game could be whisted («на лапу»). Hands are returned as log records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairdeal.engine.actions import Action, Defend, Phase, Play
from fairdeal.engine.driver import MAX_STEPS, random_deal
from fairdeal.engine.hand import apply, is_over, legal_actions, new_hand, result, to_move
from fairdeal.engine.match_log import hand_fields, sheet_extras
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.rotation import dealer_of
from fairdeal.engine.sheet import new_sheet
from fairdeal.engine.system import system_of
from fairdeal.engine.view import view_for
from fairdeal.errors import IllegalAction
from fairdeal.solver.dds import solve
from fairdeal.solver.review import position_of, sides_of

if TYPE_CHECKING:
    from fairdeal.engine.bots import Bot
    from fairdeal.engine.state import HandState
    from fairdeal.rules.convention import Convention


@dataclass(frozen=True)
class Collusion:
    colluder: int  # seat
    partner: int  # seat
    rate: float  # share of his card choices against the partner where he gives a trick away (when he can)
    passes: bool = False  # always pass when the partner's game may be whisted


def evening(
    convention: Convention, seats: int, hands: int, seed: int, collusion: Collusion | None = None, bots: str = "easy"
) -> list[dict[str, Any]]:
    """``hands`` hands of bots written on one sheet, as the log's hand lines. The pulya is played past its size
    when it closes (pass ``with_pulya_size`` for a log whose header should agree)."""
    sequence = np.random.SeedSequence(seed)
    deal_seed, cheat_seed, *bot_seeds = sequence.spawn(seats + 2)
    system = system_of(convention)
    players = [system.make_bot(bots, s) for s in bot_seeds]
    deals, cheat = np.random.default_rng(deal_seed), np.random.default_rng(cheat_seed)
    sheet = new_sheet(convention, seats)
    records = []
    for index in range(hands):
        dealer, opening = dealer_of(convention, index, 0, seats)
        deal = random_deal(deals, convention, seats)
        state = new_hand(convention, seats, dealer, deal, sheet.raspasy_streak, opening, refe_seats=sheet.refe_seats())
        state = _play(state, players, collusion, cheat)
        outcome = result(state)
        before = sheet
        sheet, lines = system.score_hand(sheet, outcome)
        records.append(hand_fields(index + 1, state, {}, lines, sheet_extras(before, sheet, outcome, convention)))
    return records


def _play(state: HandState, bots: list[Bot], collusion: Collusion | None, rng: np.random.Generator) -> HandState:
    while not is_over(state):
        if state.steps >= MAX_STEPS:
            raise IllegalAction(f"the hand did not finish within {MAX_STEPS} actions")
        seat = to_move(state)
        assert seat is not None  # a hand that is not over has a seat to act
        action = _collude(state, seat, collusion, rng) if collusion is not None else None
        state = apply(state, action if action is not None else bots[seat].act(view_for(state, seat)))
    return state


def _collude(state: HandState, seat: int, collusion: Collusion, rng: np.random.Generator) -> Action | None:
    if seat != collusion.colluder or state.declarer != collusion.partner:
        return None
    legal = legal_actions(state)
    if state.phase is Phase.DEFENCE and collusion.passes:
        return next((a for a in legal if isinstance(a, Defend) and a.call is DefenceCall.PASS), None)
    if state.phase is not Phase.PLAY or state.kind not in (HandKind.GAME, HandKind.MISERE):
        return None
    cards = [a for a in legal if isinstance(a, Play)]
    if len(cards) < 2 or rng.random() >= collusion.rate:
        return None
    position, trick_seats = position_of(state)
    count, maximisers, _ = sides_of(state, cards[0].seat)
    maximiser = bool((maximisers >> trick_seats.index(cards[0].seat)) & 1)
    losses = solve(position, count, maximisers, values=True).losses(maximiser)
    losing = [a for a in cards if losses[a.card] > 0]
    return losing[int(rng.integers(len(losing)))] if losing else None
