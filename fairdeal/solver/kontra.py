"""The kontra chain (Austrian, Croatian, Slovenian: kontra, rekontra, subkontra, ...) priced over sampled layouts.

Each call doubles the reckoning with the defender who said it (``engine/pot.py``, ``engine/countdown.py``). The bot
prices its pass and its double by the hand's worth to it at the end of the chain, scored by the system
(``pricing.hand_worth``) at the declarer's double-dummy tricks of each sampled layout. The calls after its own are
made the same way by the seats that make them, each the argmax of its own mean worth over the bot's layouts (the
chain is short and common knowledge; the bot lends the others its own picture of the cards). A lone whister who
did not invite plays alone against the declarer, so each layout carries the declarer's tricks both against the
whole defence and against that whister alone; a kontra that invites (Croatian) brings the passer back in. The
declarer's refe is not in the view: a two left undoubled where the system requires a kontra is priced as written
without play, as on a sheet without refes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from fairdeal.engine.actions import Kontra
from fairdeal.engine.bids import NO_TRUMP
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.view import PlayerView
from fairdeal.rules.convention import Convention
from fairdeal.solver import pricing
from fairdeal.solver.pricing import Prices

TRICKS = 10
# The kontra and the rekontra are priced; a subkontra and beyond are the heuristic's: the layouts do not learn
# from a rekontra that the declarer is strong, and chains the bot priced on, against heuristic declarers, lost
# about 150 whists a deal over 120 Croatian deals (benchmarks/results/bench_bots_120_croatian_kontra.txt).
PRICED_ROUNDS = 2
Levels = tuple[tuple[int, int], ...]  # (defender, doublings), sorted by seat


@dataclass(frozen=True)
class Made:
    """The declarer's double-dummy tricks in one layout: against every defender in play, and against the lone
    whister alone (``None`` where no whister can play alone)."""

    together: int
    alone: int | None = None


@dataclass(frozen=True)
class Chain:
    """Where the chain stands: the doublings so far, the round (odd: defenders double, even: the declarer
    answers), the seats still to call in it, and whether the passer was brought into the play."""

    levels: Levels
    round: int
    queue: tuple[int, ...]
    invited: bool


def whisters(view: PlayerView) -> tuple[int, ...]:
    """The defenders in the chain, in the engine's order: those who whisted, or every defender of a misère."""
    if view.kind is HandKind.MISERE:  # from the declarer's left
        assert view.declarer is not None  # the chain answers a declared contract
        at = view.active.index(view.declarer)
        return tuple(s for s in view.active[at + 1 :] + view.active[:at] if s < view.num_seats)
    return tuple(s for s, c in view.defence if c is DefenceCall.WHIST)


def _levels(view: PlayerView) -> dict[int, int]:
    kontra = dict(view.facts).get("kontra", ())
    assert isinstance(kontra, tuple)  # CentralState.outcome_facts: (defender, doublings) pairs
    return dict(kontra)


def chain_of(view: PlayerView) -> Chain:
    """The chain as the view's public facts tell it: a defender to call in round r holds r - 1 doublings, the
    declarer answers in the round after the highest; the other defender of the round is still to call when he
    comes later in the order and holds as many doublings as the bot."""
    levels = _levels(view)
    if view.seat == view.declarer:
        return Chain(tuple(sorted(levels.items())), max(levels.values()) + 1, (view.seat,), view.invited)
    mine = levels.get(view.seat, 0)
    order = whisters(view)
    later = order[order.index(view.seat) + 1 :]
    queue = (view.seat, *(s for s in later if levels.get(s, 0) == mine))
    return Chain(tuple(sorted(levels.items())), mine + 1, queue, view.invited)


def after(view: PlayerView, chain: Chain, double: bool) -> Chain:
    """The chain after its next caller passes or doubles (the engine's rule); an empty queue: the play begins."""
    rules = view.convention.defence
    levels = dict(chain.levels)
    invited = chain.invited
    order = whisters(view)
    if double:
        raised = [chain.queue[0]] if chain.round % 2 else [d for d, lv in levels.items() if lv == chain.round - 1]
        levels.update(dict.fromkeys(raised, chain.round))
        invited |= chain.round == 1 and rules.kontra_invites and len(order) == 1
    frozen = tuple(sorted(levels.items()))
    if chain.queue[1:]:
        return Chain(frozen, chain.round, chain.queue[1:], invited)
    doubled = tuple(d for d in order if levels.get(d) == chain.round)
    if not doubled or chain.round >= rules.kontra_levels:
        return Chain(frozen, chain.round, (), invited)
    assert view.declarer is not None  # the chain answers a declared contract
    queue = doubled if (chain.round + 1) % 2 else (view.declarer,)
    return Chain(frozen, chain.round + 1, queue, invited)


def alone_possible(view: PlayerView) -> bool:
    """Whether the end of the chain may find a lone whister playing without the passer."""
    rules = view.convention.defence
    lone = view.kind is HandKind.GAME and len(whisters(view)) == 1
    return lone and (rules.lone_whister_invites or rules.passer_sits_out) and not view.invited


