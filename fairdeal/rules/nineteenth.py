"""19th-century preferans (seed 003: the reprinted book «для желающих в кратчайшее время научиться игре в
преферанс», rules 1-81) as values of the same ``Convention``: simple preferans with its suit prices, with or without
«кадили», with or without the negotiation about the talon; mixed partial and mixed full preferans (rules 48-57,
79). The remiz stake is the counted-down column of the Croatian sheet (docs/systems.md).
"""

from __future__ import annotations

from dataclasses import replace

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

# Rule 4: «самою младшею мастью пики, за ними следуют трефы, потом бубны и, наконец, самая старшая — черви»;
# rule 44: «вы играли в бубнах ... ремиз вы записываете только три, если с талоном, и четыре, если без талона» and
# rule 43 «в червях без талона ... по пяти за каждую недоделанную»: spades 1, clubs 2, diamonds 3, hearts 4, +1
# without the talon.
SIMPLE_NUMBERS = ("6S", "6C", "6D", "6H")
SUIT_WORDS = ((1, "spades"), (2, "clubs"), (3, "diamonds"), (4, "hearts"))
# Rule 3: «сами обязуются непременно сделать по две взятки».
EACH_TWO = ((6, 2), (7, 2), (8, 2), (9, 2), (10, 0))

PREFERANS_1800S = Convention(
    name="preferans-1800s",
    title="Преферанс XIX века, простой (19th-century simple preferans)",
    seeds=(_SEED,),
    players=(2, 3, 4, 5),
    description="six tricks priced by suit (♠1 ♣2 ♦3 ♥4, +1 without the talon), talon bought after passes, "
    "remiz stake of 21",
    # Rules 20-24: announcements by suit without the talon, then the talon offered in turn; rule 24 «если же все
    # трое спасуют от талона, то игра пересдаётся».
    bidding=BiddingRules(
        ladder="suits",
        number_contracts=SIMPLE_NUMBERS,
        first_number=1,
        named_games=SUIT_WORDS,
        talon_shown=True,
        senior_may_hold=False,
        misere=False,
    ),
    defence=DefenceRules(
        quotas=((6, 4), (7, 4), (8, 4), (9, 4), (10, 0)),
        lone_whister_quotas=EACH_TWO,
        lone_whister_may_choose_open=False,
        each_whister_quota=True,
        passer_sits_out=True,
    ),
    raspasy=RaspasyRules(talon_leads=False, talon_tricks=0),
    # Rules 10, 71: «игрок списывает столько, сколько следует за выигранную игру ... по десятой доле на каждую
    # взятку своим противникам»; «каждая единица записанной мелом ставки заключает в себе десять призов».
    # Rule 41: «при одном ремизе ... за игру берётся только оставшийся ремиз ... и ставится также один ремиз».
    scoring=ScoringRules(
        method="countdown",
        sheet_words="remizes",
        number_value_factor=1,
        no_talon_number_bonus=1,
        remiz_per_trick=False,
        last_remizes_price=1,
    ),
    # Rule 38: «по большей части в употребление введены числа 21, 26, 30»; rule 41 writes the last game only up to
    # the remizes left.
    pulya=PulyaRules(size=21, end="countdown", pulya_difference_factor=1, gora_multiplier=10),
    # Rule 5: «В преферанс могут играть двое, трое, четверо и даже пятеро»; rules 6, 13: at two «на третью руку
    # они кладутся отдельно и не вскрываются до окончания игры»; rule 80: «При игре вдвоём расчёт точно такой же».
    table=TableRules(
        deal_pattern="russian", hand_players=3, all_pass="redeal", patterns_by_players=((2, "russian-two"),)
    ),
    play=PlayRules(),
)

# Rule 43: «за каждую недоделанную взятку ставится столько, сколько поставлено было бы за одну взятку в масти».
PREFERANS_1800S_KADILI = replace(
    PREFERANS_1800S,
    name="preferans-1800s-kadili",
    title="Преферанс XIX века с кадилями",
    description="simple preferans «с кадилями»: every missing trick costs the game's price",
    scoring=replace(PREFERANS_1800S.scoring, remiz_per_trick=True),
)

# Rule 59: «переговоры о талоне ... говорит только куплю, следующий ... если у него есть игра в трефах или других
# старших мастях ... в четвёртый раз объявляет куплю».
PREFERANS_1800S_TALON = replace(
    PREFERANS_1800S,
    name="preferans-1800s-talon",
    title="Преферанс XIX века с переговорами о талоне",
    description="simple preferans with the negotiation about the talon: each «куплю» claims the next suit up",
    bidding=replace(PREFERANS_1800S.bidding, talon_negotiation=True),
)

# Rules 57, 79: «Смешанным, неполным, преферансом называется тот, когда играются кроме червей — шесть бескозырная,
# старше которой восемь с козырями и, наконец, десять»; the surviving price table: «в пиках — 1, в трефах — 2, в
# бубнах — 3, в червях — 4, без козырей — 5, восемь — 6, девять — 7». The rule names ten, the table nine; we follow
# the table (docs/systems.md). «Восемь» and «девять» are played in the suit the declarer names.
MIXED_PARTIAL_NUMBERS = SIMPLE_NUMBERS + ("6NT", "8*", "9*")
MIXED_WORDS = SUIT_WORDS + ((5, "notrump"), (6, "eight"), (7, "nine"))
# Rules 53, 55: «Играющий восемь ... Вист должен иметь только одну взятку»; «девять ... Вистёр должен иметь одну».
MIXED_QUOTAS = ((6, 2), (7, 2), (8, 1), (9, 1), (10, 0))

