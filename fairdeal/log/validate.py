"""Checks beyond types: cards belong to the deck and form a deal, seats exist, bids are words, hands count up.

``LogContext`` holds what the header fixes (players, deck, pattern); ``LogValidator`` keeps the state across
lines (header seen, last hand number) and returns every problem of a record as ``LogError``s naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, lru_cache
from typing import Any

from msgspec import UnsetType

from fairdeal.bounded import quote
from fairdeal.cards import DeckKind
from fairdeal.deal import DealPattern, get_pattern, seats_of_hands
from fairdeal.errors import CardError, ConventionError, DealError, LogError, NotationError, ShuffleError
from fairdeal.log.header import header_convention
from fairdeal.log.records import UNSET, EndRecord, HandRecord, Record, TableRecord
from fairdeal.log.tokens import ANY_TOKEN, KONTRA_CALL, card_codes, is_bid, is_contract
from fairdeal.shuffle.notation import MAX_ACTIONS, parse_notation

_HEX64 = frozenset("0123456789abcdef")
_LARGEST_DECK = DeckKind.PIQUET32
_ANY_SEAT = range(2**63)


@dataclass(frozen=True)
class LogContext:
    """What the header fixes for every hand line."""

    system: str
    players: tuple[str, ...]
    deck: DeckKind
    pattern: DealPattern
    codes: dict[str, int]
    _holders: dict[int, frozenset[int]] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def num_seats(self) -> int:
        return len(self.players)

    @cached_property
    def deck_size(self) -> int:
        return self.deck.size

    @cached_property
    def trick_seats(self) -> int:
        """Seats that may lead or win a trick: the players, plus the dummy (seat n) when the pattern has one."""
        return self.num_seats + (self.pattern.dummy_hand is not None)

    @cached_property
    def hand_lists(self) -> int:
        """Lists in ``deal.hands``: one per seat, then the dummy's or the hand laid aside (rule 6), if any."""
        return self.num_seats + self.pattern.seat_lists

    @cached_property
    def cards(self) -> frozenset[str]:
        return frozenset(self.codes)

    def is_the_deck(self, cards: list[str]) -> bool:
        """Whether ``cards`` (as many as the deck has) are the deck's cards, each once; the strings are compared
        as they are, which is cheaper than mapping each to its code."""
        distinct = set(cards)
        return len(distinct) == len(cards) and distinct <= self.cards

    def holders(self, dealer: int) -> frozenset[int]:
        """Seats dealt a hand when ``dealer`` deals (the dummy, or the hand laid aside, counts as seat n)."""
        if dealer not in self._holders:
            seats = seats_of_hands(self.pattern, dealer, self.num_seats)
            self._holders[dealer] = frozenset(self.num_seats if s is None else s for s in seats)
        return self._holders[dealer]


class _Problems:
    """Collects (field, message) pairs for one line."""

    def __init__(self, line: int) -> None:
        self.line = line
        self.errors: list[LogError] = []

    def add(self, field: str, message: str) -> None:
        self.errors.append(LogError(message, self.line, field))


class LineOrder:
    """The rules that span lines: the header first and only once, nothing after the end line, hand numbers
    increasing. Kept apart from the checks of one line so a reader that checks blocks of a log in parallel can
    apply them afterwards, in line order, and judge every line as the streaming reader does."""

    def __init__(self) -> None:
        self.seen_table = False
        self.seen_end = False
        self.last_hand: int | None = None
        self.lines_seen = 0

    def check(self, kind: str, hand: int | None, problems: _Problems) -> None:
        """A readable line of ``kind`` (``table``, ``hand`` or ``end``; ``hand`` its number)."""
        first = self.lines_seen == 0
        self.lines_seen += 1
        if self.seen_end:
            problems.add("type", "nothing may follow the end line")
        if kind == "table":
            if self.seen_table or not first:
                problems.add("type", "the table header must be the first line, and only one")
            self.seen_table = True
        elif first:
            problems.add("type", 'the first line must be the table header ({"type":"table", ...})')
        if kind == "end":
            self.seen_end = True
        if kind == "hand" and hand is not None:
            if hand < 1:
                problems.add("hand", f"hand numbers start at 1, got {hand}")
            elif self.last_hand is not None and hand <= self.last_hand:
                problems.add("hand", f"hand {hand} does not follow hand {self.last_hand}: numbers must increase")
            self.last_hand = hand

    def judge(self, kind: str, hand: int | None, line: int) -> list[LogError]:
        """``check`` for a line judged apart from its own checks: its errors."""
        problems = _Problems(line)
        self.check(kind, hand, problems)
        return problems.errors

    def unreadable(self, hand: int | None = None) -> None:
        """Count a line that failed to decode, so the header rule and hand numbering stay right."""
        self.lines_seen += 1
        if hand is not None:
            self.last_hand = hand


