"""Bid tokens and the contract ladder (seeds 000, 002).

A token is the log's spelling of a call: ``pass``, ``mine``, ``6S``..``10NT``, ``misere``, a ``-bp`` suffix for a
no-talon bid (``9S-bp``, ``misere-bp``), or a level's single no-talon rung (Mail.Ru «9БП»: ``9-bp``, whose strain
the declarer names with the contract). The ladder runs 6♠ 6♣ 6♦ 6♥ 6NT 7♠ ... 10NT; a no-talon bid of a level
ranks above every plain bid of that level; a misère beats every bid of the levels up to
``misere_beats_up_to`` and loses to the next level; a misère without the talon ranks above the plain bids of the
next level and is beaten only by no-talon bids (Mail.Ru, seed 002: «перебить заявку "Мизер без прикупа" можно
только 9-ю БП и 10-ю БП»).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from fairdeal.cards import Suit
from fairdeal.engine.outcome import Contract
from fairdeal.errors import FairdealError

PASS = "pass"
MINE = "mine"
MISERE = "misere"
NO_TALON_SUFFIX = "-bp"
DARK_PREFIX = "dark-"  # a call made before looking at the cards (Classic, seed 003)
OPEN_SUFFIX = "-open"  # Austrian Plauderer / Offener Durchmarsch: the declarer's cards face up
STRAIN_LETTERS = ("S", "C", "D", "H", "NT")  # strain index 4 = no trump
NO_TRUMP = 4
LEVELS = range(6, 11)


class BidError(FairdealError, ValueError):
    """A bid token that cannot be read."""


@dataclass(frozen=True)
class ContractBid:
    """A contract-bearing bid: a game ``level``/``strain`` or a misère, with or without the talon."""

    level: int | None  # None for a misère
    strain: int | None  # 0..3 suits, 4 = no trump; None for a misère and for a single no-talon rung
    no_talon: bool = False
    open: bool = False  # the declarer lays his cards open after the first lead (seed 003, Austrian)

    @property
    def misere(self) -> bool:
        return self.level is None

    @property
    def rung(self) -> bool:
        """A level's single no-talon rung (Mail.Ru «9БП»): a level without a strain."""
        return self.level is not None and self.strain is None

    @cached_property  # bids are shared values (the remembered ladders): each spells its token once
    def token(self) -> str:
        if self.rung:
            return f"{self.level}{NO_TALON_SUFFIX}"
        if self.misere:
            base = MISERE
        else:
            assert self.strain is not None  # a game bid other than a rung has a strain
            base = f"{self.level}{STRAIN_LETTERS[self.strain]}"
        return base + (OPEN_SUFFIX if self.open else "") + (NO_TALON_SUFFIX if self.no_talon else "")

    def contract(self) -> Contract:
        if self.misere:
            return Contract(None, None, misere=True, no_talon=self.no_talon, open=self.open)
        if self.rung:  # only a rung conceded «без трёх» stands as a contract: scored by its level alone
            return Contract(self.level, None, no_talon=True)
        assert self.strain is not None  # a game bid other than a rung has a strain
        trump = None if self.strain == NO_TRUMP else Suit(self.strain)
        return Contract(self.level, trump, no_talon=self.no_talon, open=self.open)

    def __str__(self) -> str:
        return self.token


@cache
def parse_bid(token: str) -> ContractBid:
    """Read a contract-bearing token (not ``pass``/``mine``)."""
    text = token.strip()
    core, no_talon = (text[: -len(NO_TALON_SUFFIX)], True) if text.endswith(NO_TALON_SUFFIX) else (text, False)
    core, open_ = (core[: -len(OPEN_SUFFIX)], True) if core.endswith(OPEN_SUFFIX) else (core, False)
    if core == MISERE:
        return ContractBid(None, None, no_talon, open_)
    if no_talon and not open_ and core.isdigit() and int(core) in LEVELS:
        return ContractBid(int(core), None, True)
    for strain, letters in enumerate(STRAIN_LETTERS):
        if core.endswith(letters) and core[: -len(letters)].isdigit():
            level = int(core[: -len(letters)])
            if level in LEVELS:
                return ContractBid(level, strain, no_talon, open_)
    raise BidError(
        f"cannot read bid {token!r}: expected pass, mine, misere or 6S..10NT (strains S C D H NT), "
        f"optionally with the suffixes -open and -bp, or a no-talon rung 6-bp..10-bp"
    )


def split_dark(token: str) -> tuple[bool, str]:
    """(made in the dark, the call itself): ``dark-6S`` -> (True, ``6S``)."""
    if token.startswith(DARK_PREFIX):
        return True, token[len(DARK_PREFIX) :]
    return False, token


def bid_from_contract(contract: Contract) -> ContractBid:
    if contract.misere:
        return ContractBid(None, None, contract.no_talon, contract.open)
    strain = NO_TRUMP if contract.trump is None else int(contract.trump)
    return ContractBid(contract.level, strain, contract.no_talon, contract.open)


def rank_key(bid: ContractBid, misere_level: int) -> float:
    """A number ordering bids on the ladder; ``misere_level`` is the last level a misère beats."""
    if bid.misere:
        if bid.no_talon:  # above the next level's plain bids, below its no-talon bids
            return (misere_level + 1 - 6) * 10 + 4.5
        return (misere_level + 1 - 6) * 10 - 0.5  # above every bid of its level, below the next level
    assert bid.level is not None  # not a misère
    if bid.rung:  # above every bid of its level, suited no-talon bids included
        return (bid.level - 6) * 10 + 9.5
    assert bid.strain is not None  # not a rung
    return (bid.level - 6) * 10 + bid.strain + (5 if bid.no_talon else 0)


def beats(new: ContractBid, old: ContractBid, misere_level: int, plain_over_misere_bp: int | None = None) -> bool:
    """True when ``new`` outbids ``old`` on the ladder. A misère without the talon is beaten by no-talon bids and,
    where ``plain_over_misere_bp`` names a level (Classic: 10), by plain bids from that level."""
    if old.misere and old.no_talon and not new.no_talon:
        return plain_over_misere_bp is not None and new.level is not None and new.level >= plain_over_misere_bp
    return rank_key(new, misere_level) > rank_key(old, misere_level)


def misere_level_of(token: str) -> int:
    """The level a misère beats, read from ``misere_beats_up_to`` (``"8NT"`` -> 8)."""
    bid = parse_bid(token)
    if bid.misere:
        raise BidError(f"misere_beats_up_to must name a game bid such as 8NT, got {token!r}")
    assert bid.level is not None
    return bid.level


def all_game_bids(no_talon_levels: frozenset[int] | set[int], single_rung: bool = False) -> tuple[ContractBid, ...]:
    """Every game bid in ladder order: plain bids, then the level's no-talon bids where the convention has them —
    five suited ones, or with ``single_rung`` one strainless rung."""
    bids: list[ContractBid] = []
    for level in LEVELS:
        bids.extend(ContractBid(level, strain) for strain in range(5))
        if level in no_talon_levels and single_rung:
            bids.append(ContractBid(level, None, True))
        elif level in no_talon_levels:
            bids.extend(ContractBid(level, strain, True) for strain in range(5))
    return tuple(bids)
