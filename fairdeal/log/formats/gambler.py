"""The gambler.ru protocol text records (protocols/gambler.md), import only: one ``begin`` ... ``end`` block per
hand with the keywords NUMOFPLAYERS, FIRSTPLAYER, HAND, WIDOW, TRADE, CONTRACT and MOVE. Our reading of the
layout of each keyword's line is stated in the spec page; a line that does not fit it is reported by line and
keyword.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

from fairdeal.cards import parse_card, rank_of, suit_of
from fairdeal.errors import FairdealError
from fairdeal.log.formats import Imported
from fairdeal.log.records import (
    FORMAT_NAME,
    FORMAT_VERSION,
    BidRecord,
    ContractRecord,
    DealRecord,
    HandRecord,
    TableRecord,
    TrickRecord,
)

STRAINS = {"S": 0, "C": 1, "D": 2, "H": 3}


class GamblerError(ValueError):
    def __init__(self, line: int, keyword: str, message: str):
        super().__init__(message)
        self.line, self.keyword = line, keyword


@dataclass
class Block:
    """The lines of one ``begin`` ... ``end`` block, by keyword."""

    start: int
    values: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    hands: dict[int, tuple[int, list[str]]] = field(default_factory=dict)
    trade: list[tuple[int, list[str]]] = field(default_factory=list)
    moves: list[tuple[int, list[str]]] = field(default_factory=list)


def blocks(text: str) -> tuple[list[Block], list[GamblerError]]:
    found, errors, block = [], [], None
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        keyword, rest = words[0].upper(), words[1:]
        if keyword == "BEGIN":
            if block is not None:
                errors.append(GamblerError(block.start, "begin", "a block without its 'end'"))
            block = Block(number)
        elif block is None:
            errors.append(GamblerError(number, keyword, "a line outside begin ... end"))
        elif keyword == "END":
            found.append(block)
            block = None
        elif keyword == "HAND":
            if not rest or not rest[0].isdigit():
                errors.append(GamblerError(number, "HAND", "expected HAND PLAYER CARD..."))
            else:
                block.hands[int(rest[0])] = (number, rest[1:])
        elif keyword == "TRADE":
            block.trade.append((number, rest))
        elif keyword == "MOVE":
            block.moves.append((number, rest))
        elif keyword in ("CONTRACT", "FIRSTPLAYER", "NUMOFPLAYERS", "WIDOW"):
            block.values[keyword] = (number, rest)
        else:
            errors.append(GamblerError(number, keyword, "unknown keyword"))
    if block is not None:
        errors.append(GamblerError(block.start, "begin", "a block without its 'end'"))
    return found, errors


def _number(block: Block, keyword: str) -> int:
    line, rest = block.values.get(keyword, (block.start, []))
    if len(rest) != 1 or not rest[0].isdigit():
        raise GamblerError(line, keyword, f"expected {keyword} N")
    return int(rest[0])


def _cards(line: int, keyword: str, words: list[str]) -> list[str]:
    try:
        return [parse_card(w).ascii for w in words]
    except FairdealError as exc:
        raise GamblerError(line, keyword, str(exc)) from None


def _seat(line: int, keyword: str, text: str, players: int) -> int:
    """Players are numbered 1..N in the protocol; seats 0..N-1 in the log."""
    if not text.isdigit() or not 1 <= int(text) <= players:
        raise GamblerError(line, keyword, f"{text!r} is not a player number 1..{players}")
    return int(text) - 1


def read_gambler(text: str, system: str = "sochi") -> Imported:
    """Every block a hand line; the header from the first block's NUMOFPLAYERS (players named Player1..N)."""
    result = Imported()
    found, errors = blocks(text)
    for error in errors:
        result.fail(error.line, error.keyword, str(error))
    players = None
    for index, block in enumerate(found, start=1):
        try:
            if players is None:
                players = _number(block, "NUMOFPLAYERS")
                header = TableRecord(
                    format=FORMAT_NAME,
                    version=FORMAT_VERSION,
                    system=system,
                    players=[f"Player{p}" for p in range(1, players + 1)],
                    deck="piquet32",
                    deal_pattern="russian",
                    dealing="server-rng",
                )
                if not result.keep(header, block.start):
                    return result
            record = _hand(block, index, players)
        except GamblerError as exc:
            result.fail(exc.line, exc.keyword, str(exc))
            continue
        result.keep(record, block.start, locate=partial(_located, block=block))
    if not found:
        result.fail(1, "begin", "no begin ... end block")
    return result


