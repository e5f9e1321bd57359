"""The report's words: one sentence template per kind of test and per kind of finding, in each language.

A test's template is keyed by ``TestResult.kind`` and filled from its fields — ``dealer``, ``player``, ``deals``
(the count with its noun), ``observed``, ``expected``, ``e_value``, ``subject``, ``test``, ``statistic`` — a field
the test does not carry is absent, and a template that needs an absent field falls back to ``GENERIC``. A new
kind of test renders by adding its entry here; an unknown kind renders through ``GENERIC``. The chance sentence
(``CHANCE``) follows every test's sentence.
"""

from __future__ import annotations

TESTS: dict[str, dict[str, str]] = {
    "talon-aces": {
        "en": "{observed} aces reached {dealer}'s talons in {deals} where {expected} are expected.",
        "ru": "Тузов в прикупе при сдаче {dealer}: {observed} за {deals}, тогда как ожидается {expected}.",
    },
    "talon-value": {
        "en": (
            "{dealer}'s talons held cards of total rank {observed} in {deals} where {expected} is expected "
            "(a seven counts 0, an ace 7)."
        ),
        "ru": (
            "Сумма рангов карт прикупа при сдаче {dealer}: {observed} за {deals}, тогда как ожидается {expected} "
            "(семёрка — 0, туз — 7)."
        ),
    },
    "talon-aces-depth": {
        "en": (
            "Of {dealer}'s deals, those cut at depth {bound} put {observed} aces in the talon where {expected} are "
            "expected: the most unusual depth, or the one his deals were cut at most ({deals} with a cut of known "
            "depth)."
        ),
        "ru": (
            "В сдачах {dealer}, снятых на глубину {bound}, в прикуп попало тузов: {observed}, тогда как ожидается "
            "{expected}: это самая необычная глубина или та, на которую его сдачи снимали чаще всего ({deals} с "
            "известной глубиной съёма)."
        ),
    },
    "talon-aces-eprocess": {
        "en": (
            "Followed deal by deal, the talon aces of {dealer}'s {deals} grew the evidence against this dealer to a "
            "likelihood ratio of {e_value} (an e-process: valid whenever the audit stops)."
        ),
        "ru": (
            "Если следить сдачу за сдачей, тузы в прикупе за {deals} игрока {dealer} довели отношение "
            "правдоподобия до {e_value} (e-процесс: верен при любой остановке)."
        ),
    },
    "cut-depth": {
        "en": (
            "{dealer}'s deck was cut at one and the same depth {observed} times in {cuts} where {expected} are "
            "expected of an honest cutter."
        ),
        "ru": (
            "Колоду {dealer} снимали на одну и ту же глубину {observed} раз за {cuts}, тогда как у честного "
            "снимающего ожидается {expected}."
        ),
    },
    "lazy-shuffle": {
        "en": (
            "{observed} of {dealer}'s {shuffles} with riffles left the deck guessable from the gathered order "
            "where {expected} are expected."
        ),
        "ru": (
            "Тасовок {dealer} с рифлами, после которых колоду можно угадать по собранному порядку: {observed} "
            "из {shuffles}, тогда как ожидается {expected}."
        ),
    },
    "aces-together": {
        "en": (
            "{dealer}'s shuffles brought the aces together more than honest shuffles of the same effort do, "
            "over {deals} (combined score {observed} where {expected} is expected)."
        ),
        "ru": (
            "Тасовки {dealer} сводили тузов вместе чаще, чем честные тасовки того же усилия, за {deals} "
            "(сводный счёт {observed}, ожидается {expected})."
        ),
    },
    "talon-same-effort": {
        "en": (
            "{dealer}'s talons were richer than honest shuffles of the same effort give from the same gathered "
            "deck, over {deals} (combined score {observed} where {expected} is expected)."
        ),
        "ru": (
            "Прикупы {dealer} были богаче, чем дают честные тасовки того же усилия из той же собранной колоды, "
            "за {deals} (сводный счёт {observed}, ожидается {expected})."
        ),
    },
    "talon-rank": {
        "en": (
            "When {dealer} dealt, the talon was better than chance given {player}'s hand, over {deals} "
            "(combined score {observed} where {expected} is expected)."
        ),
        "ru": (
            "При сдаче {dealer} прикуп был лучше случайного относительно руки {player}, за {deals} "
            "(сводный счёт {observed}, ожидается {expected})."
        ),
    },
    "hand-value": {
        "en": (
            "When {dealer} dealt, {player}'s hands were stronger than chance, over {deals} (combined score "
            "{observed} where {expected} is expected)."
        ),
        "ru": (
            "При сдаче {dealer} руки {player} были сильнее случайных, за {deals} (сводный счёт {observed}, "
            "ожидается {expected})."
        ),
    },
    "hand-same-effort": {
        "en": (
            "When {dealer} dealt, {player}'s hands were stronger than honest shuffles of the same effort give, "
            "over {deals} (combined score {observed} where {expected} is expected)."
        ),
        "ru": (
            "При сдаче {dealer} руки {player} были сильнее, чем дают честные тасовки того же усилия, за {deals} "
            "(сводный счёт {observed}, ожидается {expected})."
        ),
    },
    "battery": {
        "en": "The deal generator failed the test '{test}' over {deals}.",
        "ru": "Генератор раздач не прошёл тест «{test}» за {deals}.",
    },
    "seat-aces-high": {
        "en": (
            "In {observed} of {dealer}'s {deals} {player} was dealt {bound} aces or more, where {expected} are "
            "expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} игроку {player} пришло не меньше {bound} тузов, тогда как "
        "ожидается {expected}.",
    },
    "seat-aces-low": {
        "en": (
            "In {observed} of {dealer}'s {deals} {player} was dealt at most {bound} aces, where {expected} are "
            "expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} игроку {player} пришло не больше {bound} тузов, тогда как "
        "ожидается {expected}.",
    },
    "seat-longest-high": {
        "en": (
            "In {observed} of {dealer}'s {deals} {player} was dealt a suit of {bound} cards or more, where {expected} "
            "are expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} игроку {player} пришла масть не короче {bound} карт, тогда "
        "как ожидается {expected}.",
    },
    "seat-longest-low": {
        "en": (
            "In {observed} of {dealer}'s {deals} {player}'s longest suit had at most {bound} cards, where {expected} "
            "are expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} самая длинная масть игрока {player} была не длиннее {bound} "
        "карт, тогда как ожидается {expected}.",
    },
    "talon-points-high": {
        "en": (
            "In {observed} of {dealer}'s {deals} the talon held {bound} high-card points or more (ace 4, king 3, "
            "queen 2, jack 1), where {expected} are expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} в прикупе было не меньше {bound} очков старших карт (туз 4, "
        "король 3, дама 2, валет 1), тогда как ожидается {expected}.",
    },
    "talon-points-low": {
        "en": (
            "In {observed} of {dealer}'s {deals} the talon held at most {bound} high-card points (ace 4, king 3, "
            "queen 2, jack 1), where {expected} are expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} в прикупе было не больше {bound} очков старших карт (туз 4, "
        "король 3, дама 2, валет 1), тогда как ожидается {expected}.",
    },
    "talon-low-high": {
        "en": (
            "In {observed} of {dealer}'s {deals} the talon held {bound} or more cards of the deck's two lowest ranks, "
            "where {expected} are expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} в прикупе было не меньше {bound} карт двух младших "
        "достоинств колоды, тогда как ожидается {expected}.",
    },
    "talon-low-low": {
        "en": (
            "In {observed} of {dealer}'s {deals} the talon held at most {bound} cards of the deck's two lowest ranks, "
            "where {expected} are expected."
        ),
        "ru": "Из {deals} игрока {dealer} в {observed} в прикупе было не больше {bound} карт двух младших "
        "достоинств колоды, тогда как ожидается {expected}.",
    },
}

GENERIC = {
    "en": "{subject}: the test '{test}' over {count} observations gave the statistic {statistic}.",
    "ru": "{subject}: тест «{test}» по {count} наблюдениям дал статистику {statistic}.",
}

CHANCE = {
    "en": (
        " Honest play gives this {chance} once all {tests} of the audit are allowed for (Holm-adjusted); "
        "{raw_chance} for this test alone (raw p-value)."
    ),
    "ru": (
        " При честной игре это случается {chance} с поправкой на все {tests} аудита (поправка Холма); "
        "{raw_chance} для одного этого теста (исходное p-значение)."
    ),
}

FINDINGS: dict[str, dict[str, str]] = {
    "deal-mismatch": {
        "en": "In {hands} dealt by {who} the cards do not follow from the logged shuffle and cut ({numbers}).",
        "ru": "При сдаче {who} карты не следуют из записанной тасовки и съёма — раздач: {n} ({numbers}).",
    },
    "bad-deal": {
        "en": "In {hands} dealt by {who} the deal itself is impossible ({numbers}).",
        "ru": "При сдаче {who} сама раздача невозможна — раздач: {n} ({numbers}).",
    },
    "illegal-cut": {
        "en": "{who}'s deck was cut against the rules in {hands} ({numbers}).",
        "ru": "Колоду {who} сняли не по правилам — раздач: {n} ({numbers}).",
    },
    "false-cut": {
        "en": "The cut of {who}'s deck was undone or faked in {hands} ({numbers}).",
        "ru": "Съём колоды {who} был отменён или ложен — раздач: {n} ({numbers}).",
    },
    "wrong-cutter": {
        "en": "In {hands} dealt by {who} the wrong player cut ({numbers}).",
        "ru": "При сдаче {who} снимал не тот игрок — раздач: {n} ({numbers}).",
    },
    "targeted-hand": {
        "en": "{hands} dealt by {who} are each unlikely to come from the gathered deck ({numbers}).",
        "ru": "При сдаче {who} по отдельности маловероятны из собранной колоды — раздач: {n} ({numbers}).",
    },
    "dealer-out-of-turn": {
        "en": "{who} dealt out of turn in {hands} ({numbers}).",
        "ru": "{who} сдавал(а) не в свою очередь — раздач: {n} ({numbers}).",
    },
    "illegal-play": {
        "en": "{who} played a card the rules forbid in {hands} ({numbers}).",
        "ru": "{who} сыграл(а) запрещённую правилами карту — раздач: {n} ({numbers}).",
    },
    "illegal-bid": {
        "en": "{who} made a bid the rules forbid in {hands} ({numbers}).",
        "ru": "{who} сделал(а) запрещённую правилами заявку — раздач: {n} ({numbers}).",
    },
    "cooked-score": {
        "en": "{who}'s score line differs from the one the rules give in {hands} ({numbers}).",
        "ru": "Запись {who} в пуле расходится с правилами — раздач: {n} ({numbers}).",
    },
    "cooked-settlement": {
        "en": "The final settlement of {who} differs from the recomputed sheet.",
        "ru": "Итоговый расчёт {who} расходится с пересчитанной пулей.",
    },
    "wrong-streak": {
        "en": "The logged raspasy streak is wrong in {hands} ({numbers}).",
        "ru": "Записанная серия распасов неверна — раздач: {n} ({numbers}).",
    },
    "repeated-deal": {
        "en": "The deal generator dealt exactly the same cards again ({numbers}).",
        "ru": "Генератор раздач повторил ту же раздачу ({numbers}).",
    },
    "weak-seed": {
        "en": "The deal generator's seed was found by a search in {hands} ({numbers}).",
        "ru": "Зерно генератора раздач найдено перебором — раздач: {n} ({numbers}).",
    },
}

GENERIC_FINDING = {
    "en": "{kind} in {hands} ({numbers}): {message}",
    "ru": "{kind} — раздач: {n} ({numbers}): {message}",
}

PHRASES: dict[str, dict[str, str]] = {
    "flagged": {
        "en": "Flagged: {names}. {flagged} of {tests} would be this extreme under honest play less often than {level}.",
        "ru": (
            "Под подозрением: {names}. Тестов, которые при честной игре дают такое реже, чем {level}: "
            "{flagged} (всего {tests})."
        ),
    },
    "certain": {
        "en": "Flagged: {names}, by findings no honest hand shows.",
        "ru": "Под подозрением: {names} — по находкам, которых не бывает в честной игре.",
    },
    "clean": {
        "en": "Nothing flagged in {hands} of {players}.",
        "ru": "Ничего подозрительного не найдено ({hands}; игроки: {players}).",
    },
    "tested": {
        "en": "Tested: {tests} at the family-wise level {level} ({kinds}); {legality}",
        "ru": "Проверено: {tests} на общем уровне {level} ({kinds}); {legality}",
    },
    "received": {"en": "{player} (received from {dealer})", "ru": "{player} (получал(а) от {dealer})"},
    "generator": {"en": "the deal generator", "ru": "генератор раздач"},
    "legality": {
        "en": "{replayed} of {hands} replayed through the rules of the game.",
        "ru": "{replayed} из {hands} переиграны по правилам игры.",
    },
    "no-legality": {
        "en": "the play was not replayed.",
        "ru": "розыгрыш не переигрывался.",
    },
    "benefit": {
        "en": "{dealer} dealt; {player} received {aces} in {deals} where {expected} are expected.",
        "ru": "Сдавал(а) {dealer}; {player} получил(а) тузов: {aces} за {deals}, тогда как ожидается {expected}.",
    },
    "takers": {
        "en": "Who took {dealer}'s talons as declarer: {takers}.",
        "ru": "Кто брал прикуп при сдаче {dealer} как разыгрывающий: {takers}.",
    },
    "taker": {
        "en": "{player} {deals} ({aces})",
        "ru": "{player} — {deals} ({aces})",
    },
    "limit-how": {
        "en": (
            "What this does not show: the figures say how rarely honest dealing gives what the log shows, not "
            "how it was done, nor whether anyone else took part."
        ),
        "ru": (
            "Чего это не показывает: числа говорят, как редко честная сдача даёт то, что записано, но не как это "
            "сделано и участвовал ли кто-то ещё."
        ),
    },
    "limit-benefit": {
        "en": "A player who received the cards is not thereby accused: the dealer chose them.",
        "ru": "Получивший карты этим не обвиняется: их выбирал сдающий.",
    },
    "limit-log": {
        "en": "A log written wrongly can look like cheating: the hands below let a person check the cards.",
        "ru": "Неверно записанный протокол может выглядеть как шулерство: раздачи ниже позволяют проверить карты.",
    },
    "limit-clean": {
        "en": (
            "This does not prove the evening honest: a cheat used rarely, or of a kind these tests do not look "
            "for, can pass unseen."
        ),
        "ru": (
            "Это не доказывает честность вечера: редкое шулерство или приём, которого эти тесты не ищут, может "
            "пройти незамеченным."
        ),
    },
    "skipped": {
        "en": "Not run on this log: {what}.",
        "ru": "Не выполнялось на этом протоколе (по-английски): {what}.",
    },
    "rules": {
        "en": "Rules broken: {names}.",
        "ru": "Нарушили правила: {names}.",
    },
}

KIND_NAMES: dict[str, dict[str, str]] = {
    "talon": {"en": "talons", "ru": "прикупы"},
    "hand": {"en": "hands per dealer and seat", "ru": "руки по сдающему и месту"},
    "cut": {"en": "cut depths", "ru": "глубина съёма"},
    "shuffle": {"en": "the shuffles' own tells", "ru": "признаки самих тасовок"},
    "generator": {"en": "the deal generator", "ru": "генератор раздач"},
}

WHY: dict[str, dict[str, str]] = {
    "talon": {"en": "{aces} in the talon", "ru": "тузов в прикупе: {count}"},
    "seat": {"en": "{player}'s hand: {aces}", "ru": "рука {player}: тузов {count}"},
    "cut": {"en": "cut at depth {depth}, the repeated depth", "ru": "съём на глубину {depth}, повторяющуюся"},
    "finding": {"en": "finding: {kind}", "ru": "находка: {kind}"},
}

CAPTION = {
    "en": "hand {hand} (line {line}): dealt by {dealer}{cut}; {why}",
    "ru": "раздача {hand} (строка {line}): сдавал(а) {dealer}{cut}; {why}",
}
CUT_BY = {"en": ", cut by {cutter}", "ru": ", снимал(а) {cutter}"}
TALON_WORD = {"en": "talon", "ru": "прикуп"}
OUT_WORD = {"en": "sits out", "ru": "не играет"}