def kind_of(record: Record) -> str:
    return "table" if isinstance(record, TableRecord) else "hand" if isinstance(record, HandRecord) else "end"


class LogValidator:
    """Validates records line after line; keep one per log. ``order=False``: the checks of each line alone,
    for a reader that applies ``LineOrder`` itself."""

    def __init__(self, order: bool = True) -> None:
        self.context: LogContext | None = None
        self.order = LineOrder() if order else None

    def check(self, record: Record, line: int) -> list[LogError]:
        problems = _Problems(line)
        if self.order is not None:
            self.order.check(kind_of(record), getattr(record, "hand", None), problems)
        if isinstance(record, TableRecord):
            self._check_table(record, problems)
        elif isinstance(record, HandRecord):
            HandChecker(self.context, record, problems).run()
        else:
            self._check_end(record, problems)
        return problems.errors

    def note_unreadable_line(self, hand_number: int | None = None) -> None:
        """Count a line that failed to decode, so the header rule and hand numbering stay right."""
        if self.order is not None:
            self.order.unreadable(hand_number)

    def _check_table(self, record: TableRecord, problems: _Problems) -> None:
        _check_players(record.players, problems)
        deck = _parse_deck(record.deck, problems)
        pattern = _parse_pattern(record.deal_pattern, problems)
        if record.started is not UNSET:
            _check_timestamp(record.started, problems)
        if record.convention is not UNSET:
            _check_overrides(record, problems)
        if deck is None or pattern is None:
            return
        if pattern.deck is not deck:
            problems.add("deal_pattern", f"pattern {pattern.name} deals a {pattern.deck.value} deck, not {deck.value}")
        elif record.players and len(record.players) not in pattern.table_sizes:
            sizes = ", ".join(map(str, pattern.table_sizes))
            problems.add("players", f"pattern {pattern.name} is for {sizes} players, got {len(record.players)}")
        elif self.context is None:
            # Other header faults (a name, a date) do not stop the hands from being checked against the deck.
            self.context = LogContext(record.system, tuple(record.players), deck, pattern, card_codes(deck))

    def _check_end(self, record: EndRecord, problems: _Problems) -> None:
        if record.settlement is UNSET or self.context is None:
            return
        for name in record.settlement:
            if name not in self.context.players:
                problems.add(f"settlement.{name}", f"{quote(name)} is not one of the players")


def plainly_valid_shuffle(text: str, seats: int, deck_size: int) -> bool:
    """True for the common shuffles — card-by-card runs and cuts, single spaces, seats that exist, sizes that fit
    the deck — which the full parser would accept without a problem; False means "ask the full parser" (it then
    accepts or words the error). Half of validation time went to parsing these one by one."""
    actions = text.count(" ") + 1 - text.count("cut")  # a cut is two tokens: "cut" and its depth
    return actions <= MAX_ACTIONS and _plain_shuffle(seats, deck_size).fullmatch(text) is not None


@lru_cache(maxsize=64)
def _plain_shuffle(seats: int, deck_size: int) -> re.Pattern[str]:
    """One regular expression for a table's plain shuffles, its numbers spelt out so no token needs converting."""

    def one_of(numbers: range) -> str:
        return "(?:" + "|".join(str(n) for n in reversed(numbers)) + ")"

    actor = f"(?:@{one_of(range(seats))})?"
    action = f"(?:{one_of(range(1, deck_size + 1))}{actor}|cut{actor} {one_of(range(1, deck_size))})"
    return re.compile(f"{action}(?: {action})*")


def _check_players(players: Sequence[str], problems: _Problems) -> None:
    if not players:
        problems.add("players", "at least one player is needed")
    for index, name in enumerate(players):
        if not name.strip():
            problems.add(f"players[{index}]", "a player needs a name")
    if len(set(players)) != len(players):
        problems.add("players", "player names must differ (the settlement is keyed by name)")


def _check_overrides(record: TableRecord, problems: _Problems) -> None:
    """House rules must name real parameters with values of their type, for a system the reader knows."""
    try:
        header_convention(record)
    except ConventionError as exc:
        problems.add(exc.field or "convention", exc.reason)


