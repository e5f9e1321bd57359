"""The Parquet store: append-only writes partitioned by table and day, DuckDB queries, and audits read from it
that give exactly the verdict of the log file — for every deal pattern and table size."""

import gzip
import io
import json
import math
from pathlib import Path

import msgspec
import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.audit.stored import _read_by_the_store, run_stored_audit, spooled_lines
from fairdeal.cards import to_ascii_list
from fairdeal.cli import cli
from fairdeal.deal import PATTERNS, deal_by_seat, deal_order
from fairdeal.errors import LogError
from fairdeal.log import DealRecord, HandRecord, LogWriter
from fairdeal.log.query import run_query
from fairdeal.log.sources import expand
from fairdeal.log.store import Store
from fairdeal.log.synth import SynthTable, synth_hand
from fairdeal.log.writer import encode_record
from fairdeal.shuffle.notation import parse_notation

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
STACKER = SAMPLES / "sochi-4p-talon-stacker.jsonl"
MALFORMED = SAMPLES / "malformed-lines.jsonl"


def _tables() -> list[SynthTable]:
    """Every deal pattern at every table size it is dealt at."""
    names = ("A", "B", "C", "D", "E")
    tables = []
    for name, pattern in sorted(PATTERNS.items()):
        tables += [
            SynthTable(players=names[:size], system=f"{name}-deal", pattern_name=name) for size in pattern.table_sizes
        ]
    return tables


def deal_hand(rng: np.random.Generator, table: SynthTable, number: int) -> HandRecord:
    """A hand with only its gathered order, a logged shuffle and cut, and the deal (any pattern, two talons too)."""
    pattern, seats = table.pattern, len(table.players)
    dealer = (number - 1) % seats
    before = rng.permutation(pattern.deck.codes())
    runs = " ".join(str(int(k)) for k in rng.integers(2, 9, size=int(rng.integers(1, 6))))
    shuffle = f"{runs} cut@{(dealer - 1) % seats} {int(rng.integers(4, pattern.deck.size - 3))}"
    deal = deal_order(before[parse_notation(shuffle).permutation(pattern.deck.size)], pattern)
    hands = [to_ascii_list(h) for h in deal_by_seat(deal, pattern, dealer, seats)]
    return HandRecord(
        hand=number,
        dealer=dealer,
        order_before=to_ascii_list(before),
        shuffle=shuffle,
        deal=DealRecord(hands=hands, talons=[to_ascii_list(t) for t in deal.talons]),
    )


def synth_log(path: Path, table: SynthTable, hands: int, seed: int, make=synth_hand) -> Path:
    rng = np.random.default_rng(seed)
    stream = io.BytesIO()
    LogWriter(stream).write_all([table.header(), *(make(rng, table, n) for n in range(1, hands + 1))])
    path.write_bytes(stream.getvalue())
    return path


def comparable(result) -> dict:
    report = result.to_json()
    report["summary"].pop("seconds")
    report["summary"].pop("hands_per_second")
    if report["legality"]:
        report["legality"].pop("seconds", None)
    return report


def stored(tmp_path, *logs) -> Store:
    store = Store(tmp_path / "store", create=True)
    for source in expand([str(log) for log in logs]):
        store.append(source)
    return store


@pytest.mark.parametrize("table", _tables(), ids=lambda t: f"{t.pattern_name}-{len(t.players)}")
def test_the_stored_audit_is_the_file_audit_for_every_pattern_and_table_size(tmp_path, table):
    log = synth_log(tmp_path / "evening.jsonl", table, 40, len(table.players), deal_hand)
    store = stored(tmp_path, log)
    (table_id,) = store.tables()
    options = RunOptions(workers=1, legality=False, tells=True, targeting=True)
    assert comparable(run_stored_audit(store.root, table_id, options)) == comparable(run_audit(log, options))


def test_malformed_lines_and_legality_are_audited_alike_from_the_store(tmp_path):
    store = stored(tmp_path, MALFORMED, STACKER)
    tables = store.logs()
    for log in (MALFORMED, STACKER):
        (table_id,) = [t for t, logs in tables.items() if logs[0].source == str(log)]
        file_report = comparable(run_audit(log, RunOptions(workers=1)))
        assert comparable(run_stored_audit(store.root, table_id, RunOptions(workers=1))) == file_report
    assert file_report["summary"]["exit_code"] == 1 and file_report["suspects"]


