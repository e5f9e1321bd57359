"""The named Russian conventions of seed 003 («Ленинградка», «Московская пулька (Ростов)», «Сочинка»), Mail.Ru and
the 1996 Codex (seed 002). Each value cites the characteristic it encodes; fields not mentioned keep the book defaults
of ``convention.py`` (seed 000 and the 1996 Codex in seed 002).
"""

from __future__ import annotations

from fractions import Fraction

from fairdeal.rules.convention import (
    MAILRU_QUOTAS,
    BiddingRules,
    Convention,
    DefenceRules,
    PulyaRules,
    RaspasyRules,
    ScoringRules,
)

_SEED_RUSSIAN = "003_bf7e0a2721a54502.txt"
_SEED_BOOK = "000_be3d3be3bbe2f954.txt"
_SEED_MAILRU = "002_c9f23a3292123887.txt"

SOCHI = Convention(
    description="Sochi: responsible greedy whist, raspasy to gora 1-2-3",
    name="sochi",
    title="Сочинка (Sochi)",
    seeds=(_SEED_RUSSIAN, _SEED_BOOK),
    # 000: «Играть в преферанс можно вдвоем, втроем, вчетвером и даже впятером»: at five two sit out.
    players=(3, 4, 5),
    # 3) «вист жлобский».
    defence=DefenceRules(greedy_whist=True),
    # 4) «распасовка на гору: обычно по одному очку»; 5) «(1–2–3)»; 6) zero tricks: one trick to pulya;
    # 7) talon shows the suit (3p) / belongs to the dealer (4p).
    raspasy=RaspasyRules(mode="gora", price_per_trick=1, progression="arithmetic", progression_cap=3),
    # 1) «вист ответственный»; 2) consolation = game value per undertrick.
    scoring=ScoringRules(whist_responsibility=Fraction(1), consolation="game_value"),
    # 8) each reaches the pulya; the closer helps the one with the largest pulya, 10x whists on him.
    pulya=PulyaRules(end="each", after_close="help"),
)

LENINGRAD = Convention(
    description="Leningrad: half-responsible gentleman whist, raspasy to gora 2-4-6, pulya total",
    name="leningrad",
    title="Ленинградка (Leningrad)",
    seeds=(_SEED_RUSSIAN, _SEED_BOOK),
    players=(3, 4, 5),
    # 3) «вист джентльменский».
    defence=DefenceRules(greedy_whist=False),
    # 4) «по два очка за каждую взятку»; 5) «(2–4–6)»; 6) «за ноль взяток на распасовке: игрок пишет в пульку
    # стоимость одной взятки» — two at the base price, following the progression (2–4–6); 7) as Sochi.
    raspasy=RaspasyRules(
        mode="gora",
        price_per_trick=2,
        progression="arithmetic",
        progression_cap=3,
        zero_trick_reward=2,
        zero_reward_progresses=True,
    ),
    # 1) «вист полуответственный»; 2) consolation = game value per undertrick.
    scoring=ScoringRules(whist_responsibility=Fraction(1, 2), consolation="game_value"),
    # 8) total reaches pulya x players; under/over the average: double difference to/from gora.
    pulya=PulyaRules(end="total", pulya_difference_factor=2),
)

ROSTOV = Convention(
    description="Rostov (Moscow): half-responsible whist, raspasy to whists, consolation 10",
    name="rostov",
    title="Московская пулька / Ростов (Moscow, Rostov)",
    seeds=(_SEED_RUSSIAN, _SEED_BOOK),
    players=(3, 4, 5),
    # 3) «вист джентльменский».
    defence=DefenceRules(greedy_whist=False),
    # 4) «распасовка на висты: обычно по пять вистов»; 5) «не прогрессирует»; 6) zero tricks: one to pulya;
    # 7) «прикуп ... не открывается никогда — при игре вчетвером сдатчик пишет единицу в пульку».
    raspasy=RaspasyRules(
        talon_leads=False,
        talon_tricks=0,
        mode="whists",
        price_per_trick=5,
        progression="none",
        progression_cap=None,
        zero_trick_reward=1,
        zero_reward_progresses=False,
    ),
    # 1) «вист полуответственный»; 2) «10 вистов за каждую недобранную взятку».
    scoring=ScoringRules(whist_responsibility=Fraction(1, 2), consolation="fixed", consolation_fixed=10),
    # 8) as Sochi.
    pulya=PulyaRules(end="each", after_close="help"),
)

