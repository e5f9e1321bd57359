"""The Austrian pot («котёл», seed 003): money paid into a common pot and won from it hand by hand.

On the sheet a seat's ``pulya`` is what it took from the pot, its ``gora`` what it paid in, and ``whists`` are the
payments straight between players (the defenders' share of the pot, premiums, the Illustrated contracts); the pot
holds ``sum(gora) - sum(pulya)``. The declarer takes the amount played (a fixed stake, the whole or a limited pot,
or the Styrian amount of his suit) and pays each whister a tenth of it per defence trick; a failed declarer pays
twice the amount into the pot, a whister short of his tricks once. When a pot cannot cover the amount played, every
player contributes again («снова сделать взносы»). At the end the pot left is shared equally.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from fairdeal.engine.bids import bid_from_contract
from fairdeal.engine.outcome import DefenceCall, HandKind, HandOutcome
from fairdeal.engine.sheet import ScoreLine, Sheet
from fairdeal.errors import ScoringError
from fairdeal.rules.convention import Convention


def pot_of(sheet: Sheet) -> Fraction:
    """The money lying in the pot."""
    return sum(sheet.gora, Fraction(0)) - sum(sheet.pulya, Fraction(0))


def score_pot(sheet: Sheet, outcome: HandOutcome, conv: Convention) -> tuple[Sheet, tuple[ScoreLine, ...]]:
    """Write one finished hand: contributions, the pot played, the defenders' shares, penalties and premiums."""
    if outcome.num_seats != sheet.num_seats:
        raise ScoringError(f"hand outcome is for {outcome.num_seats} seats but the sheet has {sheet.num_seats}")
    rules = conv.scoring
    lines: list[ScoreLine] = []
    if sheet.hands == 0 and rules.pot_initial:
        lines += _contributions(sheet.num_seats, rules.pot_initial)
    if rules.pot_dealer_stake:  # «Каждый сдающий добавляет в него 10 ставок перед раздачей»
        lines.append(ScoreLine(outcome.dealer, "gora", Fraction(rules.pot_dealer_stake)))
    if outcome.kind is HandKind.REDEAL:
        return _written(sheet, lines)
    if outcome.kind is HandKind.RASPASY or outcome.declarer is None or outcome.contract is None:
        raise ScoringError(f"the pot scores contracts and all-pass hands, not {outcome.kind.value}")
    number = conv.bidding.number_of(bid_from_contract(outcome.contract).token)
    if number in dict(rules.direct_values):
        return _written(sheet, lines + _direct_lines(outcome, conv, number))
    lines += _pot_lines(sheet.apply(tuple(lines)), outcome, conv, number)
    lines += _premium_lines(outcome, conv, number)
    return _written(sheet, lines)


def _written(sheet: Sheet, lines: list[ScoreLine]) -> tuple[Sheet, tuple[ScoreLine, ...]]:
    return replace(sheet.apply(tuple(lines)), hands=sheet.hands + 1), tuple(lines)


def _contributions(num_seats: int, amount: int) -> list[ScoreLine]:
    return [ScoreLine(s, "gora", Fraction(amount)) for s in range(num_seats)]


def made(outcome: HandOutcome) -> bool:
    """The declarer made his contract (an unplayed one counts as all ten tricks)."""
    if not outcome.played:
        return True
    assert outcome.declarer is not None and outcome.contract is not None  # score_pot takes contracts only
    taken = outcome.tricks[outcome.declarer]
    if outcome.kind is HandKind.MISERE:
        return taken == 0
    assert outcome.contract.level is not None  # a game contract has a level
    return taken >= outcome.contract.level


