"""The words of the log: each registered system's bid and contract tokens (its ``Vocabulary``), and card strings."""

from __future__ import annotations

import re
from functools import lru_cache

from fairdeal.cards import Card, DeckKind
from fairdeal.engine.system import get_system
from fairdeal.errors import ConventionError

ANY_TOKEN = re.compile(r"[A-Za-z0-9-]+")  # the schema's pattern: each registered system has its own words
# The kontra chain (003 Croatian: «контра ... реконтра ... субконтра ... мортконтра ... и так до бесконечности»).
KONTRA_CALL = re.compile(r"(?:pass|kontra|rekontra|subkontra|mortkontra|kontra-[0-9]+)")


def card_codes(deck: DeckKind) -> dict[str, int]:
    """File strings of the deck's cards (``AS``, ``10H``) to codes."""
    return {Card.from_code(int(code)).ascii: int(code) for code in deck.codes()}


def _vocabulary(system: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(bid pattern, contract pattern) of a registered system; an unknown system is held to ANY_TOKEN only."""
    try:
        words = get_system(system).vocabulary
    except ConventionError:
        return ANY_TOKEN, ANY_TOKEN
    return words.bids, words.contracts


@lru_cache(maxsize=4096)  # the vocabulary is small; a log repeats the same words millions of times
def is_bid(token: str, system: str) -> bool:
    return _vocabulary(system)[0].fullmatch(token) is not None


@lru_cache(maxsize=4096)
def is_contract(token: str, system: str) -> bool:
    return _vocabulary(system)[1].fullmatch(token) is not None