MAILRU = Convention(
    description="Mail.Ru: jumps, 9/10 without talon, half-whist, без трёх, tightened exit from raspasy",
    name="mailru",
    title="Преферанс Mail.Ru (Mini-games)",
    seeds=(_SEED_MAILRU,),
    players=(3,),
    # «9БП ... 10БП» (one rung each), «Мизер без прикупа», «как на аукционе» (jumps, no «мои»), tightened exit
    # 6/6/7/8.
    bidding=BiddingRules(
        jumps_allowed=True,
        senior_may_hold=False,
        no_talon_levels=frozenset({9, 10}),
        no_talon_single_rung=True,
        misere_without_talon=True,
        raspasy_exit_levels=(6, 6, 7, 8),
    ),
    # Quotas 4/2/1/1/1, «Пол виста», «Без трех»; «часть вистов может получить и пасующий» (not greedy).
    defence=DefenceRules(
        quotas=MAILRU_QUOTAS,
        ten_is_checked=False,
        half_whist=True,
        concede_three=True,
        greedy_whist=False,
    ),
    # «Двое игроков, взявшие наибольшее число взяток, получают штраф»; «Штраф за каждую взятку тоже возрастает»
    # (the seed stops before the figures: 1-2-3 is our reading, docs/scoring.md); «пишется всего одно очко».
    raspasy=RaspasyRules(
        mode="gora",
        price_per_trick=1,
        progression="arithmetic",
        progression_cap=3,
        payers="all_but_fewest",
        zero_trick_reward=1,
        zero_reward_progresses=False,
    ),
    scoring=ScoringRules(whist_responsibility=Fraction(1), consolation="game_value"),
    # «пуля закрывается и все его набранные после этого очки, пишутся как висты на других играющих ... в 10 раз».
    pulya=PulyaRules(end="each", after_close="whists_on_all"),
)

# Seed 002's second text is the Codex itself («В 1996 году был принят Кодекс ... оговорены общие положения, описаны
# принципы и правила игры», «единый Закон»): a rule set of its own. Fields not named keep the book defaults.
CODEX = Convention(
    description="the 1996 Codex: strict ladder, third hand's talon after two passes, dark bids, dark pass doubling "
    "raspasy",
    name="codex",
    title="Кодекс преферанса 1996 (the 1996 Codex)",
    seeds=(_SEED_MAILRU,),
    # «Если играют трое, а приходит четвертый»; «Если играют четверо, то при распасовке начинают игру с открытия
    # первой карты прикупа».
    players=(3, 4),
    # «нельзя перепрыгивать через ступеньки»; «Мизер можно заказать только при первом ходе»; «третья рука имеет
    # право забрать прикуп без торговли ... кроме мизера». «Втёмную можно играть только по предварительной
    # договорённости» — this value is the Codex with that agreement made (docs/systems.md): «раз втёмную.
    # Перебивают самой обычной заявкой»; «можно изменить цену и объявить мизер»; «пас втёмную, если никто не
    # перебил семерной игрой ... после семерной игры снова заказан пас втёмную, то перебивают восьмёркой»; «мизер
    # втёмную. Перебивают ... только девятерной ставкой втёмную или десятерной всветлую».
    bidding=BiddingRules(
        jumps_allowed=False,
        third_hand_no_misere_after_two_passes=True,
        dark_bids=True,
        dark_overcall_next_level=False,
        dark_six_may_switch_to_misere=True,
        dark_pass=True,
        dark_pass_overcall_level=7,
        dark_pass_answers_overcall=True,
        dark_misere_overcall_levels=(9, 10),
    ),
    # «если ход должны сделать вистующие - они же и открывают карты ещё до первого хода»; «Если заказана игра
    # шестерная, то все обязаны вистовать втёмную»; «ловят такой мизер втёмную ... не открывают своих карт».
    defence=DefenceRules(
        misere_open_before_defender_lead=True,
        dark_six_forced_whist=True,
        dark_misere_closed=True,
    ),
    # «Если не взято ни одной взятки, то пишется всего одно очко»; «пас втёмную ... взятки считаются по двойной
    # цене ... очки считаются вчетверо».
    raspasy=RaspasyRules(zero_trick_reward=1, zero_reward_progresses=False, dark_pass_factor=2),
    # «При игре втёмную, цена любой игры удваивается»; a dark pass earns no bomb (the Codex has none).
    scoring=ScoringRules(dark_multiplier=2, dark_pass_bomb_level=0),
)
