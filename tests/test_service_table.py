"""The table driver for every registered system and table size: bots play whole hands through ``submit``, each
seat's view holds only what the rules let it see, a reloaded table equals the live one, transcripts verify."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from message_strategies import odd_messages

from fairdeal.engine.hand import to_move
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.system import registered
from fairdeal.protocols.commit_reveal4.parties import Player
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.signed import Envelope
from fairdeal.protocols.verify import verify_documents
from fairdeal.service.roster_flow import Refused
from fairdeal.service.rows import RELAY_SEAT, Message, Seat, Stage
from fairdeal.service.table import Table

CELLS = [(s.name, n) for s in registered() for n in s.players]
SERVICE_KEY = IdentityKey.generate("service")


def _bot_table(name: str, seats: int, hands: int) -> Table:
    table = Table.new("t-test", name, seats, hands, SERVICE_KEY, secrets.token_hex(32))
    for seat in range(seats):
        secret = secrets.token_hex(32)
        table.take_seat(Seat(seat, f"bot {seat}", IdentityKey.from_seed(bytes.fromhex(secret)).public.hex, secret))
    return table


def _check_views(table: Table) -> None:
    """Every seat sees its own cards, the hands lying open, the declarer alone his discard; nothing else."""
    state = table.state
    for seat in range(table.num_seats):
        game = table.view(seat)["game"]
        assert game["hand"] == list(state.hands[seat])
        assert set(map(int, game["open_hands"])) == set(state.open_seats) - {seat}
        assert game["discard"] == (list(state.discard) if seat == state.declarer else [])
        assert bool(game["legal"]) == (to_move(state) == seat)
        hidden = {c for s in range(len(state.hands)) if s != seat and s not in state.open_seats for c in state.hands[s]}
        shown = set(game["hand"]) | {c for cards in game["open_hands"].values() for c in cards} | set(game["discard"])
        assert not hidden & shown
        if not state.talon_shown:
            turned = {t.talon_card for t in state.tricks} | {state.current_talon_card}
            assert not set(state.talon) & set(game["talon_seen"]) - turned
    assert table.view(None)["game"] is None


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_bots_play_every_system_seeing_only_their_own_cards(cell):
    name, seats = cell
    table = _bot_table(name, seats, 3)
    messages, docs = [], []
    while (message := table.bot_message()) is not None:
        messages.append(message)
        docs += [(f"hand {d.hand}", d.transcript) for d in table.submit(message)]
        messages += table.outbox
        if table.stage is Stage.PLAY:
            _check_views(table)
    assert table.stage is Stage.FINISHED and len(docs) == 4  # three hands and the signed settlement
    assert [d["hand"] for _, d in docs[:3]] == [1, 2, 3] and docs[3][1]["format"] == "fairdeal-settlement"
    report = verify_documents(docs, replay_records=not table.convention.table.dummy)
    assert report.failures == ()
    relayed = [Message(**vars(m)) for m in messages if m.seat == RELAY_SEAT]
    assert [m.body for m in relayed] == [e.to_json() for e in table.chain if e.sender == "service"]
    rows = {
        "id": table.id,
        "system": name,
        "seats": seats,
        "max_hands": 3,
        "service_key": table.service_public,
        "chain_tail": table.chain_tail,
        "status": "finished",
        "reason": None,
    }
    seat_rows = [
        {"seat": s.seat, "name": s.name, "key": s.key, "bot_secret": s.bot_secret} for s in table.seats.values()
    ]
    again = Table.load(rows, seat_rows, messages[: len(messages) // 2], SERVICE_KEY)
    assert again.stage is not Stage.FINISHED
    for message in messages[len(messages) // 2 :]:
        if message.seat != RELAY_SEAT:
            again.submit(message)
    assert again.sheet == table.sheet and again.reveals == table.reveals and again.previous == table.previous
    assert [e.digest for e in again.chain] == [e.digest for e in table.chain]


def test_a_refused_message_leaves_the_table_as_it_was():
    table = _bot_table("sochi", 3, 2)
    while table.stage is not Stage.PLAY:
        table.submit(table.bot_message())
    seat = to_move(table.state)
    other = (seat + 1) % 3
    before = table.view(seat)
    bad = [
        Message(other, table.last_seq[other] + 1, "act", {"action": table.view(seat)["game"]["legal"][0]}),
        Message(seat, table.last_seq[seat], "act", {"action": table.view(seat)["game"]["legal"][0]}),
        Message(seat, table.last_seq[seat] + 1, "act", {"action": {"kind": "bid", "seat": seat, "token": "11NT"}}),
        Message(seat, table.last_seq[seat] + 1, "signed", table.chain[-1].to_json()),
        Message(seat, table.last_seq[seat] + 1, "roster-sign", {"signature": "00" * 64}),
        Message(seat, table.last_seq[seat] + 1, "shout", {}),
    ]
    for message in bad:
        with pytest.raises(Refused):
            table.submit(message)
        assert table.view(seat) == before


def test_the_service_key_is_made_beside_the_database_once_and_pinned_by_each_table(tmp_path):
    from fairdeal.errors import FairdealError
    from fairdeal.service.app import service_key

    key = service_key(str(tmp_path / "x.db"))
    path = tmp_path / "x.db.service-key"
    assert path.stat().st_mode & 0o777 == 0o600 and IdentityKey.load(path).public == key.public
    assert service_key(str(tmp_path / "x.db")).public == key.public  # made once, then read
    assert service_key(str(tmp_path / "x.db"), tmp_path / "given.key").public != key.public
    from fairdeal.service import db
    from fairdeal.service.store import Store

    engine = db.connect(str(tmp_path / "x.db"))
    table = _bot_table("sochi", 3, 1)
    Store(engine, SERVICE_KEY).create_table(table)
    with pytest.raises(FairdealError, match="another service key"):
        Store(engine, key).load(table.id)


def test_a_seat_that_lets_a_seed_step_lapse_is_aborted_signed_and_the_hand_dealt_again():
    """The v4 abort policy through the table: a signed abort naming the seat and a fresh hand-open each time,
    the third abort ending the evening; the same rows rebuild the same chain."""
    table = _bot_table("sochi", 3, 2)
    person = IdentityKey.generate("person")
    table.seats[0] = Seat(0, "person", person.public.hex)  # seat 0 is a person who never answers
    rows = []
    while (message := table.bot_message()) is not None or table.stage is Stage.ROSTER:
        if message is None:
            message = Message(0, 1, "roster-sign", {"signature": person.sign(table.roster.message()).hex()})
        table.submit(message)
        rows.append(message)
    assert table.stage is Stage.ACCEPT and table.waiting_for() == [0]
    row = {"id": table.id, "system": "sochi", "seats": 3, "max_hands": 2, "service_key": table.service_public}
    row |= {"chain_tail": table.chain_tail, "status": table.stage.value, "reason": None}
    seats = [vars(s) for s in table.seats.values()]
    from fairdeal.protocols.commit_reveal4.parties import Player
    from fairdeal.protocols.roster import Roster

    party = Player(0, person, Roster.from_json(table.roster.to_json()))
    rows.append(Message(0, 2, "signed", party.accept_session(table.chain).to_json()))
    table.submit(rows[-1])
    while (message := table.bot_message()) is not None:
        table.submit(message)
        rows.append(message)
    assert table.stage is Stage.COMMIT and table.waiting_for() == [0]
    for _ in range(3):  # one timeout per attempt
        rows.append(table.timeout_message(0))
        table.submit(rows[-1])
    aborts = [e for e in table.chain if e.kind == "abort"]
    assert [(e.body["attempt"], e.body["missing"]) for e in aborts] == [(0, [0]), (1, [0]), (2, [0])]
    assert [e.body["attempt"] for e in table.chain if e.kind == "hand-open"] == [0, 1, 2]
    assert table.stage is Stage.SETTLE and table.ended is not None and "aborted 3 times" in (table.reason or "")
    assert (table.ended["step"], table.ended["charged"]) == ("abort", [0, 0, 0])
    again = Table.load(row, seats, rows, SERVICE_KEY)
    assert [e.digest for e in again.chain] == [e.digest for e in table.chain] and again.ended == table.ended


def test_an_aborted_attempt_is_charged_to_the_absent_seat_and_every_party_countersigns_it():
    """A person lets the seed commitment of hand 1 lapse once: the hand is dealt again, its record carries the
    convention's charge for that seat alone, and every party, the bots and the person, countersigns it."""
    from fairdeal.protocols.commit_reveal4.parties import Player
    from fairdeal.protocols.roster import Roster

    table = _bot_table("sochi", 3, 1)
    person = IdentityKey.generate("person")
    table.seats[0] = Seat(0, "person", person.public.hex)
    party: Player | None = None
    lapsed, seq = False, 0
    steps = {
        Stage.COMMIT: lambda p: p.commit(table.hand, table.chain),
        Stage.SEED: lambda p: p.reveal(table.hand, table.chain),
        Stage.RECORD: lambda p: p.countersign(table.hand, table.chain),
        Stage.SETTLE: lambda p: p.sign_settlement(table.chain),
    }
    while table.stage not in (Stage.FINISHED, Stage.ABORTED):
        seq += 1
        message = table.bot_message()
        if message is None and table.stage is Stage.ROSTER:
            message = Message(0, seq, "roster-sign", {"signature": person.sign(table.roster.message()).hex()})
        elif message is None and table.stage is Stage.ACCEPT:
            party = Player(0, person, Roster.from_json(table.roster.to_json()))
            message = Message(0, seq, "signed", party.accept_session(table.chain).to_json())
        elif message is None and (table.stage is Stage.PLAY or (table.stage is Stage.COMMIT and not lapsed)):
            lapsed = lapsed or table.stage is Stage.COMMIT
            message = table.timeout_message(0)  # in play the system's bot moves for the late person
        elif message is None:
            assert party is not None
            message = Message(0, seq, "signed", steps[table.stage](party).to_json())
        assert message is not None
        table.submit(message)
    assert lapsed and table.stage is Stage.FINISHED, (table.stage, table.reason)
    close = next(e for e in table.chain if e.kind == "hand-close")
    assert close.body["record"]["penalty"] == [line.to_record() for line in abort_penalty(table.convention, 0, 3)]
    assert len([e for e in table.chain if e.kind == "record-sign"]) == 3
    assert [e.body["missing"] for e in table.chain if e.kind == "abort"] == [[0]]


