"""The readers under fuzzing (issue 19): mutated inputs through `log validate`, `sheet`, `audit` and `verify`,
counting exit-70s (crashes), hangs, silent drops and messages that are not one short line.

Run: ``.venv/bin/python benchmarks/bench_fuzz.py [--inputs N] [--per-file K] [--seed S]``. Each game-log file
holds K mutated lines among K honest hands of the shipped 3-player evening (or of a 6-hand evening of a random
registered system and table size); each transcript set is the shipped commit-reveal evening with one transcript
mutated. N inputs = N mutated lines or transcripts in all. The baseline, timed in the same run, is the same
commands on the honest files: the figure is the slowdown a mutated file costs (a hang shows as a ratio far
above 1). Exit 1 on any broken rule. The issue's bar is N >= 10**6; at the default K that takes hours on two
busy cores, so the default N is smaller and the figures say how many inputs were run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_helpers import broken_rules, fuzz_log, mutate, named_lines, rejected, run, valid_hand_lines

from fairdeal.resources import sample
from fairdeal.systems import conventions

LOG_COMMANDS = {
    "log validate": ["log", "validate"],
    "sheet": ["sheet", "--json"],
    "audit": ["audit", "--json", "--workers", "1", "--no-targeting", "--no-tells"],
}
HANG_SECONDS = 2.0


class Tally:
    def __init__(self) -> None:
        self.inputs = 0
        self.runs: dict[str, int] = {}
        self.seconds: dict[str, float] = {}
        self.slowest: dict[str, float] = {}
        self.problems: list[str] = []

    def add(self, name: str, seconds: float, per_input: float) -> None:
        self.runs[name] = self.runs.get(name, 0) + 1
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.slowest[name] = max(self.slowest.get(name, 0.0), per_input)


def check_log(path: Path, tally: Tally, mutated: int) -> None:
    valid, bad = valid_hand_lines(path), rejected(path)
    for name, argv in LOG_COMMANDS.items():
        outcome = run([*argv, str(path)])
        tally.add(name, outcome.seconds, outcome.seconds / max(mutated, 1))
        problems = broken_rules(outcome)
        if outcome.seconds > HANG_SECONDS * max(mutated, 1):
            problems.append(f"{outcome.seconds:.1f} s")
        if name == "log validate" and f"{len(valid)} hands valid" not in outcome.out:
            problems.append("the valid-hand count differs from the validator's")
        if name == "sheet" and outcome.code != 2 and not bad <= named_lines(json.loads(outcome.out)["mismatches"]):
            problems.append("a rejected line went unreported")
        if name == "audit" and outcome.code != 2:
            report = json.loads(outcome.out)
            named = named_lines(report["malformed"]) | {f["line"] for f in report["findings"]}
            if report["summary"]["hands"] < len(valid - named):
                problems.append("a valid hand was dropped")
            if not bad <= named:
                problems.append("a rejected line went unreported")
        tally.problems += [f"{name} {path.name}: {p}" for p in problems]


def check_transcripts(folder: Path, rng: np.random.Generator, tally: Tally) -> None:
    paths = sorted(folder.glob("hand-*.json"))
    victim = paths[int(rng.integers(len(paths)))]
    raw = victim.read_bytes()
    victim.write_bytes(mutate(raw, rng, raw) if rng.random() < 0.5 else _mutate_document(raw, rng))
    outcome = run(["verify", *map(str, paths)])
    tally.add("verify", outcome.seconds, outcome.seconds)
    problems = broken_rules(outcome)
    if outcome.seconds > HANG_SECONDS * len(paths):
        problems.append(f"{outcome.seconds:.1f} s")
    if outcome.code == 0 and victim.read_bytes() != raw:
        document = _loaded(victim.read_bytes())
        if document != _loaded(raw):
            problems.append("a changed transcript verified")
    tally.problems += [f"verify {victim.name}: {p}" for p in problems]
    victim.write_bytes(raw)


def _loaded(raw: bytes):
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _mutate_document(raw: bytes, rng: np.random.Generator) -> bytes:
    from fuzz_helpers import ODD_VALUES, _set_path

    document = json.loads(raw)
    _set_path(document, rng, ODD_VALUES[rng.integers(len(ODD_VALUES))])
    return json.dumps(document).encode()


def system_log(folder: Path, rng: np.random.Generator) -> list[bytes]:
    system = sorted(conventions())[int(rng.integers(len(conventions())))]
    players = conventions()[system].players
    path = folder / f"{system}.jsonl"
    if not path.exists():
        run(
            [
                "play",
                "--system",
                system,
                "--players",
                str(players[int(rng.integers(len(players)))]),
                "--hands",
                "6",
                "--seed",
                str(int(rng.integers(2**31))),
                "--out",
                str(path),
            ]
        )
    return path.read_bytes().splitlines()


def baseline(folder: Path, per_file: int) -> dict[str, float]:
    """Seconds per honest hand line of each command, on the honest evening cut to ``per_file`` hands."""
    lines = sample("sochi-3p-honest.jsonl").read_bytes().splitlines()[: per_file + 1]
    path = folder / "honest.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    run([*LOG_COMMANDS["audit"], str(path)])  # once first: imports and caches are not the baseline
    figures = {name: run([*argv, str(path)]).seconds / per_file for name, argv in LOG_COMMANDS.items()}
    transcripts = sorted(sample("commit-reveal-evening.jsonl.transcripts").glob("hand-*.json"))
    figures["verify"] = run(["verify", *map(str, transcripts)]).seconds
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=20_000)
    parser.add_argument("--per-file", type=int, default=100)
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    tally = Tally()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        base = baseline(folder, args.per_file)
        transcripts = folder / "transcripts"
        shutil.copytree(sample("commit-reveal-evening.jsonl.transcripts"), transcripts)
        path = folder / "fuzz.jsonl"
        while tally.inputs < args.inputs:
            choice = rng.random()
            if choice < 0.1:
                check_transcripts(transcripts, rng, tally)
                tally.inputs += 1
                continue
            log = system_log(folder, rng) if choice < 0.3 else None
            hands = 6 if log else args.per_file
            bad = max(1, hands // 2)
            path.write_bytes(fuzz_log(rng, hands=hands, bad=bad, log=log))
            check_log(path, tally, bad)
            tally.inputs += bad
    wall = time.perf_counter() - started
    print(f"{tally.inputs:,} mutated inputs in {wall:.0f} s (seed {args.seed})")
    for name in [*LOG_COMMANDS, "verify"]:
        runs = tally.runs.get(name, 0)
        per_run = tally.seconds.get(name, 0.0) / max(runs, 1)
        unit = "per file of transcripts" if name == "verify" else "per mutated line, worst file"
        print(
            f"  {name:<13} {runs:6,} runs, {per_run * 1000:8.1f} ms a run; slowest {tally.slowest.get(name, 0):.3f} s "
            f"{unit}; baseline {base[name] * 1000:.2f} ms ({'honest evening' if name == 'verify' else 'a honest line'})"
        )
    print(
        f"broken rules: {len(tally.problems)} (exit 70, traceback, long or multi-line message, hang over "
        f"{HANG_SECONDS} s an input, valid hand dropped, rejected line unreported)"
    )
    for problem in tally.problems[:20]:
        print(f"  {problem}")
    return 1 if tally.problems else 0


if __name__ == "__main__":
    sys.exit(main())
