"""``verify --workers N``: commit-reveal v4 documents checked on several processes give exactly the report one
process gives, for honest evenings, tampered ones and an evening ended over a party's fault."""

from __future__ import annotations

import copy
import hashlib
import os
import pickle
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from commit_reveal_helpers import written

from fairdeal.cli import cli
from fairdeal.protocols import verify as verify_module
from fairdeal.protocols.canonical import decode, encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.source import CommitRevealSource4
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.pins import Pins
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.verify import Report, verify_documents, verify_log, verify_paths
from fairdeal.protocols.workers import in_chunks
from fairdeal.systems import get_convention

HANDS = 40  # above two workers' least share, so the documents really are split


def key(label: str) -> IdentityKey:
    return IdentityKey.from_seed(hashlib.sha256(label.encode()).digest(), label)


@pytest.fixture(scope="module")
def dealt() -> list[dict[str, Any]]:
    names = ("ann", "bob", "cid", "dan")
    spec = TableSpec("club", "night", HANDS, names, get_convention("leningrad"))
    src = CommitRevealSource4(spec, key("s"), [key(n) for n in names], b"\x05" * 32, None, "2026-12-01T18:00:00Z")
    docs = []
    for hand in range(1, HANDS + 1):
        src.deal(hand, (hand - 1) % 4)
        docs.append(src.finish(hand))
    return docs


def verify(docs: Sequence[dict[str, Any]], workers: int, pins: Pins | None = None) -> Report:
    return verify_documents([(f"hand-{i:04d}", d) for i, d in enumerate(docs)], pins=pins, workers=workers)


def test_two_workers_report_what_one_reports_on_an_honest_run(dealt: list[dict[str, Any]]) -> None:
    one, two = verify(dealt, 1), verify(dealt, 2)
    assert one.ok and one == two