def test_the_spooled_table_is_the_log_line_for_line(tmp_path):
    store = stored(tmp_path, MALFORMED)
    (logs,) = store.logs().values()
    assert b"".join(spooled_lines(logs)).splitlines() == MALFORMED.read_bytes().splitlines()


def test_appends_never_rewrite_and_the_same_bytes_are_skipped(tmp_path):
    store = stored(tmp_path, STACKER)
    files = {p: p.stat().st_mtime_ns for p in store.root.rglob("*.parquet")}
    again = store.append(expand([str(STACKER)])[0])
    assert again.skipped
    gz = tmp_path / "more.jsonl.gz"
    gz.write_bytes(gzip.compress(MALFORMED.read_bytes()))
    added = store.append(expand([str(gz)])[0])
    assert not added.skipped and added.hands == 9
    after = {p: p.stat().st_mtime_ns for p in store.root.rglob("*.parquet")}
    assert {p: after[p] for p in files} == files and len(after) == len(files) + 2
    assert not list(store.root.rglob(".tmp-*"))


def test_partitions_by_table_and_day(tmp_path):
    log = synth_log(tmp_path / "dated.jsonl", SynthTable(), 5, 1)
    store = stored(tmp_path, log)
    (part,) = store.root.glob("hands/table=*/day=*/part-*.parquet")
    assert part.parent.name == "day=2026-11-29"
    rows = pq.read_table(part).to_pylist()
    assert [r["hand"] for r in rows] == [1, 2, 3, 4, 5] and [r["line"] for r in rows] == [2, 3, 4, 5, 6]


def test_a_log_without_a_header_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"hand","hand":1,"dealer":0}\n')
    with pytest.raises(LogError, match=r"bad.jsonl: no usable table header: line 1, field type"):
        stored(tmp_path, bad)
    with pytest.raises(LogError, match="not a fairdeal store"):
        Store(tmp_path)


def test_query_every_hand_a_player_dealt(tmp_path):
    store = stored(tmp_path, STACKER, MALFORMED)
    names, rows = run_query(
        store.root,
        "SELECT hand FROM hands h JOIN tables t USING (table_id) "
        "WHERE h.dealer_name = 'Boris' AND t.source LIKE '%stacker%' ORDER BY hand",
    )
    expected = [
        json.loads(line)["hand"] for line in STACKER.read_text().splitlines()[1:] if json.loads(line).get("dealer") == 1
    ]
    assert names == ["hand"] and [r[0] for r in rows] == expected
    _, bids = run_query(store.root, "SELECT count(*) FROM hands WHERE record->>'$.contract.bid' IS NOT NULL")
    assert bids[0][0] > 0
    with pytest.raises(LogError, match=r"^query: "):
        run_query(store.root, "SELEC 1")


def test_the_commands_store_query_and_audit_the_store(tmp_path):
    runner = CliRunner()
    out = tmp_path / "archive"
    stored_run = runner.invoke(cli, ["store", str(STACKER), "--out", str(out)])
    assert stored_run.exit_code == 0 and "900 hands" in stored_run.output
    assert "already in the store" in runner.invoke(cli, ["store", str(STACKER), "--out", str(out)]).output
    piped = runner.invoke(cli, ["store", "-", "--out", str(out)], input=MALFORMED.read_bytes())
    assert piped.exit_code == 0 and "<stdin>: 9 hands" in piped.output
    query = runner.invoke(
        cli, ["query", "SELECT count(*) AS n FROM hands WHERE kind = 'hand'", "--store", str(out), "--json"]
    )
    assert query.exit_code == 0 and json.loads(query.output) == {"n": 909}
    audit = runner.invoke(cli, ["audit", str(out), "--json", "--workers", "2"])
    assert audit.exit_code == 1
    reports = json.loads(audit.output)["logs"]
    assert len(reports) == 2 and reports[0]["suspects"][0]["dealer"] == "Vera"
    bad = runner.invoke(cli, ["query", "SELECT nope FROM hands", "--store", str(out)])
    assert bad.exit_code != 0 and "Traceback" not in bad.output and "query:" in bad.output


