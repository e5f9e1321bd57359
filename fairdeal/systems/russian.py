"""The Russian family (seeds 000, 001, 002, 003): Sochi, Leningrad, Rostov, Mail.Ru, the 1996 Codex, Classic,
Hussar, Gusarik."""

from __future__ import annotations

import re

from fairdeal.engine.hand import RUSSIAN
from fairdeal.engine.system import System, Vocabulary, register
from fairdeal.rules.russian import CODEX, LENINGRAD, MAILRU, ROSTOV, SOCHI
from fairdeal.rules.systems import CLASSIC, GUSARIK_LENINGRAD, GUSARIK_ROSTOV, GUSARIK_SOCHI, HUSSAR

# Level 6..10 with a strain, or misère; "-bp" = without the talon («без прикупа»); "dark-" = called in the dark
# (Classic): a bid with the talon or a pass, never «мои» and never a no-talon bid (the dark bidder takes the talon).
_PLAIN = r"(?:(?:6|7|8|9|10)(?:S|C|D|H|NT)|misere)"
_CONTRACT = rf"{_PLAIN}(?:-bp)?"
# Mail.Ru (002): «9БП», «10БП» — a level's single no-talon rung; a contract only when conceded «без трёх».
_RUNG = r"(?:6|7|8|9|10)-bp"
RUSSIAN_WORDS = Vocabulary(
    bids=re.compile(rf"(?:dark-(?:{_PLAIN}|pass)|{_CONTRACT}|{_RUNG}|pass|mine)"),
    contracts=re.compile(rf"(?:dark-{_PLAIN}|{_CONTRACT}|{_RUNG})"),
)

for convention in (
    SOCHI,
    LENINGRAD,
    ROSTOV,
    MAILRU,
    CODEX,
    CLASSIC,
    HUSSAR,
    GUSARIK_SOCHI,
    GUSARIK_LENINGRAD,
    GUSARIK_ROSTOV,
):
    register(System(convention, family="russian", vocabulary=RUSSIAN_WORDS, mechanics=RUSSIAN))