@pytest.mark.parametrize("where", [3, 21, 39])
def test_two_workers_report_what_one_reports_on_a_tampered_run(dealt: list[dict[str, Any]], where: int) -> None:
    seed = copy.deepcopy(dealt)
    seed[where]["messages"][6]["body"]["seed"] = "00" * 32
    dropped = copy.deepcopy(dealt)
    dropped[where]["messages"] = [e for e in dropped[where]["messages"] if e["kind"] != m.RECORD_SIGN]
    spliced = dealt[: where // 2] + dealt[where // 2 + 1 :]  # a hand cut out of the middle
    for docs in (seed, dropped, spliced):
        one, two = verify(docs, 1), verify(docs, 2)
        assert not one.ok and one == two


def test_pins_reach_the_workers(dealt: list[dict[str, Any]]) -> None:
    pinned = Pins(keys=(("bob", key("someone else").public),))
    one, two = verify(dealt, 1, pinned), verify(dealt, 2, pinned)
    assert ("service", "identity pin") in {(f.party, f.check) for f in two.failures} and one == two


def test_a_public_key_pickles_by_its_bytes() -> None:
    public = key("k").public
    again = pickle.loads(pickle.dumps(public))
    assert again == public and again.verify(b"m", key("k").sign(b"m"))


def test_chunks_keep_the_order_and_small_runs_stay_in_process() -> None:
    items = list(range(100))
    assert in_chunks(lambda part: [x * 2 for x in part], items, 3, least=10) == [x * 2 for x in items]
    pids = in_chunks(lambda part: [__import__("os").getpid()], items[:5], 4)
    assert pids == [__import__("os").getpid()]


def test_the_cli_takes_workers(dealt: list[dict[str, Any]], tmp_path: Any) -> None:
    paths = []
    for i, doc in enumerate(dealt):
        path = tmp_path / f"hand-{i + 1:04d}.json"
        path.write_bytes(encode(doc))
        paths.append(str(path))
    runner = CliRunner()
    assert runner.invoke(cli, ["verify", "--workers", "2", *paths]).exit_code == 0
    bad = runner.invoke(cli, ["verify", "--workers", "0", *paths])
    assert bad.exit_code == 2 and "--workers" in bad.output


def test_an_ended_evening_reports_the_same_on_two_workers() -> None:
    from fairdeal.engine.settlement import settle
    from fairdeal.engine.sheet import new_sheet
    from fairdeal.protocols.commit_reveal4.parties import Player, end_penalty

    class Gone(Player):
        def countersign(self, hand: int, shown: Any, deadline: float | None = None) -> Any:
            return None if hand == HANDS else super().countersign(hand, shown, deadline)

    names = ("ann", "bob", "cid")
    convention = get_convention("sochi")
    spec = TableSpec("club", "late", HANDS, names, convention)
    src = CommitRevealSource4(spec, key("s"), [key(n) for n in names], b"\x06" * 32, None, "2026-12-01T18:00:00Z")
    gone = Gone.__new__(Gone)
    gone.__dict__.update(src.players[1].__dict__)
    src.players[1] = gone
    for hand in range(1, HANDS + 1):
        src.deal(hand, (hand - 1) % 3)
        try:
            src.finish(hand)
        except Exception:
            assert hand == HANDS
    assert src.ended is not None
    amounts = settle(new_sheet(convention, 3).apply(end_penalty(convention, 3, [1])), convention).amounts
    docs = [*src.transcripts, src.ended, src.close(amounts)]
    one, two = verify(docs, 1), verify(docs, 2)
    assert one.ok and one == two and any("player bob charged" in note for note in one.notes)


# ---- files: each worker reads and decodes its own share --------------------------------------------------------


@pytest.fixture
def decoders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[[], set[int]]:
    """The processes that decoded a transcript file (each appends its pid to a file, so forked workers count)."""
    log = tmp_path / "decoders.txt"
    read = verify_module.read_document

    def recorded(path: Path) -> dict[str, Any]:
        with log.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return read(path)

    monkeypatch.setattr(verify_module, "read_document", recorded)
    return lambda: {int(line) for line in log.read_text().split()} if log.exists() else set()


def test_workers_decode_their_own_files_and_report_what_one_process_reports(
    dealt: list[dict[str, Any]], tmp_path: Path, decoders: Callable[[], set[int]]
) -> None:
    paths = written(dealt, tmp_path / "files")
    broken = copy.deepcopy(dealt)
    broken[21]["messages"][6]["body"]["seed"] = "00" * 32
    tampered = written(broken, tmp_path / "tampered") + [tmp_path / "missing.json"]
    for run in (paths, tampered):
        one = verify_paths(run, workers=1)
        assert decoders() == {os.getpid()}
        (tmp_path / "decoders.txt").unlink()
        two = verify_paths(run, workers=2)
        assert os.getpid() in decoders() and len(decoders()) == 2  # this process its share, a forked worker the rest
        (tmp_path / "decoders.txt").unlink()
        assert one == two and one.ok == (run is paths)
    failures = {(f.source, f.party, f.check) for f in two.failures}
    assert (str(tampered[21]), "service", "transcript file") not in failures
    assert any(source == str(tampered[21]) for source, _, _ in failures)
    assert (str(tampered[-1]), "service", "transcript file") in failures


def test_a_game_log_reports_the_same_on_two_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A commit-reveal and a mental-poker evening (the latter checked message by message in the workers), honest and
    with one transcript altered: ``verify --log`` gives one process's report, failures named alike."""
    monkeypatch.setattr(verify_module, "in_chunks", partial(in_chunks, least=1))  # split even a short evening
    runner = CliRunner()
    for protocol, hands in (("commit-reveal", 8), ("mental-poker", 3)):
        out = tmp_path / protocol
        args = ["deal", "--protocol", protocol, "--hands", str(hands), "--seed", "2", "--out", str(out)]
        assert runner.invoke(cli, args).exit_code == 0
        log = out / "evening.log"
        one, two = verify_log(log, workers=1), verify_log(log, workers=2)
        assert one.ok and one == two, [f.line() for f in one.failures]
        second = out / "evening.log.transcripts" / "hand-0002.json"
        doc = decode(second.read_bytes())
        messages = doc["messages"]
        signature = messages[1]["signature"]
        messages[1] = dict(messages[1], signature=("0" if signature[0] != "0" else "1") + signature[1:])
        second.write_bytes(encode(doc))
        one, two = verify_log(log, workers=1), verify_log(log, workers=2)
        assert not one.ok and one == two
        named = {(f.source, f.party, f.check) for f in two.failures}
        assert any(source == str(second) and check != "transcript reference" for source, _, check in named), named
