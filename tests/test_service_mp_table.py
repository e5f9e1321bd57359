"""The mental-poker table the service runs (``fairdeal/service/mp_table.py``): bots play whole evenings through
``submit`` at every table of every system, the transcripts and the settlement verify, no view shows a card the
rules have not opened, a seat outside the service plays through rows alone, and a reloaded table equals the live
one."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from message_strategies import odd_messages

from fairdeal.engine.actions import Action, Bid, Defend
from fairdeal.engine.bots import Bot, HeuristicBot
from fairdeal.engine.outcome import DefenceCall
from fairdeal.engine.rotation import dealer_of
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.system import get_convention, registered
from fairdeal.engine.view import PlayerView
from fairdeal.protocols import signed
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.following import ANNOUNCE
from fairdeal.protocols.mental_poker.messages import abandon_message, decide_message
from fairdeal.protocols.mental_poker.player import Player
from fairdeal.protocols.mental_poker.seat import LiveSeat
from fairdeal.protocols.mental_poker.signing import seal_message
from fairdeal.protocols.mental_poker.source import MAX_ATTEMPTS, dealt_seats
from fairdeal.protocols.mental_poker.statements import check_settlement, sign_settlement
from fairdeal.protocols.mental_poker.steps import DECIDE
from fairdeal.protocols.mental_poker.verify import check_document, check_records, check_sequence, proved_end
from fairdeal.protocols.record_form import signed_record
from fairdeal.protocols.transcript import transcript_hash
from fairdeal.service.mp_table import MP_SIGNED, STATEMENT, MpTable
from fairdeal.service.roster_flow import Refused
from fairdeal.service.rows import ACT as ACT_ROW
from fairdeal.service.rows import ROSTER_SIGN, SERVICE_SEAT, TIMEOUT, Message, Seat, Stage

CELLS = [(s.name, n) for s in registered() for n in s.players]
SERVICE_KEY = IdentityKey.generate("service")


def _table(name: str, seats: int, hands: int, people: tuple[int, ...] = ()) -> tuple[MpTable, dict[int, IdentityKey]]:
    table = MpTable.new("t-mp", name, seats, hands, SERVICE_KEY)
    keys = {}
    for seat in range(seats):
        secret = secrets.token_hex(32)
        key = IdentityKey.from_seed(bytes.fromhex(secret), f"p{seat}")
        keys[seat] = key
        table.take_seat(Seat(seat, f"p{seat}", key.public.hex, None if seat in people else secret))
    return table, keys


def _run_bots(table: MpTable) -> list[Message]:
    rows = []
    while (message := table.bot_message()) is not None:
        table.submit(message)
        rows.append(message)
        _assert_views_hide_unopened_cards(table)
    return rows


def _assert_views_hide_unopened_cards(table: MpTable) -> None:
    """No view names a card in a hand the rules have not laid open, nor a talon nobody was shown."""
    if table.live is None or table.stage is not Stage.PLAY:
        return
    protocol = table.live.protocol
    if protocol.revealed:
        return
    readable = {p for p, shares in protocol.shares.items() if len(shares) == len(table.live.setup.players)}
    opened = {protocol.open_position(p) for p in readable}
    for seat in (None, *range(table.num_seats)):
        game = table.view(seat)["game"]
        shown = {c for cards in game["open_hands"].values() for c in cards}
        shown |= {c for cards in game["talons_shown"].values() for c in cards}
        shown |= {c for trick in game["tricks"] for _, c in trick["plays"]} | {c for _, c in game["current"]}
        assert shown <= opened
        _assert_choices_come_from_the_right_hand(table, seat)


def _assert_choices_come_from_the_right_hand(table: MpTable, seat: int | None) -> None:
    """A seat due to play a card it chooses gets the host's list only for a hand laid open to all (the dummy it
    plays), each card of that hand; for its own hand it gets the rule to apply, and no list of imputed cards."""
    view = table.view(seat)
    due, game = view["due"], view["game"]
    if seat is None or due is None or due["player"] != table.names[seat] or due["step"] != "play":
        return
    if due["card"] is not None:  # a card another chose from my open hand: mine to prove
        return
    state = table.live.game.public.state
    if state.turn == seat:
        assert game["legal"] == [] and game["own"] is not None and game["own"]["play"]
        return
    held = game["open_hands"][str(state.turn)]
    assert game["legal"] and game["own"] is None
    assert all(a["kind"] == "play" and a["seat"] == state.turn and a["card"] in held for a in game["legal"])


def _verified_evening(table: MpTable) -> None:
    assert table.stage is Stage.FINISHED, table.reason
    checks = [check_document(f"hand {doc['hand']}", doc) for doc in table.transcripts]
    assert [c.findings for c in checks] == [[] for _ in checks]
    assert check_sequence(checks) == []
    bad, _ = check_records(checks)
    assert bad == []
    last = transcript_hash(table.transcripts[-1])
    found = check_settlement(table.settlement, table.seating, len(table.transcripts), last, None)
    assert found == []


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_bots_play_an_evening_at_every_table_and_it_verifies(cell):
    name, seats = cell
    table, _ = _table(name, seats, 2)
    _run_bots(table)
    _verified_evening(table)


class _Client:
    """A person's seat outside the service: its own ``LiveSeat``, fed only the rows the table stored."""

    def __init__(self, table: MpTable, seat: int, key: IdentityKey, bot: Bot | None = None):
        self.table, self.seat, self.key, self.bot = table, seat, key, bot or HeuristicBot()
        self.party: LiveSeat | None = None
        self.seen = 0  # rows of the table's log shown to it

    def hand_started(self) -> None:
        live = self.table.live
        assert live is not None
        self.party = LiveSeat(self.table.spec, live.setup, live.seating, self.key, self.bot, live.start)

    def answer(self) -> Message:
        table, seq = self.table, self.table.next_seq(self.seat)
        if table.stage is Stage.ROSTER:
            return Message(self.seat, seq, ROSTER_SIGN, {"signature": self.key.sign(table.roster.message()).hex()})
        if table.stage is Stage.RECORD:
            return Message(self.seat, seq, STATEMENT, self.party.sign(table.record, table.live.protocol.head))
        if table.stage is Stage.SETTLE:
            return Message(self.seat, seq, STATEMENT, sign_settlement(self.key, table.seating, table.proposal))
        return Message(self.seat, seq, MP_SIGNED, dict(self.party.answer(table.live.due())))

    def show(self, row: Message) -> None:
        """A row another seat added, as a client receives it over the socket."""
        if self.party is None or row.seat == self.seat or row.seat < 0:
            return
        if row.type == MP_SIGNED and self.party.player is not None:
            self.party.receive(row.body)


