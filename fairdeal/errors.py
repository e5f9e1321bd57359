"""The error types a user may see; the CLI turns each into one clear line."""


class FairdealError(Exception):
    """Base of every error that carries a message meant for a user."""


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
        self.field = field
        where = []
        if line is not None:
            where.append(f"line {line}")
        if field:
            where.append(f"field {field}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
