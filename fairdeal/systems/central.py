"""The Central-European family (seed 003): Croatian and the Austrian variants, on number ladders."""

from __future__ import annotations

import re

from fairdeal.engine.hand import CENTRAL
from fairdeal.engine.system import System, Vocabulary, register
from fairdeal.rules.central import (
    AUSTRIAN,
    AUSTRIAN_ILLUSTRATED,
    AUSTRIAN_LIMITED,
    AUSTRIAN_NACHGEHEN,
    AUSTRIAN_SANS_ATOUT,
    AUSTRIAN_STYRIAN,
    AUSTRIAN_UNLIMITED,
    CROATIAN,
)

# Numbers as words («раз, два, три, четыре»), «здесь» = mine, «игра» = game, a game named at once (hearts, bettel,
# sanac) and the game bidders' naming round (game-two ...). Contracts are the six-trick contracts of the number
# ladder, Durchmarsch = 10NT, the open ones (Plauderer, Offener Durchmarsch) with -open; -bp without the talon.
NUMBER_WORD = r"(?:one|two|three|four|five|six|seven|eight)"
NUMBER_CONTRACT = re.compile(r"(?:6S|6C|6D|6H|6NT|10NT|misere)(?:-open)?(?:-bp)?")


def number_words(named_games: str) -> Vocabulary:
    """The number-ladder vocabulary with the games a player names at once (``hearts|bettel|sanac``)."""
    return Vocabulary(
        bids=re.compile(rf"(?:pass|mine|game|{named_games}|{NUMBER_WORD}|game-{NUMBER_WORD})"),
        contracts=NUMBER_CONTRACT,
    )


CENTRAL_WORDS = number_words("hearts|bettel|sanac")

for convention in (
    CROATIAN,
    AUSTRIAN,
    AUSTRIAN_UNLIMITED,
    AUSTRIAN_LIMITED,
    AUSTRIAN_STYRIAN,
    AUSTRIAN_ILLUSTRATED,
    AUSTRIAN_SANS_ATOUT,
    AUSTRIAN_NACHGEHEN,
):
    register(System(convention, family="central", vocabulary=CENTRAL_WORDS, mechanics=CENTRAL))