def _decide(player: Player, decision: dict[str, Any]) -> dict[str, Any]:
    """A decision as ``player`` would sign it next, before it is signed (his party does not take it)."""
    return dict(decide_message(player.name, decision), prev=player.state.head)


def _row(table: MpTable) -> dict[str, object]:
    return {"id": table.id, "system": table.convention.name, "seats": table.num_seats, "max_hands": table.max_hands}


def _seat_rows(table: MpTable) -> list[dict[str, object]]:
    return [{"seat": s.seat, "name": s.name, "key": s.key, "bot_secret": s.bot_secret} for s in table.seats.values()]


def _play(
    table: MpTable,
    clients: dict[int, _Client],
    before: Callable[[int], None] = lambda seat: None,
    instead: Callable[[int], Message | None] = lambda seat: None,
) -> list[Message]:
    """The evening to its end, the bots' messages and the people's (``before`` runs as each person is asked, and
    ``instead`` may give the row to add in his place); every client sees the rows the others add. Returns every
    row."""
    rows: list[Message] = []
    hand = 0
    while not table.stage.over:
        message = table.bot_message()
        if message is None:
            seat = table.waiting_for()[0]
            before(seat)
            message = instead(seat) or clients[seat].answer()
        table.submit(message)
        rows.append(message)
        if table.hand != hand and table.stage is Stage.PLAY:
            hand = table.hand
            for client in clients.values():
                client.hand_started()
        else:
            for seat, client in clients.items():
                if seat != message.seat:
                    client.show(message)
    return rows


