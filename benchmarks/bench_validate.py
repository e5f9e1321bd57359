"""`fairdeal log validate` speed on a synthetic evening (order, shuffle, deal per hand), against two baselines
measured in the same run on the same file: the floor — reading and decoding the lines into typed records with no
check at all — and the full notation parser asked for every hand's shuffle (the path every hand took before the
validator learnt to accept plain shuffles at once). The issue's goal is 50,000 hands/s on one core.

Run: .venv/bin/python benchmarks/bench_validate.py [--hands 100000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import fairdeal.log.validate as validate
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.log import read_log
from fairdeal.log.reader import decode_line, iter_lines


def _best_rate(count: Callable[[], int], repeats: int = 3) -> float:
    """Lines per CPU second (the machine is shared: CPU time is what this process used), the best of a few runs."""
    best = 0.0
    for _ in range(repeats):
        started = time.process_time()
        lines = count()
        best = max(best, lines / (time.process_time() - started))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fairdeal-validate-") as folder:
        path = Path(folder) / "evening.jsonl"
        with open(path, "wb") as stream:
            for block in fast_evening_lines(np.random.default_rng(1), Evening(), args.hands):
                stream.write(block)
        floor = _best_rate(lambda: sum(1 for number, raw in iter_lines(path) if decode_line(raw, number)))
        fast = validate.plainly_valid_shuffle
        validate.plainly_valid_shuffle = lambda text, seats, deck_size: False
        full_parser = _best_rate(lambda: sum(1 for _ in read_log(path)))
        validate.plainly_valid_shuffle = fast
        rate = _best_rate(lambda: sum(1 for item in read_log(path) if item.ok))
    print(
        f"{args.hands:,} hands: validate {rate:,.0f} hands/s; decode-only floor {floor:,.0f} hands/s "
        f"({rate / floor:.2f}x of it); full notation parser per hand {full_parser:,.0f} hands/s "
        f"({rate / full_parser:.2f}x); goal 50,000 hands/s"
    )


if __name__ == "__main__":
    main()
