"""A convention (Sochi, Leningrad, Rostov, Mail.Ru, or a house rule) as one frozen value of named parameters.

The engine and the scoring sheet read these fields and never branch on a convention's name. A house rule is a
new value: ``dataclasses.replace(SOCHI, raspasy=dataclasses.replace(SOCHI.raspasy, price_per_trick=2))``.
Each field's comment names the seed passage it comes from (seed files in ``/work/shared/seeds``:
000 = classic book rules, 002 = Mail.Ru rules + the 1996 Codex, 003 = the Russian conventions chapter).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from fairdeal.deal import get_pattern
from fairdeal.errors import ConventionError, DealError

LEVELS = (6, 7, 8, 9, 10)

RaspasyMode = Literal["gora", "whists"]
Progression = Literal["none", "arithmetic", "geometric"]
RaspasyPayers = Literal["all", "all_but_fewest"]
ConsolationMode = Literal["game_value", "fixed"]
PulyaEnd = Literal["each", "total", "countdown", "hands"]
AfterClose = Literal["help", "whists_on_all"]
GoraSettlement = Literal["shared", "pairwise"]
RemizTo = Literal["gora", "whister"]
AllPass = Literal["raspasy", "redeal"]
TalonSide = Literal["left", "right"]
Ladder = Literal["russian", "numbers", "suits"]
ScoringMethod = Literal["pulya", "countdown", "pot"]
SheetWords = Literal["pulya", "contracts", "pot", "remizes"]
NoTrumpLead = Literal["first_hand", "next_after_declarer", "right_of_declarer"]

# 000: «простая ... 2 очка. За семерную ... 4 очка, за восьмерную — 6 очков, за девятерную — 8, а за десятерную
# игру и мизер — 10 очков»; 002 lists the same «Стоимость контрактов».
STANDARD_VALUES: tuple[tuple[int, int], ...] = ((6, 2), (7, 4), (8, 6), (9, 8), (10, 10))
# 002: «Количество взяток, которое должны взять вистующие ... 6 – 4, 7 – 2, 8 – 1, 9 – 1, 10 – 1»; 000 leaves the
# ten without a whist («на 10 ... виста здесь не существует»), hence 10 -> 0 in the book conventions.
BOOK_QUOTAS: tuple[tuple[int, int], ...] = ((6, 4), (7, 2), (8, 1), (9, 1), (10, 0))
MAILRU_QUOTAS: tuple[tuple[int, int], ...] = ((6, 4), (7, 2), (8, 1), (9, 1), (10, 1))


# A number-ladder entry ``8*``: the level in any suit (the declarer names the trump).
WILDCARD = "*"
NO_TALON = "-bp"
SUIT_LETTERS = ("S", "C", "D", "H")
# 003 Croatian: «контра ... реконтра ... субконтру ... мортконтрой».
KONTRA_WORDS = ("kontra", "rekontra", "subkontra", "mortkontra")


def _check_levels(table: tuple[tuple[int, int], ...], what: str) -> None:
    levels = tuple(level for level, _ in table)
    if levels != LEVELS:
        raise ConventionError(f"{what} must list the levels 6..10 in order, got {levels}")
    if any(value < 0 for _, value in table):
        raise ConventionError(f"{what} must not hold negative numbers: {table}")


@dataclass(frozen=True)
class BiddingRules:
    """The auction; read by the hand state machine (fields fixed by the engine contract)."""

    # 002 (Mail.Ru): «Следующий игрок должен заявить больший контракт ... как на аукционе»; the 1996 Codex (002):
    # «торговаться надо строго следуя по лестнице цен, нельзя перепрыгивать через ступеньки».
    jumps_allowed: bool = False
    # 000: «может не назначать более высокую игру, а сказать: "Мои"».
    senior_may_hold: bool = True
    # 002: «Мизер можно объявить только сразу – если игрок еще не делал заявок в текущем торге».
    misere_first_bid_only: bool = True
    # 000: «мизер — игра без взяток ... Мизер и уверт считаются старшими играми»; Hussar (000): «никогда не бывает
    # замысловатых игр» and the ladder runs «от шести пик и заканчивая десять без козырей» — no misère there.
    misere: bool = True
    # 002: «Мизер старше 8 БК. 9 и следующие за ним контракты считаются старше мизера».
    misere_beats_up_to: str = "8NT"
    # 002: «9БП ... 10БП» — the no-talon rungs of the Mail.Ru ladder; empty = no such bids.
    no_talon_levels: frozenset[int] = frozenset()
    # 002: «9, 9, 9, 9, 9 БК, 9БП 10, 10, 10, 10, 10 БК, 10БП»: each level's no-talon bid is one rung above its
    # no-trump bid (token ``9-bp``), and «при заказе – игру без прикупа» the declarer names its strain with the
    # contract; False = five suited no-talon bids per level (003 Классика: «заявкой 7 без прикупа»).
    no_talon_single_rung: bool = False
    # 002: «Мизер без прикупа старше 9 БК».
    misere_without_talon: bool = False
    # 002: «Если в распасовку сыграно 2 раздачи подряд, то играющий должен заказать контракт не меньше 7. Если
    # сыграно 3 и более ... не меньше 8» — index k = raspasy in a row before this hand, the last entry repeats.
    raspasy_exit_levels: tuple[int, ...] = (6,)
    # 000: «Повышать же игру можно сколько угодно ... объявить игру "девять черви"».
    contract_may_exceed_bid: bool = True
    # 003 Классика: «обычный мизер перебивается девятерной, а мизер без прикупа — девятерной без прикупа или
    # десятерной с прикупом» -> 10; Mail.Ru (002): «перебить заявку "Мизер без прикупа" можно только 9-ю БП и
    # 10-ю БП» -> None (no plain bid beats it).
    misere_bp_plain_overcall_level: int | None = None
    # 003 Классика: «возможность торговаться втёмную» — a bid made before looking at the cards (a player's first
    # call), doubling the game («Заявка втёмную увеличивает стоимость игры вдвое»).
    dark_bids: bool = False
    # 003 Классика: «Перебить раз втёмную одни разрешают только семерной игрой, а другие — обычной заявкой два»:
    # True = a dark bid is beaten only from the next level up; False = by the next bid on the ladder.
    dark_overcall_next_level: bool = True
    # 003 Классика: «посмотрев карты, но не взяв ещё прикупа, игрок может сменить заявку и заказать мизер».
    dark_six_may_switch_to_misere: bool = False
    # 003 Классика: «он может «заработать» новые, сказав пас втёмную ... После того как кто-то сделал значащую
    # заявку, заявить пас втёмную нельзя».
    dark_pass: bool = False
    # 003 Классика: «Перебить пас втёмную можно только заявкой 7 и выше».
    dark_pass_overcall_level: int = 7
    # 002 (Codex): «Если после семерной игры снова заказан пас втёмную, то перебивают восьмёркой, а очки считаются
    # вчетверо»: a dark pass may answer the game that beat an earlier dark pass; that game no longer stands and the
    # next game must be a level higher (Classic, 003: «После того как кто-то сделал значащую заявку, заявить пас
    # втёмную нельзя»).
    dark_pass_answers_overcall: bool = False
    # 002 (Codex): «мизер втёмную. Перебивают такую игру только девятерной ставкой втёмную или десятерной всветлую»:
    # (the lowest dark game, the lowest plain game) that beats a misère bid in the dark; None = the ladder's order.
    dark_misere_overcall_levels: tuple[int, int] | None = None
    # 002 (Codex): «Если сначала первая, а потом и вторая руки спасовали, то третья рука имеет право забрать прикуп
    # без торговли и обязуется взять в игре цену любую, кроме мизера»: after two passes the third hand's bid takes
    # the talon for any game, and a misère is not open to him.
    third_hand_no_misere_after_two_passes: bool = False
    # 003 Austrian/Croatian: «В торговле каждая масть представлена своим номером» — the auction climbs numbers
    # (one step at a time, «скачки не допускаются»), each number standing for a contract of six tricks (or a
    # Bettel/Sanac/Durchmarsch); "russian" = the 6S..10NT ladder above.
    ladder: Ladder = "russian"
    # The contract each number stands for, from ``first_number`` up, as contract tokens (with the talon; the
    # same contract without the talon adds -bp). Croatian: «2, 3, 4, 5 (представляющие каждую масть), 6 (Bettel),
    # 7 (Sanac)»; the suits of the numbers are read from the worked example (docs/systems.md).
    number_contracts: tuple[str, ...] = ()
    # 003 Austrian: «раз, два, три, четыре» start at one; Croatian: «числа 2, 3, 4, 5» start at two.
    first_number: int = 1
    # No-talon games announced with their contract at a player's first call: Austrian «червы — без прикупа в
    # червах»; Croatian «Заявки об игре Bettel или Sanac без прикупа (игра) объявляются сразу» (number, token).
    # An unnamed «игра» names any other number later.
    named_games: tuple[tuple[int, str], ...] = ()
    # 003 Croatian: «открывает прикуп для всеобщего обозрения»; Austrian: «берёт прикуп себе, никому не показывая».
    talon_shown: bool = True
    # 003, 19th-century rule 59: «Другой же род преферанса сопровождается переговорами о талоне ... куплю» — each
    # buyer claims the next suit up; without it the first who wants the talon takes it (rule 24).
    talon_negotiation: bool = False
    # 003 Austrian «По стопам (Nachgehen)»: the number auction's winner discards without naming («Ich liege»); a
    # defender who bid may take his discard, discard in turn and name a contract «не ниже чем 5 (Bettel)», and so
    # on, each higher — the number the first follower's contract must reach (0 = no Nachgehen).
    nachgehen_from_number: int = 0
    # 003, 19th-century rule 52: «Малая бедность состоит в том, чтобы не взять ни одной взятки при относе одной
    # карты»: numbers announced without buying the talon for which the declarer still exchanges one card — he
    # takes the talon's first card and discards one (docs/systems.md); bought with the talon he changes two
    # («можно переменить две карты»).
    one_card_exchange_numbers: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if not self.raspasy_exit_levels or any(not 6 <= lv <= 10 for lv in self.raspasy_exit_levels):
            raise ConventionError(f"raspasy_exit_levels must be levels 6..10, got {self.raspasy_exit_levels}")
        if self.dark_misere_overcall_levels is not None and any(
            not 6 <= lv <= 10 for lv in self.dark_misere_overcall_levels
        ):
            raise ConventionError(
                f"dark_misere_overcall_levels must be levels 6..10, got {self.dark_misere_overcall_levels}"
            )
        if any(not 6 <= lv <= 10 for lv in self.no_talon_levels):
            raise ConventionError(f"no_talon_levels must be levels 6..10, got {sorted(self.no_talon_levels)}")

    @property
    def last_number(self) -> int:
        return self.first_number + len(self.number_contracts) - 1

    def number_tokens(self, number: int, no_talon: bool) -> tuple[str, ...]:
        """The contract tokens a number stands for (``-bp`` without the talon); an entry ``8*`` stands for the level
        in any suit, the trump named by the declarer (19th-century «восемь с козырями»)."""
        entry = self.number_contracts[number - self.first_number]
        if entry.endswith(NO_TALON):  # a game only ever played on the cards dealt («не относя ни одной карты»)
            return (entry,)
        suffix = NO_TALON if no_talon else ""
        if entry.endswith(WILDCARD):
            return tuple(f"{entry[:-1]}{suit}{suffix}" for suit in SUIT_LETTERS)
        return (entry + suffix,)

    def number_token(self, number: int, no_talon: bool) -> str:
        """The first (lowest) contract token of a number."""
        return self.number_tokens(number, no_talon)[0]

    def number_of(self, token: str) -> int:
        """The number of a contract token (with or without ``-bp``)."""
        if token in self.number_contracts:
            return self.number_contracts.index(token) + self.first_number
        core = token[: -len(NO_TALON)] if token.endswith(NO_TALON) else token
        for index, entry in enumerate(self.number_contracts):
            if core == entry or (entry.endswith(WILDCARD) and core[:-1] == entry[:-1] and core[-1] in SUIT_LETTERS):
                return index + self.first_number
        raise ConventionError(f"{token!r} is not a contract of this number ladder {self.number_contracts}")

    def exit_level(self, raspasy_streak: int) -> int:
        """The lowest contract allowed after ``raspasy_streak`` raspasy in a row."""
        return self.raspasy_exit_levels[min(raspasy_streak, len(self.raspasy_exit_levels) - 1)]


@dataclass(frozen=True)
class DefenceRules:
    """Whist and pass: quotas, options and who answers for missing tricks."""

    # 000 / 002 quotas (see BOOK_QUOTAS, MAILRU_QUOTAS): the defenders' total tricks required per level.
    quotas: tuple[tuple[int, int], ...] = BOOK_QUOTAS
    # 000: «партнеры могут проверить прикупившего: ... если хотя бы одна взятка отходит другим игрокам,
    # назначивший игру проигрывает».
    ten_is_checked: bool = True
    # 002: «Если первый игрок пасует, второй может сказать "Пол виста"».
    half_whist: bool = False
    # RULES.md / the engine contract: «пол виста» by the second defender after the first passed, on a six or a
    # seven (002 does not name the levels; the quota's half is a whole trick only there).
    half_whist_levels: frozenset[int] = frozenset({6, 7})
    # 002: «играющий может выбрать игру "Без трех" – завершить раздачу без игры».
    concede_three: bool = False
    # 000: «игра при этом может вестись втемную с закрытыми картами или в открытую»; 002: «может выбрать –
    # играть в светлую или в темную».
    lone_whister_may_choose_open: bool = True
    # 002 (Codex): «если ход должны сделать вистующие - они же и открывают карты ещё до первого хода».
    misere_cards_open_after_first_lead: bool = True
    # 002 (Codex): «В ситуации, когда ход принадлежит играющему, то он делает его до того пока противники «лягут»
    # (откроют свои карты), а если ход должны сделать вистующие - они же и открывают карты ещё до первого хода»:
    # when a misère defender leads, both open their cards before the first card.
    misere_open_before_defender_lead: bool = False
    # 003 Sochi: «вист жлобский: ... висты пишет только вистовавший защитник, а пасовавший игрок пишет только
    # консоляцию»; Leningrad and Rostov: «вист джентльменский ... пишут все висты пополам».
    greedy_whist: bool = False
    # 000: «если против играющего вистует только один партнер ... без приглашения ... при простой игре вистующий
    # должен взять всего 2 взятки, а при игре семь, восемь, девять — 1 взятку». None = the lone whister answers for
    # the whole quota (002: «Если один из игроков вистует, он должен взять определенное количество взяток»).
    lone_whister_quotas: tuple[tuple[int, int], ...] | None = None
    # 002: «Пол виста – тогда играющий без игры получает очки за заказанный контракт, а второй игрок – половину»;
    # read as this share of the quota's whists (docs/scoring.md).
    half_whist_share: Fraction = Fraction(1, 2)
    # 002: «Без трех – ... штраф, равный трем недостающим взяткам».
    conceded_undertricks: int = 3
    # 000 / 001 (Hussar): «Другой игрок имеет право вистовать (один или с приглашением своей прикупки)»: the
    # whister may take his own talon and put two cards away; then ``quotas`` apply, alone ``lone_whister_quotas``.
    whist_with_talon: bool = False
    # 003 Классика: «шестерная игра, заказанная втёмную, вистуется принудительно обоими защитниками и
    # разыгрывается втёмную».
    dark_six_forced_whist: bool = False
    # 003 Классика: «мизер втёмную ловится втёмную» — the defenders' cards stay closed.
    dark_misere_closed: bool = False
    # 003 Austrian/Croatian: «Если вистует только один из защитников, он может пригласить второго ... приглашённый
    # не несёт никакой ответственности ... Если вистующий не пригласил пасовавшего защитника, тот кладёт свои
    # карты на стол в закрытую и в дальнейшем розыгрыше его карты не участвуют».
    lone_whister_invites: bool = False
    # 003 Croatian: «контра -> реконтра -> субконтра -> мортконтра ... и так до бесконечности»: the most doublings
    # of the kontra chain (0 = no kontra; the seed's «бесконечность» is capped, docs/systems.md); Austrian
    # Illustrated: kontra and rekontra = 2.
    kontra_levels: int = 0
    # Numbers whose contracts may be doubled: Croatian every contract; Austrian Illustrated only «бескозырные
    # контракты (Bettel, Durchmarsch, Plauderer, Offener Durchmarsch)» (numbers 5..8).
    kontra_from_number: int = 0
    # 003 Croatian: «Заявка контра от вистующего при пасе второго защитника автоматически означает приглашение».
    kontra_invites: bool = False
    # 003 Croatian: «Если играется самый маленький контракт — два — с прикупом и без рефета, один из защитников
    # должен законтрить ... Если никто из защитников не заявит контру, розыгрыша не состоится».
    kontra_required_numbers: frozenset[int] = frozenset()
    # Numbers whose contracts the defenders may not pass (Austrian Illustrated: «защитники не могут отказаться»).
    forced_whist_numbers: frozenset[int] = frozenset()
    # 003, 19th-century rule 3: «сами обязуются непременно сделать по две взятки» — each whister answers for his
    # own two, whatever the other took (Croatian: only when the pair fell short of four).
    each_whister_quota: bool = False
    # A passer's cards take no part when one defender whists alone (19th-century rules 9, 63: «могут быть два виста
    # и один»; read as the lone whister against the declarer, docs/systems.md).
    passer_sits_out: bool = False
    # 003, 19th-century rule 51: «при двух же вистах только подручный игроку обязан сделать две взятки, а последний
    # игрок может взять и одну»: the quota per level of the second whister (the one not at the declarer's left)
    # when both whist and each answers for himself; None = ``lone_whister_quotas`` for both.
    second_whister_quotas: tuple[tuple[int, int], ...] | None = None

    def __post_init__(self) -> None:
        _check_levels(self.quotas, "quotas")
        if self.lone_whister_quotas is not None:
            _check_levels(self.lone_whister_quotas, "lone_whister_quotas")
        if self.second_whister_quotas is not None:
            _check_levels(self.second_whister_quotas, "second_whister_quotas")
        if not 0 <= self.half_whist_share <= 1:
            raise ConventionError(f"half_whist_share must lie in 0..1, got {self.half_whist_share}")

    def quota(self, level: int) -> int:
        return dict(self.quotas)[level]

    def kontra_word(self, level: int) -> str:
        """The call raising the chain to ``level``: kontra, rekontra, subkontra, mortkontra, then kontra-N."""
        return KONTRA_WORDS[level - 1] if level <= len(KONTRA_WORDS) else f"kontra-{level}"

    def lone_quota(self, level: int) -> int:
        return dict(self.lone_whister_quotas or self.quotas)[level]

    def second_quota(self, level: int) -> int:
        """The second of two whisters' own quota (rule 51), where it differs from the first's."""
        return dict(self.second_whister_quotas)[level] if self.second_whister_quotas else self.lone_quota(level)


@dataclass(frozen=True)
class RaspasyRules:
    """All passed: how the talon leads and how tricks are priced."""

    # 000: «первая карта прикупа открывается, после первой взятки открывают вторую»; 003 Rostov: «прикуп на
    # распасовке: не открывается никогда».
    talon_leads: bool = True
    talon_tricks: int = 2
    # 003 Sochi/Leningrad: «распасовка на гору»; Rostov: «распасовка на висты».
    mode: RaspasyMode = "gora"
    # 003 Sochi: «по одному очку за каждую взятку»; Leningrad: «по два очка»; Rostov: «по пять вистов».
    price_per_trick: int = 1
    # 003 Sochi: «прогрессирующая ... (1–2–3)»; Leningrad «(2–4–6)»; Rostov «не прогрессирует»; 002: «прогрессия
    # распасовки арифметическая или геометрическая?» (003, «Условные договорённости»).
    progression: Progression = "arithmetic"
    # The multiplier stops growing here: 003 writes the series with three terms («1–2–3», «2–4–6») and 002's exit
    # levels stop tightening after three raspasy («3 и более»), so 1-2-3-3-... (docs/scoring.md).
    progression_cap: int | None = 3
    # 002 (Mail.Ru): «Двое игроков, взявшие наибольшее число взяток, получают штраф за каждую свою взятку».
    payers: RaspasyPayers = "all"
    # 003: «за ноль взяток на распасовке: игрок пишет в пульку стоимость одной взятки»; 000: «Если при распасовке
    # игрок остался без взяток, он вписывает себе в пулю единицу».
    zero_trick_reward: int = 1
    # Whether that one trick's value follows the progression (003: «стоимость одной взятки»).
    zero_reward_progresses: bool = True
    # 000: «штрафные очки за взятки, полученные картами, которые лежат в прикупе, записывает ... сдающий»; 003
    # Sochi/Leningrad: «карты прикупа принадлежат сдатчику, который пишет и в гору, и в пулю на общих основаниях»;
    # Rostov: «сдатчик пишет единицу в пульку как за ноль взяток».
    talon_tricks_to_dealer: bool = True
    # 002 (Codex): «При игре пас втёмную, если никто не перебил семерной игрой, взятки считаются по двойной цене.
    # Если после семерной игры снова заказан пас втёмную ... очки считаются вчетверо»: a raspasy after k rounds of
    # dark passes is written at this factor ** k (1 = a dark pass changes no price; Classic earns bombs instead).
    dark_pass_factor: int = 1

    def __post_init__(self) -> None:
        if self.price_per_trick < 0 or self.zero_trick_reward < 0 or self.talon_tricks < 0:
            raise ConventionError("raspasy prices, reward and talon_tricks must not be negative")
        if self.dark_pass_factor < 1:
            raise ConventionError(f"dark_pass_factor must be at least 1, got {self.dark_pass_factor}")
        if self.progression_cap is not None and self.progression_cap < 1:
            raise ConventionError(f"progression_cap must be at least 1, got {self.progression_cap}")

    def multiplier(self, raspasy_streak: int) -> int:
        """Price multiplier of a raspasy played after ``raspasy_streak`` raspasy in a row."""
        if self.progression == "none":
            factor = 1
        elif self.progression == "arithmetic":
            factor = raspasy_streak + 1
        else:
            factor = 2 ** min(raspasy_streak, 30)
        return factor if self.progression_cap is None else min(factor, self.progression_cap)


@dataclass(frozen=True)
class ScoringRules:
    """What one hand writes on the sheet."""

    # 000 / 002: 2/4/6/8/10 (STANDARD_VALUES); the same value per undertrick to gora («в гору 3 × 6 = 18») and
    # per defender trick in whists.
    contract_values: tuple[tuple[int, int], ...] = STANDARD_VALUES
    # 000: «за десятерную игру и мизер — 10 очков».
    misere_value: int = 10
    # 003 Sochi: «вист ответственный: ... в гору пишется полная стоимость игры»; Leningrad/Rostov: «вист
    # полуответственный: ... половина стоимости игры». Factor on the game value per missing defender trick.
    whist_responsibility: Fraction = Fraction(1)
    # 003 Sochi/Leningrad: «висты в размере стоимости игры за каждую недобранную взятку»; Rostov: «10 вистов за
    # каждую недобранную взятку»; 000: «к уже полученным взяткам они добавляют ... недобрал разыгрывающий».
    consolation: ConsolationMode = "game_value"
    consolation_fixed: int = 10
    # 003 Sochi: «пасовавший игрок пишет только консоляцию» — the passer also writes consolation.
    passer_writes_consolation: bool = True
    # 000: «Вистующий записывает себе (3 + 2 + 2) х 8 = 56 ... 2 — за приглашение»: the inviting whister adds the
    # undertricks once more, and the invited passer writes nothing and answers for nothing.
    invitation_bonus: bool = False
    # 001 (Hussar): «ремиз не ставится наверху ... а он отдается прямо вистующему ... остался без двух,
    # Вистующий записывает на него в своей вистовой графе 200»: "whister" writes the undertricks' value x
    # ``remiz_whist_factor`` as whists on the declarer instead of gora ("gora": the book rule of 000).
    remiz_to: RemizTo = "gora"
    remiz_whist_factor: int = 10
    # 003 Классика: «Заявка втёмную увеличивает стоимость игры вдвое».
    dark_multiplier: int = 2
    # 003 Классика: «Каждая игра, сыгранная на бомбе, считается вдвойне (на простой бомбе), вчетверо (на двойной
    # бомбе) и восьмикратно (на тройной бомбе)»: a bomb of level k multiplies by ``bomb_base`` ** k.
    bomb_base: int = 2
    # 003 Классика: «все спасовавшие втёмную получают дополнительные бомбы» — the seed gives no level; a simple
    # bomb (level 1) is our reading (docs/scoring.md); 0 = a dark pass earns no bomb (the Codex, 002, doubles the
    # raspasy instead: ``RaspasyRules.dark_pass_factor``).
    dark_pass_bomb_level: int = 1
    # 000: «Сдающий получает с игрока, взявшего прикуп, плату, т. е. консоляцию ... если в прикупе оказывается
    # Туз (тогда консоляция равна размеру одной взятки) или два Туза (две взятки). Сдающий, кроме того,
    # записывает за каждую недобранную взятку на игравшего взятку в графу «висты»» (the dealer who sits out).
    dealer_talon_consolation: bool = False
    # 001 (Hussar): «Ренонсы также преследуются строго, и виновный подвергается штрафу по размеру игры. За
    # игроком, сделавшим ренонс, партнер записывает таким же образом, как и за ремиз»: undertricks charged.
    renonce_undertricks: int = 1
    # 002 (the Codex): «Если игрок по небрежности или невнимательности нарушил закон, то должен быть готов с
    # достоинством принять предусмотренную кару за это нарушение» — but no seed prices walking away from a deal in
    # progress (a dealing protocol's abort). Our stated default charges it like a renonce, «по размеру игры» (001):
    # the remiz of this many tricks at the lowest game (0 = no charge; ``abort_penalty``, engine/scoring.py).
    abort_penalty_undertricks: int = 1
    # "pulya": the Russian sheet; "countdown": 003 Croatian «Колонка контрактов начинается с отрицательной записи
    # (т. е. стоимость сыгранных контрактов списывается с определённого числа ...)» — written-off contracts go to
    # ``pulya``, added ones («приписывает») to ``gora``, the juha to ``whists``.
    method: ScoringMethod = "pulya"
    # The names the seed gives the sheet's columns, for printing only: "pulya" (пуля, гора, висты), "contracts"
    # (003 Croatian «колонка контрактов», «Левая и правая колонки называются юха», «под шляпой»), "pot" (003
    # Austrian «котёл»), "remizes" (003 19th-century rules 32, 37: «Ремизы ставочные», «списывает», «ставит ремиз»).
    sheet_words: SheetWords = "pulya"
    # 003 Croatian: «запись за контракт с прикупом вдвое больше, чем порядковый номер заявки ... Игра без прикупа
    # добавляет единичку к порядковому номеру»: value = factor x (number + bonus without the talon).
    number_value_factor: int = 2
    # 003 Croatian: «трефы без прикупа (игра) дают 2×(5+1)=12 очков».
    no_talon_number_bonus: int = 1
    # 003 Croatian: «дали разыгрывающему взятку на прикупном мизере (Bettel), каждый пишет на него по 60 вистов ...
    # штрафуется на 12 очков»: each defender writes this many tricks' worth.
    misere_failed_whist_tricks: int = 5
    # 003 Croatian: «Если списывают с 50, допускается не больше трёх рефетов. Если с 30 — только один»: (column
    # start, all-pass hands per pulya that give everyone a refe); the last entry not above the start applies, the
    # first below it; empty = no refe at all.
    refe_limits: tuple[tuple[int, int], ...] = ()
    # 003 Croatian: «Если у разыгрывающего есть рефет в колонке контрактов, все результаты игры считаются вдвойне».
    refe_multiplier: int = 2
    # 003, 19th-century rules 43-44: «Преферансом с кадилями называется тот, где за каждую недоделанную взятку
    # ставится столько, сколько ... за одну взятку в масти»; «без кадили ... ремизы ставятся только за масть».
    remiz_per_trick: bool = False
    # 003, 19th-century rule 41: «при одном ремизе, если игра выиграна или проиграна даже в червях без талона, за
    # игру берётся только оставшийся ремиз и по нему рассчитываются за взятки вистов и ставится также один ремиз»:
    # with this many remizes or fewer left on the table (the columns' sum), a game won or lost is priced at what
    # is left, whists and remizes alike (0 = no such rule; the rule's «два до четырёх» is cut off in the seed).
    last_remizes_price: int = 0
    # 003 Austrian «Котёл»: «Перед началом игры все игроки вносят в котёл равную сумму денег. Она должна быть
    # кратна 10. Если ... котёл опустеет ... снова сделать взносы»: each player's contribution (0 = none). With the
    # "pot" method the sheet's pulya is what a seat took from the pot, gora what it paid in, whists direct payments.
    pot_initial: int = 0
    # 003 «Неограниченный котёл»: «Каждый сдающий добавляет в него 10 ставок перед раздачей».
    pot_dealer_stake: int = 0
    # 003: «Сначала разыгрывающий берёт из котла 10 ставок» (10); «Ограниченный котёл ... в 5, 10 или 20 раз
    # превосходить первоначальную ставку» (50, 100, 200); None = «Разыгрывающий забирает весь котёл».
    pot_play_limit: int | None = 10
    # 003 «Styrian»: «трефовый — стоит 20 очков (по два за взятку), пиковый — 30, бубновый — 40, а червовый — 50»
    # (number, amount played); empty = the limit above.
    pot_stakes: tuple[tuple[int, int], ...] = ()
    # 003: «При ремизе разыгрывающий добавляет в котёл ставки в двойном размере, а вистующий — в одинарном».
    pot_declarer_penalty: int = 2
    pot_whister_penalty: int = 1
    # 003: «платит каждому вистующему ... по одной десятой за каждую взятку, полученную защитой».
    pot_trick_share: Fraction = Fraction(1, 10)
    # 003 Illustrated Preference: «Разыгрывающий рассчитывается за каждую сыгранную и не сыгранную игру
    # непосредственно с защитниками» for the numbers from this one (0 = none): (number, value) «Стоимость контракта
    # — 10 ... 20 ... 30»; «без прикупа ... плата за выигрыш и проигрыш удваивается».
    direct_values: tuple[tuple[int, int], ...] = ()
    direct_no_talon_factor: int = 2
    # 003 «Премия за контракт червы»: (number, premium) of the no-talon games every defender pays for.
    no_talon_premiums: tuple[tuple[int, int], ...] = ()
    # 003 «Премия за тузы ... по 10 ставок»; «Премия за отсутствие тузов ... по 10 ставок» (0 = none).
    premium_four_aces: int = 0
    premium_no_aces: int = 0

    def __post_init__(self) -> None:
        _check_levels(self.contract_values, "contract_values")
        if self.whist_responsibility < 0 or self.consolation_fixed < 0 or self.misere_value < 0:
            raise ConventionError("whist_responsibility, consolation_fixed and misere_value must not be negative")
        if self.remiz_whist_factor <= 0 or self.dark_multiplier < 1 or self.bomb_base < 1:
            raise ConventionError("remiz_whist_factor must be positive, dark_multiplier and bomb_base at least 1")
        if self.last_remizes_price < 0:
            raise ConventionError(f"last_remizes_price must not be negative, got {self.last_remizes_price}")
        if self.dark_pass_bomb_level < 0 or self.renonce_undertricks < 1:
            raise ConventionError("dark_pass_bomb_level must not be negative and renonce_undertricks at least 1")
        if self.abort_penalty_undertricks < 0:
            raise ConventionError(
                f"abort_penalty_undertricks must not be negative, got {self.abort_penalty_undertricks}"
            )

    def refe_limit(self, start: int) -> int:
        """How many all-pass hands give a refe in a pulya whose contract column starts at ``start``."""
        if not self.refe_limits:
            return 0
        fitting = [limit for size, limit in self.refe_limits if size <= start]
        return fitting[-1] if fitting else self.refe_limits[0][1]

    def bomb_multiplier(self, level: int) -> int:
        """The multiplier of a bomb of ``level`` (1 simple, 2 double, 3 triple); level 0 = no bomb."""
        return int(self.bomb_base**level)

    def value(self, level: int) -> int:
        return dict(self.contract_values)[level]


@dataclass(frozen=True)
class PulyaRules:
    """The length of the game, what happens once a pulya is closed, and the final settlement."""

    # The agreed pulya (003: «предметом предварительной договорённости игроков должны быть величина пульки»);
    # 20 is the log header's default.
    size: int = 20
    # 003 Sochi/Rostov: «играют до того момента, когда запись в пульке каждого игрока достигнет условленной
    # величины»; Leningrad: «когда сумма записей в пульке достигнет условленной величины, умноженной на
    # количество игроков».
    end: PulyaEnd = "each"
    # 003 Sochi/Rostov: «"помогает" тому, у кого запись в пульке наибольшая ... пишет два очка в пульку противнику,
    # а на него ... висты в десятикратном размере»; 002: «все его набранные после этого очки, пишутся как висты на
    # других играющих ... (Чаще всего в 10 раз)».
    after_close: AfterClose = "help"
    help_whist_factor: int = 10
    # 003 Leningrad: «выносит на гору двойную разницу ... Тот, кто переиграл, списывает свою разницу с горы —
    # тоже вдвойне» (used when end == "total").
    pulya_difference_factor: int = 2
    # 000: «Сначала горы умножаются на 10».
    gora_multiplier: int = 10
    # 000: «Все полученные горы необходимо сложить вместе и разделить на количество игроков»; 003 Gusarik:
    # «гору обычно не делят пополам, а вычитают из большей меньшую и умножают разницу на 10» ("pairwise").
    gora_settlement: GoraSettlement = "shared"
    # 003 Классика: «Игрой со скачками называют игру с премиями (тому, кто первый закрыл пульку; тому, у кого
    # меньше всех очков на горе). Разумеется, сам факт и размер премий являются предметом соглашения»: whists
    # each other player pays the winner of the premium (0 = no premium; tied winners share).
    first_closer_premium: int = 0
    least_gora_premium: int = 0

    def __post_init__(self) -> None:
        if self.first_closer_premium < 0 or self.least_gora_premium < 0:
            raise ConventionError("premiums must not be negative")
        if self.size <= 0:
            raise ConventionError(f"pulya size must be positive, got {self.size}")
        if self.help_whist_factor < 0 or self.pulya_difference_factor < 0 or self.gora_multiplier <= 0:
            raise ConventionError("pulya factors must not be negative and gora_multiplier must be positive")


@dataclass(frozen=True)
class TableRules:
    """Who sits at the table and what is dealt: deck, pattern, players per hand, dummy, talons, opening rounds."""

    # 000: «Для преферанса используется пикетная колода, состоящая из 32 карт»; 001 (Hussar): «Колода состоит из
    # 24 карт» (a ``fairdeal.cards.DeckKind`` value).
    deck: str = "piquet32"
    # 004: «талон = the 7th and 8th cards dealt»; 000/001: Hussar «по сторонам откладываются 2 прикупа»; 003
    # Gusarik: «Карты в гусарика раздают так же, как и при игре втроём» (a ``fairdeal.deal`` pattern name).
    deal_pattern: str = "russian"
    # 000: «Основная игра идет между тремя игроками»; 000 (впятером): «Каждый игрок по два раза в туре не
    # принимает участие в игре: когда трое разыгрывают партию, один сдает, а еще один ждет своей очереди»;
    # Hussar and Gusarik: two players. Seats dealt a hand, from the dealer's left; the rest sit out.
    hand_players: int = 3
    # 003 Gusarik: «Болван всегда находится на первой руке. Он как бы всегда говорит пас ... вистовать и при этом
    # открыть болвана ... Первый ход на висте всегда от болвана» (the pattern's dummy hand).
    dummy: bool = False
    # 003 Gusarik: «В распасовке карты болвана не участвуют».
    dummy_in_raspasy: bool = False
    # 000: «Каждый игрок может прикупить только тот прикуп, который лежит слева от него»; 001: «Каждый игрок,
    # прикупая, может взять только свой правый прикуп». With two talons each player buys his own; "left" gives
    # the first hand talon 0 of the pattern, "right" talon 1 (docs/scoring.md, the Hussar reading).
    talon_side: TalonSide = "left"
    # 000 / 001 (Hussar): «Распасовок в этой игре также не бывает, если спасовали оба игрока, карты нужно
    # пересдать новым сдающим».
    all_pass: AllPass = "raspasy"
    # 003 Классика: «До начала собственно пульки играют несколько кругов распасовки — обычно два или по согласию
    # всех игроков ... Каждый сдал по три раза подряд (сдача не переходила)»: each dealer deals this many raspasy
    # in a row before the pulya; the k-th of them gives every player a bomb of level k.
    opening_raspasy_rounds: int = 0
    # 003, 19th-century rules 6, 13: «Если играют вдвоём, то карты сдаются, как обыкновенно, на три руки, но на
    # третью руку они кладутся отдельно и не вскрываются до окончания игры»: (table size, deal pattern) where a
    # table of that size is dealt otherwise than by ``deal_pattern`` (``russian-two``: the third hand laid aside).
    patterns_by_players: tuple[tuple[int, str], ...] = ()
    # 000: «Снимать колоду должен сосед с правой стороны»; 002 (Codex): «кладёт карты перед игроком справа и
    # предлагает ему снять»: the seat that cuts, counted from the dealer to his right (1: the right neighbour).
    # 002's «съём может сделать сидящий справа от него» when the cutter is away is not in the log, so not here.
    cutter: int = 1

    def __post_init__(self) -> None:
        if self.hand_players < 2 or self.opening_raspasy_rounds < 0 or self.cutter < 1:
            raise ConventionError(
                "hand_players must be at least 2, opening_raspasy_rounds not negative and cutter at least 1"
            )
        for size, name in self.patterns_by_players:
            try:
                other = get_pattern(name)
            except DealError as exc:
                raise ConventionError(f"table.patterns_by_players: {exc}") from None
            if other.deck.value != self.deck or size not in other.table_sizes:
                raise ConventionError(f"pattern {name} does not deal the {self.deck} deck to a table of {size}")
        try:
            pattern = get_pattern(self.deal_pattern)
        except DealError as exc:
            raise ConventionError(f"table.deal_pattern: {exc}") from None
        if pattern.deck.value != self.deck:
            raise ConventionError(
                f"table.deck {self.deck!r} is not the deck of pattern {pattern.name} ({pattern.deck.value})"
            )
        if len(pattern.player_hands) != self.hand_players or (pattern.dummy_hand is not None) != self.dummy:
            raise ConventionError(
                f"pattern {pattern.name} deals {len(pattern.player_hands)} player hands"
                f"{' and a dummy' if pattern.dummy_hand is not None else ''}; the table says "
                f"{self.hand_players}{' and a dummy' if self.dummy else ''}"
            )

    def pattern_name(self, num_seats: int) -> str:
        """The deal pattern of a table of ``num_seats``."""
        return dict(self.patterns_by_players).get(num_seats, self.deal_pattern)

    def own_talon(self, hand_index: int) -> int:
        """The talon index the player of ``hand_index`` (0 = first hand) may buy when each player has his own."""
        return (hand_index + (0 if self.talon_side == "left" else 1)) % 2


@dataclass(frozen=True)
class PlayRules:
    """Trick play: overtaking, who leads first, and when play stops."""

    # 000: «Необязательно бить старшей картой»; 003 Austrian: «Перебивать карту хода обязательно» — read as: head
    # the trick (beat the best card so far) when one can, after following suit or trumping.
    must_overtake: bool = False
    # 003 Austrian: «Если завистовали оба, разыгрывающий делает первый ход» (the Russian and Croatian first hand
    # leads; a first hand out of the play passes the lead to the next seat that plays).
    declarer_leads_two_whists: bool = False
    # Who leads a no-trump six: the first hand (Russian); 003 Croatian Sanac «разыгрывающий не имеет права ходить
    # первым: право хода переходит к следующему игроку»; Austrian Sans Atout «справа от разыгрывающего».
    no_trump_lead: NoTrumpLead = "first_hand"
    # 003 Croatian: «В тот момент, когда защита берёт пятую взятку, игра заканчивается (не доигрывается)».
    defence_trick_cap: int | None = None

    def __post_init__(self) -> None:
        if self.defence_trick_cap is not None and not 1 <= self.defence_trick_cap <= 10:
            raise ConventionError(f"defence_trick_cap must be 1..10, got {self.defence_trick_cap}")


@dataclass(frozen=True)
class Convention:
    """A whole set of table rules; the fields above hold every difference between the named conventions."""

    name: str
    title: str
    seeds: tuple[str, ...]
    players: tuple[int, ...]
    bidding: BiddingRules = field(default_factory=BiddingRules)
    defence: DefenceRules = field(default_factory=DefenceRules)
    raspasy: RaspasyRules = field(default_factory=RaspasyRules)
    scoring: ScoringRules = field(default_factory=ScoringRules)
    pulya: PulyaRules = field(default_factory=PulyaRules)
    table: TableRules = field(default_factory=TableRules)
    play: PlayRules = field(default_factory=PlayRules)
    # One line for `fairdeal systems`.
    description: str = ""

    def __post_init__(self) -> None:
        if not self.players or any(n < 2 for n in self.players):
            raise ConventionError(f"convention {self.name!r}: players must be seat counts of 2 or more")

    def check_players(self, num_seats: int) -> None:
        if num_seats not in self.players:
            allowed = ", ".join(str(n) for n in self.players)
            raise ConventionError(f"convention {self.name!r} is played by {allowed} players, not {num_seats}")
