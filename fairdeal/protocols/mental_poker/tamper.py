"""Single-field tampering of mental-poker transcripts: the harness behind the soundness tests and the
10,000-mutation benchmark (every such change must be rejected by ``verify_hand``)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

HEX = "0123456789abcdef"
Path = tuple[Any, ...]


def leaves(value: Any, path: Path = ()) -> Iterator[Path]:
    """The path of every scalar field inside nested dicts and lists, dict keys in sorted order."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield from leaves(value[key], path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, path + (index,))
    else:
        yield path


def mutate(value: Any, rng: random.Random) -> Any:
    """A different value of the same kind: an integer moved, one hex digit changed, a string extended."""
    if isinstance(value, bool) or value is None:
        return "x"
    if isinstance(value, int):
        return value + rng.choice([-1, 1, 7])
    if len(value) == 64 and all(ch in HEX for ch in value):
        at = rng.randrange(64)
        return value[:at] + rng.choice([d for d in HEX if d != value[at]]) + value[at + 1 :]
    return value + "x"


def with_field_changed(
    messages: list[dict[str, Any]], index: int, path: Path, change: Callable[[Any], Any]
) -> list[dict[str, Any]]:
    """A copy of ``messages`` whose message ``index`` has the field at ``path`` replaced by ``change(old)``."""
    message = copy.deepcopy(messages[index])
    holder = message
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = change(holder[path[-1]])
    return messages[:index] + [message] + messages[index + 1 :]


def random_mutations(
    messages: list[dict[str, Any]], count: int, rng: random.Random
) -> Iterator[tuple[int, Path, list[dict[str, Any]]]]:
    """``count`` transcripts, each with one field of one message (chosen uniformly) changed by ``mutate``."""
    for _ in range(count):
        index = rng.randrange(len(messages))
        path = rng.choice(list(leaves(messages[index])))
        yield index, path, with_field_changed(messages, index, path, lambda old: mutate(old, rng))
