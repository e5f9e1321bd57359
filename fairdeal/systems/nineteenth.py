"""The 19th-century book (seed 003, rules 1-80): simple, with the talon, mixed and mixed full preferans."""

from __future__ import annotations

import re

from fairdeal.engine.hand import NINETEENTH
from fairdeal.engine.system import System, Vocabulary, register
from fairdeal.rules.nineteenth import (
    PREFERANS_1800S,
    PREFERANS_1800S_KADILI,
    PREFERANS_1800S_MIXED,
    PREFERANS_1800S_MIXED_FULL,
    PREFERANS_1800S_MIXED_FULL_KADILI,
    PREFERANS_1800S_TALON,
)

# Rules 20-24, 57, 59: a suit (mixed: no-trump six, eight, nine) announced without the talon, then «куплю» = buy.
SUIT_WORDS = Vocabulary(
    bids=re.compile(r"(?:pass|buy|spades|clubs|diamonds|hearts|notrump|eight|nine)"),
    contracts=re.compile(r"(?:6(?:S|C|D|H|NT)|(?:8|9)(?:S|C|D|H))(?:-bp)?"),
)
# Mixed full preferans (rules 48-56): also seven, малая бедность, тотус and большая бедность; contracts seven to ten
# in a suit, misere (малая бедность) and misere-bp (большая бедность).
MIXED_FULL_WORDS = Vocabulary(
    bids=re.compile(
        r"(?:pass|buy|spades|clubs|diamonds|hearts|notrump|seven|little-poverty|eight|nine"
        r"|totus|great-poverty)"
    ),
    contracts=re.compile(r"(?:6(?:S|C|D|H|NT)|(?:7|8|9|10)(?:S|C|D|H)|misere)(?:-bp)?"),
)

for convention in (PREFERANS_1800S, PREFERANS_1800S_KADILI, PREFERANS_1800S_TALON, PREFERANS_1800S_MIXED):
    register(System(convention, family="1800s", vocabulary=SUIT_WORDS, mechanics=NINETEENTH))
for convention in (PREFERANS_1800S_MIXED_FULL, PREFERANS_1800S_MIXED_FULL_KADILI):
    register(System(convention, family="1800s", vocabulary=MIXED_FULL_WORDS, mechanics=NINETEENTH))
