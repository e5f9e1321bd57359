"""The shuffle notation: parse a logged sequence like ``2 4 cut@C 12`` and print it back canonically.

Grammar and semantics: ``protocols/shuffle-notation.md``. Actions are separated by whitespace and ``;``;
list arguments are comma-separated (spaces around commas allowed). Keywords and riffle letters are read in
any case; the printer writes keywords in lower case, patterns in upper case, one space between actions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from fairdeal.errors import NotationError, ShuffleError
from fairdeal.shuffle.ops import (
    ACTOR_NAME,
    UNKNOWN,
    Action,
    Actor,
    Cut,
    Faro,
    Overhand,
    Perm,
    Pile,
    Riffle,
    Run,
    RunUnder,
    ShuffleOp,
    ShuffleSequence,
    Strip,
)


class NotationSyntaxError(NotationError):
    """A notation error that points at a token: its text, 1-based index and column, and what was expected."""

    def __init__(self, token: str, index: int, column: int, expected: str):
        self.token = token
        self.index = index
        self.column = column
        self.expected = expected
        got = f"{token!r}" if token else "end of input"
        super().__init__(f"shuffle notation, token {index} at column {column}: expected {expected}, got {got}")


@dataclass(frozen=True)
class Token:
    text: str
    index: int
    column: int


# A token starts with a non-separator and absorbs comma-separated continuations, so "3, 5, 2" is one list.
_TOKEN = re.compile(r"[^\s;](?:[^\s;,]|\s*,\s*)*")
_NUMBER = re.compile(r"[0-9]+")
_RUN_HEAD = re.compile(r"([0-9]+)(↑|\^)?")
_WORD_HEAD = re.compile(r"[A-Za-z]+")
_PATTERN = re.compile(r"[LRlr]+")

MAX_DIGITS = 9
_ACTION_EXPECTED = "an action: a card count (2, 4↑) or one of overhand, strip, cut, riffle, faro, pile, perm"


def tokenize(text: str) -> list[Token]:
    return [Token(m.group(), i, m.start() + 1) for i, m in enumerate(_TOKEN.finditer(text), start=1)]


class _Cursor:
    """The tokens of a text, read as the parser asks for them: a text far past the action limit is not split
    whole before the limit stops it."""

    def __init__(self, text: str):
        self._matches = _TOKEN.finditer(text)
        self._length = len(text)
        self._count = 0
        self._next = self._read()

    def _read(self) -> Token | None:
        match = next(self._matches, None)
        if match is None:
            return None
        self._count += 1
        return Token(match.group(), self._count, match.start() + 1)

    def done(self) -> bool:
        return self._next is None

    def take(self) -> Token:
        if self._next is None:
            return Token("", self._count + 1, self._length + 1)
        token, self._next = self._next, self._read()
        return token


def _fail(token: Token, expected: str) -> NotationSyntaxError:
    return NotationSyntaxError(token.text, token.index, token.column, expected)


def _to_int(token: Token, digits: str) -> int:
    # No deck has a billion cards, and Python refuses to convert very long digit strings at all.
    if len(digits) > MAX_DIGITS:
        raise _fail(token, f"a number of at most {MAX_DIGITS} digits")
    return int(digits)


def _number(token: Token, what: str) -> int:
    if not _NUMBER.fullmatch(token.text):
        raise _fail(token, what)
    return _to_int(token, token.text)


def _number_list(token: Token, what: str) -> tuple[int, ...]:
    items = [item.strip() for item in token.text.split(",")]
    if not all(_NUMBER.fullmatch(item) for item in items):
        raise _fail(token, what)
    return tuple(_to_int(token, item) for item in items)


def _actor(head: Token, text: str) -> Actor:
    if _NUMBER.fullmatch(text):
        return _to_int(head, text)
    if ACTOR_NAME.fullmatch(text):
        return text
    raise _fail(head, "an actor after '@': a seat number or a name starting with a letter (cut@C, 4@2)")


def _make(token: Token, factory: type[ShuffleOp], *args: object) -> ShuffleOp:
    """Build an op; a value the op rejects (a zero packet, a pattern with the wrong L count) blames ``token``."""
    try:
        return factory(*args)
    except ShuffleError as exc:
        raise _fail(token, f"a valid {factory.keyword} ({exc})") from None


def _parse_overhand(cursor: _Cursor) -> ShuffleOp:
    token = cursor.take()
    if token.text == UNKNOWN:
        return Overhand(None)
    return _make(token, Overhand, _number_list(token, "overhand packet sizes like 3,5,2 or '?'"))


def _parse_strip(cursor: _Cursor) -> ShuffleOp:
    token = cursor.take()
    return _make(token, Strip, _number_list(token, "strip packet sizes like 5,7,6"))


def _parse_cut(cursor: _Cursor) -> ShuffleOp:
    token = cursor.take()
    if token.text == UNKNOWN:
        return Cut(None)
    return _make(token, Cut, _number(token, "a cut depth (a positive integer) or '?'"))


def _parse_riffle(cursor: _Cursor) -> ShuffleOp:
    token = cursor.take()
    if token.text == UNKNOWN:
        return Riffle(None, None)
    split = _number(token, "a riffle split (cards in the top packet) or '?'")
    pattern = cursor.take()
    if not _PATTERN.fullmatch(pattern.text):
        raise _fail(pattern, "a riffle pattern of L and R letters, top of the new deck first")
    return _make(pattern, Riffle, split, pattern.text.upper())


def _parse_faro(cursor: _Cursor) -> ShuffleOp:
    token = cursor.take()
    kind = token.text.lower()
    if kind not in ("in", "out"):
        raise _fail(token, "'in' or 'out' after faro")
    return Faro(kind)


def _parse_pile(cursor: _Cursor) -> ShuffleOp:
    token = cursor.take()
    return _make(token, Pile, _number(token, "a number of piles"))


def _parse_perm(cursor: _Cursor) -> ShuffleOp:
    token = cursor.take()
    return _make(token, Perm, _number_list(token, "1-based positions like 3,1,2"))


_KEYWORDS: dict[str, Callable[[_Cursor], ShuffleOp]] = {
    "overhand": _parse_overhand,
    "strip": _parse_strip,
    "cut": _parse_cut,
    "riffle": _parse_riffle,
    "faro": _parse_faro,
    "pile": _parse_pile,
    "perm": _parse_perm,
}


def _parse_action(cursor: _Cursor) -> Action:
    head = cursor.take()
    name, at, actor_text = head.text.partition("@")
    actor = _actor(head, actor_text) if at else None
    run = _RUN_HEAD.fullmatch(name)
    if run:
        return Action(_make(head, RunUnder if run.group(2) else Run, _to_int(head, run.group(1))), actor)
    parse_arguments = _KEYWORDS.get(name.lower()) if _WORD_HEAD.fullmatch(name) else None
    if parse_arguments is None:
        raise _fail(head, _ACTION_EXPECTED)
    return Action(parse_arguments(cursor), actor)


# Every reader replays a shuffle in time linear in its length; the limit keeps one log line to about a second.
MAX_ACTIONS = 1000


def parse_notation(text: str) -> ShuffleSequence:
    """Parse a logged shuffle sequence; errors are ``NotationSyntaxError`` pointing at the token."""
    if not isinstance(text, str):
        raise NotationError(f"shuffle notation must be a string, got {type(text).__name__}")
    cursor = _Cursor(text)
    actions: list[Action] = []
    while not cursor.done():
        if len(actions) == MAX_ACTIONS:
            raise NotationError(f"more than {MAX_ACTIONS:,} actions: a shuffle between two hands is at most that long")
        actions.append(_parse_action(cursor))
    return ShuffleSequence(tuple(actions))


def format_notation(sequence: ShuffleSequence) -> str:
    """Canonical text of a sequence; ``parse_notation(format_notation(s)) == s``."""
    return sequence.notation()
