"""Hypothesis strategies for shuffle ops and sequences, shared by the test_shuffle_* files (no tests here)."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

from fairdeal.shuffle import (
    Action,
    Cut,
    Faro,
    Overhand,
    Perm,
    Pile,
    Riffle,
    Run,
    RunUnder,
    ShuffleSequence,
    Strip,
)

deck_sizes = st.integers(min_value=2, max_value=40)
actors = st.none() | st.integers(min_value=0, max_value=9) | st.from_regex(r"[A-Za-zА-Яа-я][\w\-]{0,6}", fullmatch=True)


@st.composite
def packet_sizes(draw: st.DrawFn, n: int) -> tuple[int, ...]:
    """Packet sizes with a total of 1..n (the rest of the deck, if any, is not a packet)."""
    total = draw(st.integers(1, n))
    cuts = draw(st.sets(st.integers(1, total - 1), max_size=total - 1)) if total > 1 else set()
    edges = [0, *sorted(cuts), total]
    return tuple(b - a for a, b in itertools.pairwise(edges))


@st.composite
def riffles(draw: st.DrawFn, n: int) -> Riffle:
    from_top = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return Riffle(sum(from_top), "".join("L" if b else "R" for b in from_top))


def ops_for(n: int) -> st.SearchStrategy:
    """Every known op kind, with arguments that fit a deck of ``n`` >= 2 cards."""
    return st.one_of(
        st.integers(1, n).map(Run),
        st.integers(1, n).map(RunUnder),
        packet_sizes(n).map(Overhand),
        packet_sizes(n).map(Strip),
        st.integers(1, n - 1).map(Cut),
        riffles(n),
        st.sampled_from(["in", "out"]).map(Faro),
        st.integers(1, n).map(Pile),
        st.permutations(range(1, n + 1)).map(lambda p: Perm(tuple(p))),
    )


unknown_ops = st.sampled_from([Riffle(None, None), Cut(None), Overhand(None)])


def sequences_for(n: int, max_size: int = 6, with_unknown: bool = False) -> st.SearchStrategy:
    ops = ops_for(n) | unknown_ops if with_unknown else ops_for(n)
    actions = st.builds(Action, ops, actors)
    return st.lists(actions, max_size=max_size).map(lambda a: ShuffleSequence(tuple(a)))
