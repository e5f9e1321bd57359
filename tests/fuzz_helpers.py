"""Shared by the reader fuzz tests and benchmarks/bench_fuzz.py: mutated game logs and transcripts, the commands
run in this process, and the rules every outcome must keep (issue 19)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fairdeal.cli import main
from fairdeal.log import read_log
from fairdeal.resources import sample

HONEST = sample("sochi-3p-honest.jsonl").read_bytes().splitlines()
HEADER, HANDS = HONEST[0], HONEST[1:-1]
LONGEST_LINE = 500
# Values a field may be set to: wrong types, extremes, the shapes that used to crash a reader.
ODD_VALUES = [
    None,
    True,
    0,
    -1,
    2**31,
    2**63,
    2**64,
    10**30,
    1.5,
    1e300,
    "",
    "AS",
    "as",
    "X" * 5000,
    "a\nb",
    "\u2028",
    [],
    [1],
    ["AS"] * 33,
    {},
    {"seat": "x"},
    [[["deep"]]],
    "1 " * 1200,
]


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str
    seconds: float


def run(argv: list[str]) -> Outcome:
    """``fairdeal ARGV`` in this process, through the same entry point as the installed command."""
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    saved = sys.argv
    sys.argv = ["fairdeal", *argv]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
    finally:
        sys.argv = saved
    return Outcome(code, out.getvalue(), err.getvalue(), time.perf_counter() - started)


def broken_rules(outcome: Outcome) -> list[str]:
    """What an outcome does wrong: a code other than 0, 1, 2, a traceback, an over-long or multi-part error."""
    problems = []
    if outcome.code not in (0, 1, 2):
        problems.append(f"exit {outcome.code}: {outcome.err[-300:]}")
    if "Traceback" in outcome.err or "internal error" in outcome.err:
        problems.append(f"crash: {outcome.err[-300:]}")
    lines = outcome.err.splitlines() + (
        _strings(json.loads(outcome.out)) if outcome.out.startswith("{") else outcome.out.splitlines()
    )
    long = [line for line in lines if len(line) > LONGEST_LINE or "\n" in line]
    if long:
        problems.append(f"a message of {len(long[0]):,} characters: {long[0][:100]!r}")
    return problems


def _strings(value) -> list[str]:
    """Every string inside a JSON report (each is one message when printed)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in _strings(item)] if isinstance(value, list) else []


def _set_path(document: dict, rng: np.random.Generator, value) -> None:
    node = document
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return
        key = keys[rng.integers(len(keys))]
        child = node[key]
        if isinstance(child, (dict, list)) and child and rng.random() < 0.6:
            node = child
            continue
        node[key] = value
        return


def mutate(line: bytes, rng: np.random.Generator, other: bytes) -> bytes:
    """One mutation of a valid hand line: a field set to an odd value, a key dropped or added, bytes cut,
    repeated or replaced, two lines joined by a comma, a deep nest, a byte-order mark."""
    kind = rng.integers(9)
    if kind <= 2:
        document = json.loads(line)
        _set_path(document, rng, ODD_VALUES[rng.integers(len(ODD_VALUES))])
        return json.dumps(document, ensure_ascii=bool(rng.integers(2))).encode()
    if kind == 3:
        document = json.loads(line)
        if rng.random() < 0.5:
            document.pop(list(document)[rng.integers(len(document))])
        else:
            document["key\n" * int(rng.integers(1, 3))] = 1
        return json.dumps(document).encode()
    if kind == 4:
        start, stop = sorted(rng.integers(0, len(line), size=2))
        return line[:start] + line[stop:] if rng.random() < 0.5 else line[:stop] + line[start:]
    if kind == 5:
        at = rng.integers(len(line))
        return line[:at] + bytes(rng.integers(0, 256, size=rng.integers(1, 4), dtype=np.uint8)) + line[at + 1 :]
    if kind == 6:
        return line + b"," + other
    if kind == 7:
        depth = int(rng.choice([10, 63, 65, 1000, 5000]))
        return line[:-1] + b',"extras":{"x":' + b"[" * depth + b"]" * depth + b"}}"
    return b"\xef\xbb\xbf" + line


