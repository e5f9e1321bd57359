"""Types of the compiled double-dummy solver (``_dds.c``); ``dds.py`` is its only caller."""

def solve(
    hands: tuple[int, ...],
    leader: int,
    current: tuple[int, ...],
    trump: int,
    must_overtake: bool,
    count: int,
    maximisers: int,
    talon: tuple[int, ...],
    talon_owner: bool,
    values: bool,
    node_limit: int,
) -> tuple[int, dict[int, int] | None, int]:
    """(value, each legal card's value when ``values``, nodes searched); a positive ``node_limit`` stops the
    search after that many nodes (value -1: cut off)."""

def solve_batch(
    hands: object,
    leaders: object,
    trumps: object,
    count: object,
    maximisers: object,
    out: object,
    seats: int,
    must_overtake: bool,
) -> None:
    """Fill ``out`` (a writable int8 buffer) with the value of each layout; the others are read-only buffers."""
