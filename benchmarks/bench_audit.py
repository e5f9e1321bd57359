"""Power and false-alarm rate of the auditor's sequential detectors on simulated decks.

A cheating dealer puts an ace into a talon place in 25% of his deals; the rest of each deck is an honest
uniform shuffle. Prints how many of his deals pass before each detector flags him, over repeated runs, and the
family-wise false-alarm rate over >= 100,000 honest hands dealt at three-dealer tables. The fixed-sample exact
test (total talon aces after the whole horizon, Holm across the table's dealers) is the baseline. Last, a
synthetic log with one ace-stacking dealer is audited end to end, once with the gathered orders and shuffles and
once with them stripped (the exact uniform-deck path) as the baseline.

Run: .venv/bin/python benchmarks/bench_audit.py [--runs N] [--tables N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.sequential import calibrate_threshold, cusum_path, eprocess_path, llr_table
from fairdeal.audit.simulate import Evening, simulated_records
from fairdeal.audit.stats import card_values, holm, hypergeometric_null, talon_aces_total_pvalue
from fairdeal.deal import deal_batch, get_pattern
from fairdeal.log.records import HandRecord
from fairdeal.log.writer import write_log

PATTERN = get_pattern("russian")
TALON = PATTERN.talon_positions[0]
HORIZON = 300  # deals per dealer in one evening's audit window
DEALERS = 3
FAMILY_ALPHA = 0.05
CHEAT_RATE = 0.25
CHUNK = 50_000
NULL = hypergeometric_null(32, 4, 2).pmf
CALIBRATION_DRAWS = 20_000


def count_aces(cards: np.ndarray) -> np.ndarray:
    return np.count_nonzero(card_values(cards) == 7, axis=-1)


def exact_total_pvalue(row: np.ndarray) -> float:
    return talon_aces_total_pvalue(np.bincount(row, minlength=3), NULL)


def first_over(paths: np.ndarray, bar: float, strict: bool) -> np.ndarray:
    """Index of the first deal whose statistic passes ``bar`` (per row), ``-1`` when none does."""
    over = paths > bar if strict else paths >= bar
    return np.where(over.any(axis=1), np.argmax(over, axis=1), -1)


def honest_talon_aces(rng: np.random.Generator, hands: int) -> np.ndarray:
    """Talon aces of ``hands`` honest deals: whole decks shuffled uniformly and dealt by the pattern."""
    out = np.empty(hands, dtype=np.int64)
    for start in range(0, hands, CHUNK):
        size = min(CHUNK, hands - start)
        orders = np.argsort(rng.random((size, PATTERN.deck.size)), axis=1).astype(np.uint8)
        _, talons = deal_batch(orders, PATTERN)
        out[start : start + size] = count_aces(talons[:, 0])
    return out


def stacked_talon_aces(rng: np.random.Generator, hands: int, rate: float) -> np.ndarray:
    """Talon aces when the dealer, in a share ``rate`` of deals, brings one ace to the first talon place."""
    out = np.empty(hands, dtype=np.int64)
    aces = np.array([7, 15, 23, 31])
    for start in range(0, hands, CHUNK):
        size = min(CHUNK, hands - start)
        orders = np.argsort(rng.random((size, PATTERN.deck.size)), axis=1)
        cheat = np.flatnonzero(rng.random(size) < rate)
        chosen = rng.choice(aces, size=len(cheat))
        where = np.argmax(orders[cheat] == chosen[:, None], axis=1)
        rows = orders[cheat]
        first = TALON[0]
        rows[np.arange(len(cheat)), where] = rows[:, first]
        rows[:, first] = chosen
        orders[cheat] = rows
        _, talons = deal_batch(orders.astype(np.uint8), PATTERN)
        out[start : start + size] = count_aces(talons[:, 0])
    return out


def summarise(delays: np.ndarray) -> str:
    flagged = delays[delays >= 0] + 1
    if not len(flagged):
        return "never flagged"
    q1, med, q3 = np.percentile(flagged, [25, 50, 75])
    return (
        f"flagged in {len(flagged) / len(delays):6.1%} of runs; deals until flagged: "
        f"median {med:5.0f}, quartiles {q1:.0f}-{q3:.0f}"
    )


def fixed_sample_alarms(aces: np.ndarray) -> np.ndarray:
    """Baseline: exact test of each dealer's total talon aces over the horizon, Holm across the table."""
    tables = aces.reshape(-1, DEALERS, HORIZON)
    alarms = np.zeros(tables.shape[:2], dtype=bool)
    for t, table in enumerate(tables):
        p = np.array([exact_total_pvalue(row) for row in table])
        alarms[t] = holm(p) <= FAMILY_ALPHA
    return alarms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated cheating dealers")
    parser.add_argument("--tables", type=int, default=1000, help="honest three-dealer tables (x 900 hands)")
    parser.add_argument("--log-hands", type=int, default=1500, help="hands in the synthetic log audited end to end")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    per_dealer = FAMILY_ALPHA / DEALERS  # Bonferroni over the table's dealers
    llr = llr_table(32, 2, (CHEAT_RATE,))[0]

    started = time.perf_counter()
    threshold = calibrate_threshold(llr, NULL, HORIZON, per_dealer, rng)
    calibration_seconds = time.perf_counter() - started
    print(
        f"CUSUM for an ace stacked in {CHEAT_RATE:.0%} of deals: threshold h = {threshold:.3f} "
        f"(horizon {HORIZON} deals, per-dealer false alarm {per_dealer:.4f}, {CALIBRATION_DRAWS} simulated "
        f"dealers, {calibration_seconds:.1f} s)"
    )
    log_bar = np.log(1 / per_dealer)
    print(f"mixture e-process: alarm when E >= {1 / per_dealer:.0f} (Ville's inequality, no calibration)\n")

    started = time.perf_counter()
    cheat = stacked_talon_aces(rng, args.runs * HORIZON, CHEAT_RATE).reshape(args.runs, HORIZON)
    cusum_delay = first_over(cusum_path(llr[cheat]), threshold, strict=True)
    e_delay = first_over(eprocess_path(cheat, 32, 2), log_bar, strict=False)
    fixed_power = np.mean([exact_total_pvalue(row) <= per_dealer for row in cheat])
    print(f"power against a dealer stacking an ace in {CHEAT_RATE:.0%} of deals ({args.runs} runs of {HORIZON} deals):")
    print(f"  CUSUM        {summarise(cusum_delay)}")
    print(f"  e-process    {summarise(e_delay)}")
    print(f"  fixed-sample flagged in {fixed_power:6.1%} of runs, always after all {HORIZON} deals (baseline)")
    print(f"  ({time.perf_counter() - started:.1f} s)\n")

    started = time.perf_counter()
    hands = args.tables * DEALERS * HORIZON
    honest = honest_talon_aces(rng, hands).reshape(args.tables * DEALERS, HORIZON)
    seconds = time.perf_counter() - started
    cusum_tables = (first_over(cusum_path(llr[honest]), threshold, True) >= 0).reshape(args.tables, DEALERS).any(axis=1)
    e_tables = (eprocess_path(honest, 32, 2) >= log_bar).any(axis=1).reshape(args.tables, DEALERS).any(axis=1)
    fixed_tables = fixed_sample_alarms(honest).any(axis=1)
    se = np.sqrt(FAMILY_ALPHA * (1 - FAMILY_ALPHA) / args.tables)
    print(
        f"family-wise false alarms on {hands:,} honest hands "
        f"({args.tables} tables x {DEALERS} dealers x {HORIZON} deals; "
        f"dealt in {seconds:.1f} s, {hands / seconds:,.0f} hands/s), target {FAMILY_ALPHA:.0%} (+-{se:.1%} s.e.):"
    )
    print(f"  CUSUM        {cusum_tables.mean():6.2%}")
    print(f"  e-process    {e_tables.mean():6.2%}")
    print(f"  fixed-sample {fixed_tables.mean():6.2%}\n")
    audit_synthetic_log(args.log_hands, args.seed)