def fuzz_log(rng: np.random.Generator, hands: int = 12, bad: int = 4, log: list[bytes] | None = None) -> bytes:
    """A header and ``hands`` consecutive hands of an honest ``log`` (default: the shipped 3-player Sochi
    evening), ``bad`` of them replaced by mutations."""
    header, pool = (HEADER, HANDS) if log is None else (log[0], [line for line in log[1:] if b'"hand"' in line])
    hands = min(hands, len(pool))
    start = int(rng.integers(0, len(pool) - hands + 1))
    lines = list(pool[start : start + hands])
    for index in rng.choice(hands, size=bad, replace=False):
        lines[index] = mutate(lines[index], rng, lines[(index + 1) % hands])
    return b"\n".join([header, *lines]) + b"\n"


def valid_hand_lines(path: Path) -> set[int]:
    """The hand lines the validator accepts: each must be counted, or named, by every command."""
    return {item.line for item in read_log(path) if item.ok and getattr(item.record, "hand", None) is not None}


def judged_lines(path: Path) -> tuple[set[int], set[int]]:
    """``valid_hand_lines`` and ``rejected`` in one reading."""
    valid, bad = set(), set()
    for item in read_log(path):
        if not item.ok:
            bad.add(item.line)
        elif getattr(item.record, "hand", None) is not None:
            valid.add(item.line)
    return valid, bad


def rejected(path: Path) -> set[int]:
    """The lines the validator rejects: each must be reported by every command."""
    return {item.line for item in read_log(path) if not item.ok}


def named_lines(messages: list[str]) -> set[int]:
    """The line numbers that report messages (``line N...``) name."""
    return {int(m[5:].split(",", 1)[0].split(":", 1)[0]) for m in messages if m.startswith("line ")}


_ERROR_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<field>[^\s:]+): \S")


def disagreement(name: str, outcome: Outcome, path: Path, valid: set[int], bad: set[int]) -> tuple[list[str], bool]:
    """How command ``name`` (log validate, sheet or audit) departs from the reader on ``path``: ``valid`` are the
    hand lines the reader accepts, ``bad`` the lines it rejects. Every error of `log validate` is one line
    ``FILE:LINE: field: message`` and it names exactly the rejected lines; `sheet` and `audit` report every
    rejected line and count (or name) every valid hand. Second: whether a valid hand was dropped."""
    if name == "log validate":
        printed = outcome.out.splitlines()
        errors = [_ERROR_LINE.match(line) for line in printed[:-1]]
        if not printed or f"{len(valid)} hands valid" not in printed[-1]:
            return ["the valid-hand count differs from the reader's"], True
        if not all(match and match["file"] == str(path) for match in errors):
            return [f"an error line not FILE:LINE: field: message: {[p[:200] for p in printed[:3]]}"], False
        if {int(match["line"]) for match in errors if match} != bad:
            return ["the lines it names are not the lines the reader rejects"], False
        return [], False
    report = json.loads(outcome.out)
    messages = report["mismatches"] if name == "sheet" else report["malformed"]
    named = named_lines(messages) | ({f["line"] for f in report["findings"]} if name == "audit" else set())
    found = [f"rejected lines unreported: {sorted(bad - named)[:5]}"] if not bad <= named else []
    if name == "sheet":
        unscored = {n for n in named if any(m.startswith(f"line {n},") and "cannot be replayed" in m for m in messages)}
        counted = report["hands"] + len(valid & unscored)
    else:
        counted = report["summary"]["hands"] + len(valid & named)
    if counted < len(valid):
        return [*found, f"{len(valid)} valid hands, {counted} counted or named"], True
    return found, False