def test_a_person_outside_the_service_plays_through_rows_alone():
    """Two bots and one seat whose secrets never enter the service: the evening verifies, and the table the
    service rebuilds from its rows equals the live one."""
    table, keys = _table("sochi", 3, 2, people=(1,))
    rows = _play(table, {1: _Client(table, 1, keys[1])})
    _verified_evening(table)
    seat_rows = [
        {"seat": s.seat, "name": s.name, "key": s.key, "bot_secret": s.bot_secret} for s in table.seats.values()
    ]
    row = {"id": table.id, "system": "sochi", "seats": 3, "max_hands": 2}
    again = MpTable.load(row, seat_rows, rows, SERVICE_KEY)
    assert again.stage is Stage.FINISHED
    assert again.transcripts == table.transcripts and again.settlement == table.settlement


@settings(max_examples=40, deadline=None)
@given(odd=odd_messages([ROSTER_SIGN, MP_SIGNED, ACT_ROW, STATEMENT, TIMEOUT]))
def test_any_message_a_person_sends_is_refused_and_the_evening_goes_on(odd):
    """Whenever the person's seat is awaited it first sends a message of any type with any body (a hostile or
    broken client; the ``odd`` ones in turn): the table refuses it with a one-line reason and changes nothing;
    the evening ends and verifies."""
    table, keys = _table("sochi", 3, 1, people=(1,))
    turn = 0

    def hostile_first(seat: int) -> None:
        nonlocal turn
        kind, body = odd[turn % len(odd)]
        turn += 1
        with pytest.raises(Refused) as refused:
            table.submit(Message(seat, table.next_seq(seat), kind, body))
        assert str(refused.value) and "\n" not in str(refused.value)

    _play(table, {1: _Client(table, 1, keys[1])}, hostile_first)
    _verified_evening(table)


def test_the_declarers_word_on_a_hand_without_aces_is_null_or_a_yes_or_no():
    """Austrian: every declarer is asked; a word of another shape, signed by him, is refused and the hand waits for
    a real one."""
    table, keys = _table("austrian", 3, 6, people=(0, 1, 2))
    asked = 0

    def odd_words_first(seat: int) -> None:
        nonlocal asked
        due = table.live.due() if table.stage is Stage.PLAY else None
        if due is None or due.step != ANNOUNCE:
            return
        asked += 1
        player = clients[seat].party.player
        for word in (7, "no", [], {"no_aces": 1}, {"no_aces": True, "x": 1}, {"aces": False}):
            signed = seal_message(keys[seat], table.seating, table.hand, _decide(player, {"announce": word}))
            with pytest.raises(Refused, match="announce"):
                table.submit(Message(seat, table.next_seq(seat), MP_SIGNED, signed))
        action = {"kind": "bid", "seat": seat, "token": "pass"}
        signed = seal_message(keys[seat], table.seating, table.hand, _decide(player, {"action": action}))
        with pytest.raises(Refused, match="without aces"):
            table.submit(Message(seat, table.next_seq(seat), MP_SIGNED, signed))

    clients = {seat: _Client(table, seat, keys[seat]) for seat in range(3)}
    _play(table, clients, odd_words_first)
    assert asked > 0
    _verified_evening(table)


