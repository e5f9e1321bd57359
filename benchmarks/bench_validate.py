"""`fairdeal log validate` speed: the validator's fast acceptance of plain shuffles (runs and cuts) against the
full notation parser for every hand, measured in the same run on the same synthetic log (order, shuffle, deal).

Run: .venv/bin/python benchmarks/bench_validate.py [--hands 100000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import fairdeal.log.validate as validate
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.log import read_log


def _rate(path: Path) -> float:
    started = time.perf_counter()
    lines = sum(1 for _ in read_log(path))
    return lines / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fairdeal-validate-") as folder:
        path = Path(folder) / "evening.jsonl"
        with open(path, "wb") as stream:
            for block in fast_evening_lines(np.random.default_rng(1), Evening(), args.hands):
                stream.write(block)
        fast = validate.plainly_valid_shuffle
        validate.plainly_valid_shuffle = lambda text, seats, deck_size: False
        baseline = _rate(path)
        validate.plainly_valid_shuffle = fast
        rate = _rate(path)
    print(
        f"{args.hands:,} hands: full parser per hand (baseline) {baseline:,.0f} hands/s; fast acceptance "
        f"{rate:,.0f} hands/s ({rate / baseline:.2f}x)"
    )


if __name__ == "__main__":
    main()
