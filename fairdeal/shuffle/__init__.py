"""Deck operations as permutations, the shuffle notation, honest-shuffle models and riffle theory.

Convention: a permutation ``p`` acts as ``new_order = old_order[p]`` (position 0 = top of the deck);
a batch of orders is an ``(m, n)`` array shuffled by ``orders[:, p]``.
"""

from fairdeal.shuffle.models import (
    CODEX_MIN_EACH_SIDE,
    DEFAULT_MEAN_PACKET,
    GSRRiffleModel,
    Model,
    OverhandModel,
    PileGatherModel,
    RandomCutModel,
    UniformModel,
    gsr_riffle,
    gsr_riffle_batch,
    model_for,
    overhand_batch,
    pemantle_overhand,
    pile_gather_batch,
    random_cut,
    random_cut_batch,
    sample_honest_batch,
    uniform_batch,
)
from fairdeal.shuffle.notation import NotationSyntaxError, format_notation, parse_notation
from fairdeal.shuffle.ops import (
    Action,
    Actor,
    Cut,
    Faro,
    Overhand,
    Perm,
    Pile,
    Riffle,
    Run,
    RunUnder,
    Shuffle,
    ShuffleOp,
    ShuffleSequence,
    Strip,
    apply_batch,
    apply_order,
    cut_is_legal,
    permutation_of,
)
from fairdeal.shuffle.perm import apply_permutation, check_permutation, compose, identity, inverse, riffle_permutation
from fairdeal.shuffle.theory import (
    RiffleRow,
    arrangement_probability,
    eulerian_row,
    riffle_table,
    rising_sequence_distribution,
    rising_sequences,
    separation,
    total_variation,
)

__all__ = [
    "CODEX_MIN_EACH_SIDE", "DEFAULT_MEAN_PACKET", "GSRRiffleModel", "Model", "OverhandModel", "PileGatherModel",
    "RandomCutModel", "UniformModel", "gsr_riffle", "gsr_riffle_batch", "model_for", "overhand_batch",
    "pemantle_overhand", "pile_gather_batch", "random_cut", "random_cut_batch", "sample_honest_batch",
    "uniform_batch",
    "NotationSyntaxError", "format_notation", "parse_notation",
    "Action", "Actor", "Cut", "Faro", "Overhand", "Perm", "Pile", "Riffle", "Run", "RunUnder", "Shuffle",
    "ShuffleOp", "ShuffleSequence", "Strip", "apply_batch", "apply_order", "cut_is_legal", "permutation_of",
    "apply_permutation", "check_permutation", "compose", "identity", "inverse", "riffle_permutation",
    "RiffleRow", "arrangement_probability", "eulerian_row", "riffle_table", "rising_sequence_distribution",
    "rising_sequences", "separation", "total_variation",
]