def test_the_table_refuses_what_is_not_due_and_a_bad_signature():
    table, keys = _table("sochi", 3, 1, people=(0,))
    while table.waiting_for() != [0]:
        table.submit(table.bot_message())
    with pytest.raises(Refused, match="signature"):
        table.submit(Message(0, table.next_seq(0), ROSTER_SIGN, {"signature": "00" * 64}))
    table.submit(Message(0, table.next_seq(0), ROSTER_SIGN, {"signature": keys[0].sign(table.roster.message()).hex()}))
    while table.waiting_for() != [0]:
        table.submit(table.bot_message())
    with pytest.raises(Refused, match="unknown message type 'act'"):
        table.submit(Message(0, table.next_seq(0), ACT_ROW, {"action": {"kind": "bid", "seat": 0, "token": "6S"}}))
    with pytest.raises(Refused, match="replay"):
        table.submit(Message(0, 1, MP_SIGNED, {}))


@pytest.mark.parametrize("rows_before", [12, 40, 75])
def test_a_restarted_service_rebuilds_its_bots_mid_hand_and_the_evening_goes_on(rows_before):
    """Each bot makes its stored rows again from its derived secrets; the rebuilt table is the live one, and it
    plays the evening to a settlement that verifies."""
    table, _ = _table("sochi", 3, 2)
    rows = []
    for _ in range(rows_before):
        message = table.bot_message()
        table.submit(message)
        rows.append(message)
    again = MpTable.load(_row(table), _seat_rows(table), rows, SERVICE_KEY)
    assert (again.stage, again.hand, again.live.protocol.head) == (table.stage, table.hand, table.live.protocol.head)
    _run_bots(again)
    _verified_evening(again)


def test_a_stored_bot_row_that_is_not_what_the_bot_makes_refuses_to_load():
    table, _ = _table("sochi", 3, 1)
    rows = []
    while len(rows) < 20:
        message = table.bot_message()
        table.submit(message)
        rows.append(message)
    forged = next(i for i, r in enumerate(rows) if r.body.get("kind") == "decide")
    body = rows[forged].body
    other = {"kind": "bid", "seat": body["body"]["action"]["seat"], "token": "pass"}
    if body["body"]["action"] == other:
        other = dict(other, token="6S")
    seat = rows[forged].seat
    key = IdentityKey.from_seed(bytes.fromhex(table.seats[seat].bot_secret), table.seats[seat].name)
    resigned = signed.seal(key, table.seating.context(1), seat, "decide", {"action": other}, body["prev"]).to_json()
    rows[forged] = Message(seat, rows[forged].seq, MP_SIGNED, resigned)
    with pytest.raises(Refused, match="not what the bot makes again"):
        MpTable.load(_row(table), _seat_rows(table), rows, SERVICE_KEY)


# ---- v4's abort policy: a seat that stops answering ---------------------------------------------------------------


class _KeenBot:
    """Passes in the auction and whists whenever it may, so that every hand it sits in comes to tricks."""

    def act(self, view: PlayerView) -> Action:
        keen = [a for a in view.legal if a in (Bid(view.seat, "pass"), Defend(view.seat, DefenceCall.WHIST))]
        return keen[0] if keen else HeuristicBot().act(view)


def _walker_table(name: str, seats: int, hands: int, dealt: int = 0) -> tuple[MpTable, int, _Client]:
    """A table whose one person (a keen player) is the ``dealt``-th player of hand 1, beside bots."""
    probe, _ = _table(name, seats, hands)
    dealer, _ = dealer_of(probe.convention, 0, 0, seats)
    walker = dealt_seats(probe.spec, dealer)[dealt]
    table, keys = _table(name, seats, hands, people=(walker,))
    return table, walker, _Client(table, walker, keys[walker], _KeenBot())


