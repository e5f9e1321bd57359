"""The pulya sheet: pulya, gora and whists per seat, written hand by hand as the convention says.

Amounts are exact ``Fraction`` values: gentleman splits, half-responsible penalties and shared raspasy whists
make halves, and the settlement must sum to exactly zero. ``docs/scoring.md`` explains every rule for players.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

from fairdeal.engine.countdown import score_countdown
from fairdeal.engine.outcome import DefenceCall, HandKind, HandOutcome
from fairdeal.engine.pot import score_pot
from fairdeal.engine.sheet import ScoreLine, Sheet
from fairdeal.errors import ScoringError
from fairdeal.rules.convention import Convention

TRICKS_PER_HAND = 10


def score_hand(sheet: Sheet, outcome: HandOutcome, convention: Convention) -> tuple[Sheet, tuple[ScoreLine, ...]]:
    """Write one finished hand on the sheet; returns the new sheet and the lines written, in order."""
    if convention.scoring.method != "pulya":
        scorer = score_countdown if convention.scoring.method == "countdown" else score_pot
        return scorer(sheet, outcome, convention)
    _check_outcome(sheet, outcome)
    extras = dict(outcome.extras)
    streak, bombs = sheet.raspasy_streak, sheet.bombs or ((),) * sheet.num_seats
    if outcome.kind is HandKind.REDEAL:
        raw = []
    elif outcome.kind is HandKind.RASPASY:
        opening = extras.get("opening_round", 0)
        assert isinstance(opening, int)  # hand.result: the opening round's number
        raw = _raspasy_lines(outcome, convention, 0 if opening else streak)
        streak = streak if opening else streak + 1
        bombs = _earned_bombs(bombs, outcome, convention, opening)
    else:
        assert outcome.declarer is not None  # _check_outcome: a contract has its declarer
        _, multiplier = hand_multiplier(sheet, outcome, convention)
        raw = (
            _misere_lines(outcome, convention) if outcome.kind is HandKind.MISERE else _game_lines(outcome, convention)
        )
        raw = [replace(line, points=line.points * multiplier) for line in raw]
        raw += _dealer_lines(outcome, convention, multiplier)
        streak = 0
        if sheet.next_bomb(outcome.declarer) and not failed_contract(outcome):
            bombs = tuple(b[1:] if s == outcome.declarer else b for s, b in enumerate(bombs))  # «бомба пропадает»
    current = sheet
    written: list[ScoreLine] = []
    for line in raw:
        lines = _pulya_lines(current, line, convention) if line.column == "pulya" else (line,)
        current = current.apply(lines)
        written.extend(lines)
    closed = sheet.first_closed
    if closed is None:
        closed = next((s for s in range(sheet.num_seats) if current.pulya[s] >= convention.pulya.size), None)
    return replace(current, raspasy_streak=streak, hands=sheet.hands + 1, bombs=bombs, first_closed=closed), tuple(
        written
    )


def hand_multiplier(sheet: Sheet, outcome: HandOutcome, convention: Convention) -> tuple[int, int]:
    """(the declarer's bomb level, the factor on every line of the hand): the bomb's ``bomb_base ** level`` times
    ``dark_multiplier`` for a contract won in the dark (003 Классика: «Тройная бомба даёт коэффициент 8. Заявка
    втёмную увеличивает стоимость игры вдвое. Итого коэффициент 16»)."""
    if outcome.declarer is None:
        return 0, 1
    level = sheet.next_bomb(outcome.declarer)
    dark = convention.scoring.dark_multiplier if dict(outcome.extras).get("dark") else 1
    return level, convention.scoring.bomb_multiplier(level) * dark


def failed_contract(outcome: HandOutcome) -> bool:
    """Whether the declarer went down: undertricks in a game (or conceded), any trick in a misère."""
    if outcome.declarer is None:
        return False
    if outcome.conceded_undertricks is not None:
        return True
    taken = outcome.tricks[outcome.declarer] if outcome.played else None
    if outcome.kind is HandKind.MISERE:
        return bool(taken)
    assert outcome.contract is not None and outcome.contract.level is not None  # a game has its contract
    return taken is not None and taken < outcome.contract.level


def _earned_bombs(
    bombs: tuple[tuple[int, ...], ...], outcome: HandOutcome, conv: Convention, opening: int
) -> tuple[tuple[int, ...], ...]:
    """Bombs earned by a raspasy: every player one of the opening round's level («каждый получил по 12 бомб»),
    and each dark passer one more («все спасовавшие втёмную получают дополнительные бомбы»)."""
    earned = [list(b) for b in bombs]
    if opening:
        for row in earned:
            row.append(opening)
    passers = dict(outcome.extras).get("dark_passers", ()) if conv.scoring.dark_pass_bomb_level else ()
    assert isinstance(passers, tuple)  # RussianState.outcome_facts: the dark passers' seats
    for seat in passers:
        earned[seat].append(conv.scoring.dark_pass_bomb_level)
    return tuple(tuple(row) for row in earned)


def _dealer_lines(outcome: HandOutcome, conv: Convention, multiplier: int) -> list[ScoreLine]:
    """000: the dealer who sits out writes whists on the declarer for each ace in the talon he bought (one
    trick's value each) and for each undertrick of a failed game."""
    if not conv.scoring.dealer_talon_consolation or outcome.dealer in outcome.active:
        return []
    aces = dict(outcome.extras).get("talon_aces", 0)
    assert isinstance(aces, int)  # hand.result: aces in the talon bought
    assert outcome.declarer is not None and outcome.contract is not None  # a contract's hand
    if outcome.kind is HandKind.MISERE:
        value, under = conv.scoring.misere_value, 0
    else:
        assert outcome.contract.level is not None  # a game contract
        value = conv.scoring.value(outcome.contract.level)
        under = _undertricks(outcome)
    return _whists(outcome.dealer, outcome.declarer, Fraction(value * (aces + under) * multiplier))


def renonce_penalty(convention: Convention, offender: int, opponent: int, level: int) -> tuple[ScoreLine, ...]:
    """A renonce (not following suit or not trumping) seen at a physical table, charged «по размеру игры» like a
    remiz of ``renonce_undertricks`` (001): to the offender's gora, or where remiz goes straight to the opponent, as
    whists ``opponent`` writes on him. The state machine itself never lets a renonce happen."""
    rules = convention.scoring
    points = Fraction(rules.value(level) * rules.renonce_undertricks)
    if rules.remiz_to == "gora":
        return (ScoreLine(offender, "gora", points),)
    return (ScoreLine(opponent, "whists", points * rules.remiz_whist_factor, offender),)


def abort_penalty(convention: Convention, absent: int, num_seats: int) -> tuple[ScoreLine, ...]:
    """The charge for walking away from a deal (``abort_penalty_undertricks``): the remiz of that many tricks at
    the lowest game, to the absent seat's gora, or where remiz goes to the whisters, as whists every other seat
    writes on him."""
    rules = convention.scoring
    points = Fraction(rules.value(min(dict(rules.contract_values))) * rules.abort_penalty_undertricks)
    if not points:
        return ()
    if rules.remiz_to == "gora":
        return (ScoreLine(absent, "gora", points),)
    whists = points * rules.remiz_whist_factor
    return tuple(ScoreLine(seat, "whists", whists, absent) for seat in range(num_seats) if seat != absent)


def penalty_lines(items: object, num_seats: int) -> tuple[ScoreLine, ...]:
    """A hand line's ``penalty`` (score items written before the hand is scored) as sheet lines."""
    if not isinstance(items, list):
        raise ScoringError("penalty: a list of score lines is expected")

    def is_seat(value: object) -> bool:
        return type(value) is int and 0 <= value < num_seats

    lines = []
    for index, item in enumerate(items):
        ok = isinstance(item, dict) and is_seat(item.get("seat")) and item.get("column") in ("pulya", "gora", "whists")
        ok = ok and set(item) <= {"seat", "column", "points", "on"} and _is_points(item.get("points"))
        ok = ok and (is_seat(item.get("on")) and item.get("on") != item.get("seat")) == (item.get("column") == "whists")
        if not ok:
            raise ScoringError(f"penalty[{index}]: not a score line of this table")
        assert isinstance(item, dict)  # checked above
        lines.append(ScoreLine(item["seat"], item["column"], Fraction(item["points"]), item.get("on")))
    return tuple(lines)


def _is_points(value: object) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


def _undertricks(outcome: HandOutcome) -> int:
    if outcome.conceded_undertricks is not None:
        return outcome.conceded_undertricks
    if not outcome.played:
        return 0
    # A played game contract.
    assert outcome.declarer is not None and outcome.contract is not None and outcome.contract.level is not None
    return max(0, outcome.contract.level - outcome.tricks[outcome.declarer])


# --- checking the outcome ------------------------------------------------------------------------------------


def _check_outcome(sheet: Sheet, outcome: HandOutcome) -> None:
    n = sheet.num_seats
    if outcome.num_seats != n:
        raise ScoringError(f"hand outcome is for {outcome.num_seats} seats but the sheet has {n}")
    if len(outcome.tricks) != n:
        raise ScoringError(f"tricks must list {n} seats, got {len(outcome.tricks)}")
    if not 0 <= outcome.dealer < n or any(not 0 <= s < n for s in outcome.active):
        raise ScoringError(f"dealer {outcome.dealer} or active seats {outcome.active} outside 0..{n - 1}")
    if len(set(outcome.active)) != len(outcome.active) or len(outcome.active) < 2:
        raise ScoringError(f"active seats {outcome.active} must be at least two distinct seats")
    if any(t < 0 for t in outcome.tricks) or any(outcome.tricks[s] for s in range(n) if s not in outcome.active):
        raise ScoringError(f"tricks {outcome.tricks}: negative, or taken by a seat that sat out")
    if outcome.kind is HandKind.RASPASY:
        _check_raspasy(outcome)
    elif outcome.kind is HandKind.REDEAL:
        if outcome.declarer is not None or any(outcome.tricks) or outcome.played:
            raise ScoringError("a redeal has no declarer and no tricks")
    else:
        _check_contract(outcome)


def _check_raspasy(outcome: HandOutcome) -> None:
    total = sum(outcome.tricks) + outcome.raspasy_talon_tricks
    if outcome.raspasy_talon_tricks < 0 or total != TRICKS_PER_HAND:
        raise ScoringError(f"raspasy tricks {outcome.tricks} + talon {outcome.raspasy_talon_tricks} sum to {total}")
    if outcome.declarer is not None or outcome.contract is not None:
        raise ScoringError("a raspasy hand has no declarer and no contract")


def _check_contract(outcome: HandOutcome) -> None:
    if outcome.declarer not in outcome.active or outcome.contract is None:
        raise ScoringError(f"a {outcome.kind.value} needs a contract and a declarer among {outcome.active}")
    if outcome.contract.misere != (outcome.kind is HandKind.MISERE):
        raise ScoringError(f"contract {outcome.contract} does not fit hand kind {outcome.kind.value}")
    if outcome.raspasy_talon_tricks:
        raise ScoringError("talon tricks are only counted in raspasy")
    unknown = [s for s, _ in outcome.defence if s not in outcome.defenders]
    if unknown or len({s for s, _ in outcome.defence}) != len(outcome.defence):
        raise ScoringError(f"defence calls {outcome.defence} name a seat twice or a seat that is not a defender")
    played_tricks = sum(outcome.tricks)
    if outcome.played and outcome.conceded_undertricks is None and played_tricks != TRICKS_PER_HAND:
        raise ScoringError(f"a played hand has {TRICKS_PER_HAND} tricks, got {outcome.tricks}")
    if outcome.conceded_undertricks is not None and not 0 < outcome.conceded_undertricks <= TRICKS_PER_HAND:
        raise ScoringError(f"conceded undertricks must be 1..10, got {outcome.conceded_undertricks}")


# --- contract games ------------------------------------------------------------------------------------------


def _game_lines(outcome: HandOutcome, conv: Convention) -> list[ScoreLine]:
    # _check_contract: a game has its declarer and a contract with a level.
    assert outcome.declarer is not None and outcome.contract is not None and outcome.contract.level is not None
    level = outcome.contract.level
    value = conv.scoring.value(level)
    declarer = outcome.declarer
    whisters = [s for s in outcome.defenders if outcome.call_of(s) in (DefenceCall.WHIST, DefenceCall.WHIST_TALON)]
    half = [s for s in outcome.defenders if outcome.call_of(s) is DefenceCall.HALF_WHIST]
    if outcome.conceded_undertricks is not None:
        return _conceded_lines(outcome, conv, whisters, value)
    if not outcome.played:
        return _unplayed_lines(outcome, conv, whisters + half, value)
    under = max(0, level - outcome.tricks[declarer])
    lines = _remiz_lines(outcome, conv, whisters, value, under)
    if len(whisters) == 2:
        lines += _two_whisters_lines(outcome, conv, whisters, value, under)
    elif len(whisters) == 1:
        lines += _lone_whister_lines(outcome, conv, whisters[0], value, under)
    return lines


def _remiz_lines(
    outcome: HandOutcome, conv: Convention, whisters: list[int], value: int, under: int
) -> list[ScoreLine]:
    """The declarer's pulya, or his remiz: to gora, or (Hussar, 001) «отдается прямо вистующему» as whists."""
    assert outcome.declarer is not None  # a game's
    if not under or conv.scoring.remiz_to == "gora" or not whisters:
        return [_declarer_line(outcome.declarer, value, under)]
    factor = conv.scoring.remiz_whist_factor
    lines: list[ScoreLine] = []
    for seat in whisters:
        lines += _whists(seat, outcome.declarer, Fraction(value * under * factor))
    return lines


def _whister_penalty(
    outcome: HandOutcome, conv: Convention, seat: int, missing: Fraction, value: int
) -> list[ScoreLine]:
    """A whister short of his quota: to gora, or (remiz straight to the opponent) as whists the declarer writes."""
    points = missing * value * conv.scoring.whist_responsibility
    assert outcome.declarer is not None  # a game's
    if conv.scoring.remiz_to == "gora":
        return _gora(seat, points)
    return _whists(outcome.declarer, seat, points * conv.scoring.remiz_whist_factor)


def _declarer_line(declarer: int, value: int, under: int) -> ScoreLine:
    if under:
        return ScoreLine(declarer, "gora", Fraction(value * under))
    return ScoreLine(declarer, "pulya", Fraction(value))


def _consolation(conv: Convention, value: int, under: int) -> Fraction:
    per_trick = value if conv.scoring.consolation == "game_value" else conv.scoring.consolation_fixed
    return Fraction(per_trick * under)


def _whists(seat: int, on: int, points: Fraction) -> list[ScoreLine]:
    return [ScoreLine(seat, "whists", Fraction(points), on)] if points else []


def _gora(seat: int, points: Fraction) -> list[ScoreLine]:
    return [ScoreLine(seat, "gora", Fraction(points))] if points else []


def _conceded_lines(outcome: HandOutcome, conv: Convention, whisters: list[int], value: int) -> list[ScoreLine]:
    """«Без трёх» and other concessions: the undertricks to gora; whisters (if any) write consolation."""
    under = outcome.conceded_undertricks
    assert outcome.declarer is not None and under is not None  # a conceded game's
    lines = [_declarer_line(outcome.declarer, value, under)]
    for seat in whisters:
        lines += _whists(seat, outcome.declarer, _consolation(conv, value, under))
    return lines


def _unplayed_lines(outcome: HandOutcome, conv: Convention, whisters: list[int], value: int) -> list[ScoreLine]:
    """Both passed, «пол виста», or a lone whister who took the reduced whists without play (seed 000)."""
    if len(whisters) > 1:
        raise ScoringError("an unplayed contract can leave whists to one defender only")
    assert outcome.declarer is not None and outcome.contract is not None and outcome.contract.level is not None
    lines = [ScoreLine(outcome.declarer, "pulya", Fraction(value))]
    for seat in whisters:
        share = conv.defence.half_whist_share * conv.defence.quota(outcome.contract.level)
        lines += _whists(seat, outcome.declarer, share * value)
    return lines


def _two_whisters_lines(
    outcome: HandOutcome, conv: Convention, whisters: list[int], value: int, under: int
) -> list[ScoreLine]:
    declarer = outcome.declarer
    lines: list[ScoreLine] = []
    assert declarer is not None and outcome.contract is not None and outcome.contract.level is not None  # a game's
    consolation = _consolation(conv, value, under) if under else Fraction(0)
    for seat in whisters:
        lines += _whists(seat, declarer, value * outcome.tricks[seat] + consolation)
    penalties = _pair_penalties([outcome.tricks[s] for s in whisters], conv.defence.quota(outcome.contract.level))
    for seat, missing in zip(whisters, penalties):
        lines += _whister_penalty(outcome, conv, seat, missing, value)
    return lines


def _pair_penalties(tricks: list[int], quota: int) -> list[Fraction]:
    """Missing tricks each of two whisters answers for: only when the pair fell short of the quota, and then the
    one who took less than half the quota (002: «штраф получает тот, кто взял меньше половины»); if both did,
    each answers for his own distance to the half, which together make the pair's shortfall."""
    shortfall = quota - sum(tricks)
    if shortfall <= 0:
        return [Fraction(0)] * len(tricks)
    half = Fraction(quota, 2)
    below = [max(Fraction(0), half - t) for t in tricks]
    if all(below):
        return below
    return [Fraction(shortfall) if b else Fraction(0) for b in below]


def _lone_whister_lines(
    outcome: HandOutcome, conv: Convention, whister: int, value: int, under: int
) -> list[ScoreLine]:
    assert outcome.contract is not None  # a game's
    declarer, level = outcome.declarer, outcome.contract.level
    assert declarer is not None and level is not None
    passer = next((s for s in outcome.defenders if s != whister), None)
    defence_tricks = sum(outcome.tricks[s] for s in outcome.defenders)
    if outcome.whister_invited and conv.scoring.invitation_bonus:
        lines = _whists(whister, declarer, Fraction(value * (defence_tricks + 2 * under)))
    else:
        lines = _split_lone_whists(conv, whister, passer, declarer, value * defence_tricks, value, under)
    # 000: the reduced quota holds «если ... игра идет без приглашения»; with the invitation the full one.
    quota = conv.defence.quota(level) if outcome.whister_invited else conv.defence.lone_quota(level)
    missing = max(0, quota - defence_tricks)
    return lines + _whister_penalty(outcome, conv, whister, Fraction(missing), value)


def _split_lone_whists(
    conv: Convention, whister: int, passer: int | None, declarer: int, trick_whists: int, value: int, under: int
) -> list[ScoreLine]:
    """One whisted, one passed: the whister keeps the trick whists unless the declarer failed under gentleman
    rules (003: «пишут все висты пополам — и консоляцию, и висты за фактическое количество взяток»). Alone at
    the table (two players) the whister writes everything."""
    if not under:
        return _whists(whister, declarer, Fraction(trick_whists))
    consolation = _consolation(conv, value, under)
    if passer is None:
        return _whists(whister, declarer, trick_whists + consolation)
    passer_part = consolation if conv.scoring.passer_writes_consolation else Fraction(0)
    if conv.defence.greedy_whist:
        whister_part = trick_whists + consolation
    else:
        pool = trick_whists + consolation + passer_part
        whister_part = passer_part = pool / 2
    return _whists(whister, declarer, whister_part) + _whists(passer, declarer, passer_part)


# --- misère and raspasy --------------------------------------------------------------------------------------


def _misere_lines(outcome: HandOutcome, conv: Convention) -> list[ScoreLine]:
    assert outcome.declarer is not None  # _check_contract: a misère has its declarer
    taken = outcome.tricks[outcome.declarer] if outcome.played else 0
    value = conv.scoring.misere_value
    if taken:
        return [ScoreLine(outcome.declarer, "gora", Fraction(value * taken))]
    return [ScoreLine(outcome.declarer, "pulya", Fraction(value))]


def _raspasy_lines(outcome: HandOutcome, conv: Convention, streak: int) -> list[ScoreLine]:
    rules = conv.raspasy
    multiplier = rules.multiplier(streak)
    players = {s: outcome.tricks[s] for s in outcome.active}
    # 4 players: the sitting-out dealer owns the talon's tricks for gora and the zero-trick reward, but takes
    # no part in the whist contest of raspasy "to whists" (docs/scoring.md).
    taken = dict(players)
    if rules.talon_tricks_to_dealer and outcome.dealer not in outcome.active:
        taken[outcome.dealer] = outcome.raspasy_talon_tricks
    price = rules.price_per_trick * multiplier
    lines = _raspasy_gora(taken, rules.payers, price) if rules.mode == "gora" else _raspasy_whists(players, price)
    reward = rules.zero_trick_reward * (multiplier if rules.zero_reward_progresses else 1)
    if reward:
        lines += [ScoreLine(s, "pulya", Fraction(reward)) for s, t in sorted(taken.items()) if t == 0]
    # Codex: «взятки считаются по двойной цене» after a dark pass, «очки считаются вчетверо» after a second.
    rounds = dict(outcome.extras).get("dark_pass_rounds", 0)
    assert isinstance(rounds, int)  # RussianState.outcome_facts: dark passes that raised the floor
    dark = rules.dark_pass_factor**rounds
    return [replace(line, points=line.points * dark) for line in lines] if dark != 1 else lines


def _raspasy_gora(taken: dict[int, int], payers: str, price: int) -> list[ScoreLine]:
    """Each payer writes price x tricks to gora; Mail.Ru spares the one who took strictly the fewest."""
    fewest = min(taken.values())
    spared = [s for s, t in taken.items() if t == fewest] if payers == "all_but_fewest" else []
    exempt = set(spared) if len(spared) == 1 else set()
    return [ScoreLine(s, "gora", Fraction(price * t)) for s, t in sorted(taken.items()) if t and s not in exempt]


def _raspasy_whists(players: dict[int, int], price: int) -> list[ScoreLine]:
    """Rostov: whoever took the fewest writes price x tricks on each other player; tied winners share."""
    fewest = min(players.values())
    winners = [s for s, t in sorted(players.items()) if t == fewest]
    losers = [s for s, t in sorted(players.items()) if t != fewest]
    lines = []
    for loser in losers:
        for winner in winners:
            lines += _whists(winner, loser, Fraction(price * players[loser], len(winners)))
    return lines


# --- pulya, closing and helping ------------------------------------------------------------------------------


def _pulya_lines(sheet: Sheet, line: ScoreLine, conv: Convention) -> tuple[ScoreLine, ...]:
    """Pulya points for a seat, after its pulya closes: to the helped player with 10x whists on him (003), or
    (002) as 10x whists shared over the other players."""
    rules = conv.pulya
    if rules.end == "total":
        return (line,)
    seat, size = line.seat, rules.size
    own = min(line.points, max(Fraction(0), size - sheet.pulya[seat]))
    lines = [ScoreLine(seat, "pulya", own)] if own else []
    excess, pulya = line.points - own, list(sheet.pulya)
    while excess > 0 and rules.after_close == "help":
        helped = _helped_seat(pulya, seat, size)
        if helped is None:
            break
        given = min(excess, size - pulya[helped])
        pulya[helped] += given
        excess -= given
        lines += [ScoreLine(helped, "pulya", given), ScoreLine(seat, "whists", given * rules.help_whist_factor, helped)]
    if excess > 0:
        others = [s for s in range(sheet.num_seats) if s != seat]
        each = excess * rules.help_whist_factor / len(others)
        lines += [ScoreLine(seat, "whists", each, o) for o in others]
    return tuple(lines)


def _helped_seat(pulya: list[Fraction], seat: int, size: int) -> int | None:
    """The open pulya nearest to closing (003: «тому, у кого запись в пульке наибольшая»); ties go to the first
    such seat clockwise from the helper."""
    n = len(pulya)
    order = [(seat + k) % n for k in range(1, n)]
    open_seats = [s for s in order if pulya[s] < size]
    return max(open_seats, key=lambda s: pulya[s], default=None)