def _with_person(name: str, seats: int, hands: int, seat: int) -> tuple[Table, IdentityKey]:
    table = _bot_table(name, seats, hands)
    person = IdentityKey.generate("person")
    table.seats[seat] = Seat(seat, "person", person.public.hex)
    return table, person


def _run(table: Table, seat: int, person: IdentityKey, answer: Callable[[Table, Player], Envelope | None]) -> list:
    """Play the table to its end; the person at ``seat`` is an honest v4 ``Player`` whose signed answers pass
    through ``answer`` (``None``: it sends nothing, and the service records the timeout). Returns every row."""
    from fairdeal.protocols.roster import Roster

    party: Player | None = None
    rows, seq, docs = [], 0, []
    while not table.stage.over:
        seq += 1
        message = table.bot_message()
        if message is None and table.stage is Stage.ROSTER:
            message = Message(seat, seq, "roster-sign", {"signature": person.sign(table.roster.message()).hex()})
        elif message is None and table.stage is Stage.PLAY:
            message = table.timeout_message(seat)  # the system's bot moves for the person
        elif message is None:
            if party is None:
                party = Player(seat, person, Roster.from_json(table.roster.to_json()))
            envelope = answer(table, party)
            signed = None if envelope is None else Message(seat, seq, "signed", envelope.to_json())
            message = signed or table.timeout_message(seat)
        assert message is not None
        docs += table.submit(message)
        rows.append(message)
    return rows, docs


