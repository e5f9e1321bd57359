"""Game-log format v1: round trips, semantic checks, mangled lines, and agreement with the JSON Schema."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import msgspec
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairdeal.errors import LogError
from fairdeal.log import (
    UNSET,
    EndRecord,
    HandRecord,
    LogWriter,
    ScoreRecord,
    encode_record,
    read_log,
    records,
)
from fairdeal.log.schema import schema_check_lines, schema_errors
from fairdeal.log.synth import SynthTable, synth_hand
from fairdeal.log.tokens import is_bid, is_contract

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "format-example.jsonl"
SCHEMA = ROOT / "protocols" / "game-log.schema.json"
TABLES = [
    SynthTable(),
    SynthTable(players=("A", "B", "C", "D"), system="leningrad"),
    SynthTable(players=("A", "B", "C", "D", "E"), system="rostov"),
    # synthetic Russian-style auctions on the Austrian and Croatian deals (their own systems fix other words)
    SynthTable(pattern_name="austrian", system="austrian-deal"),
    SynthTable(pattern_name="croatian", system="croatian-deal", players=("A", "B", "C", "D")),
    SynthTable(pattern_name="russian-talon-after-round-3"),
    SynthTable(pattern_name="gusarik", system="gusarik", players=("A", "B")),
]
OPTIONAL_HAND_FIELDS = [
    "order_before",
    "shuffle",
    "deal",
    "auction",
    "talon_shown",
    "discard",
    "contract",
    "defence",
    "defence_open",
    "tricks",
    "result",
    "score",
]


def read_bytes(data: bytes):
    return list(read_log(io.BytesIO(data)))


def sample_lines() -> list[bytes]:
    return SAMPLE.read_bytes().splitlines(keepends=True)


def sample_documents() -> list[dict]:
    return [json.loads(line) for line in sample_lines()]


def lines_of(documents: list[dict]) -> bytes:
    return b"".join(json.dumps(doc).encode() + b"\n" for doc in documents)


def errors_of(documents: list[dict]):
    return [(e.line, e.field, str(e)) for item in read_bytes(lines_of(documents)) for e in item.errors]


def fields_of(documents: list[dict]) -> set[str]:
    return {field for _, field, _ in errors_of(documents)}


# -- the sample and the schema ---------------------------------------------------------------------------------


def test_sample_is_valid_for_reader_and_schema():
    items = list(read_log(SAMPLE))
    assert items and all(item.ok for item in items)
    assert sum(isinstance(item.record, HandRecord) for item in items) >= 5
    assert all(not complaints for _, complaints in schema_check_lines(iter(sample_lines())))


def test_sample_holds_a_raspasy_hand_with_talon_cards():
    docs = sample_documents()
    raspasy = [d for d in docs if d.get("result", {}).get("kind") == "raspasy"]
    assert raspasy and "contract" not in raspasy[0]
    assert [t.get("talon_card") for t in raspasy[0]["tricks"][:2]] == raspasy[0]["deal"]["talons"][0]


# -- round trips ----------------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(TABLES),
    st.integers(0, 2**32 - 1),
    st.integers(1, 6),
    st.lists(st.sampled_from(OPTIONAL_HAND_FIELDS), unique=True),
)
def test_write_then_read_gives_the_same_records(table, seed, count, dropped):
    rng = np.random.default_rng(seed)
    hands = [synth_hand(rng, table, number) for number in range(1, count + 1)]
    hands = [msgspec.structs.replace(h, **dict.fromkeys(dropped, UNSET)) for h in hands]  # unknown = absent
    stream = io.BytesIO()
    LogWriter(stream).write_all([table.header(), *hands, EndRecord(settlement={table.players[0]: 1.5})])
    items = read_bytes(stream.getvalue())
    assert [item.errors for item in items] == [()] * len(items)
    assert [item.record for item in items[1:-1]] == hands
    assert b"null" not in stream.getvalue()


def test_absent_fields_are_not_written():
    line = encode_record(HandRecord(hand=3, dealer=1))
    assert json.loads(line) == {"type": "hand", "hand": 3, "dealer": 1}


def test_records_raises_the_first_error():
    docs = sample_documents()
    docs[2]["dealer"] = 7
    with pytest.raises(LogError, match="line 3, field dealer"):
        list(records(io.BytesIO(lines_of(docs))))


# -- semantic checks -----------------------------------------------------------------------------------------


def hand_doc(docs, kind="game"):
    return next(d for d in docs if d.get("result", {}).get("kind") == kind and "deal" in d)


def test_repeated_card_in_deal_names_hand_and_index():
    docs = sample_documents()
    hand = hand_doc(docs)
    hand["deal"]["hands"][1][3] = hand["deal"]["hands"][0][0]
    errors = errors_of(docs)
    assert any(field == "deal.hands[1][3]" and "twice" in text for _, field, text in errors)


def test_foreign_card_for_the_deck():
    docs = sample_documents()
    docs[0].update(deck="hussar24", deal_pattern="hussar", players=["A", "B"])
    docs = docs[:1] + [{"type": "hand", "hand": 1, "dealer": 0, "discard": ["7S", "AS"]}]
    assert "discard[0]" in fields_of(docs)


def test_order_before_must_be_a_permutation():
    docs = sample_documents()
    docs[1]["order_before"][5] = docs[1]["order_before"][6]
    assert "order_before[6]" in fields_of(docs)
    docs = sample_documents()
    docs[1]["order_before"].pop()
    assert "order_before" in fields_of(docs)


def test_deal_must_fill_the_pattern():
    docs = sample_documents()
    hand = hand_doc(docs)
    moved = hand["deal"]["hands"][0].pop()
    hand["deal"]["hands"][1].append(moved)
    fields = fields_of(docs)
    assert {"deal.hands[0]", "deal.hands[1]"} <= fields


def test_seat_that_sits_out_gets_no_cards():
    docs = sample_documents()
    docs[0]["players"].append("Gleb")
    deal = hand_doc(sample_documents())["deal"]
    good = {"type": "hand", "hand": 1, "dealer": 0, "deal": {"hands": [[], *deal["hands"]], "talons": deal["talons"]}}
    assert not errors_of([docs[0], good])  # four players: the dealer (seat 0) sits out
    bad = {"type": "hand", "hand": 1, "dealer": 0, "deal": {"hands": [*deal["hands"], []], "talons": deal["talons"]}}
    errors = errors_of([docs[0], bad])
    assert ("deal.hands[0]", True) in [(field, "sits out" in text) for _, field, text in errors]


def test_seats_in_range_and_hand_numbers_increase():
    docs = sample_documents()
    docs[1]["auction"][0]["seat"] = 3
    docs[3]["hand"] = 1
    fields = fields_of(docs)
    assert "auction[0].seat" in fields and "hand" in fields


def test_bids_are_known_words():
    docs = sample_documents()
    docs[2]["auction"][1]["bid"] = "11S"
    docs[3]["contract"]["bid"] = "mine"
    fields = fields_of(docs)
    assert {"auction[1].bid", "contract.bid"} <= fields


@pytest.mark.parametrize(
    "bid", ["pass", "mine", "6S", "10NT", "misere", "9S-bp", "9-bp", "10-bp", "misere-bp", "dark-6S", "dark-pass"]
)
def test_russian_bid_words_are_accepted(bid):
    docs = sample_documents()
    docs[2]["auction"][0]["bid"] = bid
    assert not errors_of(docs)


def test_other_systems_take_any_word():
    docs = sample_documents()
    docs[0]["system"] = "tarock"
    for doc in docs[1:]:
        for bid in doc.get("auction", []):
            bid["bid"] = "igra"
    assert not errors_of(docs)


@pytest.mark.parametrize(
    "system, word, ok",
    [
        ("croatian", "sanac", True),
        ("croatian", "game-three", True),
        ("austrian", "hearts", True),
        ("austrian", "7H", False),
        ("austrian", "igra", False),
        ("preferans-1800s", "buy", True),
        ("preferans-1800s", "mine", False),
        ("preferans-1800s-mixed", "eight", True),
    ],
)
def test_austrian_croatian_and_1800s_words_are_fixed(system, word, ok):
    assert is_bid(word, system) == ok
    assert is_contract("misere-open-bp", "austrian-illustrated") and not is_contract("7S", "croatian")
    assert is_contract("6H-bp", "preferans-1800s") and is_contract("9D-bp", "preferans-1800s-mixed")
    assert not is_contract("7S", "preferans-1800s")


def test_shuffle_notation_must_parse_and_name_real_seats():
    docs = sample_documents()
    docs[1]["shuffle"] = "2 4 flip 3"
    docs[2]["shuffle"] = "2 cut@7 12"
    docs[3]["shuffle"] = "cut 40"
    errors = errors_of(docs)
    assert [line for line, field, _ in errors if field == "shuffle"] == [2, 3, 4]


def test_whists_need_a_seat_and_only_whists_have_one():
    docs = sample_documents()
    game = hand_doc(docs)
    game["score"] = [{"seat": 0, "column": "whists", "points": 4}, {"seat": 1, "column": "gora", "on": 0, "points": 2}]
    assert {"score[0].on", "score[1].on"} <= fields_of(docs)


def test_talon_card_must_be_in_the_talon_and_only_in_raspasy():
    docs = sample_documents()
    raspasy = hand_doc(docs, "raspasy")
    raspasy["tricks"][0]["talon_card"] = raspasy["tricks"][0]["cards"][0]
    game = hand_doc(docs)
    game["tricks"][0]["talon_card"] = game["deal"]["talons"][0][0]
    errors = [(line, field) for line, field, _ in errors_of(docs)]
    assert (docs.index(raspasy) + 1, "tricks[0].talon_card") in errors
    assert (docs.index(game) + 1, "tricks[0].talon_card") in errors


def test_raspasy_has_no_contract_and_misere_matches():
    docs = sample_documents()
    raspasy = hand_doc(docs, "raspasy")
    raspasy["contract"] = {"declarer": 0, "bid": "6S"}
    game = hand_doc(docs)
    game["result"]["kind"] = "misere"
    fields = fields_of(docs)
    assert {"contract", "result.kind"} <= fields


def test_card_played_twice_in_tricks():
    docs = sample_documents()
    game = hand_doc(docs)
    game["tricks"][4]["cards"][1] = game["tricks"][0]["cards"][0]
    assert "tricks[4].cards[1]" in fields_of(docs)


def test_discard_comes_from_hand_or_talon():
    docs = sample_documents()
    game = hand_doc(docs)
    declarer = game["contract"]["declarer"]
    other = next(c for s, h in enumerate(game["deal"]["hands"]) if s != declarer for c in h)
    game["discard"][0] = other
    assert "discard[0]" in fields_of(docs)


def test_header_rules():
    docs = sample_documents()
    assert "type" in fields_of(docs[1:])  # first line must be the header
    assert "type" in fields_of(docs[:2] + [docs[0]])  # only one header
    assert "type" in fields_of(docs + [docs[1]])  # nothing after the end line
    bad = copy.deepcopy(docs)
    bad[0].update(deal_pattern="bridge", players=["A", "A", ""], started="yesterday")
    assert {"deal_pattern", "players", "players[2]", "started"} <= fields_of(bad[:1])
    bad = copy.deepcopy(docs)
    bad[0]["players"] = ["A", "B"]
    assert "players" in fields_of(bad[:1])
    bad = copy.deepcopy(docs)
    bad[0]["deck"] = "hussar24"
    assert "deal_pattern" in fields_of(bad[:1])


def test_settlement_names_players():
    docs = sample_documents()
    docs[-1]["settlement"] = {"Anna": 3, "Zoe": -3}
    assert "settlement.Zoe" in fields_of(docs)


def test_writer_refuses_an_invalid_record():
    stream = io.BytesIO()
    writer = LogWriter(stream)
    writer.write(SynthTable().header())
    with pytest.raises(LogError, match=r"line 2, field score\[0\].on"):
        writer.write(HandRecord(hand=1, dealer=0, score=[ScoreRecord(seat=0, column="whists", points=2)]))
    assert stream.getvalue().count(b"\n") == 1


# -- mangled lines --------------------------------------------------------------------------------------------

MANGLES = {
    "random bytes": lambda line, rng: bytes(rng.integers(0, 256, size=40, dtype=np.uint8)).replace(b"\n", b"?") + b"\n",
    "truncated": lambda line, rng: line[: int(rng.integers(1, len(line) - 2))] + b"\n",
    "not an object": lambda line, rng: b"[1, 2, 3]\n",
    "no type": lambda line, rng: b'{"hand": 9, "dealer": 0}\n',
}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.sampled_from(sorted(MANGLES)), st.integers(0, 2**32 - 1))
def test_a_mangled_line_is_reported_and_the_rest_survive(index, mangle, seed):
    lines = sample_lines()
    lines[index] = MANGLES[mangle](lines[index].rstrip(b"\n"), np.random.default_rng(seed))
    items = read_bytes(b"".join(lines))
    bad = [item for item in items if item.errors]
    assert bad and bad[0].line == index + 1 and bad[0].record is None
    assert all(e.line == index + 1 and e.field for e in bad[0].errors)
    assert len(items) == len(lines)
    others = [item for item in items if item.line != index + 1]
    assert sum(item.ok for item in others) >= len(others) - 1  # at worst the next hand's numbering is doubted


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d.pop("dealer"), "dealer"),
        (lambda d: d.update(hand="one"), "hand"),
        (lambda d: d["deal"]["hands"][1].__setitem__(3, 7), "deal.hands[1][3]"),
        (lambda d: d["auction"].__setitem__(0, {"seat": 1}), "auction[0].bid"),
        (lambda d: d.update(colour="red"), "colour"),
        (lambda d: d.update(shuffle=None), "shuffle"),
        (lambda d: d["result"].update(kind="draw"), "result.kind"),
        (lambda d: d["tricks"][2].update(winner=True), "tricks[2].winner"),
    ],
)
def test_wrong_types_name_line_and_field(mutate, field):
    docs = sample_documents()
    mutate(docs[2])
    items = read_bytes(lines_of(docs))
    assert [(e.line, e.field) for item in items for e in item.errors] == [(3, field)]
    assert f"line 3, field {field}" in str(items[2].errors[0])
    assert all(item.ok for i, item in enumerate(items) if i != 2)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(junk):
    data = SAMPLE.read_bytes()[:400] + b"\n" + junk + b"\n" + sample_lines()[1]
    for item in read_bytes(data):
        assert item.ok or all(isinstance(e, LogError) and e.line == item.line and e.field for e in item.errors)


def test_blank_lines_are_skipped_and_numbering_is_kept():
    lines = sample_lines()
    data = lines[0] + b"\n   \n" + b"".join(lines[1:])
    items = read_bytes(data)
    assert all(item.ok for item in items) and items[1].line == 4


# -- agreement with the JSON Schema --------------------------------------------------------------------------


def _schema_level_mutations(doc: dict) -> list[dict]:
    """Changes of shape the schema can see; the fast validator must reject each one too."""
    out = []
    required = json.loads(SCHEMA.read_text())["$defs"][doc["type"]]["required"]
    for key in list(doc):
        if key in required and key != "type":
            out.append({k: v for k, v in doc.items() if k != key})  # drop a required field
        out.append({**doc, key: None})  # null
        out.append({**doc, key: {"x": 1}} if not isinstance(doc[key], dict) else {**doc, key: [1]})
    out.append({**doc, "unexpected": 1})
    if doc["type"] == "hand":
        out += [{**doc, "dealer": -1}, {**doc, "hand": 0}, {**doc, "hand": 1.5}]
    if doc["type"] == "table":
        out += [{**doc, "players": []}, {**doc, "players": ["A", "A", "B"]}, {**doc, "version": 2}]
    if doc["type"] == "hand" and "deal" in doc:
        bad = copy.deepcopy(doc)
        bad["deal"]["hands"][0][0] = "1S"
        out.append(bad)
        bad = copy.deepcopy(doc)
        bad["score"][0]["column"] = "bonus"
        out.append(bad)
        bad = copy.deepcopy(doc)
        bad["auction"][0]["bid"] = "6 S"
        out.append(bad)
    return out


def _semantic_mutations(doc: dict) -> list[dict]:
    """Changes the schema cannot see (they need the header or other fields); only the fast validator rejects."""
    out = []
    bad = copy.deepcopy(doc)
    bad["deal"]["hands"][0][0] = bad["deal"]["hands"][1][0]
    out.append(bad)
    bad = copy.deepcopy(doc)
    bad["dealer"] = 9
    out.append(bad)
    bad = copy.deepcopy(doc)
    bad["auction"][0]["bid"] = "11NT"
    out.append(bad)
    return out


def _fast_accepts(header: dict, doc: dict) -> bool:
    lines = [header] if doc is header else [header, doc]
    return all(item.ok for item in read_bytes(lines_of(lines)))


def test_fast_validator_and_schema_agree_on_shape():
    docs = sample_documents()
    header = docs[0]
    for doc in docs:
        assert not schema_errors(doc) and _fast_accepts(header, doc)
        for mutated in _schema_level_mutations(doc):
            assert schema_errors(mutated), mutated
            lines = [mutated] if doc is header else [header, mutated]
            assert not all(item.ok for item in read_bytes(lines_of(lines))), mutated


def test_semantic_rules_go_beyond_the_schema():
    docs = sample_documents()
    for mutated in _semantic_mutations(hand_doc(docs)):
        assert not schema_errors(mutated)
        assert not _fast_accepts(docs[0], mutated)