def _play_walking(
    table: MpTable, walker: int, client: _Client, walks: set[tuple[int, int, str]], until: Any = None
) -> list[Message]:
    """The evening (or until ``until(table)``), the person answering everything but the steps ``walks`` names as
    (hand, attempt, step): there the service records a timeout. Returns every row, in order."""
    rows: list[Message] = []
    started = None
    while not table.stage.over and not (until is not None and until(table)):
        message = table.bot_message()
        if message is None:
            assert table.waiting_for() == [walker]
            due = table.live.due() if table.stage is Stage.PLAY else None
            if due is not None and (table.hand, table.attempt, due.step) in walks:
                message = Message(SERVICE_SEAT, table.next_seq(SERVICE_SEAT), TIMEOUT, {"seat": walker})
            else:
                message = client.answer()
        table.submit(message)
        rows.append(message)
        if table.stage is Stage.PLAY and (table.hand, table.attempt) != started:
            started = (table.hand, table.attempt)
            client.hand_started()
        elif message.seat not in (walker, SERVICE_SEAT):
            client.show(message)
    return rows


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_a_seat_that_walks_away_from_the_opening_is_charged_and_the_hand_dealt_again(cell):
    """At every table: the seat silent at its shuffle is named by the next player's signed abandon, the hand is
    dealt again under a new attempt, and its record charges the seat the convention's abort penalty; the
    evening verifies, the abandoned opening included."""
    name, seats = cell
    table, walker, client = _walker_table(name, seats, 1)
    rows = _play_walking(table, walker, client, {(1, 1, "shuffle")})
    _verified_evening(table)
    _assert_rebuilds(table, rows)
    doc = table.transcripts[0]
    assert (doc["attempt"], [a["attempt"] for a in doc["aborts"]]) == (2, [1])
    abandon = signed.parse(doc["aborts"][0]["messages"][-1])
    assert abandon.kind == "abandon" and abandon.body["player"] == table.names[walker]
    charge = [line.to_record() for line in abort_penalty(table.convention, walker, seats)]
    assert doc["record"].get("penalty", []) == signed_record({"penalty": charge}).get("penalty", [])


def test_a_message_of_an_abandoned_attempt_is_refused_in_the_next():
    """Every signature binds the attempt: the first attempt's messages, its abandon included, replayed into the
    second, are refused; nothing changes."""
    table, walker, client = _walker_table("sochi", 3, 1)
    rows = _play_walking(table, walker, client, {(1, 1, "shuffle")}, until=lambda t: t.attempt == 2)
    old = [row for row in rows if row.type == MP_SIGNED]
    assert signed.parse(old[-1].body).kind == "abandon"
    head = table.live.protocol.head
    for row in (old[0], old[-1]):  # bound to attempt 1: its chain's genesis, its signatures' context
        with pytest.raises(Refused, match=r"chain link|signature"):
            table.submit(Message(row.seat, table.next_seq(row.seat), MP_SIGNED, row.body))
    assert (table.attempt, table.live.protocol.head, table.live.messages) == (2, head, [])


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
def test_a_seat_that_walks_away_from_every_attempt_ends_the_evening(cell):
    """After the last attempt the hand is void and the evening ends: the stopped hand proves the seat at fault,
    it alone is charged, and every other seat signs the settlement with that end."""
    name, seats = cell
    table, walker, client = _walker_table(name, seats, 2)
    rows = _play_walking(table, walker, client, {(1, attempt, "keys") for attempt in range(1, MAX_ATTEMPTS + 1)})
    _assert_ended_on(table, walker, hand=1, step="keys")
    _assert_rebuilds(table, rows)
    assert table.transcripts[0]["attempt"] == MAX_ATTEMPTS and len(table.transcripts[0]["aborts"]) == 2


def _assert_rebuilds(table: MpTable, rows: list[Message]) -> None:
    """The table the service rebuilds from the rows (the timeouts and abandons included) is the live one."""
    again = MpTable.load(_row(table), _seat_rows(table), rows, SERVICE_KEY)
    assert (again.stage, again.ended, again.charge) == (table.stage, table.ended, table.charge)
    assert again.transcripts == table.transcripts and again.settlement == table.settlement