def _parse_deck(name: str, problems: _Problems) -> DeckKind | None:
    try:
        return DeckKind.parse(name)
    except CardError as exc:
        problems.add("deck", str(exc))
        return None


def _parse_pattern(name: str, problems: _Problems) -> DealPattern | None:
    try:
        return get_pattern(name)
    except DealError as exc:
        problems.add("deal_pattern", str(exc))
        return None


def _check_timestamp(text: str, problems: _Problems) -> None:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        problems.add("started", f"{quote(text)} is not an ISO-8601 date/time")


def _listed(extras: dict[str, Any], key: str) -> list[Any]:
    """``extras[key]`` when it is a list (a value of another type is reported once, by ``_check_central_extras``)."""
    value = extras.get(key, [])
    return value if isinstance(value, list) else []


class HandChecker:
    """The semantic checks of one hand line against the header's context (if the header was readable)."""

    def __init__(self, context: LogContext | None, record: HandRecord, problems: _Problems) -> None:
        self.context = context
        self.record = record
        self.problems = problems
        self.codes = context.codes if context else card_codes(_LARGEST_DECK)
        self.system = context.system if context else ""

    def run(self) -> None:
        record = self.record
        self._check_seat("dealer", record.dealer, players_only=True)
        if record.order_before is not UNSET:
            self._check_order_before(record.order_before)
        if record.shuffle is not UNSET:
            self._check_shuffle(record.shuffle)
        if record.deal is not UNSET:
            self._check_deal()
        self._check_bidding()
        if record.tricks is not UNSET:
            self._check_tricks()
        if record.result is not UNSET:
            self._check_result()
        if record.score is not UNSET:
            self._check_score()
        if record.extras is not UNSET:
            self._check_extras(record.extras)
        if record.transcript is not UNSET and not (
            len(record.transcript.sha256) == 64 and set(record.transcript.sha256) <= _HEX64
        ):
            self.problems.add("transcript.sha256", "must be 64 lower-case hex digits")

    def _seats(self, players_only: bool) -> range:
        if self.context is None:
            return _ANY_SEAT
        return range(self.context.num_seats if players_only else self.context.trick_seats)

    def _check_seat(self, field: str, seat: int, players_only: bool = False) -> bool:
        seats = self._seats(players_only)
        if seat in seats:
            return True
        limit = "0 or more" if seats is _ANY_SEAT else f"0..{seats.stop - 1}"
        self.problems.add(field, f"seat {seat} is outside {limit}")
        return False

    def _codes_of(self, field: str, cards: list[str], dealt: set[int] | None = None) -> list[int]:
        """Codes of the cards that are in the deck; a foreign card, or one repeated here or in ``dealt``, is
        reported."""
        codes = [self.codes.get(card) for card in cards]
        known = [code for code in codes if code is not None]
        if len(known) == len(codes) and len(set(known)) == len(known) and (dealt is None or dealt.isdisjoint(known)):
            return known
        return self._report_cards(field, cards, dealt)

    def _report_cards(self, field: str, cards: list[str], dealt: set[int] | None) -> list[int]:
        codes: list[int] = []
        seen: set[int] = set()
        for index, card in enumerate(cards):
            code = self.codes.get(card)
            if code is None:
                self.problems.add(f"{field}[{index}]", f"{quote(card)} is not a card of the {self._deck_name()} deck")
            elif code in seen or (dealt is not None and code in dealt):
                self.problems.add(f"{field}[{index}]", f"{card} appears twice")
            else:
                seen.add(code)
                codes.append(code)
        return codes

    def _deck_name(self) -> str:
        return self.context.deck.value if self.context else _LARGEST_DECK.value

    def _check_order_before(self, cards: list[str]) -> None:
        if self.context is not None and len(cards) == self.context.deck_size and self.context.is_the_deck(cards):
            return
        codes = self._codes_of("order_before", cards)
        if self.context and len(cards) != self.context.deck_size:
            self.problems.add(
                "order_before", f"a {self._deck_name()} order has {self.context.deck_size} cards, got {len(cards)}"
            )
        elif self.context and len(codes) != self.context.deck_size:
            self.problems.add("order_before", "is not a permutation of the deck")

    def _check_shuffle(self, text: str) -> None:
        if self.context is not None and plainly_valid_shuffle(text, self.context.num_seats, self.context.deck_size):
            return
        try:
            sequence = parse_notation(text)
        except (NotationError, ShuffleError) as exc:
            self.problems.add("shuffle", str(exc))
            return
        if self.context is None:
            return
        for index, action in enumerate(sequence.actions, start=1):
            if isinstance(action.actor, int) and action.actor >= self.context.num_seats:
                self.problems.add(
                    "shuffle",
                    f"action {index} ({action.notation()}): seat {action.actor} is outside "
                    f"0..{self.context.num_seats - 1}",
                )
            if action.op.is_known:
                try:
                    action.op.permutation(self.context.deck_size)
                except ShuffleError as exc:
                    self.problems.add("shuffle", f"action {index} ({action.notation()}): {exc}")

    def _check_deal(self) -> None:
        deal = self.record.deal
        assert not isinstance(deal, UnsetType)  # the caller checks that it is set
        errors_before = len(self.problems.errors)
        if self.context is not None and self._plainly_a_deal():
            self._check_deal_shape()
            return
        dealt: set[int] = set()
        for seat, hand in enumerate(deal.hands):
            dealt.update(self._codes_of(f"deal.hands[{seat}]", hand, dealt))
        for index, talon in enumerate(deal.talons):
            dealt.update(self._codes_of(f"deal.talons[{index}]", talon, dealt))
        if self.context is None:
            return
        self._check_deal_shape()
        if len(self.problems.errors) == errors_before and len(dealt) != self.context.deck_size:
            self.problems.add(
                "deal", f"hands and talons hold {len(dealt)} cards, the deck has {self.context.deck_size}"
            )

    def _plainly_a_deal(self) -> bool:
        """True when hands and talons together hold each card of the deck once (the common case, checked in one
        pass); otherwise the per-list check finds and words what is wrong."""
        deal, context = self.record.deal, self.context
        assert context is not None and not isinstance(deal, UnsetType)  # the caller checks both
        cards = [card for hand in deal.hands for card in hand]
        for talon in deal.talons:
            cards += talon
        return len(cards) == context.deck_size and context.is_the_deck(cards)

    def _check_deal_shape(self) -> None:
        context, deal = self.context, self.record.deal
        assert context is not None and not isinstance(deal, UnsetType)  # the caller checks that it is set
        pattern = context.pattern
        if len(deal.hands) != context.hand_lists:
            self.problems.add("deal.hands", f"needs one list per seat ({context.hand_lists}), got {len(deal.hands)}")
            return
        if not 0 <= self.record.dealer < context.num_seats:
            return
        holders = context.holders(self.record.dealer)
        for seat, hand in enumerate(deal.hands):
            want = pattern.cards_per_hand if seat in holders else 0
            if len(hand) != want:
                why = "receives" if want else "sits out and receives"
                self.problems.add(f"deal.hands[{seat}]", f"seat {seat} {why} {want} cards, got {len(hand)}")
        if len(deal.talons) != pattern.talons:
            self.problems.add(
                "deal.talons", f"pattern {pattern.name} has {pattern.talons} talon(s), got {len(deal.talons)}"
            )
        for index, talon in enumerate(deal.talons):
            if len(talon) != pattern.talon_size:
                self.problems.add(
                    f"deal.talons[{index}]", f"a talon holds {pattern.talon_size} cards, got {len(talon)}"
                )

    def _check_bidding(self) -> None:
        record = self.record
        if record.auction is not UNSET:
            for index, bid in enumerate(record.auction):
                self._check_seat(f"auction[{index}].seat", bid.seat, players_only=True)
                if not is_bid(bid.bid, self.system):
                    self.problems.add(
                        f"auction[{index}].bid", f"{quote(bid.bid)} is not a bid of {self.system or 'this system'}"
                    )
        if record.contract is not UNSET:
            self._check_seat("contract.declarer", record.contract.declarer, players_only=True)
            if not is_contract(record.contract.bid, self.system):
                self.problems.add("contract.bid", f"{quote(record.contract.bid)} is not a contract")
        if record.discard is not UNSET:
            self._check_discard(record.discard)
        if record.defence is not UNSET:
            for index, call in enumerate(record.defence):
                self._check_seat(f"defence[{index}].seat", call.seat, players_only=True)
                if ANY_TOKEN.fullmatch(call.call) is None:
                    self.problems.add(
                        f"defence[{index}].call", f"{quote(call.call)} is not a word of letters, digits and -"
                    )

    def _check_discard(self, discard: list[str]) -> None:
        self._codes_of("discard", discard)
        record = self.record
        # One card after the one-card exchange of «малая бедность» (seed 003, rule 52), else the talon's size.
        if self.context and not 1 <= len(discard) <= self.context.pattern.talon_size:
            self.problems.add(
                "discard", f"the discard has 1 to {self.context.pattern.talon_size} cards, got {len(discard)}"
            )
        if record.deal is UNSET or record.contract is UNSET:
            return
        declarer = record.contract.declarer
        if not 0 <= declarer < len(record.deal.hands):
            return
        if record.extras is not UNSET and any(
            step.get("take") for step in _listed(record.extras, "nachgehen") if isinstance(step, dict)
        ):
            return  # Nachgehen: the discard is the auction winner's, the contract a follower's (extras.nachgehen)
        held = set(record.deal.hands[declarer]).union(*record.deal.talons)
        for index, card in enumerate(discard):
            if card in self.codes and card not in held:
                self.problems.add(f"discard[{index}]", f"{card} was neither in the declarer's hand nor in the talon")

    def _check_tricks(self) -> None:
        tricks = self.record.tricks
        assert not isinstance(tricks, UnsetType)  # the caller checks that it is set
        seats = self._seats(players_only=False)
        widest = self.context.pattern.hands if self.context else None
        if self.context and len(tricks) > self.context.pattern.cards_per_hand:
            self.problems.add("tricks", f"at most {self.context.pattern.cards_per_hand} tricks, got {len(tricks)}")
        talon_cards = self._talon_cards()
        for index, trick in enumerate(tricks):
            if trick.lead not in seats:
                self._check_seat(f"tricks[{index}].lead", trick.lead)
            if trick.winner not in seats:
                self._check_seat(f"tricks[{index}].winner", trick.winner)
            if len(trick.cards) < 2 or (widest is not None and len(trick.cards) > widest):
                self.problems.add(
                    f"tricks[{index}].cards", f"a trick has 2..{widest or 'n'} cards, got {len(trick.cards)}"
                )
            if trick.talon_card is not UNSET:
                self._check_talon_card(f"tricks[{index}].talon_card", trick.talon_card, talon_cards)
        played = [card for trick in tricks for card in trick.cards]
        codes = list(map(self.codes.get, played))
        if None in codes or len(set(codes)) != len(codes):
            seen: set[int] = set()
            for index, trick in enumerate(tricks):
                seen.update(self._report_cards(f"tricks[{index}].cards", trick.cards, seen))

    def _talon_cards(self) -> set[str] | None:
        deal = self.record.deal
        return None if deal is UNSET else set().union(*deal.talons)

    def _check_talon_card(self, field: str, card: str, talon_cards: set[str] | None) -> None:
        if card not in self.codes:
            self.problems.add(field, f"{quote(card)} is not a card of the {self._deck_name()} deck")
        elif talon_cards is not None and card not in talon_cards:
            self.problems.add(field, f"{card} is not in the talon")
        result = self.record.result
        if result is not UNSET and result.kind != "raspasy":
            self.problems.add(field, "a talon card leads only in raspasy")

    def _check_result(self) -> None:
        result = self.record.result
        assert not isinstance(result, UnsetType)  # the caller checks that it is set
        if self.context:
            if len(result.tricks) not in (self.context.num_seats, self.context.trick_seats):
                self.problems.add(
                    "result.tricks", f"needs one count per seat ({self.context.num_seats}), got {len(result.tricks)}"
                )
            if sum(result.tricks) > self.context.pattern.cards_per_hand:
                self.problems.add("result.tricks", f"more than {self.context.pattern.cards_per_hand} tricks in all")
        for seat, count in enumerate(result.tricks):
            if count < 0:
                self.problems.add(f"result.tricks[{seat}]", f"a trick count cannot be negative, got {count}")
        if result.kind in ("raspasy", "redeal") and self.record.contract is not UNSET:
            self.problems.add("contract", f"{result.kind} has no contract")
        if result.kind == "redeal" and (any(result.tricks) or (self.record.tricks is not UNSET and self.record.tricks)):
            self.problems.add("result.tricks", "a redeal plays no trick")
        if result.kind != "raspasy" and self.record.contract is not UNSET:
            is_misere = "misere" in self.record.contract.bid
            if is_misere != (result.kind == "misere"):
                self.problems.add("result.kind", f"{result.kind} does not fit the contract {self.record.contract.bid}")

    def _check_extras(self, extras: dict[str, Any]) -> None:
        """The engine's extras: which talon was bought (two talons, Hussar), the whister's own talon and discard,
        Classic's opening round, bombs and multiplier."""
        talons = self.context.pattern.talons if self.context else None
        for key in ("talon_bought", "whist_talon"):
            if key in extras and not (isinstance(extras[key], int) and 0 <= extras[key] < (talons or 2**31)):
                self.problems.add(
                    f"extras.{key}", f"must be a talon index 0..{(talons or 1) - 1}, got {quote(extras[key])}"
                )
        if "defence_discard" in extras:
            cards = extras["defence_discard"]
            if not isinstance(cards, list) or len(cards) != 2 or not all(isinstance(c, str) for c in cards):
                self.problems.add("extras.defence_discard", "must be the two cards the whister put away")
            else:
                self._codes_of("extras.defence_discard", cards)
        for key in ("opening_round", "bomb", "multiplier", "raspasy_streak"):
            if key in extras and not (isinstance(extras[key], int) and extras[key] >= 0):
                self.problems.add(f"extras.{key}", f"must be a whole number >= 0, got {quote(extras[key])}")
        self._check_central_extras(extras)

    def _check_central_extras(self, extras: dict[str, Any]) -> None:
        """Austrian/Croatian/19th-century extras: the invitation, the kontra chain, the refes held, «no aces»."""
        for key in ("invited", "no_aces"):
            if key in extras and not isinstance(extras[key], bool):
                self.problems.add(f"extras.{key}", f"must be true or false, got {quote(extras[key])}")
        if "refe" in extras:
            seats = extras["refe"]
            if not isinstance(seats, list) or not all(isinstance(s, int) for s in seats):
                self.problems.add("extras.refe", "must list the seats holding a refe")
            else:
                for index, seat in enumerate(seats):
                    self._check_seat(f"extras.refe[{index}]", seat, players_only=True)
        if "columns" in extras and not (
            isinstance(extras["columns"], list) and all(isinstance(c, (int, float)) for c in extras["columns"])
        ):
            self.problems.add("extras.columns", "must list each seat's contract column (numbers)")
        if "pot" in extras and not (isinstance(extras["pot"], (int, float)) and extras["pot"] >= 0):
            self.problems.add(
                "extras.pot", f"must be the money left in the pot (a number >= 0), got {quote(extras['pot'])}"
            )
        for key in ("hat", "kontra", "nachgehen"):
            if key in extras and not isinstance(extras[key], list):
                self.problems.add(f"extras.{key}", f"must be a list, got {quote(extras[key])}")
        for index, step in enumerate(_listed(extras, "nachgehen")):
            if not isinstance(step, dict):
                self.problems.add(f"extras.nachgehen[{index}]", "must be an object")
        for index, seat in enumerate(_listed(extras, "hat")):
            if not isinstance(seat, int) or not self._check_seat(f"extras.hat[{index}]", seat, players_only=True):
                self.problems.add(f"extras.hat[{index}]", "must be a seat under the hat")
        for index, call in enumerate(_listed(extras, "kontra")):
            where = f"extras.kontra[{index}]"
            if not isinstance(call, dict) or not isinstance(call.get("seat"), int):
                self.problems.add(where, 'must be {"seat": s, "call": word}')
                continue
            self._check_seat(f"{where}.seat", call["seat"], players_only=True)
            if not isinstance(call.get("call"), str) or KONTRA_CALL.fullmatch(call["call"]) is None:
                self.problems.add(
                    f"{where}.call",
                    f"{quote(call.get('call'))} is not pass, kontra, rekontra, subkontra, mortkontra or kontra-N",
                )

    def _check_score(self) -> None:
        score = self.record.score
        assert not isinstance(score, UnsetType)  # the caller checks that it is set
        for index, line in enumerate(score):
            field = f"score[{index}]"
            self._check_seat(f"{field}.seat", line.seat, players_only=True)
            if line.column == "whists" and line.on is UNSET:
                self.problems.add(f"{field}.on", "whists are written on a seat: 'on' is required")
            elif line.column != "whists" and line.on is not UNSET:
                self.problems.add(f"{field}.on", f"only whists are written on a seat, not {line.column}")
            elif (
                line.on is not UNSET
                and self._check_seat(f"{field}.on", line.on, players_only=True)
                and line.on == line.seat
            ):
                self.problems.add(f"{field}.on", "a player writes no whists on himself")
