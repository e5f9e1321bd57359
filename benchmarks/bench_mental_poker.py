"""Mental poker on one core: a verified 3-player 32-card deal and a whole hand's verification, with the group
work counted next to every time (libsodium's variable-base and fixed-base multiplications, and the multi-scalar
multiplications with the points they summed).

Goals from issue 6: a verified 3-player 32-card deal (keys, three proven shuffles, private deal, talon) in
<= 150 ms; whole-hand verification <= 50 ms; from issue 13: whole-hand verification of a v4 transcript (roster,
every envelope's Ed25519 signature, the proofs, the record and its signed statements) still <= 25 ms. Baselines in
the same run: libsodium's and the bucket method's unit costs, every verification again with libsodium alone (one
multiplication per distinct point, the path taken where libdecaf is not installed), so the ratio shows what the
multi-scalar multiplication buys, a v4 hand again with OpenSSL's Ed25519 (the signature path before issue
13's second pass), and a v3 evening's hands (unsigned) verified the same way.

Run: .venv/bin/python benchmarks/bench_mental_poker.py   (about 10 s)
     .venv/bin/python benchmarks/bench_mental_poker.py --before REF   (v4 hands against commit REF's verifier)
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import rbcl
from bench_commit_reveal_v4 import openssl_signatures

from fairdeal.deal import get_pattern
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.match import play_match
from fairdeal.protocols import identity
from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.identity import _remembered as verified_signatures
from fairdeal.protocols.mental_poker import group as mp_group
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import (
    MSM_BACKEND,
    MULTS,
    Point,
    Scalar,
    base_mult,
    hash_to_point,
    multi_mult_vartime,
)
from fairdeal.protocols.mental_poker.player import Player, Table, play_hand
from fairdeal.protocols.mental_poker.protocol import TableSetup, verify_hand
from fairdeal.protocols.mental_poker.source import MentalPokerSource, hand_setup
from fairdeal.protocols.mental_poker.verify import check_document
from fairdeal.protocols.table import TableSpec
from fairdeal.systems import get_convention

PLAYERS = ("north", "east", "west")
REPEATS = 5


def measure(job: Callable[[], object], repeats: int = REPEATS) -> tuple[float, tuple[int, int, int, int], object]:
    """Median CPU seconds of this process over ``repeats`` runs (the wall clock would time the neighbours on a
    shared machine), with the work of one run (variable, fixed-base, msm calls, points)."""
    times, result = [], None
    for _ in range(repeats):
        MULTS.reset()
        start = time.process_time()
        result = job()
        times.append(time.process_time() - start)
    return statistics.median(times), (MULTS.variable, MULTS.fixed_base, MULTS.msm_calls, MULTS.msm_points), result


@contextmanager
def libsodium_alone() -> Iterator[None]:
    """The verifier as it runs where libdecaf is not installed."""
    saved, mp_group._msm = mp_group._msm, None
    try:
        yield
    finally:
        mp_group._msm = saved


@contextmanager
def foreign_scalars() -> Iterator[None]:
    """Scalar arithmetic through libsodium, one foreign call per operation (as before issue 13's speed-up)."""
    names = ("__add__", "__sub__", "__mul__", "__neg__")
    saved = {name: getattr(Scalar, name) for name in names}
    calls = {
        "__add__": lambda a, b: Scalar(rbcl.crypto_core_ristretto255_scalar_add(a.data, b.data)),
        "__sub__": lambda a, b: Scalar(rbcl.crypto_core_ristretto255_scalar_sub(a.data, b.data)),
        "__mul__": lambda a, b: Scalar(rbcl.crypto_core_ristretto255_scalar_mul(a.data, b.data)),
        "__neg__": lambda a: Scalar(rbcl.crypto_core_ristretto255_scalar_negate(a.data)),
    }
    try:
        for name, call in calls.items():
            setattr(Scalar, name, call)
        yield
    finally:
        for name, method in saved.items():
            setattr(Scalar, name, method)


def unit_costs() -> None:
    scalar, point = Scalar.random(), base_mult(Scalar.random())
    n = 2000
    var, _, _ = measure(lambda: [point * scalar for _ in range(n)], 3)
    fixed, _, _ = measure(lambda: [base_mult(scalar) for _ in range(n)], 3)
    valid, _, _ = measure(lambda: [Point.decode(point.data) for _ in range(n)], 3)
    add, _, _ = measure(lambda: [point + point for _ in range(n)], 3)
    print(
        f"baseline libsodium (rbcl): variable-base mult {var / n * 1e6:.0f} us, fixed-base {fixed / n * 1e6:.0f} us, "
        f"point validation {valid / n * 1e6:.1f} us, point addition {add / n * 1e6:.1f} us"
    )
    for size in (32, 300, 850):
        points = [hash_to_point(f"bench/{k}") for k in range(size)]
        scalars = [Scalar.random() for _ in points]
        msm, _, _ = measure(lambda s=scalars, p=points: multi_mult_vartime(s, p), 3)
        print(
            f"  sum of {size:3d} products, {MSM_BACKEND}: {msm * 1e3:6.2f} ms ({msm / size * 1e6:5.1f} us a point, "
            f"decoding included)"
        )


class TrustingPlayer(Player):
    """A prover only: applies the others' messages without checking them (the verifier is timed separately)."""

    def receive(self, message) -> None:
        self.state.apply(message, check_proofs=False)


def provers(setup: TableSetup) -> list:
    """Keys, three proven shuffles, the private deal and the talon, as the three players compute them."""
    table = Table([TrustingPlayer(setup, name) for name in setup.players])
    table.deal(open_talon=True)
    return table.messages


def played_hands(count: int, version: int = 4) -> MentalPokerSource:
    """Real hands: bots play, the mental-poker source proves every step."""
    convention = get_convention("sochi")
    source = MentalPokerSource(TableSpec("bench", "night", count, PLAYERS, convention), version=version)
    play_match(convention, PLAYERS, [HeuristicBot() for _ in PLAYERS], source=source, max_hands=count)
    return source


def row(label: str, seconds: float, work: tuple[int, int, int, int], goal: str = "") -> None:
    var, fixed, calls, points = work
    print(
        f"{label:<52} {seconds * 1e3:7.1f} ms   mult var {var:4d} base {fixed:4d}   msm {calls:3d} calls "
        f"{points:4d} points  {goal}"
    )


def hand_times(docs: list[dict[str, Any]]) -> list[float]:
    """Median CPU seconds of each v4 hand's whole verification, every signature checked again each run."""
    times = []
    for doc in docs:
        t_doc, _, checked = measure(lambda d=doc: verified_signatures.cache_clear() or check_document("bench", d))
        assert not checked.findings, checked.findings
        times.append(t_doc)
    return times


def times_before(ref: str, docs: list[dict[str, Any]]) -> list[float]:
    """``hand_times`` of the same documents under the verifier of git commit ``ref`` (its tree exported, this
    tree's compiled multi-scalar multiplication copied in), in a child process on the same core."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(root), "archive", ref], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        for built in (root / "fairdeal" / "protocols").glob("_msm*.so"):
            shutil.copy(built, Path(folder) / "fairdeal" / "protocols" / built.name)
        given = Path(folder) / "hands.json"
        given.write_bytes(encode(docs))
        env = {**os.environ, "PYTHONPATH": folder}
        out = subprocess.run(
            [sys.executable, __file__, "--measure", str(given)], check=True, capture_output=True, text=True, env=env
        ).stdout
    return [float(t) for t in json.loads(out.splitlines()[-1])]


def compare_before(ref: str) -> None:
    """This tree's v4 whole-hand verification against commit ``ref``'s on the same hands, alternating twice (the
    load on a shared machine drifts), each side's best of its two medians."""
    docs = played_hands(4, version=4).transcripts
    now, before = [float("inf")] * len(docs), [float("inf")] * len(docs)
    for _ in range(2):
        now = [min(a, b) for a, b in zip(now, hand_times(docs))]
        before = [min(a, b) for a, b in zip(before, times_before(ref, docs))]
    for doc, a, b in zip(docs, now, before):
        label = f"v4 hand {doc['hand']} ({len(doc['messages'])} signed messages)"
        print(f"{label:<40} {a * 1e3:6.1f} ms, {ref} {b * 1e3:6.1f} ms")
    ratio = statistics.median(a / b for a, b in zip(now, before))
    print(f"v4 whole-hand verification / {ref}'s on the same hands, same run: x{ratio:.2f} (median of {len(docs)})")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        print(json.dumps(hand_times(decode(Path(sys.argv[2]).read_bytes()))))
        return
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if len(sys.argv) == 3 and sys.argv[1] == "--before":
        compare_before(sys.argv[2])
        return
    unit_costs()
    setup = TableSetup(HandContext("bench-table", 1), get_pattern("russian"), PLAYERS)

    t_prove, w_prove, messages = measure(lambda: provers(setup))
    row("provers: keys, 3 shuffles, private deal, talon", t_prove, w_prove)
    t_check, w_check, _ = measure(lambda: verify_hand(setup, messages))
    row("verification of all of it (one batch)", t_check, w_check)
    row(
        "= verified 3-player 32-card deal",
        t_prove + t_check,
        tuple(a + b for a, b in zip(w_prove, w_check)),
        "(goal <= 150 ms)",
    )
    t_play, w_play, _ = measure(lambda: play_hand(setup), 3)
    row("same deal, each of 3 players verifying the others", t_play, w_play)

    ratios, v4_times, v3_times, old_times, ssl_times = [], [], [], [], []
    for doc in played_hands(4, version=3).transcripts:
        hand_table = hand_setup(
            TableSpec("bench", "night", 4, PLAYERS, get_convention("sochi")), doc["hand"], doc["dealer"]
        )
        t_hand, w_hand, _ = measure(lambda t=hand_table, d=doc: verify_hand(t, d["messages"]))
        row(
            f"v3 whole hand {doc['hand']} ({len(doc['messages'])} messages): messages",
            t_hand,
            w_hand,
            "(goal <= 50 ms)",
        )
        t_doc, w_doc, _ = measure(lambda d=doc: check_document("bench", d))
        row("    + record against the messages and the deal", t_doc, w_doc)
        with libsodium_alone():
            t_base, w_base, _ = measure(lambda t=hand_table, d=doc: verify_hand(t, d["messages"]), 3)
        row("    baseline: the same with libsodium alone", t_base, w_base)
        ratios.append(t_base / t_hand)
        v3_times.append(t_doc)
    for doc in played_hands(4, version=4).transcripts:
        # Every run verifies every signature again (the identity layer remembers the ones it has checked).
        t_doc, w_doc, checked = measure(lambda d=doc: verified_signatures.cache_clear() or check_document("bench", d))
        assert not checked.findings, checked.findings
        row(
            f"v4 whole hand {doc['hand']} ({len(doc['messages'])} signed messages): all of it",
            t_doc,
            w_doc,
            "(goal <= 25 ms)",
        )
        v4_times.append(t_doc)
        with foreign_scalars():
            t_old, w_old, _ = measure(lambda d=doc: verified_signatures.cache_clear() or check_document("bench", d))
        row("    baseline: the same with libsodium's scalar calls", t_old, w_old)
        old_times.append(t_old)
        with openssl_signatures():
            t_ssl, w_ssl, _ = measure(lambda d=doc: identity._remembered.cache_clear() or check_document("bench", d))
        row("    baseline: the same with OpenSSL's Ed25519", t_ssl, w_ssl)
        ssl_times.append(t_ssl)
    print(
        f"whole-hand verification, {MSM_BACKEND} vs libsodium alone: x{statistics.median(ratios):.1f} faster "
        f"(median of {len(ratios)} hands)"
    )
    v4, v3 = statistics.median(v4_times), statistics.median(v3_times)
    print(
        f"whole-hand verification with record, v4 (signed) {v4 * 1e3:.1f} ms against v3 (unsigned) "
        f"{v3 * 1e3:.1f} ms in this run: x{v4 / v3:.2f}"
    )
    old = statistics.median(old_times)
    print(f"v4 with libsodium's scalar calls (before) {old * 1e3:.1f} ms in this run: now x{old / v4:.2f} faster")
    ssl = statistics.median(ssl_times)
    print(f"v4 with OpenSSL's Ed25519 (before) {ssl * 1e3:.1f} ms in this run: now x{ssl / v4:.2f} faster")


if __name__ == "__main__":
    main()
