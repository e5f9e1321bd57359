"""Final settlement: gora x10, amnesty, equal shares, whist balances; seed 000's worked example."""

from dataclasses import replace
from fractions import Fraction

from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import new_sheet
from fairdeal.rules import LENINGRAD, ROSTOV, SOCHI


def sheet(conv, gora=(0, 0, 0), pulya=None, whists=None):
    n = len(gora)
    base = new_sheet(conv, n)
    return replace(
        base,
        gora=tuple(Fraction(g) for g in gora),
        pulya=tuple(Fraction(p) for p in (pulya or base.pulya)),
        whists=tuple(tuple(Fraction(w) for w in row) for row in (whists or base.whists)),
    )


def test_seed000_gora_settlement_with_amnesty():
    """000 (рис. 133): «Сначала горы умножаются на 10, а потом от каждой горы отнимается минимальная гора, в нашем
    случае это 100 очков ... 0 ... 80 ... 120 ... 220 ... 420/4 = 105 ... +105 ... + 25 ... -15 ... -115».
    Gora 10/18/22/32 x10 = 100/180/220/320, minus 100 = 0/80/120/220."""
    result = settle(sheet(SOCHI, gora=(10, 18, 22, 32)), SOCHI)
    assert [r.gora_after_amnesty for r in result.rows] == [0, 80, 120, 220]
    assert result.amounts == (105, 25, -15, -115)
    assert sum(result.amounts) == 0


def test_seed000_whist_balance_is_added_pairwise():
    """000: «подсчитать разницу в вистовых очках попарно для всех игроков ... сложить с результатом подсчета
    горы». Seat 0 wrote 20 on seat 1, seat 1 wrote 16 on seat 0 and 6 on seat 2."""
    whists = ((0, 20, 0), (16, 0, 6), (0, 0, 0))
    result = settle(sheet(SOCHI, gora=(0, 0, 3), whists=whists), SOCHI)
    assert [r.whist_balance for r in result.rows] == [4, 2, -6]
    assert result.amounts == (14, 12, -26)
    assert sum(result.amounts) == 0


def test_settlement_in_thirds_is_exact_and_rounds_to_zero_sum():
    result = settle(sheet(SOCHI, gora=(0, 1, 0)), SOCHI)
    assert result.amounts == (Fraction(10, 3), Fraction(-20, 3), Fraction(10, 3))
    assert sum(result.rounded()) == 0
    assert result.rounded() == (4, -7, 3)


def test_seed003_leningrad_pulya_differences_move_to_gora_double():
    """003 Ленинградка 8): «Тот, кто не доиграл до среднего арифметического, выносит на гору двойную разницу ...
    Тот, кто переиграл, списывает свою разницу с горы — тоже вдвойне». Pulya 30/20/10, average 20."""
    result = settle(sheet(LENINGRAD, gora=(0, 0, 0), pulya=(30, 20, 10)), LENINGRAD)
    assert [r.pulya_adjustment for r in result.rows] == [-20, 0, 20]
    assert result.amounts == (200, 0, -200)


def test_sochi_has_no_pulya_adjustment():
    result = settle(sheet(SOCHI, pulya=(30, 20, 10)), SOCHI)
    assert result.amounts == (0, 0, 0)


def test_seed003_gusarik_gora_difference_times_ten():
    """003 Гусарик: «гору обычно не делят пополам, а вычитают из большей меньшую и умножают разницу на 10»."""
    pairwise = replace(ROSTOV, players=(2, 3), pulya=replace(ROSTOV.pulya, gora_settlement="pairwise"))
    shared = replace(pairwise, pulya=replace(pairwise.pulya, gora_settlement="shared"))
    assert settle(sheet(pairwise, gora=(5, 12)), pairwise).amounts == (70, -70)
    assert settle(sheet(shared, gora=(5, 12)), shared).amounts == (35, -35)