@settings(max_examples=60, deadline=None)
@given(odd=odd_messages(["roster-time", "roster-sign", "signed", "act", "timeout"]))
def test_any_message_a_person_sends_is_refused_and_the_evening_goes_on(odd):
    """Before each of its answers the person's seat sends a message of any type with any body (the ``odd`` ones
    in turn): the table refuses it with a one-line reason and changes nothing; the evening ends and verifies."""
    table, person = _with_person("sochi", 3, 1, 1)
    turn = 0

    def hostile_first(table: Table, party: Player) -> Envelope:
        nonlocal turn
        kind, body = odd[turn % len(odd)]
        turn += 1
        with pytest.raises(Refused) as refused:
            table.submit(Message(1, table.last_seq.get(1, 0) + 1, kind, body))
        assert str(refused.value) and "\n" not in str(refused.value)
        return STEPS[table.stage](table, party)

    _, docs = _run(table, 1, person, hostile_first)
    assert table.stage is Stage.FINISHED and turn > 0
    assert verify_documents(_documents(docs)).ok


STEPS: dict[Stage, Callable[[Table, Player], Envelope]] = {
    Stage.ACCEPT: lambda t, p: p.accept_session(t.chain),
    Stage.COMMIT: lambda t, p: p.commit(t.hand, t.chain),
    Stage.SEED: lambda t, p: p.reveal(t.hand, t.chain),
    Stage.RECORD: lambda t, p: p.countersign(t.hand, t.chain),
    Stage.SETTLE: lambda t, p: p.sign_settlement(t.chain),
}