def _assert_ended_on(table: MpTable, walker: int, hand: int, step: str) -> None:
    assert table.stage is Stage.ENDED, table.reason
    stopped = table.transcripts[-1]
    assert (stopped["hand"], stopped["state"]) == (hand, "abandoned")
    assert check_document(f"hand {hand}", stopped).findings == []
    end = proved_end(f"hand {hand}", stopped)
    assert end == {"hand": hand, "charged": [table.names[walker]]}
    complete = [doc for doc in table.transcripts if doc["state"] == "complete"]
    found = check_settlement(table.settlement, table.seating, len(complete), transcript_hash(stopped), None, end)
    assert found == []
    signers = {signed.parse(s).sender for s in table.settlement["statements"]}
    assert signers == set(range(table.num_seats)) - {walker}
    view = table.view(None)
    assert view["ended"]["names"] == [table.names[walker]] and view["ended"]["step"] == step
    charge = abort_penalty(table.convention, walker, table.num_seats)
    assert view["ended"]["penalty"] == [line.to_record() for line in charge]
    assert table.log_trailer()["type"] == "end"


def test_a_seat_silent_in_a_round_after_the_deal_ends_the_evening():
    """The deal is done, the hand cannot be dealt again: a seat silent in the reveal is named, and the evening
    ends on that hand after the first was played and signed."""
    table, walker, client = _walker_table("sochi", 3, 3, dealt=2)  # second to reveal in hand 2
    _play_walking(table, walker, client, {(2, 1, "reveal")})
    _assert_ended_on(table, walker, hand=2, step="reveal")
    assert [doc["state"] for doc in table.transcripts] == ["complete", "abandoned"]
    assert table.proposal["hands"] == 1


def walked_evening(name: str, seats: int, step: str) -> tuple[MpTable, int, list[Message], dict[int, IdentityKey]]:
    """An evening of people's seats in which the first seat the game awaits ``step`` from (``act``: a decision,
    ``play``: a card) stays silent until the service records a timeout: the table, that seat, every row, and
    the people's keys."""
    opening = get_convention(name).table.opening_raspasy_rounds * seats  # Classic opens with raspasy: no auction
    table, keys = _table(name, seats, opening + 30, people=tuple(range(seats)))  # the evening ends at the walk
    clients = {seat: _Client(table, seat, keys[seat]) for seat in range(seats)}
    walked: list[int] = []

    def walk_once(seat: int) -> Message | None:
        due = table.live.due() if table.stage is Stage.PLAY else None
        if walked or due is None or due.step != step:
            return None
        walked.append(seat)
        return Message(SERVICE_SEAT, table.next_seq(SERVICE_SEAT), TIMEOUT, {"seat": seat})

    rows = _play(table, clients, instead=walk_once)
    assert walked, f"no {step} was awaited in {table.max_hands} hands"
    return table, walked[0], rows, keys


@pytest.mark.parametrize("cell", CELLS, ids=[f"{n}-{p}p" for n, p in CELLS])
@pytest.mark.parametrize("step", ["act", "play"])
def test_a_seat_late_with_a_decision_or_a_card_is_named_and_the_evening_ends(cell, step):
    """At every table, every seat a person's: the first seat the game awaits a decision (or a card) from stays
    silent and is named by the next player's signed abandon; the hand is void, its transcript states the start
    its game is followed from, and the stopped hand proves the seat at fault from its chain alone — the signed
    decisions and proven cards say whose step was due. The evening ends with that seat charged, and the table
    rebuilds from its rows."""
    table, walker, rows, _ = walked_evening(*cell, step)
    stopped = table.transcripts[-1]
    _assert_ended_on(table, walker, hand=stopped["hand"], step=DECIDE if step == "act" else step)
    _assert_rebuilds(table, rows)
    assert set(stopped["start"]) == {"raspasy_streak", "refe"} and "record" not in stopped
    checks = [check_document(f"hand {doc['hand']}", doc) for doc in table.transcripts]
    assert check_records(checks) == ([], [(checks[-1], "no game record: play and score not checked")])


