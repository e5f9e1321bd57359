"""The Central-European systems of seed 003 — Croatian preferans (and, as they are added, Austrian) — as values of
the same ``Convention``: the number ladder, invitation, kontra chain, defence cap and the counted-down contract
column are parameters of the one state machine and sheet (docs/systems.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fairdeal.rules.convention import (
    BiddingRules,
    Convention,
    DefenceRules,
    PlayRules,
    PulyaRules,
    RaspasyRules,
    ScoringRules,
    TableRules,
)

_SEED = "003_bf7e0a2721a54502.txt"

# 003 Croatian: «2, 3, 4, 5 (представляющие каждую масть), 6 (Bettel), 7 (Sanac)». The seed's table 4 is lost;
# the worked example fixes the suits: «С сыграл в бубнах и списал шесть (2×3)» (3 = diamonds), «В сыграл в трефах
# ... списал 10» (5 = clubs), and the bidding example «может заказать 4, 5 ... т. е. назначить козырем червы или
# трефы» (4 = hearts) — so 2 = spades.
CROATIAN_NUMBERS = ("6S", "6D", "6H", "6C", "misere", "6NT")
# Each defender two, both together four («должны набрать четыре взятки в совокупности»); the invited defender
# answers for nothing and the inviter for all four. The levels above six do not occur in this system.
SIX_ONLY_QUOTAS = ((6, 4), (7, 4), (8, 4), (9, 4), (10, 0))
LONE_QUOTAS = ((6, 2), (7, 2), (8, 2), (9, 2), (10, 0))

CROATIAN = Convention(
    name="croatian",
    title="Хорватский преферанс (Croatian)",
    seeds=(_SEED,),
    players=(3,),
    description="deal 5-2-5, bids 2..7 and «игра», refe, kontra chain, defence capped at five, column from 30",
    bidding=BiddingRules(
        ladder="numbers",
        number_contracts=CROATIAN_NUMBERS,
        first_number=2,
        named_games=((6, "bettel"), (7, "sanac")),
        talon_shown=True,
        senior_may_hold=True,
        misere=True,
    ),
    defence=DefenceRules(
        quotas=SIX_ONLY_QUOTAS,
        lone_whister_quotas=LONE_QUOTAS,
        lone_whister_may_choose_open=False,
        lone_whister_invites=True,
        misere_cards_open_after_first_lead=False,
        kontra_levels=8,
        kontra_from_number=2,
        kontra_invites=True,
        kontra_required_numbers=frozenset({2}),
    ),
    raspasy=RaspasyRules(talon_leads=False, talon_tricks=0),
    scoring=ScoringRules(
        method="countdown",
        sheet_words="contracts",
        number_value_factor=2,
        no_talon_number_bonus=1,
        misere_failed_whist_tricks=5,
        refe_limits=((30, 1), (50, 3)),
        refe_multiplier=2,
    ),
    # «договариваются, какое число поставить как стартовое в колонке контрактов: 30, 50 или больше»; «При
    # окончательном подсчёте результатов очки в колонке контрактов в 10 раз дороже».
    pulya=PulyaRules(size=30, end="countdown", pulya_difference_factor=1, gora_multiplier=10),
    table=TableRules(deal_pattern="croatian", hand_players=3, all_pass="redeal"),
    play=PlayRules(no_trump_lead="next_after_declarer", defence_trick_cap=5),
)


# 003 Austrian: «числа 1, 2, 3, 4 (представляющие каждое свою масть)». The seed's table 2 is lost; the Styrian
# prices («трефовый — 20 ..., пиковый — 30, бубновый — 40, а червовый — 50») give the order clubs < spades <
# diamonds < hearts, and «червы» is the top suit — so 1 = clubs, 2 = spades, 3 = diamonds, 4 = hearts.
AUSTRIAN_NUMBERS = ("6C", "6S", "6D", "6H")
# Illustrated Preference: «5 — Bettel ... 6 — Durchmarsch (тотус) ... 7 — Plauderer (Bettel Ouvert) ... 8 —
# Offener Durchmarsch»; Sans Atout: «торговли старше 6 нет, а вместо Durchmarsch играется 6 без козыря».
ILLUSTRATED_NUMBERS = AUSTRIAN_NUMBERS + ("misere", "10NT", "misere-open", "10NT-open")
SANS_ATOUT_NUMBERS = AUSTRIAN_NUMBERS + ("misere", "6NT")
# «Стоимость контракта — 10 ставок ... 20 ставок ... 30 ставок»; the seed gives no price for Offener Durchmarsch:
# the series goes on to 40 (docs/systems.md). Sans Atout takes Durchmarsch's place and price.
ILLUSTRATED_VALUES = ((5, 10), (6, 20), (7, 30), (8, 40))
SANS_ATOUT_VALUES = ((5, 10), (6, 20))

AUSTRIAN = Convention(
    name="austrian",
    title="Австрийский преферанс (Austrian)",
    seeds=(_SEED,),
    players=(3, 4),
    description="deal 3-2-4-3, bids 1..4, «игра», «червы», unseen talon, the pot, premiums for hearts and aces",
    bidding=BiddingRules(
        ladder="numbers",
        number_contracts=AUSTRIAN_NUMBERS,
        first_number=1,
        named_games=((4, "hearts"),),
        talon_shown=False,
        senior_may_hold=True,
    ),
    defence=DefenceRules(
        quotas=SIX_ONLY_QUOTAS,
        lone_whister_quotas=LONE_QUOTAS,
        lone_whister_may_choose_open=False,
        lone_whister_invites=True,
        misere_cards_open_after_first_lead=False,
    ),
    raspasy=RaspasyRules(talon_leads=False, talon_tricks=0),
    # «Сначала разыгрывающий берёт из котла 10 ставок ... платит каждому вистующему ... по одной ставке за каждую
    # фактическую взятку ... доставляет в котёл 20 ставок ... платит в котёл 10 ставок»; each player puts 50 in
    # at the start («равную сумму денег ... кратна 10»: the amount is ours).
    scoring=ScoringRules(
        method="pot",
        sheet_words="pot",
        pot_initial=50,
        pot_dealer_stake=0,
        pot_play_limit=10,
        no_talon_premiums=((4, 10),),
        premium_four_aces=10,
        premium_no_aces=10,
    ),
    # The pot game has no end of its own: an evening of 30 deals, the pot left shared equally («деньги на кону ...
    # следовало бы разделить между игроками поровну»).
    pulya=PulyaRules(size=30, end="hands", pulya_difference_factor=1, gora_multiplier=1),
    table=TableRules(deal_pattern="austrian", hand_players=3, all_pass="redeal"),
    play=PlayRules(must_overtake=True, declarer_leads_two_whists=True),
)


def _pot_variant(name: str, description: str, **pot: Any) -> Convention:
    return replace(
        AUSTRIAN,
        name=name,
        title=f"{AUSTRIAN.title}, {description}",
        description=description,
        scoring=replace(AUSTRIAN.scoring, **pot),
    )


# «Неограниченный котёл. Изначально котёл пуст. Каждый сдающий добавляет в него 10 ставок ... Разыгрывающий
# забирает весь котёл».
AUSTRIAN_UNLIMITED = _pot_variant(
    "austrian-unlimited",
    "unlimited pot: the dealer adds 10, the declarer plays the whole pot",
    pot_initial=0,
    pot_dealer_stake=10,
    pot_play_limit=None,
)
# «Ограниченный котёл ... в 5, 10 или 20 раз превосходить первоначальную ставку»: ten times.
AUSTRIAN_LIMITED = _pot_variant(
    "austrian-limited",
    "limited pot: the dealer adds 10, a hand plays at most 100",
    pot_initial=0,
    pot_dealer_stake=10,
    pot_play_limit=100,
)
# «Styrian ... Самый дешёвый — трефовый контракт — стоит 20 очков ... пиковый — 30, бубновый — 40, а червовый — 50».
AUSTRIAN_STYRIAN = _pot_variant(
    "austrian-styrian",
    "Styrian pot: a hand plays 20/30/40/50 by its suit",
    pot_stakes=((1, 20), (2, 30), (3, 40), (4, 50)),
)

AUSTRIAN_ILLUSTRATED = replace(
    AUSTRIAN,
    name="austrian-illustrated",
    title="Австрийский преферанс, Illustrated Preference",
    description="Austrian plus Bettel, Durchmarsch, Plauderer, Offener Durchmarsch (5..8) with kontra and rekontra",
    bidding=replace(AUSTRIAN.bidding, number_contracts=ILLUSTRATED_NUMBERS),
    # «защитники не могут отказаться от игры»; «контра ... реконтра» on «бескозырных контрактов».
    defence=replace(AUSTRIAN.defence, kontra_levels=2, kontra_from_number=5, forced_whist_numbers=frozenset({6, 8})),
    scoring=replace(AUSTRIAN.scoring, direct_values=ILLUSTRATED_VALUES, direct_no_talon_factor=2),
)

AUSTRIAN_SANS_ATOUT = replace(
    AUSTRIAN_ILLUSTRATED,
    name="austrian-sans-atout",
    title="Австрийский преферанс, Sans Atout",
    description="Illustrated Preference without bids above 6: six no-trump instead of Durchmarsch, led from the "
    "declarer's right",
    bidding=replace(AUSTRIAN.bidding, number_contracts=SANS_ATOUT_NUMBERS),
    defence=replace(AUSTRIAN_ILLUSTRATED.defence, forced_whist_numbers=frozenset({6})),
    scoring=replace(AUSTRIAN_ILLUSTRATED.scoring, direct_values=SANS_ATOUT_VALUES),
    # «Первый ход в этом случае принадлежит игроку, сидящему справа от разыгрывающего».
    play=replace(AUSTRIAN.play, no_trump_lead="right_of_declarer"),
)

# «По стопам (Nachgehen). Это разновидность игры Illustrated Preference ... контракт, который должен быть не ниже
# чем 5 (Bettel)».
AUSTRIAN_NACHGEHEN = replace(
    AUSTRIAN_ILLUSTRATED,
    name="austrian-nachgehen",
    title="Австрийский преферанс, По стопам (Nachgehen)",
    description="Illustrated Preference where the bidders may take the winner's discard and name Bettel or higher",
    bidding=replace(AUSTRIAN_ILLUSTRATED.bidding, nachgehen_from_number=5),
)