def _reloaded(table: Table, rows: list) -> Table:
    row = {"id": table.id, "system": table.convention.name, "seats": table.num_seats, "max_hands": table.max_hands}
    row |= {"service_key": table.service_public, "chain_tail": table.chain_tail, "status": "playing", "reason": None}
    return Table.load(row, [vars(s) for s in table.seats.values()], rows, SERVICE_KEY)


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_a_seat_that_stops_countersigning_ends_the_evening_charged_on_every_system(cell):
    """The person countersigns hand 1, never hand 2: the hand is void, the person charged the abort penalty on the
    sheet after hand 1, the signed end and settlement follow, every bot countersigns it, and verify agrees."""
    name, seats = cell
    walker = seats - 1
    table, person = _with_person(name, seats, 3, walker)

    def answer(t: Table, p: Player) -> Envelope | None:
        return None if t.stage is Stage.RECORD and t.hand == 2 else STEPS[t.stage](t, p)

    rows, docs = _run(table, walker, person, answer)
    assert table.stage is Stage.ENDED, table.reason
    assert table.ended == {"hand": 2, "step": "record-sign", "charged": [walker], "evidence": table.ended["evidence"]}
    assert [d.hand for d in docs] == [1, 2, 0] and docs[1].line is None  # the voided hand: a transcript, no line
    end, settlement, *signs = docs[-1].transcript["messages"]
    assert end["kind"] == "end" and settlement["body"]["hands"] == 1
    assert [e["sender"] for e in signs] == [s for s in range(seats) if s != walker]
    assert [h.hand for h in table.history] == [1]
    charge = abort_penalty(table.convention, walker, seats)
    assert table.charge == charge and table.log_trailer()["penalty"] == [line.to_record() for line in charge]
    report = verify_documents(
        [(f"hand {d.hand}", d.transcript) for d in docs], replay_records=not table.convention.table.dummy
    )
    assert report.ok, [f.line() for f in report.failures]
    assert any("player person charged" in note for note in report.notes)
    again = _reloaded(table, rows)
    assert again.stage is Stage.ENDED and again.sheet == table.sheet and again.ended == table.ended
    assert [e.digest for e in again.chain] == [e.digest for e in table.chain]


def test_a_refusal_without_cause_ends_the_evening_charging_the_refuser():
    """The person refuses hand 2's honest record (a false claim against seat 0): the refuser is charged, and the
    bots, re-deriving the charge from their own chains, countersign that settlement."""
    table, person = _with_person("sochi", 3, 3, 2)

    def answer(t: Table, p: Player) -> Envelope | None:
        if t.stage is Stage.RECORD and t.hand == 2:
            p._accept_all(t.chain, t.hand)
            reason = "player bot 0: seed opening: the seed does not open the commitment"
            return p.send(2, "refusal", {"step": "record-sign", "check": "seed opening", "reason": reason})
        return STEPS[t.stage](t, p)

    rows, docs = _run(table, 2, person, answer)
    assert table.stage is Stage.ENDED and table.ended["charged"] == [2] and table.ended["step"] == "refusal"
    assert "person refused" in table.reason and "player person charged" in table.reason
    assert verify_documents([(f"hand {d.hand}", d.transcript) for d in docs]).ok
    assert _reloaded(table, rows).stage is Stage.ENDED


def test_a_refusal_at_the_session_opening_still_stops_the_table():
    """Only a hand ends the evening: a refused session stops the table, as v4 says."""
    table, person = _with_person("sochi", 3, 1, 0)

    def refuse_opening(t: Table, p: Player) -> Envelope | None:
        return p.send(0, "refusal", {"step": "session-accept", "check": "roster", "reason": "no"})

    _run(table, 0, person, refuse_opening)
    assert table.stage is Stage.ABORTED and "refused at session-accept" in table.reason


