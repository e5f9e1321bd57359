"""What a hostile or broken client may send a served table, as hypothesis strategies: any message type the
service knows (and one it does not), with a body of the right field names holding any JSON values."""

from __future__ import annotations

from hypothesis import strategies as st

FIELDS = ["action", "announce", "signature", "sender", "seat", "time", "kind", "body", "prev", "x"]

BODIES = st.dictionaries(
    st.sampled_from(FIELDS),
    st.recursive(
        st.none() | st.booleans() | st.integers(-3, 40) | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=6,
    ),
    max_size=3,
)


def odd_messages(kinds: list[str]) -> st.SearchStrategy[list[tuple[str, dict[str, object]]]]:
    """(type, body) pairs to send in turn; ``kinds`` and a type no table knows."""
    return st.lists(st.tuples(st.sampled_from([*kinds, "chat"]), BODIES), min_size=1, max_size=30)
