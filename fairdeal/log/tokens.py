"""The words of the log: bid tokens of the Russian systems and card strings."""

from __future__ import annotations

import re
from functools import lru_cache

from fairdeal.cards import Card, DeckKind

# Level 6..10 with a strain, or misère; "-bp" = without the talon («без прикупа»); "dark-" = called in the dark
# (Classic): a bid with the talon or a pass, never «мои» and never a no-talon bid (the dark bidder takes the talon).
_PLAIN = r"(?:(?:6|7|8|9|10)(?:S|C|D|H|NT)|misere)"
_CONTRACT = rf"{_PLAIN}(?:-bp)?"
CONTRACT_TOKEN = re.compile(rf"(?:dark-{_PLAIN}|{_CONTRACT})")
BID_TOKEN = re.compile(rf"(?:dark-(?:{_PLAIN}|pass)|{_CONTRACT}|pass|mine)")
ANY_TOKEN = re.compile(r"[A-Za-z0-9-]+")   # the schema's pattern: other systems add their own words

# Systems whose auctions use the Russian vocabulary above; any other system is held to ANY_TOKEN only.
RUSSIAN_SYSTEMS = frozenset(
    {"sochi", "leningrad", "rostov", "moscow", "mailru", "classic", "gusarik", "hussar", "codex", "russian",
     "gusarik-sochi", "gusarik-leningrad", "gusarik-rostov"}
)


def card_codes(deck: DeckKind) -> dict[str, int]:
    """File strings of the deck's cards (``AS``, ``10H``) to codes."""
    return {Card.from_code(int(code)).ascii: int(code) for code in deck.codes()}


@lru_cache(maxsize=4096)   # the vocabulary is small; a log repeats the same words millions of times
def is_bid(token: str, system: str) -> bool:
    pattern = BID_TOKEN if system in RUSSIAN_SYSTEMS else ANY_TOKEN
    return pattern.fullmatch(token) is not None


@lru_cache(maxsize=4096)
def is_contract(token: str, system: str) -> bool:
    pattern = CONTRACT_TOKEN if system in RUSSIAN_SYSTEMS else ANY_TOKEN
    return pattern.fullmatch(token) is not None
