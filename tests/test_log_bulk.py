"""The bulk reader shared by the auditor and the store: what the store keeps reads back exactly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.cards import to_ascii_list
from fairdeal.log.bulk import (
    CompiledShuffle,
    compile_batch,
    compile_simple,
    deal_lists,
    pack_cards,
    pack_ops,
    parse_hands,
    unpack_cards,
    unpack_ops,
)

N = 32
_token = st.one_of(
    st.integers(1, N).map(str),
    st.tuples(st.integers(1, N - 1), st.integers(0, 4)).map(lambda p: f"cut@{p[1]} {p[0]}"),
    st.integers(1, N - 1).map(lambda d: f"cut {d}"),
    st.sampled_from(["overhand 3,4", "cut ?", "40", "riffle"]),
)
shuffles = st.one_of(st.none(), st.lists(_token, max_size=12).map(" ".join))


def column(values: list[bytes | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A binary column's validity, offsets and bytes, as Arrow lays them out (a null holds no bytes)."""
    valid = np.array([v is not None for v in values], dtype=bool)
    lengths = [len(v) if v is not None else 0 for v in values]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    data = np.frombuffer(b"".join(v for v in values if v is not None), dtype=np.uint8)
    return valid, offsets, data


@settings(max_examples=200, deadline=None)
@given(st.lists(shuffles, max_size=20))
def test_stored_ops_read_back_as_the_batch_compiles_them(texts):
    ops = [compile_simple(t, N) if t is not None else None for t in texts]
    simple = np.array([o is not None for o in ops], dtype=bool)
    compiled = compile_batch([o or [] for o in ops])
    read_simple, read = unpack_ops(*column(pack_ops(simple, compiled)))
    assert (read_simple == simple).all()
    rows = np.flatnonzero(simple)
    expected = compile_batch([ops[k] for k in rows])
    got = read.rows(rows)
    for name in ("kinds", "args", "actors"):
        assert np.array_equal(getattr(got, name), getattr(expected, name))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.permutations(range(N))), max_size=12))
def test_stored_cards_read_back(rows):
    ok = np.array([r[0] for r in rows], dtype=bool)
    codes = np.array([r[1] for r in rows], dtype=np.int64).reshape(-1, N)
    read_ok, read = unpack_cards(*column(pack_cards(ok, codes)), N)
    assert (read_ok == ok).all()
    assert (read[ok] == codes[ok]).all() and (read[~ok] == -1).all()


def test_rows_keep_the_longest_shuffle_of_the_rows_taken():
    compiled = compile_batch([compile_simple("3 4 5 cut 7", N) or [], compile_simple("2", N) or []])
    assert compiled.rows(np.array([1])).steps == 1
    assert compiled.rows(np.array([0, 1])).steps == 4
    none = CompiledShuffle(compiled.kinds[:0], compiled.args[:0], compiled.actors[:0])
    assert none.rows(np.array([], int)).steps == 0


def test_parse_hands_reads_the_usual_form_and_leaves_the_rest():
    lists = deal_lists("russian", 3)
    deck = to_ascii_list(range(32))
    hands = ", ".join("[" + ", ".join(f'"{c}"' for c in deck[10 * s : 10 * s + 10]) + "]" for s in range(3))
    deal = f'{{"hands": [{hands}], "talons": [["{deck[30]}", "{deck[31]}"]]}}'.encode()
    order = ("[" + ",".join(f'"{c}"' for c in deck) + "]").encode()
    parsed = parse_hands(
        [deal, deal.replace(b'"hands"', b'"Hands"'), b"", deal],
        [order, b"", order.replace(b'"7S"', b'"7s"'), order],
        ["3 cut@1 12", None, "overhand 3", ""],
        np.array([0, 1, 2, 5]),  # 5: no such dealer at a table of three
        lists,
        32,
    )
    assert parsed.deal_ok.tolist() == [True, False, False, False]
    assert parsed.deals[0].tolist() == list(range(32))
    assert parsed.order_ok.tolist() == [True, False, False, True]
    assert parsed.simple.tolist() == [True, False, False, True]