def play_seats(view: PlayerView, alone: bool) -> tuple[int, ...]:
    """The seats at the tricks: the declarer and the lone whister, or every active seat."""
    if not alone:
        return tuple(view.active)
    return tuple(s for s in view.active if s == view.declarer or s in whisters(view))


def first_leader(view: PlayerView, seats: tuple[int, ...]) -> int:
    """The index in ``seats`` of the first lead, as the engine's play rules put it."""
    rules = view.convention.play
    declarer = view.declarer
    assert declarer is not None and view.contract is not None  # the chain answers a declared contract
    if view.kind is not HandKind.GAME or declarer not in seats:
        return 0
    at = seats.index(declarer)
    if view.contract.strain == NO_TRUMP and rules.no_trump_lead != "first_hand":
        if rules.no_trump_lead == "right_of_declarer":
            return (at - 1) % len(seats)
        return (at + 1) % len(seats) if at == 0 else 0
    if rules.declarer_leads_two_whists and len(whisters(view)) >= 2:
        return at
    return 0


def _worths(view: PlayerView, levels: Levels, invited: bool, made: Made) -> tuple[float, ...]:
    """Every seat's worth of the hand ending with these doublings at this layout's tricks."""
    assert view.declarer is not None and view.contract is not None and view.kind is not None
    order = whisters(view)
    alone = alone_possible(view) and not invited
    tricks = made.alone if alone and made.alone is not None else made.together
    facts = tuple(f for f in pricing.view_facts(view) if f[0] != "kontra")
    if levels:
        facts += (("kontra", levels),)
    rules = view.convention.defence
    number = view.convention.bidding.number_of(view.contract.token)
    required = number in rules.kontra_required_numbers and not view.contract.no_talon
    in_play = order if alone else tuple(s for s in pricing.people_of(view) if s != view.declarer)
    return _end_worth(
        view.convention,
        view.num_seats,
        view.dealer,
        pricing.people_of(view),
        view.kind,
        view.declarer,
        view.contract.contract(),
        view.defence,
        invited and view.kind is HandKind.GAME,
        in_play,
        tricks,
        facts,
        required and not levels,
    )


@lru_cache(maxsize=8192)
def _end_worth(
    convention: Convention,
    num_seats: int,
    dealer: int,
    people: tuple[int, ...],
    kind: HandKind,
    declarer: int,
    contract: Contract,
    defence: tuple[tuple[int, DefenceCall], ...],
    invited: bool,
    in_play: tuple[int, ...],
    tricks: int,
    facts: tuple[tuple[str, object], ...],
    unplayed: bool,
) -> tuple[float, ...]:
    """The seats' mean worth over the even splits of the defence's tricks between the defenders in play."""
    if unplayed:
        outcome = HandOutcome(
            num_seats, dealer, people, kind, (0,) * num_seats, declarer, contract, defence, played=False
        )
        return pricing.possible_worth(convention, outcome)
    cap = convention.play.defence_trick_cap if kind is HandKind.GAME else None
    left = TRICKS - tricks if cap is None else min(TRICKS - tricks, cap)
    won = (0,) * num_seats
    worths = [
        pricing.possible_worth(
            convention,
            HandOutcome(num_seats, dealer, people, kind, split, declarer, contract, defence, invited, extras=facts),
        )
        for split in pricing.splits(won, declarer, in_play, tricks, left)
    ]
    return tuple(float(np.mean([w[s] for w in worths])) for s in range(num_seats))


def _continuation(view: PlayerView, chain: Chain, made: Sequence[Made], memo: dict[Chain, np.ndarray]) -> np.ndarray:
    """Each layout's worth to every seat (rows: layouts) when the rest of the chain is called by price."""
    if chain in memo:
        return memo[chain]
    if not chain.queue:
        value = np.array([_worths(view, chain.levels, chain.invited, m) for m in made])
    else:
        caller = chain.queue[0]
        options = [_continuation(view, after(view, chain, d), made, memo) for d in _options(view, chain)]
        value = max(options, key=lambda v: float(v[:, caller].mean()))  # the first (the pass) on a tie
    memo[chain] = value
    return value


def _options(view: PlayerView, chain: Chain) -> tuple[bool, ...]:
    return (False, True) if chain.round <= view.convention.defence.kontra_levels else (False,)


def kontra_prices(view: PlayerView, made: Sequence[Made]) -> Prices:
    """The bot's pass and double, each with its mean worth over the layouts ``made``."""
    chain = chain_of(view)
    memo: dict[Chain, np.ndarray] = {}
    legal = {a.double: a for a in view.legal if isinstance(a, Kontra)}
    return {
        legal[d]: float(_continuation(view, after(view, chain, d), made, memo)[:, view.seat].mean())
        for d in _options(view, chain)
        if d in legal
    }
