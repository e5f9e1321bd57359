"""A hand's deck order from its seeds: SHAKE256 over the framed inputs, then the unbiased Fisher-Yates.

The shuffle starts from the deck's cards in code order (♠7..♠A, ♣.., ♦.., ♥..; ``DeckKind.codes``).
``derive_orders`` is the batch form the verifier and the benchmark use: one hashlib call per deal, the
shuffle vectorised over the batch, and the rare row that needs more than 64 bytes redone one by one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fairdeal.cards import DeckKind
from fairdeal.protocols.derive import deck_stream
from fairdeal.protocols.fisher_yates import STREAM_BYTES, shuffle, shuffle_batch


def derive_order(data: bytes, deck: DeckKind) -> np.ndarray:
    """The deck order (top first, ``uint8`` codes) for the XOF input ``data`` (see ``derive.deck_input``)."""
    return shuffle(deck.codes(), lambda length: deck_stream(data, length))


def derive_orders(inputs: Sequence[bytes], deck: DeckKind) -> np.ndarray:
    """``derive_order`` for many inputs at once: shape ``(len(inputs), deck.size)``."""
    if not inputs:
        return np.zeros((0, deck.size), dtype=np.uint8)
    joined = b"".join([deck_stream(data, STREAM_BYTES) for data in inputs])
    streams = np.frombuffer(joined, dtype=np.uint8).reshape(len(inputs), STREAM_BYTES)
    orders, ok = shuffle_batch(deck.codes(), streams)
    for row in np.flatnonzero(~ok):
        orders[row] = derive_order(inputs[int(row)], deck)
    return orders


def orders_match(inputs: Sequence[bytes], published: np.ndarray, deck: DeckKind) -> np.ndarray:
    """Batch check: ``result[i]`` is True iff ``published[i]`` is the order derived from ``inputs[i]``."""
    matches: np.ndarray = (derive_orders(inputs, deck) == np.asarray(published, dtype=np.uint8)).all(axis=1)
    return matches