def test_a_version_1_store_without_parsed_columns_audits_alike(tmp_path):
    """Version 1 wrote no parsed columns; its files are audited by parsing their raw JSON, to the same verdict."""
    table = SynthTable(players=("A", "B", "C"), system="sochi", pattern_name="russian")
    log = synth_log(tmp_path / "evening.jsonl", table, 60, 3, deal_hand)
    store = stored(tmp_path, log)
    (table_id,) = store.tables()
    options = RunOptions(workers=1, legality=False, tells=True, targeting=True)
    current = comparable(run_stored_audit(store.root, table_id, options))
    for file in (store.root / "hands").rglob("*.parquet"):
        old = pq.read_table(file).drop_columns(["deal_cards", "order_cards", "shuffle_ops"])
        pq.write_table(old, file)
    (store.root / "fairdeal-store.json").write_text(json.dumps({"format": "fairdeal-store", "version": 1}))
    assert (
        comparable(run_stored_audit(Store(store.root).root, table_id, options))
        == current
        == comparable(run_audit(log, options))
    )


def test_the_store_keeps_each_hand_read_as_the_auditor_reads_it(tmp_path):
    from fairdeal.audit.fastpath import RawHand, decode_raw_block, layout_for
    from fairdeal.audit.stored import _parsed
    from fairdeal.log.bulk import parse_hands

    table = SynthTable(players=("A", "B", "C", "D"), system="sochi", pattern_name="russian")
    log = synth_log(tmp_path / "evening.jsonl", table, 30, 4, deal_hand)
    store = stored(tmp_path, log)
    (file,) = (store.root / "hands").rglob("*.parquet")
    group = pq.ParquetFile(file).read_row_group(0)
    records, _ = decode_raw_block(group.column("raw").to_pylist(), 2)
    hands = [r for _, r in records if isinstance(r, RawHand)]
    kept = _parsed(group, group.column("kind").to_pylist(), len(hands), 32)
    fresh = parse_hands(
        [bytes(h.deal) for h in hands],
        [bytes(h.order_before) for h in hands],
        [h.logged_shuffle for h in hands],
        np.array([h.dealer for h in hands]),
        layout_for("russian", 4).lists,
        32,
    )
    assert kept is not None and kept.deal_ok.all() and kept.simple.all()
    for name in ("deal_ok", "deals", "order_ok", "orders", "simple"):
        assert np.array_equal(getattr(kept, name), getattr(fresh, name))
    assert np.array_equal(kept.ops.rows(np.arange(len(hands))).kinds, fresh.ops.rows(np.arange(len(hands))).kinds)


def test_a_version_1_store_takes_new_logs_and_answers_queries_over_both(tmp_path):
    table = SynthTable(players=("A", "B", "C"), system="sochi", pattern_name="russian")
    first = synth_log(tmp_path / "first.jsonl", table, 10, 1, deal_hand)
    store = stored(tmp_path, first)
    for file in (store.root / "hands").rglob("*.parquet"):
        pq.write_table(pq.read_table(file).drop_columns(["deal_cards", "order_cards", "shuffle_ops"]), file)
    (store.root / "fairdeal-store.json").write_text(json.dumps({"format": "fairdeal-store", "version": 1}))
    other = SynthTable(players=("D", "E", "F"), system="sochi", pattern_name="russian")
    Store(store.root).append(expand([str(synth_log(tmp_path / "second.jsonl", other, 10, 2, deal_hand))])[0])
    _, rows = run_query(store.root, "SELECT count(*) FROM hands WHERE kind = 'hand'")
    assert rows == [(20,)]
    assert json.loads((store.root / "fairdeal-store.json").read_text())["version"] == 1


def test_a_valid_hand_without_a_deal_is_counted_apart_not_malformed(tmp_path):
    table = SynthTable(players=("A", "B", "C"), system="sochi", pattern_name="russian")
    log = synth_log(tmp_path / "evening.jsonl", table, 30, 5, deal_hand)
    lines = log.read_bytes().splitlines()
    for k in (3, 7):  # hands 3 and 7: only the hand number and the dealer remain
        record = json.loads(lines[k])
        lines[k] = json.dumps({"type": "hand", "hand": record["hand"], "dealer": record["dealer"]}).encode()
    log.write_bytes(b"\n".join(lines) + b"\n")
    store = stored(tmp_path, log)
    (table_id,) = store.tables()
    options = RunOptions(workers=1, legality=False)
    for result in (run_audit(log, options), run_stored_audit(store.root, table_id, options)):
        summary = result.to_json()["summary"]
        assert (summary["hands"], summary["hands_without_deal"], summary["malformed_lines"]) == (28, 2, 0)


