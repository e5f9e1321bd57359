"""Types of the compiled bulk-audit kernels (``_kernels.c``); ``kernels.py`` is their only caller."""

def apply_ops(kinds: object, args: object, orders: object, out: object, n: int) -> None:
    """Fill ``out`` with each row of ``orders`` after that row's ops (int64 buffers)."""

def undone_windows(kinds: object, args: object, lengths: object, labels: object) -> list[tuple[int, int, int, bool]]:
    """``(row, start, stop, identity)`` of the shortest windows that restore the deck or every receiver's cards."""

def quality_measures(perms: object, out: object, n: int) -> None:
    """Fill ``out`` with the ten measures of each permutation row."""

def rank_counts(values: object, below: object, ties: object, depths: int, beneficiaries: int) -> None:
    """Fill ``below`` and ``ties`` (int64) from the float32 ``values`` of shape (cases, depths, beneficiaries)."""
