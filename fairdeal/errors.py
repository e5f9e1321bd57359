"""The error types a user may see; the CLI turns each into one clear line."""


class FairdealError(Exception):
    """Base of every error that carries a message meant for a user."""


_MESSAGE_CHARS = 400


def one_line(text: str, limit: int = _MESSAGE_CHARS) -> str:
    """``text`` as one line of at most ``limit`` characters: control characters escaped, the middle cut."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    if len(text) <= limit:
        return text
    half = (limit - 20) // 2
    return f"{text[:half]}…({len(text) - 2 * half:,} chars)…{text[-half:]}"


_FIELD_CHARS = 80


def safe_field(field: str, limit: int = _FIELD_CHARS) -> str:
    """A field path as ``FILE:LINE: field: message`` prints it: a colon, a space or a control character in a key
    is escaped as in JSON (``\\u003a``), so the message always starts after the first ``": "``; a long path is cut."""
    text = "".join(f"\\u{ord(c):04x}" if c == ":" or c.isspace() or not c.isprintable() else c for c in field)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _located(message: str, **where: object) -> str:
    """Prefix ``message`` with the places that are known: ``line 3, field deal.hands[1]: ...``."""
    known = [f"{name} {value}" for name, value in where.items() if value is not None and value != ""]
    return f"{', '.join(known)}: {message}" if known else message


class CardError(FairdealError, ValueError):
    """A card, deck or deck order that cannot be read or is not a proper deck."""


class NotationError(FairdealError, ValueError):
    """A shuffle-notation string that cannot be parsed; names the offending token."""


class ShuffleError(FairdealError, ValueError):
    """A deck operation that cannot be applied (e.g. a cut deeper than the deck)."""


class DealError(FairdealError, ValueError):
    """A deal pattern that does not fit the deck, or hands that do not form a deal."""


class LogError(FairdealError, ValueError):
    """A game-log problem; carries the line number and field where known."""

    def __init__(self, message: str, line: int | None = None, field: str | None = None):
        self.line = line
        self.field = safe_field(field) if field else field
        super().__init__(_located(message, line=line, field=self.field))

    def __str__(self) -> str:
        # What a log holds reaches the message (keys, cards); it must stay one short line.
        return one_line(super().__str__())


class AuditError(FairdealError, ValueError):
    """Input the auditor cannot judge: p-values outside (0, 1], mismatched arrays, a hand record it cannot read."""


class ProtocolError(FairdealError, ValueError):
    """A dealing-protocol message or transcript that breaks the protocol; names the party and the step."""


class ConventionError(FairdealError, ValueError):
    """An unknown convention name or a convention whose parameters do not fit together; ``field`` names the
    parameter (``convention.raspasy.price_per_trick``) where one is to blame."""

    def __init__(self, message: str, field: str | None = None):
        self.field = field
        self.reason = message
        super().__init__(f"{field}: {message}" if field else message)


class ScoringError(FairdealError, ValueError):
    """A hand outcome that cannot be written on the sheet (inconsistent seats, tricks or calls)."""


class MentalPokerError(ProtocolError):
    """A mental-poker message that fails verification; ``player`` and ``step`` name who broke which step."""

    def __init__(self, message: str, player: str | None = None, step: str | None = None):
        self.player = player
        self.step = step
        super().__init__(_located(message, player=player, step=step))


class IllegalAction(FairdealError, ValueError):
    """An action the rules of the hand forbid; the message names the rule (and where, when replaying a record)."""


class NoConsistentDeal(IllegalAction):
    """No deal agrees with everything a party has seen of a hand: some card played broke a rule of play (or an
    announcement was false); the message names the fact that could not be met."""


class MatchError(FairdealError, ValueError):
    """A pulya that cannot be played or re-read: bad table, players, hand cap, or a log that is not a pulya."""


class TrickError(FairdealError, ValueError):
    """A cardsharp technique that cannot be planned or shown: an unknown trick, a goal that does not fit the deck."""


class OutputError(FairdealError, ValueError):
    """An output file or folder that cannot be written as asked: it exists, its folder is missing, it is locked."""


class CanonicalError(ProtocolError):
    """Bytes that are not the canonical JSON of a value (or a value canonical JSON cannot hold); the message
    starts with the JSON path of the field (``$.hands[2].seed: duplicate key "seat"``)."""


class SignedMessageError(ProtocolError):
    """A signed protocol message that fails a check; ``party`` is whom the failure is evidence against (the
    sender when its valid signature is on the faulty message, else whoever presented it) and ``check`` the step."""

    def __init__(self, message: str, party: str, check: str):
        self.party = party
        self.check = check
        super().__init__(f"{party}: {check}: {message}")


class WorkerFailed(Exception):
    """A process checking a share of the documents (``verify --workers``) stopped without an answer, or raised
    something that cannot travel back: fairdeal's fault, not the input's, so not a ``FairdealError``."""
