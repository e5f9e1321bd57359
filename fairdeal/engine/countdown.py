"""The Croatian sheet (seed 003, «Подсчёт результатов»): a contract column counted down from the agreed start, and
the whist columns («юха») on each opponent.

Written-off contracts go to the sheet's ``pulya``, contracts and penalties added to the column («приписывает») to
its ``gora``, so a seat's column is ``start - pulya + gora`` and the seat is «под шляпой» once it is below zero.
A contract is worth ``factor x number`` (+1 to the number without the talon); a refe doubles it, each kontra step
doubles the reckoning with the defender who called it. All-pass hands give everyone a refe (up to the limit,
and never while someone is under the hat). The game ends when the columns sum to zero; the last contract that
would cross zero is written only in the proportion that reaches it exactly, and the juha with it.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from fairdeal.engine.bids import bid_from_contract
from fairdeal.engine.outcome import DefenceCall, HandKind, HandOutcome
from fairdeal.engine.sheet import ScoreLine, Sheet
from fairdeal.errors import ScoringError
from fairdeal.rules.convention import Convention


def score_countdown(sheet: Sheet, outcome: HandOutcome, conv: Convention) -> tuple[Sheet, tuple[ScoreLine, ...]]:
    """Write one finished hand on the Croatian sheet."""
    refe = sheet.refe or (0,) * sheet.num_seats
    if outcome.num_seats != sheet.num_seats:
        raise ScoringError(f"hand outcome is for {outcome.num_seats} seats but the sheet has {sheet.num_seats}")
    if outcome.kind is HandKind.REDEAL:
        return grant_refe(replace(sheet, refe=refe), conv), ()
    if outcome.kind is HandKind.RASPASY or outcome.declarer is None or outcome.contract is None:
        raise ScoringError(f"the countdown sheet scores contracts and all-pass hands, not {outcome.kind.value}")
    declarer = outcome.declarer
    refe_factor = conv.scoring.refe_multiplier if refe[declarer] else 1
    base = _last_remizes(sheet, conv, contract_value(outcome, conv) * refe_factor)
    kontra = dict(outcome.extras).get("kontra", ())
    assert isinstance(kontra, tuple)  # ExtraState.outcome_facts: (defender, doublings) pairs
    levels = dict(kontra)
    lines = (
        _misere_lines(outcome, conv, base, levels)
        if outcome.kind is HandKind.MISERE
        else _game_lines(outcome, conv, base, levels)
    )
    lines = _last_entry(sheet, conv, lines)
    used = tuple(n - 1 if s == declarer and n else n for s, n in enumerate(refe))
    return replace(sheet.apply(tuple(lines)), refe=used, hands=sheet.hands + 1), tuple(lines)


def contract_value(outcome: HandOutcome, conv: Convention) -> int:
    """«вдвое больше, чем порядковый номер заявки ... Игра без прикупа добавляет единичку к порядковому номеру»."""
    assert outcome.contract is not None  # score_countdown takes contracts only
    number = conv.bidding.number_of(bid_from_contract(outcome.contract).token)
    bonus = conv.scoring.no_talon_number_bonus if outcome.contract.no_talon else 0
    return conv.scoring.number_value_factor * (number + bonus)


def _last_remizes(sheet: Sheet, conv: Convention, base: int) -> Fraction | int:
    """Rule 41: with ``last_remizes_price`` remizes or fewer left on the table, the game is priced at what is left
    — written off when won, set as the remiz when lost, and the whists by it."""
    cap = conv.scoring.last_remizes_price
    if not cap:
        return base
    left = sum(sheet.column(s, conv.pulya.size) for s in range(sheet.num_seats))
    return min(base, left) if 0 < left <= cap else base


def under_hat(sheet: Sheet, conv: Convention) -> tuple[int, ...]:
    """Seats whose column crossed zero («под шляпой»)."""
    return tuple(s for s in range(sheet.num_seats) if sheet.column(s, conv.pulya.size) < 0)


def grant_refe(sheet: Sheet, conv: Convention) -> Sheet:
    """«каждый получает рефет»; none while someone is under the hat or once the pulya's refes are used up."""
    granted = sheet.refe_rounds < conv.scoring.refe_limit(conv.pulya.size) and not under_hat(sheet, conv)
    if not granted:
        return replace(sheet, hands=sheet.hands + 1)
    return replace(
        sheet, refe=tuple(n + 1 for n in sheet.refe), refe_rounds=sheet.refe_rounds + 1, hands=sheet.hands + 1
    )


def _factor(levels: dict[int, int], seat: int) -> int:
    factor: int = 2 ** levels.get(seat, 0)  # typeshed: int ** int is Any (a negative power is a float)
    return factor


def _declarer_line(declarer: int, points: Fraction, made: bool) -> ScoreLine:
    return ScoreLine(declarer, "pulya" if made else "gora", points)