PREFERANS_1800S_MIXED = replace(
    PREFERANS_1800S,
    name="preferans-1800s-mixed",
    title="Преферанс XIX века, смешанный неполный",
    description="mixed partial preferans: six in suits, six no-trump (5), eight (6) and nine (7) with trumps",
    bidding=replace(PREFERANS_1800S.bidding, number_contracts=MIXED_PARTIAL_NUMBERS, named_games=MIXED_WORDS),
    defence=replace(PREFERANS_1800S.defence, lone_whister_quotas=MIXED_QUOTAS),
)

# Mixed full preferans (rules 48-56). Rule 50 gives the ladder: «Семь перебивают бескозырную шесть, семь
# переговариваются малою бедностью, малую бедность перебивает восемь; восемь переговариваются девятью, а девять —
# тотусом». Rule 49 names «малую и большую бедность, петит мизер и гран мизер»; only the two poverties are
# described (rules 52, 54), by discarding one card or none, and we read petit and grand misère as their French
# names. Большая бедность is not in rule 50's chain; the one rung that contradicts none of its «переговариваются»
# is above тотус (docs/systems.md).
MIXED_FULL_NUMBERS = ("6S", "6C", "6D", "6H", "6NT", "7*", "misere", "8*", "9*", "10*", "misere-bp")
MIXED_FULL_WORDS = SUIT_WORDS + (
    (5, "notrump"),
    (6, "seven"),
    (7, "little-poverty"),
    (8, "eight"),
    (9, "nine"),
    (10, "totus"),
    (11, "great-poverty"),
)
# Rule 51: «При объявлении семь ... вист должен набрать две взятки»; rules 53, 55: one against eight and nine;
# rule 56: тотус «обыкновенно разыгрывается без виста» — no whister answers for a trick.
MIXED_FULL_QUOTAS = ((6, 2), (7, 2), (8, 1), (9, 1), (10, 0))
# Rule 51: «при двух же вистах только подручный игроку обязан сделать две взятки, а последний игрок может взять и
# одну».
MIXED_FULL_SECOND_QUOTAS = ((6, 2), (7, 1), (8, 1), (9, 1), (10, 0))
TOTUS = 10

PREFERANS_1800S_MIXED_FULL = replace(
    PREFERANS_1800S,
    name="preferans-1800s-mixed-full",
    title="Преферанс XIX века, смешанный полный",
    description="mixed full preferans: six in suits and no-trump, seven, малая бедность, eight, nine, тотус, "
    "большая бедность; price = the rung (rule 79's pattern), +1 without the talon",
    # Rule 52: «Малая бедность состоит в том, чтобы не взять ни одной взятки при относе одной карты»: announced, the
    # declarer exchanges one card (number 7); «Эту игру опасно играть с талоном ... можно переменить две карты»:
    # bought, two. Rule 54: большая бедность «не относя ни одной карты» is played on the cards dealt.
    bidding=replace(
        PREFERANS_1800S.bidding,
        number_contracts=MIXED_FULL_NUMBERS,
        named_games=MIXED_FULL_WORDS,
        one_card_exchange_numbers=frozenset({7}),
    ),
    # Rules 52, 54: «противники непременно должны оба вистовать» (a misère is always played by both); rule 56:
    # тотус — «оба противника должны стараться обремизить игрока».
    defence=replace(
        PREFERANS_1800S.defence,
        lone_whister_quotas=MIXED_FULL_QUOTAS,
        second_whister_quotas=MIXED_FULL_SECOND_QUOTAS,
        forced_whist_numbers=frozenset({TOTUS}),
    ),
    # Rules 72-78 (the full tables) are lost; rule 79's partial table prices the rungs 1, 2, ... in ladder order
    # («восемь — 6, девять — 7» right after «без козырей — 5»), so here each rung is its number, +1 without the
    # talon (rule 79: «каждое из этих чисел увеличивается десятком»). Rule 56 confirms it: a lost тотус pays «по
    # 11 призов» a defence trick = the announced тотус's price, 10 + 1. A caught poverty is a remiz only: rule 10
    # pays whisters per trick in trump games, and a poverty's defenders took every trick of a poverty won.
    scoring=replace(PREFERANS_1800S.scoring, misere_failed_whist_tricks=0),
)

PREFERANS_1800S_MIXED_FULL_KADILI = replace(
    PREFERANS_1800S_MIXED_FULL,
    name="preferans-1800s-mixed-full-kadili",
    title="Преферанс XIX века, смешанный полный с кадилями",
    description="mixed full preferans «с кадилями» (rule 77): every missing trick, and every trick of a caught "
    "poverty, costs the game's price",
    scoring=replace(PREFERANS_1800S_MIXED_FULL.scoring, remiz_per_trick=True),
)
