"""What the director's report costs on top of the audit: the evidence pass (the log read once more for the hands
that carry the evidence) and the sentences, against the audit's own statistical pass on the same log in the same
run (the baseline). CPU time of this process (``time.process_time``; the audit runs with one worker, in process).

A synthetic evening with one ace-stacking dealer (``audit.simulate``); the dealer is flagged, so the pass runs.

Run: .venv/bin/python benchmarks/bench_audit_report.py [--hands N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from fairdeal.audit.report.evidence import gather_evidence
from fairdeal.audit.report.narrative import narrate
from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.simulate import Evening, fast_evening_lines

OPTIONS = RunOptions(legality=False, targeting=False, tells=False, workers=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "evening.jsonl"
        path.write_bytes(b"".join(fast_evening_lines(np.random.default_rng(1), Evening(cheater=2), args.hands)))
        started = time.process_time()
        result = run_audit(path, OPTIONS)
        audit = time.process_time() - started
        started = time.process_time()
        evidence = gather_evidence(path, result.verdict)
        hands = time.process_time() - started
        started = time.process_time()
        sentences = sum(len(narrate(result, lang).paragraphs()) for lang in ("en", "ru"))
        words = time.process_time() - started
    print(f"{args.hands:,} hands, suspects {', '.join(result.verdict.suspects()) or 'none'}")
    print(f"audit (statistical pass, baseline): {audit:8.2f} s CPU  {args.hands / audit:12,.0f} hands/s")
    print(
        f"evidence pass:                      {hands:8.2f} s CPU  {args.hands / hands:12,.0f} hands/s  "
        f"({hands / audit:.2f}x the audit; {len(evidence.hands)} hands drawn)"
    )
    print(f"sentences (en + ru):                {words:8.3f} s CPU  ({sentences} paragraphs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