def test_the_bulk_verdict_does_not_depend_on_how_the_log_is_split(tmp_path):
    """Every draw of the bulk pass is keyed by its deal or cut, so row groups other than the file's blocks give the
    file's verdict: every count, finding and suspect alike, floating-point sums to their last bits of rounding
    (added in another order). The per-hand Monte Carlo passes, targeting and tells, still draw per block."""
    table = SynthTable(players=("A", "B", "C"), system="sochi", pattern_name="russian")
    log = synth_log(tmp_path / "evening.jsonl", table, 3000, 11, deal_hand)
    store = Store(tmp_path / "store", create=True)
    store.append(expand([str(log)])[0], row_group=700)
    (table_id,) = store.tables()
    bulk = RunOptions(workers=1, legality=False, tells=False, targeting=False)
    assert alike(comparable(run_stored_audit(store.root, table_id, bulk)), comparable(run_audit(log, bulk)))


def alike(a: object, b: object) -> bool:
    """Equal JSON values, floats within 1e-9 relative."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(alike(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(alike(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_a_group_the_store_read_audits_without_card_json_until_a_hand_needs_it(tmp_path):
    """Every hand logs its order and deal, so the audit reads neither's JSON; the hands that need it still get it
    from their stored lines: a deal that is not one deck (its finding quotes the cards), an overhand shuffle (the
    full replay), a deal the replay does not give. The verdict is the file's."""
    table = SynthTable(players=("A", "B", "C"), system="sochi", pattern_name="russian")
    records = [deal_hand(np.random.default_rng(n), table, n) for n in range(1, 31)]
    hands = records[4].deal.hands
    twice = DealRecord(hands=[[hands[0][1], *hands[0][1:]], *hands[1:]], talons=records[4].deal.talons)
    records[4] = msgspec.structs.replace(records[4], deal=twice)
    records[9] = msgspec.structs.replace(records[9], shuffle="overhand 3,5,2 " + records[9].shuffle)
    hands = records[14].deal.hands
    swapped = [[hands[1][0], *hands[0][1:]], [hands[0][0], *hands[1][1:]], *hands[2:]]
    records[14] = msgspec.structs.replace(records[14], deal=DealRecord(hands=swapped, talons=records[14].deal.talons))
    log = tmp_path / "evening.jsonl"
    log.write_bytes(b"".join(encode_record(r) for r in [table.header(), *records]))  # unchecked: a cheat's log
    store = stored(tmp_path, log)
    (table_id,) = store.tables()
    (stored_log,) = store.logs()[table_id]
    file = pq.ParquetFile(stored_log.hands_file)
    assert all(_read_by_the_store(file, g) for g in range(file.metadata.num_row_groups))
    options = RunOptions(workers=1, legality=False)
    report = comparable(run_stored_audit(store.root, table_id, options))
    assert report == comparable(run_audit(log, options))
    assert [(f["hand"], f["kind"]) for f in report["findings"] if f["hand"] == 5] == [(5, "bad-deal")]
    replayed = {e["dealer"]: e["hands_weighed"] for e in report["evidence"] if e["source"] == "replay"}
    assert replayed == {"A": 1, "C": 1}  # hands 10 and 15, weighed against honest log errors from their cards


def test_the_evidence_hands_and_talon_takers_are_drawn_alike_from_the_store_with_or_without_declarers(tmp_path):
    """The pass keeps the evidence candidates (declarers included) for files and stores; a store file written
    before the ``declarer`` column gives them from its raw lines."""
    store = stored(tmp_path, STACKER)
    (table_id,) = store.tables()
    options = RunOptions(workers=1, legality=False, tells=False, targeting=False, draw_hands=True)
    from_file = run_audit(STACKER, options)
    assert from_file.evidence is not None and from_file.evidence.hands and from_file.evidence.talon_takers
    current = comparable(run_stored_audit(store.root, table_id, options))
    for file in (store.root / "hands").rglob("*.parquet"):
        pq.write_table(pq.read_table(file).drop_columns(["declarer"]), file)
    older = comparable(run_stored_audit(store.root, table_id, options))
    assert current == older == comparable(from_file)