def _located(path: str, block: Block) -> tuple[int, str]:
    head = "talons" if path.startswith("deal.talons") else path.split(".")[0].split("[")[0]
    keyword = {
        "talons": "WIDOW",
        "deal": "HAND",
        "auction": "TRADE",
        "contract": "CONTRACT",
        "tricks": "MOVE",
        "dealer": "FIRSTPLAYER",
    }.get(head, head)
    line = block.values.get(keyword, (block.start, []))[0]
    if keyword == "HAND" and block.hands:
        line = min(number for number, _ in block.hands.values())
    if keyword == "TRADE" and block.trade:
        line = block.trade[0][0]
    if keyword == "MOVE" and block.moves:
        line = block.moves[0][0]
    return line, keyword


def _hand(block: Block, number: int, players: int) -> HandRecord:
    if _number(block, "NUMOFPLAYERS") != players:
        raise GamblerError(block.values["NUMOFPLAYERS"][0], "NUMOFPLAYERS", "the table changed size mid-session")
    first = _seat(
        block.values.get("FIRSTPLAYER", (block.start, []))[0],
        "FIRSTPLAYER",
        str(_number(block, "FIRSTPLAYER")),
        players,
    )
    dealer = (first - 1) % players  # first hand sits on the dealer's left
    hands: list[list[str]] = [[] for _ in range(players)]
    for player, (line, words) in block.hands.items():
        hands[_seat(line, "HAND", str(player), players)] = _cards(line, "HAND", words)
    widow_line, widow = block.values.get("WIDOW", (block.start, []))
    fields: dict[str, Any] = {"deal": DealRecord(hands=hands, talons=[_cards(widow_line, "WIDOW", widow)])}
    auction = []
    for line, words in block.trade:
        if len(words) != 2:
            raise GamblerError(line, "TRADE", "expected TRADE PLAYER BID")
        auction.append(BidRecord(seat=_seat(line, "TRADE", words[0], players), bid=_bid(words[1])))
    if auction:
        fields["auction"] = auction
    trump = None
    if "CONTRACT" in block.values:
        line, words = block.values["CONTRACT"]
        if len(words) != 2:
            raise GamblerError(line, "CONTRACT", "expected CONTRACT PLAYER BID")
        bid = _bid(words[1])
        fields["contract"] = ContractRecord(declarer=_seat(line, "CONTRACT", words[0], players), bid=bid)
        trump = STRAINS.get(bid[-1]) if bid[:-1].isdigit() else None
    if block.moves:
        fields["tricks"] = _tricks(block.moves, players, trump)
    return HandRecord(hand=number, dealer=dealer, **fields)


def _bid(word: str) -> str:
    """The protocol's bids in the log's words: PASS, MISERE and level+strain (6S, 7NT, 8BK for no trump)."""
    upper = word.upper()
    if upper in ("PASS", "MISERE"):
        return upper.lower()
    if upper.endswith("BK"):
        upper = upper[:-2] + "NT"
    return upper


def _tricks(moves: list[tuple[int, list[str]]], players: int, trump: int | None) -> list[TrickRecord]:
    """MOVE PLAYER CARD lines in play order, cut into tricks by who holds the table (three cards a trick)."""
    played = []
    for line, words in moves:
        if len(words) != 2:
            raise GamblerError(line, "MOVE", "expected MOVE PLAYER CARD")
        played.append((line, _seat(line, "MOVE", words[0], players), _cards(line, "MOVE", words[1:])[0]))
    tricks = []
    for start in range(0, len(played), 3):
        trick = played[start : start + 3]
        codes = [parse_card(card).code for _, _, card in trick]
        led = suit_of(codes[0])

        def strength(code: int, led: int = led) -> int:
            if trump is not None and suit_of(code) == trump:
                return 20 + rank_of(code)
            return 10 + rank_of(code) if suit_of(code) == led else -1

        best = max(range(len(trick)), key=lambda i: strength(codes[i]))
        tricks.append(TrickRecord(lead=trick[0][1], cards=[card for _, _, card in trick], winner=trick[best][1]))
    return tricks
