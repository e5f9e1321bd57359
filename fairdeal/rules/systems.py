"""The systems beyond the four table conventions: Classic (seeds 003, 000), Hussar (seeds 001, 000) and Gusarik
(seed 003) played by the scoring of Sochi, Leningrad or Rostov. Each is a value of the same ``Convention``; every
difference sits in a parameter of ``convention.py``.
"""

from __future__ import annotations

from dataclasses import replace

from fairdeal.rules.convention import (
    BOOK_QUOTAS,
    BiddingRules,
    Convention,
    DefenceRules,
    PulyaRules,
    RaspasyRules,
    ScoringRules,
    TableRules,
)
from fairdeal.rules.russian import LENINGRAD, ROSTOV, SOCHI

_SEED_RUSSIAN = "003_bf7e0a2721a54502.txt"
_SEED_BOOK = "000_be3d3be3bbe2f954.txt"
_SEED_HUSSAR = "001_28a57c6513f5f5a4.txt"

CLASSIC = Convention(
    name="classic",
    title="Классика (Classic)",
    seeds=(_SEED_RUSSIAN, _SEED_BOOK),
    players=(3, 4, 5),
    description="bombs from opening raspasy, dark bids and dark pass, no-talon bids at every level",
    # «возможность торговаться втёмную; заказывать игры без прикупа»: no-talon bids at each level; «обычный мизер
    # перебивается девятерной, а мизер без прикупа — девятерной без прикупа или десятерной с прикупом».
    bidding=BiddingRules(
        no_talon_levels=frozenset({6, 7, 8, 9, 10}),
        misere_without_talon=True,
        misere_bp_plain_overcall_level=10,
        dark_bids=True,
        dark_overcall_next_level=True,
        dark_six_may_switch_to_misere=True,
        dark_pass=True,
        dark_pass_overcall_level=7,
    ),
    # «Классика весьма похожа на сочинку и ленинградку»: Sochi's defence, plus the dark six and dark misère rules.
    defence=replace(SOCHI.defence, dark_six_forced_whist=True, dark_misere_closed=True),
    raspasy=SOCHI.raspasy,
    # The Paramosha example: «за 4 взятки как за 8 по 96» = consolation of the game value per undertrick to each
    # whister (Sochi's); bombs and dark double; 000's dealer consolation for aces in a sold talon.
    scoring=replace(SOCHI.scoring, dealer_talon_consolation=True),
    pulya=SOCHI.pulya,
    # «обычно два» rounds of raspasy before the pulya.
    table=TableRules(opening_raspasy_rounds=2),
)

# 001: «прикупивший назначил игру черви и остался без двух, Вистующий записывает на него ... 200, вместо того, как
# это делается в обыкновенном Преферансе, когда игрок поставил курочку в размере 20»: a six is worth 10 a trick
# (two down = 20, x10 as whists = 200); the ladder keeps the book's proportions 1:2:3:4:5 (docs/scoring.md).
HUSSAR_VALUES = ((6, 10), (7, 20), (8, 30), (9, 40), (10, 50))
# 000/001: «Вистуя один, он должен в простой игре взять две взятки ... При игре на семь ... одну взятку, если
# играет один»; eight and nine alone are not named: one trick, as with the invitation (our reading).
HUSSAR_LONE_QUOTAS = ((6, 2), (7, 1), (8, 1), (9, 1), (10, 0))

HUSSAR = Convention(
    name="hussar",
    title="Гусарский преферанс (Hussar)",
    seeds=(_SEED_HUSSAR, _SEED_BOOK),
    players=(2,),
    description="two players, 24 cards, two side talons, remiz straight to the whister, no raspasy",
    # «Торговля ... в том же ключе, что и при обычном преферансе, начиная от шести пик и заканчивая десять без
    # козырей»: no misère, no no-talon bids.
    bidding=BiddingRules(misere=False),
    # «с приглашением своей прикупки ... четыре взятки ... семь ... две ... восемь и девять ... одной взятки ...
    # десять бывает только проверка»; «играют втемную и карты никогда не открывают».
    defence=DefenceRules(
        quotas=BOOK_QUOTAS,
        lone_whister_quotas=HUSSAR_LONE_QUOTAS,
        whist_with_talon=True,
        lone_whister_may_choose_open=False,
    ),
    raspasy=RaspasyRules(talon_leads=False, talon_tricks=0),
    # «За взятки вистующий записывает, как обычно, но без всяких прибавлений, т. е. по 10 очков за взятку.
    # Консоляции же приписываются по 20 очков за каждую недобранную взятку»; remiz straight to the whister.
    scoring=ScoringRules(
        contract_values=HUSSAR_VALUES,
        consolation="fixed",
        consolation_fixed=20,
        remiz_to="whister",
        remiz_whist_factor=10,
    ),
    # «пульку, как правило, начинают с большой цифры - 400 или 500».
    pulya=PulyaRules(size=400),
    table=TableRules(deck="hussar24", deal_pattern="hussar", hand_players=2, all_pass="redeal"),
)


def gusarik(base: Convention) -> Convention:
    """Gusarik (003) played by the scoring of ``base``: «В гусарика можно играть по правилам любой из
    разновидностей: сочинки, ленинградки, московской пульки (ростова)»."""
    return replace(
        base,
        name=f"gusarik-{base.name}",
        title=f"Гусарик (Gusarik) по правилам {base.title}",
        seeds=(_SEED_RUSSIAN,),
        players=(2,),
        description=f"two players and a dummy on first hand, scored as {base.name}, gora difference x10",
        # «спасовать (уйти за полвиста)»: the lone defender's pass earns half the whists, at every level.
        defence=replace(base.defence, half_whist=True, half_whist_levels=frozenset({6, 7, 8, 9, 10})),
        # «В распасовке карты болвана не участвуют и прикуп тоже не открывается».
        raspasy=replace(base.raspasy, talon_leads=False, talon_tricks=0),
        # «гору обычно не делят пополам, а вычитают из большей меньшую и умножают разницу на 10».
        pulya=replace(base.pulya, gora_settlement="pairwise"),
        table=TableRules(deal_pattern="gusarik", hand_players=2, dummy=True, dummy_in_raspasy=False),
    )


GUSARIK_SOCHI = gusarik(SOCHI)
GUSARIK_LENINGRAD = gusarik(LENINGRAD)
GUSARIK_ROSTOV = gusarik(ROSTOV)
