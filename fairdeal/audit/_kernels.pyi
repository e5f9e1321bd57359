"""Types of the compiled bulk-audit kernels (``_kernels.c``); ``kernels.py`` is their only caller."""

def apply_ops(kinds: object, args: object, orders: object, out: object, n: int) -> None:
    """Fill ``out`` with each row of ``orders`` after that row's ops (int64 buffers)."""

def undone_windows(kinds: object, args: object, lengths: object, labels: object) -> list[tuple[int, int, int, bool]]:
    """``(row, start, stop, identity)`` of the shortest windows that restore the deck or every receiver's cards."""

def quality_measures(perms: object, out: object, n: int) -> None:
    """Fill ``out`` with the ten measures of each permutation row."""

def rank_counts(values: object, below: object, ties: object, depths: int, beneficiaries: int) -> None:
    """Fill ``below`` and ``ties`` (int64) from the float32 ``values`` of shape (cases, depths, beneficiaries)."""

def depth_values(
    pre: object, after: object, depths: object, targets: object, points: object, out: object, receivers: int
) -> None:
    """Fill the float32 ``out`` with what each receiver gets from each cut depth of each case."""

def score_sums(
    below: object,
    ties: object,
    index: object,
    weight: object,
    table: object,
    chosen: object,
    by_depth: object,
    squares: object,
    rows: object,
    depths: int,
    beneficiaries: int,
) -> None:
    """Fill the float64 ``chosen``, ``by_depth`` and ``squares`` with the habit test's score sums."""

def cusum_peaks(scores: object, edges: object, uniform: object, level: object, peak: object, steps: int) -> None:
    """Carry each row's CUSUM level and peak (float64, in place) over its ``steps`` uniform draws (float64), the
    category of a draw being the number of ``edges`` at or below it."""

def feature_counts(
    recv: object,
    dealers: object,
    target_of: object,
    active: object,
    ace: object,
    suit: object,
    points: object,
    low: object,
    counts: object,
    codes: int,
    seats: int,
    receivers: int,
    targets: int,
    width: int,
) -> None:
    """Add every target's feature values of each deal to the int64 histograms ``counts``."""
