"""The shuffle's own tells (``audit.tells``): new ace neighbours and their same-effort null, the lazy-shuffle
binomial, per-dealer sums that merge block by block, and `fairdeal audit` naming the lazy and open-cut dealers."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from fairdeal.audit.block import audit_block
from fairdeal.audit.exact import laws_for
from fairdeal.audit.fastpath import decode_raw_block, layout_for
from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.summary import BlockContext
from fairdeal.audit.tells import new_neighbours, together_pvalue
from fairdeal.log import write_log
from fairdeal.log.writer import encode_record
from fairdeal.shuffle.models import gsr_riffle
from fairdeal.shuffle.ops import Action, ShuffleSequence
from fairdeal.tricks.catalogue import get_trick
from fairdeal.tricks.plan import ACES
from fairdeal.tricks.power import PLAYERS
from fairdeal.tricks.table import Cheat, quick_records

IS_ACE = np.isin(np.arange(32), ACES)


def test_new_neighbours_count_ace_pairs_made_adjacent_cyclically_and_not_those_already_adjacent():
    others = [c for c in range(32) if c not in ACES]
    a, b, c, d = ACES
    before = np.array([a, b] + others[:10] + [c] + others[10:20] + [d] + others[20:])
    assert new_neighbours(before, before, IS_ACE)[0] == 0
    after = np.array([d] + [a, b] + others[:10] + others[10:20] + others[20:] + [c])  # c-d wrap round, d-a new
    assert new_neighbours(before, after, IS_ACE)[0] == 2


@given(st.permutations(list(range(32))), st.permutations(list(range(32))))
@settings(max_examples=60, deadline=None)
def test_new_neighbours_never_exceed_the_ace_pairs_adjacent_after(before, after):
    before, after = np.array(before), np.array(after)
    adjacent = np.count_nonzero(IS_ACE[after] & IS_ACE[np.roll(after, -1)])
    assert 0 <= new_neighbours(before, after, IS_ACE)[0] <= adjacent


def test_the_same_effort_pvalue_is_uniform_when_the_logged_riffles_follow_their_model():
    rng = np.random.default_rng(5)
    pvalues = []
    for _ in range(400):
        before = rng.permutation(32)
        sequence = ShuffleSequence(tuple(Action(gsr_riffle(rng, 32)) for _ in range(2)))
        pvalues.append(together_pvalue(before, sequence, IS_ACE, rng, 4))
    assert sps.kstest(pvalues, "uniform").pvalue > 0.001


def _records(trick: str | None, hands: int, seed: int) -> list:
    cheat = None if trick is None else Cheat(1, get_trick(trick), 1.0, partner=0)
    return list(quick_records(PLAYERS, hands, np.random.default_rng(seed), cheat=cheat))


def _block(records, first: int, last: int):
    layout = layout_for("russian", 3)
    decoded, errors = decode_raw_block([encode_record(r).rstrip(b"\n") for r in records[first:last]], 1)
    return audit_block(decoded, errors, last - first, layout, BlockContext("russian", 3, False, tells=True), 0)


def test_the_tells_are_per_dealer_sums_that_merge_block_by_block():
    records = _records("lazy-shuffle", 60, 3)
    whole = _block(records, 1, 61).sums
    halves = _block(records, 1, 25).sums.add(_block(records, 25, 61).sums)
    assert whole.lazy_tests.tolist() == halves.lazy_tests.tolist() == [20, 20, 20]
    assert whole.lazy_low.tolist() == halves.lazy_low.tolist()
    assert whole.together_tests.tolist() == halves.together_tests.tolist()
    assert laws_for(layout_for("russian", 3)).aces.sum() == 4


def test_fairdeal_audit_names_the_lazy_shuffler_by_his_riffles(tmp_path):
    path = tmp_path / "lazy.jsonl"
    write_log(path, _records("lazy-shuffle", 96, 4))
    verdict = run_audit(path, RunOptions(legality=False)).verdict
    assert verdict.suspects() == ("Boris",)
    assert {t.test for t in verdict.flagged()} == {"shuffle too weak for its riffles"}


def test_fairdeal_audit_names_the_open_cut_stacker_by_the_aces_he_brought_together(tmp_path):
    path = tmp_path / "open.jsonl"
    write_log(path, _records("talon-open-cut", 192, 6))
    verdict = run_audit(path, RunOptions(legality=False)).verdict
    assert verdict.suspects() == ("Boris",)
    assert "aces brought together (Fisher)" in {t.test for t in verdict.flagged()}


def test_without_the_tells_the_lazy_shuffler_goes_unnoticed_and_the_report_says_why(tmp_path):
    path = tmp_path / "lazy.jsonl"
    write_log(path, _records("lazy-shuffle", 96, 4))
    verdict = run_audit(path, RunOptions(legality=False, tells=False)).verdict
    assert verdict.clean and any("tells" in note and "not asked for" in note for note in verdict.notes)
