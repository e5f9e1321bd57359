"""Game-log speed: write and validate a million-hand log; compare the fast path with the JSON Schema path.

Run: ``.venv/bin/python benchmarks/bench_log.py [--hands N] [--schema-hands M]``. The hands are synthetic but
complete (order_before, shuffle, deal, auction, discard, contract, defence, tricks, result, score): a pool of
distinct hands is synthesised and cycled with fresh hand numbers, so writing and reading do the full work per line.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import time
from pathlib import Path

import msgspec
import numpy as np
import orjson

from fairdeal.log import HandRecord, LogWriter, read_log
from fairdeal.log.reader import _DECODER
from fairdeal.log.schema import schema_check_lines
from fairdeal.log.synth import SynthTable, synth_hand

POOL_SIZE = 1500  # a multiple of 3, so each pooled hand keeps its dealer in the rotation


def synth_pool(table: SynthTable, seed: int) -> list[HandRecord]:
    rng = np.random.default_rng(seed)
    return [synth_hand(rng, table, number) for number in range(1, POOL_SIZE + 1)]


def hands(pool: list[HandRecord], count: int):
    for number in range(1, count + 1):
        yield msgspec.structs.replace(pool[(number - 1) % POOL_SIZE], hand=number)


def timed(label: str, count: int, action) -> float:
    start = time.perf_counter()
    action()
    elapsed = time.perf_counter() - start
    print(f"{label:<48} {count:>9,} in {elapsed:7.2f} s = {count / elapsed:>10,.0f} /s")
    return count / elapsed


def write(path: Path, table: SynthTable, pool: list[HandRecord], count: int, validate: bool) -> None:
    with open(path, "wb", buffering=1 << 20) as stream:
        writer = LogWriter(stream, validate=validate)
        writer.write(table.header())
        writer.write_all(hands(pool, count))


def read_fast(path: Path, expected: int) -> None:
    valid = bad = 0
    for item in read_log(path):
        if item.errors:
            bad += 1
        elif isinstance(item.record, HandRecord):
            valid += 1
    if valid != expected or bad:
        raise SystemExit(f"benchmark log did not validate: {valid} valid hands, {bad} bad lines")


def first_lines(path: Path, count: int) -> list[bytes]:
    with open(path, "rb") as stream:
        return list(itertools.islice(stream, count + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=1_000_000)
    # 5,000 hands keep the whole run under two minutes on a shared 2-core machine; the ratio is per hand.
    parser.add_argument("--schema-hands", type=int, default=5_000)
    parser.add_argument("--path", type=Path, default=Path("/tmp/fairdeal-bench-log.jsonl"))
    parser.add_argument("--keep", action="store_true", help="keep the generated log (about 1.3 GB at a million hands)")
    args = parser.parse_args()
    table = SynthTable()
    n, m = args.hands, args.schema_hands

    print(f"game-log benchmark: {n:,} hands to {args.path}; schema comparison on {m:,} hands")
    pool: list[HandRecord] = []
    timed(f"synthesise {POOL_SIZE} distinct hands (cycled)", POOL_SIZE, lambda: pool.extend(synth_pool(table, 7)))
    write_rate = timed("write, unchecked (encode only)", n, lambda: write(args.path, table, pool, n, validate=False))
    size = args.path.stat().st_size
    print(f"{'log size':<48} {size / 2**20:9.1f} MiB, {size / (n + 1):.0f} bytes a line")

    fast_rate = timed("read + validate, fast path (msgspec + checks)", n, lambda: read_fast(args.path, n))
    print(f"{'peak memory (max RSS) so far':<48} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:9.1f} MiB")

    sample = first_lines(args.path, m)
    typed_rate = timed("  of which: msgspec typed decode only", m, lambda: [_DECODER.decode(x) for x in sample])
    orjson_rate = timed("  baseline: orjson decode, no checks", m, lambda: [orjson.loads(x) for x in sample])
    schema_rate = timed("jsonschema path (json.loads + Draft 2020-12)", m, lambda: _schema_all_valid(sample))
    checked = args.path.with_suffix(".checked.jsonl")
    timed("write, checked by the validator", m, lambda: write(checked, table, pool, m, validate=True))
    checked.unlink()

    print()
    print(f"fast path vs jsonschema: {fast_rate / schema_rate:.1f}x faster (full semantic checks vs shape only)")
    print(f"msgspec typed decode vs orjson untyped decode: {typed_rate / orjson_rate:.2f}x")
    print(f"writing (encode) vs reading (validate): {write_rate / fast_rate:.1f}x")
    if not args.keep:
        args.path.unlink()


def _schema_all_valid(lines: list[bytes]) -> None:
    complaints = [c for _, c in schema_check_lines(iter(lines)) if c]
    if complaints:
        raise SystemExit(f"schema rejected the benchmark log: {complaints[0]}")


if __name__ == "__main__":
    main()
