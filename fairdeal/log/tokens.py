"""The words of the log: bid tokens of the Russian systems and card strings."""

from __future__ import annotations

import re
from functools import lru_cache

from fairdeal.cards import Card, DeckKind

# Level 6..10 with a strain, or misère; "-bp" = without the talon («без прикупа»); "dark-" = called in the dark
# (Classic): a bid with the talon or a pass, never «мои» and never a no-talon bid (the dark bidder takes the talon).
_PLAIN = r"(?:(?:6|7|8|9|10)(?:S|C|D|H|NT)|misere)"
_CONTRACT = rf"{_PLAIN}(?:-bp)?"
# Mail.Ru (002): «9БП», «10БП» — a level's single no-talon rung; a contract only when conceded «без трёх».
_RUNG = r"(?:6|7|8|9|10)-bp"
CONTRACT_TOKEN = re.compile(rf"(?:dark-{_PLAIN}|{_CONTRACT}|{_RUNG})")
BID_TOKEN = re.compile(rf"(?:dark-(?:{_PLAIN}|pass)|{_CONTRACT}|{_RUNG}|pass|mine)")
ANY_TOKEN = re.compile(r"[A-Za-z0-9-]+")   # the schema's pattern: other systems add their own words

# Systems whose auctions use the Russian vocabulary above; any other system is held to ANY_TOKEN only.
RUSSIAN_SYSTEMS = frozenset(
    {"sochi", "leningrad", "rostov", "moscow", "mailru", "classic", "gusarik", "hussar", "codex", "russian",
     "gusarik-sochi", "gusarik-leningrad", "gusarik-rostov"}
)

# Austrian and Croatian (seed 003): numbers as words («раз, два, три, четыре»), «здесь» = mine, «игра» = game, a
# game named at once (hearts, bettel, sanac) and the game bidders' naming round (game-two ...). Contracts are the
# six-trick contracts of the number ladder, Durchmarsch = 10NT, the open ones (Plauderer, Offener Durchmarsch) with
# -open; -bp without the talon.
_NUMBER_WORD = r"(?:one|two|three|four|five|six|seven|eight)"
NUMBER_BID_TOKEN = re.compile(rf"(?:pass|mine|game|hearts|bettel|sanac|{_NUMBER_WORD}|game-{_NUMBER_WORD})")
NUMBER_CONTRACT_TOKEN = re.compile(r"(?:6S|6C|6D|6H|6NT|10NT|misere)(?:-open)?(?:-bp)?")
NUMBER_SYSTEMS = frozenset(
    {"croatian", "austrian", "austrian-unlimited", "austrian-limited", "austrian-styrian", "austrian-illustrated",
     "austrian-sans-atout", "austrian-nachgehen"}
)
# 19th-century preferans (seed 003, rules 20-24, 57, 59): a suit (mixed: no-trump six, eight, nine) announced
# without the talon, then «куплю» = buy.
SUIT_BID_TOKEN = re.compile(r"(?:pass|buy|spades|clubs|diamonds|hearts|notrump|eight|nine)")
SUIT_CONTRACT_TOKEN = re.compile(r"(?:6(?:S|C|D|H|NT)|(?:8|9)(?:S|C|D|H))(?:-bp)?")
SUIT_SYSTEMS = frozenset({"preferans-1800s", "preferans-1800s-kadili", "preferans-1800s-talon",
                          "preferans-1800s-mixed"})
# Mixed full preferans (rules 48-56): also seven, малая бедность, тотус and большая бедность; contracts seven to ten
# in a suit, misere (малая бедность) and misere-bp (большая бедность).
MIXED_FULL_BID_TOKEN = re.compile(r"(?:pass|buy|spades|clubs|diamonds|hearts|notrump|seven|little-poverty|eight|nine"
                                  r"|totus|great-poverty)")
MIXED_FULL_CONTRACT_TOKEN = re.compile(r"(?:6(?:S|C|D|H|NT)|(?:7|8|9|10)(?:S|C|D|H)|misere)(?:-bp)?")
MIXED_FULL_SYSTEMS = frozenset({"preferans-1800s-mixed-full", "preferans-1800s-mixed-full-kadili"})
# The kontra chain (003 Croatian: «контра ... реконтра ... субконтра ... мортконтра ... и так до бесконечности»).
KONTRA_CALL = re.compile(r"(?:pass|kontra|rekontra|subkontra|mortkontra|kontra-[0-9]+)")


def card_codes(deck: DeckKind) -> dict[str, int]:
    """File strings of the deck's cards (``AS``, ``10H``) to codes."""
    return {Card.from_code(int(code)).ascii: int(code) for code in deck.codes()}


def _vocabulary(system: str) -> tuple[re.Pattern, re.Pattern]:
    """(bid pattern, contract pattern) of a system; unknown systems are held to ANY_TOKEN only."""
    if system in RUSSIAN_SYSTEMS:
        return BID_TOKEN, CONTRACT_TOKEN
    if system in NUMBER_SYSTEMS:
        return NUMBER_BID_TOKEN, NUMBER_CONTRACT_TOKEN
    if system in SUIT_SYSTEMS:
        return SUIT_BID_TOKEN, SUIT_CONTRACT_TOKEN
    if system in MIXED_FULL_SYSTEMS:
        return MIXED_FULL_BID_TOKEN, MIXED_FULL_CONTRACT_TOKEN
    return ANY_TOKEN, ANY_TOKEN


@lru_cache(maxsize=4096)   # the vocabulary is small; a log repeats the same words millions of times
def is_bid(token: str, system: str) -> bool:
    return _vocabulary(system)[0].fullmatch(token) is not None


@lru_cache(maxsize=4096)
def is_contract(token: str, system: str) -> bool:
    return _vocabulary(system)[1].fullmatch(token) is not None