def _pot_lines(sheet: Sheet, outcome: HandOutcome, conv: Convention, number: int) -> list[ScoreLine]:
    rules = conv.scoring
    lines: list[ScoreLine] = []
    wanted = dict(rules.pot_stakes).get(number, rules.pot_play_limit)
    while rules.pot_initial and wanted is not None and pot_of(sheet) < wanted:  # refill the pot
        refill = _contributions(sheet.num_seats, rules.pot_initial)
        lines += refill
        sheet = sheet.apply(tuple(refill))
    pot = pot_of(sheet)
    played = pot if wanted is None else min(pot, Fraction(wanted))
    declarer = outcome.declarer
    assert declarer is not None  # score_pot takes contracts only
    if played:
        lines.append(ScoreLine(declarer, "pulya", played))
    whisters = [s for s, call in outcome.defence if call is DefenceCall.WHIST]
    defence = sum(outcome.tricks[s] for s in outcome.defenders)
    for seat in whisters:
        tricks = defence if outcome.whister_invited else outcome.tricks[seat]
        share = played * rules.pot_trick_share * tricks
        if share and outcome.played:
            lines.append(ScoreLine(seat, "whists", share, declarer))
    if not made(outcome):
        lines.append(ScoreLine(declarer, "gora", played * rules.pot_declarer_penalty))
    for seat in whisters:
        if outcome.played and _short(outcome, conv, seat, whisters, defence):
            lines.append(ScoreLine(seat, "gora", played * rules.pot_whister_penalty))
    return [line for line in lines if line.points]


def _short(outcome: HandOutcome, conv: Convention, seat: int, whisters: list[int], defence: int) -> bool:
    """«каждый вистующий, не набравший двух взяток, платит в котёл ... В случае приглашения пригласивший отвечает
    за четыре взятки»."""
    assert outcome.contract is not None and outcome.contract.level is not None  # whisted: a game contract
    level = outcome.contract.level
    if outcome.whister_invited:
        return defence < conv.defence.quota(level)
    return outcome.tricks[seat] < conv.defence.lone_quota(level)


def _premium_lines(outcome: HandOutcome, conv: Convention, number: int) -> list[ScoreLine]:
    """Premiums between the declarer and every defender, whisting or not: hearts without the talon (paid either
    way), four aces (only when made), no aces announced (paid either way)."""
    rules = conv.scoring
    extras = dict(outcome.extras)
    won = made(outcome)
    premium = 0
    assert outcome.contract is not None  # score_pot takes contracts only
    if outcome.contract.no_talon:
        premium += dict(rules.no_talon_premiums).get(number, 0) * (1 if won else -1)
    if won and extras.get("aces") == 4:
        premium += rules.premium_four_aces
    if extras.get("no_aces"):
        premium += rules.premium_no_aces * (1 if won else -1)
    return _between(outcome, premium, {})


def _between(outcome: HandOutcome, amount: int, factors: dict[int, int]) -> list[ScoreLine]:
    """``amount`` x each defender's factor from each defender to the declarer (negative: the other way)."""
    assert outcome.declarer is not None  # score_pot takes contracts only
    lines = []
    for seat in outcome.defenders:
        points = Fraction(amount * factors.get(seat, 1))
        if points > 0:
            lines.append(ScoreLine(outcome.declarer, "whists", points, seat))
        elif points < 0:
            lines.append(ScoreLine(seat, "whists", -points, outcome.declarer))
    return lines


def _direct_lines(outcome: HandOutcome, conv: Convention, number: int) -> list[ScoreLine]:
    """Illustrated Preference: «рассчитывается ... непосредственно с защитниками»; kontra doubles the reckoning with
    the defender who said it, rekontra quadruples it; without the talon the value doubles."""
    rules = conv.scoring
    assert outcome.contract is not None  # score_pot takes contracts only
    value = dict(rules.direct_values)[number] * (rules.direct_no_talon_factor if outcome.contract.no_talon else 1)
    kontra = dict(outcome.extras).get("kontra", ())
    assert isinstance(kontra, tuple)  # ExtraState.outcome_facts: (defender, doublings) pairs
    factors = {seat: 2**level for seat, level in kontra}
    return _between(outcome, value if made(outcome) else -value, factors)
