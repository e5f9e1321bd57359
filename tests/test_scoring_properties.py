"""Algebraic claims about the sheet and the settlement, over random consistent hands and random conventions."""

from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import Suit
from fairdeal.engine.outcome import Contract, DefenceCall, HandKind, HandOutcome
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import is_finished, new_sheet
from fairdeal.systems import conventions as registered_conventions

LONE_QUOTAS_000 = ((6, 2), (7, 1), (8, 1), (9, 1), (10, 0))


@st.composite
def conventions(draw):
    pulya_sheets = [c for c in registered_conventions().values() if c.scoring.method == "pulya"]  # the Russian sheet
    base = draw(st.sampled_from(sorted(pulya_sheets, key=lambda c: c.name)))
    defence = replace(
        base.defence,
        greedy_whist=draw(st.booleans()),
        lone_whister_quotas=draw(st.sampled_from([None, LONE_QUOTAS_000])),
    )
    raspasy = replace(
        base.raspasy,
        mode=draw(st.sampled_from(["gora", "whists"])),
        progression=draw(st.sampled_from(["none", "arithmetic", "geometric"])),
        progression_cap=draw(st.sampled_from([None, 3])),
        payers=draw(st.sampled_from(["all", "all_but_fewest"])),
        price_per_trick=draw(st.integers(1, 5)),
        zero_reward_progresses=draw(st.booleans()),
    )
    scoring = replace(
        base.scoring,
        whist_responsibility=draw(st.sampled_from([Fraction(1), Fraction(1, 2)])),
        consolation=draw(st.sampled_from(["game_value", "fixed"])),
        passer_writes_consolation=draw(st.booleans()),
        invitation_bonus=draw(st.booleans()),
    )
    pulya = replace(
        base.pulya,
        size=draw(st.integers(4, 30)),
        end=draw(st.sampled_from(["each", "total"])),
        after_close=draw(st.sampled_from(["help", "whists_on_all"])),
        gora_settlement=draw(st.sampled_from(["shared", "pairwise"])),
    )
    players = draw(st.sampled_from([(3,), (3, 4), (3, 4, 5)]))
    return replace(base, players=players, defence=defence, raspasy=raspasy, scoring=scoring, pulya=pulya)


def split_ten(draw, parts):
    cuts = sorted(draw(st.lists(st.integers(0, 10), min_size=parts - 1, max_size=parts - 1)))
    bounds = [0, *cuts, 10]
    return [bounds[i + 1] - bounds[i] for i in range(parts)]


@st.composite
def outcomes(draw, num_seats):
    dealer = draw(st.integers(0, num_seats - 1))
    order = [(dealer + k) % num_seats for k in range(1, num_seats + 1)]
    active = tuple(order[:3])  # at four the dealer sits out, at five the dealer and his right-hand neighbour
    kind = draw(st.sampled_from(list(HandKind)))
    tricks = [0] * num_seats
    if kind is HandKind.REDEAL:
        return HandOutcome(num_seats, dealer, active, kind, tuple(tricks), played=False)
    if kind is HandKind.RASPASY:
        # 4 players: up to two tricks go to the talon cards (the dealer's); the rest are the players'.
        talon = draw(st.integers(0, 2)) if num_seats >= 4 else 0
        for seat, t in zip(active, split_ten(draw, 3)):
            tricks[seat] = t
        tricks[max(active, key=lambda s: tricks[s])] -= talon
        return HandOutcome(num_seats, dealer, active, kind, tuple(tricks), raspasy_talon_tricks=talon)
    declarer = draw(st.sampled_from(active))
    defenders = [s for s in active if s != declarer]
    for seat, t in zip(active, split_ten(draw, 3)):
        tricks[seat] = t
    if kind is HandKind.MISERE:
        return HandOutcome(
            num_seats,
            dealer,
            active,
            kind,
            tuple(tricks),
            declarer=declarer,
            contract=Contract(None, None, misere=True),
            defence=tuple((s, DefenceCall.WHIST) for s in defenders),
        )
    contract = Contract(draw(st.integers(6, 10)), draw(st.sampled_from([None, *Suit])))
    calls = [draw(st.sampled_from([DefenceCall.PASS, DefenceCall.WHIST])) for _ in defenders]
    style = draw(st.sampled_from(["played", "unplayed", "half", "conceded"]))
    common = {
        "num_seats": num_seats,
        "dealer": dealer,
        "active": active,
        "kind": kind,
        "declarer": declarer,
        "contract": contract,
    }
    if style == "unplayed":
        return HandOutcome(
            tricks=(0,) * num_seats, played=False, defence=tuple((s, DefenceCall.PASS) for s in defenders), **common
        )
    if style == "half":
        return HandOutcome(
            tricks=(0,) * num_seats,
            played=False,
            defence=((defenders[0], DefenceCall.PASS), (defenders[1], DefenceCall.HALF_WHIST)),
            **common,
        )
    if style == "conceded":
        return HandOutcome(tricks=(0,) * num_seats, played=False, conceded_undertricks=3, defence=(), **common)
    return HandOutcome(
        tricks=tuple(tricks),
        defence=tuple(zip(defenders, calls)),
        whister_invited=draw(st.booleans()) and calls.count(DefenceCall.WHIST) == 1,
        **common,
    )