def stripped(records):
    """The same hands without the gathered order and the shuffle: what a log of a careless table holds."""
    for record in records:
        if isinstance(record, HandRecord):
            yield HandRecord(hand=record.hand, dealer=record.dealer, deal=record.deal)
        else:
            yield record


def audit_synthetic_log(hands: int, seed: int) -> None:
    evening = Evening(cheater=1, rate=CHEAT_RATE)
    options = RunOptions(alpha=FAMILY_ALPHA, seed=seed, legality=False, workers=1)
    with tempfile.TemporaryDirectory() as folder:
        full, bare = Path(folder) / "full.jsonl", Path(folder) / "bare.jsonl"
        write_log(full, simulated_records(np.random.default_rng(seed), evening, hands))
        write_log(bare, stripped(simulated_records(np.random.default_rng(seed), evening, hands)))
        print(
            f"synthetic log: {hands} hands, {evening.players[1]} stacks an ace in {CHEAT_RATE:.0%} of his deals "
            "(fairdeal audit's pipeline, legality aside)"
        )
        for label, path in (("orders + shuffles (replay and tells)", full), ("deals only (baseline)", bare)):
            started = time.perf_counter()
            verdict = run_audit(path, options).verdict
            seconds = time.perf_counter() - started
            flagged = sorted({t.test for t in verdict.flagged()})
            alarms = ", ".join(f"{p.dealer} at hand {p.cusum_alarm}" for p in verdict.paths if p.cusum_alarm) or "none"
            print(
                f"  {label:<38} {seconds:5.1f} s ({hands / seconds:6.0f} hands/s); "
                f"suspects: {', '.join(verdict.suspects()) or 'none'}; CUSUM alarm: {alarms}"
            )
            print(f"  {'':<38} Holm-significant: {'; '.join(flagged) or 'none'}")


if __name__ == "__main__":
    main()