def _game_lines(
    outcome: HandOutcome, conv: Convention, base: Fraction | int, levels: dict[int, int]
) -> list[ScoreLine]:
    declarer = outcome.declarer
    # A game contract, as score_countdown lets through.
    assert declarer is not None and outcome.contract is not None and outcome.contract.level is not None
    top = max((2**lv for lv in levels.values()), default=1)  # «За игру под контрой все результаты удваиваются»
    if not outcome.played:
        return [ScoreLine(declarer, "pulya", Fraction(base))]
    made = outcome.tricks[declarer] >= outcome.contract.level
    under = outcome.contract.level - outcome.tricks[declarer] if conv.scoring.remiz_per_trick and not made else 1
    lines = [_declarer_line(declarer, Fraction(base * top * under), made)]
    whisters = [s for s, call in outcome.defence if call is DefenceCall.WHIST]
    defence_tricks = sum(outcome.tricks[s] for s in outcome.defenders)
    level = outcome.contract.level
    for seat in whisters:
        taken = defence_tricks if outcome.whister_invited else outcome.tricks[seat]
        points = Fraction(base * _factor(levels, seat) * taken)
        if points:
            lines.append(ScoreLine(seat, "whists", points, declarer))
    for seat in whisters:
        missing = _short(outcome, conv, seat, whisters, defence_tricks, level)
        if missing or (made and levels.get(seat, 0)):
            per_trick = max(1, missing) if conv.scoring.remiz_per_trick else 1
            lines.append(ScoreLine(seat, "gora", Fraction(base * _factor(levels, seat) * per_trick)))
    return lines


def _short(
    outcome: HandOutcome, conv: Convention, seat: int, whisters: list[int], defence_tricks: int, level: int
) -> int:
    """Tricks a whister is short of his obligation: the inviter of four together, a lone whister (or every
    whister, where each answers for himself) of two, and of two whisters short of four together the one(s) who
    took fewer than two («наказывается тот ... кто взял меньше двух»)."""
    own = _own_quota(outcome, conv, seat, whisters, level) - outcome.tricks[seat]
    if outcome.whister_invited:
        return max(0, conv.defence.quota(level) - defence_tricks)
    if len(whisters) == 1 or conv.defence.each_whister_quota:
        return max(0, own)
    return max(0, own) if defence_tricks < conv.defence.quota(level) else 0


def _own_quota(outcome: HandOutcome, conv: Convention, seat: int, whisters: list[int], level: int) -> int:
    """19th century, rule 51: of two whisters only the one at the declarer's left («подручный игроку») owes the
    full quota; the last may take one less."""
    if len(whisters) < 2:
        return conv.defence.lone_quota(level)
    at = outcome.active.index(outcome.declarer)
    left = outcome.active[(at + 1) % len(outcome.active)]
    return conv.defence.lone_quota(level) if seat == left else conv.defence.second_quota(level)


def _misere_lines(
    outcome: HandOutcome, conv: Convention, base: Fraction | int, levels: dict[int, int]
) -> list[ScoreLine]:
    """Bettel: «Защитники не могут пасовать, но и не наказываются»; a failed one costs the declarer the value and
    each defender writes «по 60 вистов» (five tricks' worth, ``misere_failed_whist_tricks``) on him."""
    declarer = outcome.declarer
    assert declarer is not None  # score_countdown takes contracts only
    top = max((2**lv for lv in levels.values()), default=1)
    taken = outcome.tricks[declarer]
    # With «кадили» (19th century, rule 43) every trick taken is a remiz, as every missing one in a game.
    per_trick = taken if conv.scoring.remiz_per_trick and taken else 1
    made = taken == 0
    lines = [_declarer_line(declarer, Fraction(base * top * per_trick), made)]
    if not made and conv.scoring.misere_failed_whist_tricks:
        tricks = conv.scoring.misere_failed_whist_tricks
        lines += [
            ScoreLine(s, "whists", Fraction(base * _factor(levels, s) * tricks), declarer) for s in outcome.defenders
        ]
    return lines


def _last_entry(sheet: Sheet, conv: Convention, lines: list[ScoreLine]) -> list[ScoreLine]:
    """«Если последний сыгранный в пульке контракт имеет такую цену, что суммарная запись перескочит через ноль,
    разыгрывающий пишет ... только часть ... Пропорциональному уменьшению подвергаются ... и записи вистующих»;
    with a penalty written everything stands in full."""
    if any(line.column == "gora" for line in lines):
        return lines
    left = sum(sheet.column(s, conv.pulya.size) for s in range(sheet.num_seats))
    written = sum(line.points for line in lines if line.column == "pulya")
    if written <= left:
        return lines
    share = Fraction(max(left, 0)) / written
    return [replace(line, points=line.points * share) for line in lines if line.points * share]