@st.composite
def matches(draw):
    conv = draw(conventions())
    num_seats = draw(st.sampled_from(conv.players))
    hands = draw(st.lists(outcomes(num_seats), min_size=1, max_size=25))
    return conv, num_seats, hands


def play(conv, num_seats, hands):
    sheet = new_sheet(conv, num_seats)
    for outcome in hands:
        sheet, lines = score_hand(sheet, outcome, conv)
        assert all(line.points > 0 for line in lines)
        if is_finished(sheet, conv):
            break
    return sheet


@settings(max_examples=200, deadline=None)
@given(matches())
def test_every_sheet_settles_to_exactly_zero(match):
    conv, num_seats, hands = match
    result = settle(play(conv, num_seats, hands), conv)
    assert sum(result.amounts) == 0
    assert sum(result.rounded()) == 0
    assert all(abs(r - a) < 1 for r, a in zip(result.rounded(), result.amounts))


@settings(max_examples=100, deadline=None)
@given(matches(), st.integers(-50, 50))
def test_amnesty_invariance(match, constant):
    conv, num_seats, hands = match
    sheet = play(conv, num_seats, hands)
    shifted = replace(sheet, gora=tuple(g + constant for g in sheet.gora))
    assert settle(shifted, conv).amounts == settle(sheet, conv).amounts


@settings(max_examples=100, deadline=None)
@given(matches())
def test_whist_balances_are_antisymmetric(match):
    conv, num_seats, hands = match
    sheet = play(conv, num_seats, hands)
    pair = [[sheet.whists[a][b] - sheet.whists[b][a] for b in range(num_seats)] for a in range(num_seats)]
    assert all(pair[a][b] == -pair[b][a] for a in range(num_seats) for b in range(num_seats))
    assert sum(sheet.whist_balance(s) for s in range(num_seats)) == 0


@settings(max_examples=100, deadline=None)
@given(matches())
def test_closed_pulyas_never_overflow_when_helping(match):
    conv, num_seats, hands = match
    sheet = play(conv, num_seats, hands)
    if conv.pulya.end == "each":
        assert all(p <= conv.pulya.size for p in sheet.pulya)


@settings(max_examples=60, deadline=None)
@given(matches())
def test_renaming_a_convention_changes_nothing(match):
    conv, num_seats, hands = match
    renamed = replace(conv, name="house", title="House rules")
    original = settle(play(conv, num_seats, hands), conv)
    assert settle(play(renamed, num_seats, hands), renamed).amounts == original.amounts
