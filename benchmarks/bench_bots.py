"""Duplicate matches: the sampling bot against the heuristic bot on the same deals with the seats rotated, so the
luck of the cards cancels.

For each deal (one hand, dealer rotating with the deal number) and each seat k, the hand is played with the
sampling bot at seat k and heuristic bots elsewhere, and once with heuristic bots everywhere; the difference of
seat k's worth in whists (the hand scored by the system and settled by the convention, a point of pulya priced as
a point of gora less where the settlement does not convert pulya itself: ``pricing.hand_worth``) is the sampling
bot's gain at that seat. A deal's figure is the mean gain over the three seats. Prints, per system, the mean gain
per deal with its 95% interval (normal approximation over deals) and the sampling bot's thinking time per move
(every decision with a choice: bids, discards, contracts, whists, cards; mean, median, 99th percentile, max) in
CPU time on one core, with the kind, deal and seat of the slowest and the count of moves over 1 s. Workers run
in parallel processes (``--workers``); the systems' chunks interleave and a running line per system follows every
``--report`` deals, so a run cut short still tells its largest count.

    python benchmarks/bench_bots.py --deals 2000 --workers 2     # the issue's figure
    python benchmarks/bench_bots.py                              # 50 deals a system, a quick look
    python benchmarks/bench_bots.py --worst --deals 100           # every system and table size: slowest decisions
    python benchmarks/bench_bots.py --deals 200 --before main     # this tree against the bots of another commit

``--before REF`` also plays the same deals with the bots of git commit ``REF`` (its tree exported to a temporary
folder, this tree's compiled solver copied in, the same script run there in a subprocess) and prints both results
and the paired difference per deal, after minus before, with its 95% interval, split by the kind of decision
(bid, discard, contract, whist, kontra, card, ...) where each seat's two plays of a deal first part.

``--worst`` plays hands with the sampling bot at every seat of every registered system and table size (or
``--systems``) and prints, per kind of decision (bid, discard, contract, whist, card of a game, misère or
raspasy, ...), the count, mean, p99 and max CPU time with the system, table size, deal and seat of the max.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from fairdeal.deal import Deal
from fairdeal.engine.actions import Action, Phase
from fairdeal.engine.bots import Bot, HeuristicBot
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, result, to_move
from fairdeal.engine.view import PlayerView, view_for
from fairdeal.rules.convention import Convention
from fairdeal.solver.bots import SamplingBot
from fairdeal.solver.pricing import hand_worth
from fairdeal.systems import conventions, get_convention


def table_size(conv: Convention) -> int:
    """Three seats where the system allows them (the issue's figure), else its own size (Hussar: two)."""
    return 3 if 3 in conv.players else int(conv.players[0])


class TimedBot:
    """Wraps the sampling bot and records the time and the kind and action of each decision that has a
    choice."""

    def __init__(self, bot: SamplingBot):
        self.bot = bot
        self.times: list[float] = []
        self.decisions: list[tuple[str, str]] = []

    def act(self, view: PlayerView) -> Action:
        started = time.process_time()
        action = self.bot.act(view)
        if len(view.legal) > 1:
            self.times.append(time.process_time() - started)
            self.decisions.append((decision_kind(view), repr(action)))
        return action


def decision_kind(view: PlayerView) -> str:
    """The kind of a decision for the slowest-decisions table."""
    kind = view.phase.value
    if view.phase is Phase.PLAY:
        return f"play-{view.kind.value if view.kind is not None else 'game'}"
    if view.phase is Phase.DISCARD and view.high is not None and view.high.misere:
        return "discard-misere"
    return kind


class KindTimedBot:
    """Records every decision with a choice as (CPU seconds, kind)."""

    def __init__(self, bot: SamplingBot):
        self.bot = bot
        self.times: list[tuple[float, str]] = []

    def act(self, view: PlayerView) -> Action:
        started = time.process_time()
        action = self.bot.act(view)
        if len(view.legal) > 1:
            self.times.append((time.process_time() - started, decision_kind(view)))
        return action


Row = tuple[float, str, str, int, int]


def run_worst(args: tuple[str, int, int, int, str]) -> list[Row]:
    """(seconds, kind, table, deal, seat) of every decision of sampling bots playing ``count`` hands."""
    system, seats, start, count, level = args
    conv = get_convention(system)
    out: list[Row] = []
    for number in range(start, start + count):
        deal = random_deal(np.random.default_rng([2026, number]), conv, seats)
        bots = [KindTimedBot(SamplingBot(level, seed=number * 7 + s)) for s in range(seats)]
        state = new_hand(conv, seats, number % seats, deal)
        while not is_over(state):
            mover = to_move(state)
            assert mover is not None
            state = apply(state, bots[mover].act(view_for(state, mover)))
        for seat, bot in enumerate(bots):
            out.extend((t, kind, f"{system}-{seats}", number, seat) for t, kind in bot.times)
    return out


def worst_main(args: argparse.Namespace) -> None:
    names = conventions() if args.systems == "all" else {s: get_convention(s) for s in args.systems.split(",")}
    tables = [(name, seats) for name, conv in names.items() for seats in conv.players]
    chunk = max(1, min(args.chunk, args.deals))
    jobs = [(n, k, s, min(chunk, args.deals - s), args.level) for s in range(0, args.deals, chunk) for n, k in tables]
    by_kind: dict[str, list[Row]] = {}
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for rows in pool.map(run_worst, jobs):
            for row in rows:
                by_kind.setdefault(row[1], []).append(row)
    print(f"slowest decisions, {args.deals} deals on each of {len(tables)} tables ({args.level}):")
    for kind in sorted(by_kind):
        rows = by_kind[kind]
        times = np.array([r[0] for r in rows])
        worst = max(rows)
        p99 = np.percentile(times, 99) * 1e3
        print(
            f"  {kind:18s} {len(rows):7d} moves: mean {times.mean() * 1e3:6.1f} ms, p99 {p99:6.0f} ms, "
            f"max {worst[0] * 1e3:6.0f} ms ({worst[2]} deal {worst[3]} seat {worst[4]})"
        )
    every = np.array([r[0] for rows in by_kind.values() for r in rows])
    print(f"  {'all':18s} {len(every):7d} moves: max {every.max() * 1e3:.0f} ms; {time.perf_counter() - started:.0f} s")


def play(conv: Convention, deal: Deal, dealer: int, bots: Sequence[Bot]) -> tuple[float, ...]:
    state = new_hand(conv, len(bots), dealer, deal)
    while not is_over(state):
        seat = to_move(state)
        assert seat is not None  # a hand not over has a seat to move
        state = apply(state, bots[seat].act(view_for(state, seat)))
    return hand_worth(conv, result(state))


Trace = list[tuple[float, list[tuple[str, str]]]]  # per seat: the sampling bot's gain and its decisions


def run_deals(args: tuple[str, int, int, str]) -> tuple[list[float], list[float], list[Trace]]:
    system, start, count, level = args
    conv = get_convention(system)
    seats = table_size(conv)
    gains, times, traces = [], [], []
    for number in range(start, start + count):
        deal = random_deal(np.random.default_rng([2026, number]), conv, seats)
        dealer = number % seats
        base = play(conv, deal, dealer, [HeuristicBot() for _ in range(seats)])
        gain = 0.0
        trace: Trace = []
        for seat in range(seats):
            timed = TimedBot(SamplingBot(level, seed=number))
            bots = [timed if s == seat else HeuristicBot() for s in range(seats)]
            won = play(conv, deal, dealer, bots)[seat] - base[seat]
            gain += won
            times.extend(timed.times)
            trace.append((won, timed.decisions))
        gains.append(float(gain / seats))
        traces.append(trace)
    return gains, times, traces


def _gist(action: str) -> str:
    """A decision's gist for the breakdown: the bid or contract, the defence call, the kontra or not."""
    token = re.search(r"token='([^']*)'|call=<[^:]*: '([^']*)'>|double=(\w+)|open=(\w+)|invite=(\w+)", action)
    if token is None:
        return "card" if action.startswith("Play") else action.split("(")[0]
    word = next(g for g in token.groups() if g is not None)
    return {"True": "yes", "False": "no"}.get(word, word)


def first_difference(before: list[tuple[str, str]], after: list[tuple[str, str]]) -> str:
    """The kind of the first decision where two plays of one seat part, with each play's gist ("same":
    none)."""
    for old, new in zip(before, after):
        if tuple(old) != tuple(new):  # one side read back from JSON: lists
            kind = old[0] if old[0] == new[0] else f"{old[0]}/{new[0]}"
            gists = (_gist(old[1]), _gist(new[1]))
            return kind if gists[0] == gists[1] else f"{kind} {gists[0]}>{gists[1]}"
    return "same" if len(before) == len(after) else "length"


def divergence(system: str, before: list[Trace], after: list[Trace]) -> str:
    """The paired difference (after - before, whists a deal) split by the kind of decision where each seat's
    two plays first part: each kind's share of the total with its count of seats."""
    parts: dict[str, list[float]] = {}
    for old, new in zip(before, after):
        seats = len(old)
        for (was, plays_before), (now, plays_after) in zip(old, new):
            parts.setdefault(first_difference(plays_before, plays_after), []).append((now - was) / seats)
    deals = len(before)
    kinds: dict[str, list[float]] = {}
    for label, diffs in parts.items():
        kinds.setdefault(label.split()[0], []).extend(diffs)
    lines = [f"   {system}: after - before by the first decision that differs (share of whists a deal, seats):"]
    for kind, diffs in sorted(kinds.items(), key=lambda kv: sum(kv[1])):
        lines.append(f"     {kind:24s} {sum(diffs) / deals:+.2f} ({len(diffs)} seats)")
    lines.append("     the largest shares in detail:")
    for label, diffs in sorted(parts.items(), key=lambda kv: -abs(sum(kv[1])))[:15]:
        lines.append(f"     {label:32s} {sum(diffs) / deals:+.2f} ({len(diffs)} seats)")
    return "\n".join(lines)


def slowest(times: list[float], traces: list[Trace]) -> str:
    """Where the slowest move was (its kind, deal and seat) and how many moves took over a second: the times
    follow the traces' decisions in order (deal by deal, seat by seat)."""
    where = [
        (kind, deal, seat)
        for deal, trace in enumerate(traces)
        for seat, (_, made) in enumerate(trace)
        for kind, _ in made
    ]
    kind, deal, seat = where[int(np.argmax(times))]
    over = sum(1 for t in times if t > 1.0)
    return f"; the max a {kind} (deal {deal} seat {seat}), {over} moves over 1 s"


def summary(system: str, level: str, gains: list[float], times: list[float], traces: list[Trace] | None = None) -> str:
    gains_a, times_a = np.array(gains), np.array(times)
    half = 1.96 * gains_a.std(ddof=1) / np.sqrt(len(gains_a))
    p50, p99 = np.percentile(times_a, [50, 99]) * 1e3
    return (
        f"{system:10s} {len(gains_a)} deals: sampling ({level}) - heuristic = {gains_a.mean():+.2f} whists a "
        f"deal, 95% interval [{gains_a.mean() - half:+.2f}, {gains_a.mean() + half:+.2f}]; thinking per move: "
        f"mean {times_a.mean() * 1e3:.0f} ms, p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {times_a.max() * 1e3:.0f} ms "
        f"({len(times_a)} moves)" + ("" if traces is None else slowest(times, traces))
    )


def interval(values: list[float]) -> str:
    array = np.array(values)
    half = 1.96 * array.std(ddof=1) / np.sqrt(len(array))
    return f"{array.mean():+.2f} [{array.mean() - half:+.2f}, {array.mean() + half:+.2f}]"


def run_before(ref: str, argv: list[str]) -> dict[str, tuple[list[float], list[float], list[Trace]]]:
    """The same run with the bots of commit ``ref``: its tree exported, this tree's compiled solver copied in."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(root), "archive", ref], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        for built in (root / "fairdeal" / "solver").glob("_dds*.so"):
            shutil.copy(built, Path(folder) / "fairdeal" / "solver" / built.name)
        env = {"PYTHONPATH": folder, "PATH": "/usr/bin:/bin"}
        out = subprocess.run(
            [sys.executable, __file__, *argv, "--json"], check=True, capture_output=True, text=True, env=env
        ).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {row["system"]: (row["gains"], row["times"], row["traces"]) for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50, help="deals per system")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--level", default="medium", choices=["medium", "hard"])
    parser.add_argument("--systems", default="sochi,leningrad,rostov")
    parser.add_argument("--chunk", type=int, default=25, help="deals a job")
    parser.add_argument("--report", type=int, default=250, help="deals between running lines")
    parser.add_argument("--worst", action="store_true", help="the slowest decisions of every kind (see above)")
    parser.add_argument("--before", metavar="REF", help="also the bots of this git commit, on the same deals")
    parser.add_argument("--json", action="store_true", help="one JSON line per system: per-deal gains and times")
    args = parser.parse_args()
    if args.worst:
        if args.systems == parser.get_default("systems"):
            args.systems = "all"
        worst_main(args)
        return
    systems = args.systems.split(",")
    started = time.perf_counter()
    before = None
    if args.before:
        same = ["--deals", str(args.deals), "--workers", str(args.workers), "--level", args.level]
        before = run_before(args.before, [*same, "--systems", args.systems, "--chunk", str(args.chunk)])
        print(f"before ({args.before}), {time.perf_counter() - started:.0f} s:", flush=True)
        for system in systems:
            print("  ", summary(system, args.level, *before[system][:2]), flush=True)
    chunk = max(1, min(args.chunk, args.deals))
    jobs = [
        (system, s, min(chunk, args.deals - s), args.level) for s in range(0, args.deals, chunk) for system in systems
    ]
    gains: dict[str, list[float]] = {s: [] for s in systems}
    times: dict[str, list[float]] = {s: [] for s in systems}
    traces: dict[str, list[Trace]] = {s: [] for s in systems}

    def stats(system: str) -> tuple[list[float], list[float], list[Trace]]:
        return gains[system], times[system], traces[system]

    with ProcessPoolExecutor(args.workers) as pool:
        for job, (g, t, r) in zip(jobs, pool.map(run_deals, jobs)):
            system = job[0]
            done = len(gains[system])
            gains[system].extend(g)
            times[system].extend(t)
            traces[system].extend(r)
            running = len(gains[system]) // args.report > done // args.report and len(gains[system]) < args.deals
            if running and not args.json:
                print("running:", summary(system, args.level, *stats(system)), flush=True)
    for system in systems:
        if args.json:
            row = {"system": system, "gains": gains[system], "times": times[system], "traces": traces[system]}
            print(json.dumps(row), flush=True)
        else:
            print(("after:  " if before else "") + summary(system, args.level, *stats(system)))
        if before is not None:
            paired = [a - b for a, b in zip(gains[system], before[system][0])]
            print(f"   {system}: after - before = {interval(paired)} whists a deal (paired over the same deals)")
            print(divergence(system, before[system][2], traces[system]))
    if not args.json:
        print(f"{time.perf_counter() - started:.0f} s in all", flush=True)


if __name__ == "__main__":
    main()