def _documents(docs: list) -> list[tuple[str, dict]]:
    return [(f"hand {d.hand}", d.transcript) for d in docs]


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_an_opening_aborted_three_times_ends_the_evening_on_every_system(cell):
    """The person plays hand 1, then lets every attempt of hand 2's seed commitment lapse: three signed aborts,
    then the end charging the person once per abort on the sheet after hand 1, the settlement every bot
    countersigns; verify accepts it and the same rows rebuild the table."""
    name, seats = cell
    walker = seats - 1
    table, person = _with_person(name, seats, 3, walker)

    def answer(t: Table, p: Player) -> Envelope | None:
        if t.stage is Stage.COMMIT and t.hand == 2:
            p._accept_all(t.chain, t.hand)
            return None
        return STEPS[t.stage](t, p)

    rows, docs = _run(table, walker, person, answer)
    assert table.stage is Stage.ENDED, table.reason
    aborts = [e for e in table.chain if e.kind == "abort"]
    assert [(e.hand, e.body["attempt"], e.body["missing"]) for e in aborts] == [(2, a, [walker]) for a in range(3)]
    assert table.ended == {"hand": 2, "step": "abort", "charged": [walker] * 3, "evidence": aborts[-1].digest}
    assert [d.hand for d in docs] == [1, 2, 0] and docs[1].line is None
    end, settlement, *signs = docs[-1].transcript["messages"]
    assert end["kind"] == "end" and settlement["body"]["hands"] == 1
    assert [e["sender"] for e in signs] == [s for s in range(seats) if s != walker]
    charge = abort_penalty(table.convention, walker, seats) * 3
    assert table.charge == charge and table.log_trailer()["penalty"] == [line.to_record() for line in charge]
    report = verify_documents(_documents(docs), replay_records=not table.convention.table.dummy)
    assert report.ok, [f.line() for f in report.failures]
    assert any("aborted 3 times" in note and "player person charged" in note for note in report.notes)
    again = _reloaded(table, rows)
    assert again.stage is Stage.ENDED and again.sheet == table.sheet and again.ended == table.ended


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_a_seat_that_does_not_countersign_the_settlement_is_left_out_on_every_system(cell):
    """The person plays every hand but lets the settlement countersignature lapse: it is left out, the next seat's
    chains to the last one in, the table finishes, and verify accepts the settlement naming the seat in a note."""
    name, seats = cell
    gone = 0 if seats % 2 == 0 else seats - 1
    table, person = _with_person(name, seats, 1, gone)
    rows, docs = _run(table, gone, person, lambda t, p: None if t.stage is Stage.SETTLE else STEPS[t.stage](t, p))
    assert table.stage is Stage.FINISHED and table.unsigned == [gone], table.reason
    _, *signs = docs[-1].transcript["messages"]
    assert [e["sender"] for e in signs] == [s for s in range(seats) if s != gone]
    report = verify_documents(_documents(docs), replay_records=not table.convention.table.dummy)
    assert report.ok, [f.line() for f in report.failures]
    assert [n for n in report.notes if "did not countersign the settlement" in n] == [
        next(n for n in report.notes if "player person did not countersign the settlement" in n)
    ]
    again = _reloaded(table, rows)
    assert again.stage is Stage.FINISHED and again.unsigned == [gone] and again.settlement == table.settlement


def test_a_seat_gone_at_the_settlement_after_an_end_is_left_out():
    """After seat 1 walks away in hand 2, seat 2 lets the settlement lapse too: seat 0 alone countersigns."""
    table = _bot_table("sochi", 3, 3)
    people = {seat: IdentityKey.generate(f"person {seat}") for seat in (1, 2)}
    for seat, key in people.items():
        table.seats[seat] = Seat(seat, f"person {seat}", key.public.hex)
    from fairdeal.protocols.roster import Roster

    parties: dict[int, Player] = {}
    docs: list = []
    seq = 0
    while not table.stage.over:
        seq += 1
        message = table.bot_message()
        if message is None:
            seat = table.waiting_for()[0]
            if table.stage is Stage.ROSTER:
                signature = people[seat].sign(table.roster.message()).hex()
                message = Message(seat, seq, "roster-sign", {"signature": signature})
            elif table.stage is Stage.PLAY:
                message = table.timeout_message(seat)
            else:
                party = parties.setdefault(seat, Player(seat, people[seat], Roster.from_json(table.roster.to_json())))
                lapses = (table.stage is Stage.RECORD and table.hand == 2 and seat == 1) or table.stage is Stage.SETTLE
                envelope = None if lapses else STEPS[table.stage](table, party)
                message = (
                    table.timeout_message(seat)
                    if envelope is None
                    else Message(seat, seq, "signed", envelope.to_json())
                )
        docs += table.submit(message)
    assert table.stage is Stage.ENDED and table.ended["charged"] == [1] and table.unsigned == [2]
    _, _, *signs = docs[-1].transcript["messages"]
    assert [e["sender"] for e in signs] == [0]
    report = verify_documents(_documents(docs))
    assert report.ok, [f.line() for f in report.failures]
    assert any("player person 2 did not countersign the settlement" in n for n in report.notes)