def test_an_abandon_in_play_that_names_another_than_the_game_awaits_is_the_witnesses_fault():
    """The witness (with the service) names another seat, or another step, than the one the chain shows was due:
    re-signed by him, the stopped hand blames him, and a start the sheet does not give is found too."""
    table, walker, client = _walker_table("sochi", 3, 1)
    _play_walking(table, walker, client, {(1, 1, "play")})
    stopped = table.transcripts[-1]
    envelope = signed.parse(stopped["messages"][-1])
    witness = table.seating.names[envelope.sender]
    other = next(n for n in table.names if n not in (witness, table.names[walker]))
    key = IdentityKey.from_seed(bytes.fromhex(table.seats[envelope.sender].bot_secret), witness)
    context = table.seating.context(1)
    for body in ({"player": other, "at": "play"}, {"player": table.names[walker], "at": "decide"}):
        lie = signed.seal(key, context, envelope.sender, "abandon", body, envelope.prev).to_json()
        findings = check_document("hand 1", {**stopped, "messages": [*stopped["messages"][:-1], lie]}).findings
        assert [(party, check) for party, check, _ in findings] == [(f"player {witness}", "abandon")], findings
        assert "the game awaits " + table.names[walker] + "'s play" in findings[0][2]
    moved = {**stopped, "start": {"raspasy_streak": 2, "refe": []}}
    checks = [check_document("hand 1", moved)]
    assert [check for _, check, _ in check_records(checks)[0]] == ["start"]
    shapeless = check_document("hand 1", {**stopped, "start": {"raspasy_streak": -1, "refe": []}}).findings
    assert [(party, check) for party, check, _ in shapeless] == [("transcript", "start")]


def test_only_the_asked_witness_signs_an_abandon_of_the_awaited_step_and_a_silent_witness_stops_the_table():
    table, keys = _table("sochi", 3, 1, people=(0, 1, 2))
    clients = {seat: _Client(table, seat, keys[seat]) for seat in range(3)}
    while table.stage is not Stage.PLAY:
        table.submit(table.bot_message() or clients[table.waiting_for()[0]].answer())
    for client in clients.values():
        client.hand_started()
    first, witness, third = (table.names.index(name) for name in table.live.setup.players)

    def abandon(seat: int, absent: int, step: str) -> Message:
        said = dict(abandon_message(table.names[absent], step), prev=table.live.protocol.head)
        body = seal_message(keys[seat], table.seating, 1, said)
        return Message(seat, table.next_seq(seat), MP_SIGNED, body)

    def timeout(seat: int) -> Message:
        return Message(SERVICE_SEAT, table.next_seq(SERVICE_SEAT), TIMEOUT, {"seat": seat})

    with pytest.raises(Refused, match="out of turn"):  # nobody has given up on the first seat yet
        table.submit(abandon(witness, first, "keys"))
    with pytest.raises(Refused, match="not awaited"):
        table.submit(timeout(witness))
    table.submit(timeout(first))
    assert table.waiting_for() == [witness] and table.view(witness)["due"]["step"] == "abandon"
    with pytest.raises(Refused, match="out of turn"):  # too late: the hand waits for the witness now
        late = clients[first].party.player.keys()
        table.submit(Message(first, table.next_seq(first), MP_SIGNED, dict(late)))
    with pytest.raises(Refused, match="out of turn"):  # another seat than the one asked
        table.submit(abandon(third, first, "keys"))
    with pytest.raises(Refused, match="waits for"):  # the witness names another step than the one awaited
        table.submit(abandon(witness, first, "shuffle"))
    table.submit(timeout(witness))
    assert table.stage is Stage.ABORTED and f"{table.names[witness]}'s abandon" in table.reason
