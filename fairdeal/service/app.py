"""`fairdeal serve`: the ASGI application — the table API, the WebSocket table, the operators' pages.

Each table lives in a ``Hub`` slot: its ``Table`` (rebuilt from the database on first use or at start-up), an
``asyncio.Lock`` so one message is handled at a time, the open sockets by seat, and the task that plays the
server-side bots. A message is validated (size, schema, then the table's own rules) before it is stored; only a
stored message changes what any client sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from fairdeal.engine.system import get_system, registered
from fairdeal.errors import CanonicalError, FairdealError
from fairdeal.protocols.canonical import decode as canonical_decode
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.identity import IdentityKey, PublicKey
from fairdeal.service.db import connect
from fairdeal.service.limits import (
    HEX64,
    HEX128,
    MAX_MESSAGE_BYTES,
    MAX_REQUEST_BYTES,
    TABLE_ID,
    BadInput,
    Envelope,
    Hello,
    RateLimits,
    check_envelope,
    check_name,
    decode,
)
from fairdeal.service.mp_table import MP_SIGNED, STATEMENT, MpTable
from fairdeal.service.roster_flow import Refused
from fairdeal.service.rows import ROSTER_SIGN, SIGNED, Message, Seat, Stage
from fairdeal.service.store import Store
from fairdeal.service.table import Table
from fairdeal.web.verifier_page import PageMissingError, page_bytes

Handler = Callable[[Request], Awaitable[Response]]
WEB = Path(__file__).resolve().parent.parent / "web"
LOGIN = "serve-login"
DEFAULT_HANDS = 60
SIGNED_FRAMES = (SIGNED, ROSTER_SIGN, MP_SIGNED, STATEMENT)
ENVELOPE_FRAMES = (SIGNED, MP_SIGNED, STATEMENT)  # frames that carry a signed envelope (roster-sign: a signature)
DEALINGS = {"commit-reveal": Table, "mental-poker": MpTable}
AnyTable = Table | MpTable


def service_key(db_url: str, key_path: str | Path | None = None) -> IdentityKey:
    """The service's identity key: ``key_path``, else a file beside the SQLite database (or in the working folder
    for a server database), made on first start."""
    if key_path is None:
        base = Path(db_url) if "://" not in db_url else Path("fairdeal.db")
        key_path = base.with_name(base.name + ".service-key")
    path = Path(key_path)
    if not path.exists():
        IdentityKey.generate("service").save(path)
    return IdentityKey.load(path)


def login_statement(table: str, nonce: str) -> dict[str, Any]:
    """What a client signs with its identity key to bind a connection to its seat."""
    return {"statement": LOGIN, "table": table, "nonce": nonce}


@dataclass
class Slot:
    table: AnyTable
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    sockets: dict[WebSocket, int | None] = field(default_factory=dict)
    chain_sent: dict[WebSocket, int] = field(default_factory=dict)  # how much of the chain each socket was sent
    bots: asyncio.Task[None] | None = None
    since: float = field(default_factory=time.monotonic)  # when the table last moved


class Hub:
    def __init__(self, store: Store, bot_delay: float, turn_timeout: float):
        self.store, self.bot_delay, self.turn_timeout = store, bot_delay, turn_timeout
        self.slots: dict[str, Slot] = {}

    def slot(self, table_id: str) -> Slot | None:
        if table_id not in self.slots:
            table = self.store.load(table_id)
            if table is None:
                return None
            assert isinstance(table, AnyTable)  # the store makes one of the two
            self.slots[table_id] = Slot(table)
        return self.slots[table_id]

    def resume_all(self) -> int:
        """At start-up: rebuild every table still in play and let its bots move."""
        ids = self.store.table_ids(live_only=True)
        resumed = 0
        for table_id in ids:
            try:
                slot = self.slot(table_id)
            except FairdealError as exc:  # one table that cannot be rebuilt must not keep the others down
                print(f"fairdeal serve: not resumed: {exc}", file=sys.stderr)
                continue
            assert slot is not None  # the store listed it
            self.kick(slot)
            resumed += 1
        return resumed

    async def submit(self, slot: Slot, message: Message | None) -> bool:
        """Accept, store and broadcast one message (raises ``Refused`` with nothing stored); ``None`` takes the
        step the service or a bot owes now, if any. A message with seq 0 gets its seat's next seq."""
        async with slot.lock:
            table = slot.table
            if message is None:
                message = table.bot_message()
                if message is None:
                    return False
            elif message.seq == 0:
                message = Message(message.seat, table.next_seq(message.seat), message.type, message.body)
            try:
                derived = table.submit(message)
            except Refused:
                raise
            except FairdealError as exc:
                raise Refused(str(exc)) from None
            try:
                self.store.append(table, message, derived)
            except Exception:
                self.slots.pop(table.id, None)  # memory ran ahead of the database: rebuild from the rows
                raise Refused("the message could not be stored; try again") from None
            slot.since = time.monotonic()
        await self.broadcast(slot)
        self.kick(slot)
        return True

    async def watch(self) -> None:
        """Every second: a person late in play has the move made for him; late in the protocol, the table ends."""
        while True:
            await asyncio.sleep(1.0)
            for slot in list(self.slots.values()):
                late = slot.table.waiting_for()
                if late and time.monotonic() - slot.since > self.turn_timeout:
                    await self._time_out(slot, late[0])

    async def _time_out(self, slot: Slot, seat: int) -> None:
        """In play a bot moves for the late seat; in the protocol the timeout is recorded and the v4 abort policy
        (``Table._timeout``: an aborted attempt and a re-deal, or the table's end) answers it."""
        message = slot.table.timeout_message(seat)
        if message is not None:
            with contextlib.suppress(Refused):
                await self.submit(slot, Message(message.seat, 0, message.type, message.body))

    async def stop(self) -> None:
        tasks = [slot.bots for slot in self.slots.values() if slot.bots is not None and not slot.bots.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def kick(self, slot: Slot) -> None:
        if slot.bots is None or slot.bots.done():
            slot.bots = asyncio.get_running_loop().create_task(self._drive_bots(slot))

    async def _drive_bots(self, slot: Slot) -> None:
        while True:
            upcoming = slot.table.bot_due()
            if upcoming is None or self.slots.get(slot.table.id) is not slot:
                return
            if upcoming == "act" and self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            try:
                # The bot's answer is made under the table's lock, from the chain as it stands then.
                if not await self.submit(slot, None):
                    continue
            except Refused:
                return

    async def broadcast(self, slot: Slot) -> None:
        for socket, seat in list(slot.sockets.items()):
            try:
                await self.send_chain(slot, socket)
                await socket.send_json({"type": "view", "view": slot.table.view(seat)})
            except Exception:
                slot.sockets.pop(socket, None)

    async def send_chain(self, slot: Slot, socket: WebSocket) -> None:
        """The messages this socket has not been sent yet (a new socket gets the whole session): commit-reveal's
        signed envelopes, or mental poker's seat messages and decisions, each with its hand and seat."""
        start = slot.chain_sent.get(socket, 0)
        news = slot.table.relayed_since(start)
        if news:
            await socket.send_json({"type": "chain", "from": start, "envelopes": news})
            slot.chain_sent[socket] = start + len(news)


def create_app(
    db_url: str = "fairdeal.db",
    *,
    key_path: str | Path | None = None,
    bot_delay: float = 0.4,
    turn_timeout: float = 300.0,
    limits: RateLimits | None = None,
) -> Starlette:
    store = Store(connect(db_url), service_key(db_url, key_path))
    hub = Hub(store, bot_delay, turn_timeout)
    limits = limits or RateLimits()

    def limited(handler: Handler) -> Handler:
        async def wrapped(request: Request) -> Response:
            if not limits.http(request.client.host if request.client else "-"):
                return _error("too many requests; slow down", 429)
            try:
                return await handler(request)
            except BadInput as exc:
                return _error(str(exc), 400)
            except Refused as exc:
                return _error(str(exc), 409)

        return wrapped

    async def body_of(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_REQUEST_BYTES:
            raise BadInput(f"request body of {len(raw)} bytes exceeds the limit of {MAX_REQUEST_BYTES}")
        try:
            value = json.loads(raw or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise BadInput("the request body is not JSON") from None
        if not isinstance(value, dict):
            raise BadInput("the request body must be a JSON object")
        return value

    def slot_of(request: Request) -> Slot:
        table_id = request.path_params["table"]
        slot = hub.slot(table_id) if TABLE_ID.match(table_id) else None
        if slot is None:
            raise _NotFound(f"no table {table_id!r}")
        return slot

    async def systems(request: Request) -> Response:
        return JSONResponse(
            [{"name": s.name, "title": s.convention.title, "players": list(s.players)} for s in registered()]
        )

    async def create_table(request: Request) -> Response:
        body = await body_of(request)
        name, seats, hands = body.get("system"), body.get("seats"), body.get("max_hands", DEFAULT_HANDS)
        dealing = body.get("dealing", "commit-reveal")
        if dealing not in DEALINGS:
            raise BadInput(f"dealing: {' or '.join(DEALINGS)}, not {dealing!r}")
        try:
            system = get_system(name) if isinstance(name, str) else None
        except FairdealError:
            system = None
        if system is None:
            raise BadInput(f"system: unknown system {name!r}")
        if not isinstance(seats, int) or seats not in system.players:
            raise BadInput(f"seats: {system.name} is played by {', '.join(map(str, system.players))} seats")
        if not isinstance(hands, int) or not 1 <= hands <= 500:
            raise BadInput("max_hands: an integer 1..500")
        table_id = f"t-{secrets.token_hex(5)}"
        table: AnyTable
        if dealing == "mental-poker":
            table = MpTable.new(table_id, system.name, seats, hands, store.service_key)
        else:
            table = Table.new(table_id, system.name, seats, hands, store.service_key, secrets.token_hex(32))
        store.create_table(table)
        hub.slots[table.id] = Slot(table)
        return JSONResponse(table.summary(), status_code=201)

    async def list_tables(request: Request) -> Response:
        out = []
        for table_id in store.table_ids():
            slot = hub.slot(table_id)
            assert slot is not None  # the store listed it
            out.append(
                slot.table.summary()
                | {
                    "sessions": sum(1 for s in slot.sockets.values() if s is not None),
                    "spectators": sum(1 for s in slot.sockets.values() if s is None),
                }
            )
        return JSONResponse(out)

    async def table_info(request: Request) -> Response:
        return JSONResponse(slot_of(request).table.view(None))

    async def seat_bot(request: Request) -> Response:
        slot = slot_of(request)
        seat = (await body_of(request)).get("seat")
        if not isinstance(seat, int):
            raise BadInput("seat: an integer")
        secret = secrets.token_hex(32)  # the bot's identity key, held by the service
        key = IdentityKey.from_seed(bytes.fromhex(secret)).public.hex
        async with slot.lock:
            info = Seat(seat, f"bot-{seat + 1}", key, secret)
            slot.table.take_seat(info)
            store.add_seat(slot.table, info)
        await hub.broadcast(slot)
        hub.kick(slot)
        return JSONResponse(slot.table.summary())

    async def abort(request: Request) -> Response:
        slot = slot_of(request)
        reason = (await body_of(request)).get("reason", "aborted by the operator")
        if not isinstance(reason, str) or len(reason) > 200:
            raise BadInput("reason: at most 200 characters")
        async with slot.lock:
            if slot.table.stage.over:
                raise Refused(f"table {slot.table.id} is already {slot.table.stage.value}")
            slot.table.stage, slot.table.reason = Stage.ABORTED, reason
            store.set_status(slot.table.id, Stage.ABORTED, reason)
        await hub.broadcast(slot)
        return JSONResponse(slot.table.summary())

    def hand_row(request: Request, rows: list[tuple[int, str]]) -> str:
        hand = request.path_params["hand"]
        text = dict(rows).get(hand)
        if text is None:
            raise _NotFound(f"hand {hand} of table {request.path_params['table']} is not finished")
        return text

    async def transcript(request: Request) -> Response:
        slot = slot_of(request)
        return Response(
            hand_row(request, store.transcripts(slot.table.id)),
            media_type="application/json",
            headers=_attachment(f"{slot.table.id}-hand-{request.path_params['hand']:04d}.json"),
        )

    async def transcripts(request: Request) -> Response:
        slot = slot_of(request)
        rows = store.transcripts(slot.table.id)
        docs = [json.loads(text) for hand, text in rows if hand] + [json.loads(t) for hand, t in rows if not hand]
        return JSONResponse(docs, headers=_attachment(f"{slot.table.id}-transcripts.json"))

    async def roster(request: Request) -> Response:
        slot = slot_of(request)
        if slot.table.roster is None:
            raise _NotFound(f"table {slot.table.id} has no roster yet")
        return JSONResponse(slot.table.roster.to_json(), headers=_attachment(f"{slot.table.id}-roster.json"))

    async def line(request: Request) -> Response:
        slot = slot_of(request)
        return Response(hand_row(request, store.lines(slot.table.id)), media_type="application/json")

    async def log(request: Request) -> Response:
        slot = slot_of(request)
        return PlainTextResponse(
            _log_text(slot.table, store),
            media_type="application/x-ndjson",
            headers=_attachment(f"{slot.table.id}.jsonl"),
        )

    async def audit(request: Request) -> Response:
        slot = slot_of(request)
        html = await asyncio.get_running_loop().run_in_executor(None, _audit_html, slot.table, store)
        return HTMLResponse(html)

    async def operator(request: Request) -> Response:
        return FileResponse(WEB / "static" / "operator.html")

    async def verifier(request: Request) -> Response:
        """The offline verifier page; ``?download`` saves it to open later from ``file://``."""
        try:
            page = page_bytes()
        except PageMissingError as exc:
            return _error(str(exc), 404)
        download = _attachment("fairdeal-verifier.html") if "download" in request.query_params else None
        return HTMLResponse(page, headers=download)

    async def index(request: Request) -> Response:
        return FileResponse(WEB / "static" / "index.html")

    async def socket(ws: WebSocket) -> None:
        await _serve_socket(ws, hub, limits)

    def wrap(handler: Handler) -> Handler:
        async def guarded(request: Request) -> Response:
            try:
                return await limited(handler)(request)
            except _NotFound as exc:
                return _error(str(exc), 404)

        return guarded

    routes = [
        Route("/", index),
        Route("/operator", operator),
        Route("/verifier", wrap(verifier)),
        Route("/api/systems", wrap(systems)),
        Route("/api/tables", wrap(list_tables), methods=["GET"]),
        Route("/api/tables", wrap(create_table), methods=["POST"]),
        Route("/api/tables/{table}", wrap(table_info)),
        Route("/api/tables/{table}/bots", wrap(seat_bot), methods=["POST"]),
        Route("/api/tables/{table}/abort", wrap(abort), methods=["POST"]),
        Route("/api/tables/{table}/log", wrap(log)),
        Route("/api/tables/{table}/transcripts", wrap(transcripts)),
        Route("/api/tables/{table}/roster", wrap(roster)),
        Route("/api/tables/{table}/audit", wrap(audit)),
        Route("/api/tables/{table}/hands/{hand:int}/transcript", wrap(transcript)),
        Route("/api/tables/{table}/hands/{hand:int}/line", wrap(line)),
        WebSocketRoute("/ws/{table}", socket),
        Mount("/static", StaticFiles(directory=WEB / "static"), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.resume_all()
        watchdog = asyncio.get_running_loop().create_task(hub.watch())
        yield
        watchdog.cancel()
        await hub.stop()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hub, app.state.store = hub, store
    return app


class _NotFound(Exception):
    pass


def _error(text: str, status: int) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


def _attachment(name: str) -> dict[str, Any]:
    return {"content-disposition": f'attachment; filename="{name}"'}


def _log_text(table: AnyTable, store: Store) -> str:
    """The table's game log (protocols/game-log.md): header, one line per finished hand, the settlement."""
    lines = [json.dumps(table.log_header(), ensure_ascii=False)]
    lines += [text for _, text in store.lines(table.id)]
    trailer = table.log_trailer()
    if trailer is not None:
        lines.append(json.dumps(trailer, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _audit_html(table: AnyTable, store: Store) -> str:
    """`fairdeal audit` on the table's history (log and transcripts as files), as its HTML report."""
    from fairdeal.audit.html import render_html
    from fairdeal.audit.run import RunOptions, run_audit

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{table.id}.jsonl"
        path.write_text(_log_text(table, store), encoding="utf-8")
        folder = Path(tmp) / f"{table.id}.transcripts"
        folder.mkdir()
        for hand, text in store.transcripts(table.id):
            name = f"hand-{hand:04d}.json" if hand else "settlement.json"
            (folder / name).write_text(text, encoding="utf-8")
        return render_html(run_audit(path, RunOptions(draw_hands=True)), path.name)


async def _serve_socket(ws: WebSocket, hub: Hub, limits: RateLimits) -> None:
    table_id = ws.path_params["table"]
    await ws.accept()
    slot = hub.slot(table_id) if TABLE_ID.match(table_id) else None
    if slot is None:
        await ws.send_json({"type": "error", "error": f"no table {table_id!r}"})
        await ws.close(code=4404)
        return
    nonce = secrets.token_hex(16)
    await ws.send_json({"type": "challenge", "nonce": nonce})
    bucket = limits.socket()
    seat: int | None = None
    try:
        seat = await _hello(ws, hub, slot, nonce)
        slot.sockets[ws] = seat
        await hub.send_chain(slot, ws)
        await ws.send_json({"type": "view", "view": slot.table.view(seat)})
        while True:
            raw = await ws.receive_text()
            if not bucket.take():
                await ws.send_json({"type": "error", "error": "too many messages; slow down"})
                continue
            await _handle(ws, hub, slot, seat, raw)
    except WebSocketDisconnect:
        pass
    finally:
        slot.sockets.pop(ws, None)
        slot.chain_sent.pop(ws, None)


async def _hello(ws: WebSocket, hub: Hub, slot: Slot, nonce: str) -> int | None:
    """Authenticate the identity key; resume its seat, take the chair asked for, or watch."""
    while True:
        try:
            hello = decode(await ws.receive_text(), Hello)
            if hello.type != "hello" or not HEX64.match(hello.key) or not HEX128.match(hello.signature):
                raise BadInput("the first message is a hello with a hex key and signature")
            statement = encode(login_statement(slot.table.id, nonce))
            if not PublicKey.from_hex(hello.key).verify(statement, bytes.fromhex(hello.signature)):
                raise BadInput("the hello's signature does not verify under its key")
            async with slot.lock:
                seat = slot.table.seat_of_key(hello.key)
                if seat is None and hello.seat is not None:
                    info = Seat(hello.seat, check_name(hello.name), hello.key)
                    slot.table.take_seat(info)
                    hub.store.add_seat(slot.table, info)
                    seat = hello.seat
            if seat is not None:
                await hub.broadcast(slot)
                hub.kick(slot)
            return seat
        except (BadInput, Refused) as exc:
            await ws.send_json({"type": "error", "error": str(exc)})


def read_frame(raw: str) -> dict[str, Any]:
    """A client frame as an object; a signed frame must be the canonical encoding of what it holds, as signed."""
    data = raw.encode("utf-8")
    if len(data) > MAX_MESSAGE_BYTES:
        raise BadInput(f"message of {len(data)} bytes exceeds the limit of {MAX_MESSAGE_BYTES}")
    try:
        value = canonical_decode(data)
    except CanonicalError as exc:
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            raise BadInput(f"not JSON: {exc}") from None
        if isinstance(value, dict) and value.get("type") in SIGNED_FRAMES:
            raise BadInput(f"a {value['type']} frame must be canonical JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadInput("a message is a JSON object")
    return value


def _signed_frame(frame: dict[str, Any], table: str, seat: int | None) -> Message:
    """``{"type","table","seat","envelope"}`` for a signed message (``signed``, ``mp-signed``, ``statement``), or
    ``{"type":"roster-sign","table","seat","signature"}``."""
    kind = frame["type"]
    payload = "envelope" if kind in ENVELOPE_FRAMES else "signature"
    if set(frame) != {"type", "table", "seat", payload}:
        raise BadInput(f"a {kind} frame has exactly the fields type, table, seat, {payload}")
    if frame["table"] != table:
        raise BadInput(f"table: this connection is for table {table}, not {frame['table']!r}")
    if seat is None:
        raise BadInput("a spectator sends no messages")
    if frame["seat"] != seat:
        raise BadInput(f"seat: this connection holds seat {seat}; it cannot speak for seat {frame['seat']}")
    if kind in ENVELOPE_FRAMES:
        if not isinstance(frame["envelope"], dict):
            raise BadInput("envelope: an object is expected")
        return Message(seat, 0, kind, frame["envelope"])
    return Message(seat, 0, ROSTER_SIGN, {"signature": frame["signature"]})


async def _handle(ws: WebSocket, hub: Hub, slot: Slot, seat: int | None, raw: str) -> None:
    try:
        frame = read_frame(raw)
        if frame.get("type") in SIGNED_FRAMES:
            await hub.submit(slot, _signed_frame(frame, slot.table.id, seat))
            await ws.send_json({"type": "ack", "kind": frame["type"]})
            return
        env = decode(raw, Envelope)
        check_envelope(env)
        if env.table != slot.table.id:
            raise BadInput(f"table: this connection is for table {slot.table.id}, not {env.table!r}")
        if seat is None:
            raise BadInput("a spectator sends no messages")
        if env.seat != seat:
            raise BadInput(f"seat: this connection holds seat {seat}; it cannot speak for seat {env.seat}")
        await hub.submit(slot, Message(env.seat, env.seq, env.type, env.body, env.signature))
        await ws.send_json({"type": "ack", "seq": env.seq})
    except (BadInput, Refused) as exc:
        await ws.send_json({"type": "error", "error": str(exc)})
