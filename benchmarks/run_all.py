"""Run every benchmark script in this folder, one after another, and print their figures."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    scripts = sorted(p for p in here.glob("bench_*.py"))
    failed = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, str(script)])
        print(f"--- {script.name}: exit {code}, {time.perf_counter() - started:.1f} s", flush=True)
        if code:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
