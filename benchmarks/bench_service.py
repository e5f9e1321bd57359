"""Load on loopback: many concurrent tables served by `fairdeal serve`, a kill -9 in the middle, every table resumed.

Each table has one WebSocket player (this process, asyncio) and server-side bots in the other chairs. Printed:
hands per second served, p50/p99 latency from sending a message to its ack, the server's memory over the run, lost
or duplicated hands (every table's hands must be 1..n once each, with a verifying transcript chain), and the tables
that moved again after the restart. Baseline, measured in the same run: the same bot hands played through the
table driver in this process with no network and no database.

    python benchmarks/bench_service.py [--tables 50] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import websockets
from sqlalchemy import select

from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.parties import Player as Party
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import parse
from fairdeal.protocols.verify import verify_documents
from fairdeal.service import db
from fairdeal.service.app import login_statement
from fairdeal.service.rows import Seat
from fairdeal.service.table import Table


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(url: str, port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "fairdeal", "serve", "--port", str(port), "--db", url, "--bot-delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/systems", timeout=2).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("fairdeal serve did not start")


def post(http: httpx.Client, path: str, body: dict) -> dict:
    """POST, waiting out the service's per-address rate limit (all of this load comes from one address)."""
    while True:
        reply = http.post(path, json=body)
        if reply.status_code != 429:
            reply.raise_for_status()
            return reply.json()
        time.sleep(0.2)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Player:
    """One WebSocket seat: its key, its seeds, the next sequence number; reconnects after the server dies."""

    def __init__(self, port: int, table: str, seat: int, rng: np.random.Generator):
        self.port, self.table, self.seat, self.rng = port, table, seat, rng
        self.key = IdentityKey.generate(f"p{seat}")
        self.name = f"p{seat}"
        self.party: Party | None = None  # its v4 Player: it keeps the chain it accepted across reconnections
        self.chain: list[dict] = []
        self.shown = 0
        self.latencies: list[float] = []
        self.seated = False

    async def run(self, stop_at: float) -> None:
        while time.monotonic() < stop_at:
            try:
                await self._session(stop_at)
            except (TimeoutError, OSError, websockets.ConnectionClosed):
                await asyncio.sleep(0.2)  # the server is down (kill -9): try again

    async def _session(self, stop_at: float) -> None:
        async with websockets.connect(f"ws://127.0.0.1:{self.port}/ws/{self.table}", max_size=2**22) as ws:
            nonce = json.loads(await ws.recv())["nonce"]
            await ws.send(
                json.dumps(
                    {
                        "type": "hello",
                        "key": self.key.public.hex,
                        "name": self.name,
                        "seat": None if self.seated else self.seat,
                        "signature": self.key.sign(encode(login_statement(self.table, nonce))).hex(),
                    }
                )
            )
            self.seated = True
            self.chain, self.shown = [], 0  # the relay sends the whole chain again
            view, pending = None, None
            while time.monotonic() < stop_at:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
                if message["type"] == "chain":
                    self.chain += message["envelopes"]
                if message["type"] == "view":
                    view = message["view"]
                elif message["type"] in ("ack", "error"):
                    if pending is not None and message["type"] == "ack":
                        self.latencies.append(time.perf_counter() - pending)
                    pending = None
                if view is None or pending is not None or view["stage"] in ("finished", "aborted"):
                    continue
                envelope = self._next(view)
                if envelope is not None:
                    pending = time.perf_counter()
                    await ws.send(envelope)

    def _next(self, view: dict) -> str | None:
        """The next frame this seat owes: a roster signature, a signed protocol answer, or a random legal action."""
        protocol, game = view["protocol"], view["game"]
        need, hand = protocol["need"], protocol["hand"]
        if need == "roster-sign":
            roster = Roster.from_json(protocol["roster"])
            signature = self.key.sign(roster.message()).hex()
            return encode(
                {"type": "roster-sign", "table": self.table, "seat": self.seat, "signature": signature}
            ).decode()
        if need is not None and len(self.chain) == protocol["chain"]:
            if self.party is None:
                self.party = Party(self.seat, self.key, Roster.from_json(protocol["roster"]))
            news, self.shown = [parse(e) for e in self.chain[self.shown :]], len(self.chain)
            asks = {
                m.ACCEPT: lambda: self.party.accept_session(news),
                m.COMMIT: lambda: self.party.commit(hand, news),
                m.REVEAL: lambda: self.party.reveal(hand, news),
                m.RECORD_SIGN: lambda: self.party.countersign(hand, news),
                m.SETTLEMENT_SIGN: lambda: self.party.sign_settlement(news),
            }
            envelope = asks[need]().to_json()
            return encode({"type": "signed", "table": self.table, "seat": self.seat, "envelope": envelope}).decode()
        if game and game["legal"]:
            action = game["legal"][int(self.rng.integers(len(game["legal"])))]
            frame = {"type": "act", "table": self.table, "seat": self.seat, "seq": view["last_seq"] + 1}
            return json.dumps(frame | {"body": {"action": action}, "signature": None})
        return None


def baseline(hands: int) -> float:
    """Hands per second of the same bot tables through the table driver alone (no network, no database)."""
    table = Table.new("t-base", "sochi", 3, hands, IdentityKey.generate("service"), secrets.token_hex(32))
    for seat in range(3):
        secret = secrets.token_hex(32)
        table.take_seat(Seat(seat, f"b{seat}", IdentityKey.from_seed(bytes.fromhex(secret)).public.hex, secret))
    started = time.perf_counter()
    while (message := table.bot_message()) is not None:
        table.submit(message)
    return table.hand / (time.perf_counter() - started)


def check_tables(url: str, tables: list[str]) -> tuple[int, int, int]:
    """(hands stored, tables whose hands are not exactly 1..n, transcript failures)."""
    engine = db.connect(url)
    bad, failures, total = 0, 0, 0
    with engine.connect() as c:
        for table in tables:
            rows = c.execute(
                select(db.transcripts.c.hand, db.transcripts.c.document)
                .where(db.transcripts.c.table_id == table)
                .order_by(db.transcripts.c.hand)
            ).all()
            lines = c.execute(select(db.hand_lines.c.hand).where(db.hand_lines.c.table_id == table)).scalars().all()
            hands = [r.hand for r in rows if r.hand]  # hand 0 is the signed settlement of a finished table
            total += len(hands)
            if hands != list(range(1, len(hands) + 1)) or sorted(lines) != hands:
                bad += 1
            failures += len(
                verify_documents([(str(r.hand), json.loads(r.document)) for r in rows], replay_records=False).failures
            )
    return total, bad, failures


def hands_by_table(url: str) -> dict[str, int]:
    engine = db.connect(url)
    with engine.connect() as c:
        rows = c.execute(select(db.transcripts.c.table_id, db.transcripts.c.hand)).all()
    out: dict[str, int] = {}
    for table, hand in rows:
        out[table] = max(out.get(table, 0), hand)
    return out


async def load(port: int, tables: list[str], seconds: float, on_half) -> list[float]:
    rng = np.random.default_rng(1)
    players = [Player(port, t, 0, np.random.default_rng(rng.integers(2**32))) for t in tables]
    stop_at = time.monotonic() + seconds
    tasks = [asyncio.create_task(p.run(stop_at)) for p in players]
    await asyncio.sleep(seconds / 2)
    await asyncio.get_running_loop().run_in_executor(None, on_half)
    await asyncio.gather(*tasks)
    return [x for p in players for x in p.latencies]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="fairdeal-bench-"))
    url, port = str(folder / "load.db"), free_port()
    base = baseline(30)
    server = start_server(url, port)
    http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    tables = []
    for _ in range(args.tables):
        table = post(http, "/api/tables", {"system": "sochi", "seats": 3, "max_hands": 500})["table"]
        for seat in (1, 2):
            post(http, f"/api/tables/{table}/bots", {"seat": seat})
        tables.append(table)
    memory = [rss_mib(server.pid)]
    state = {"server": server, "before": {}}

    def kill_and_restart() -> None:
        memory.append(rss_mib(state["server"].pid))
        state["server"].send_signal(signal.SIGKILL)
        state["server"].wait()
        state["before"] = hands_by_table(url)
        state["server"] = start_server(url, port)
        state["restarted"] = rss_mib(state["server"].pid)

    started = time.perf_counter()
    latencies = asyncio.run(load(port, tables, args.seconds, kill_and_restart))
    elapsed = time.perf_counter() - started
    memory.append(rss_mib(state["server"].pid))
    after = hands_by_table(url)
    stages = [http.get(f"/api/tables/{t}").json() for t in tables]
    state["server"].send_signal(signal.SIGTERM)
    state["server"].wait(timeout=30)
    total, bad, failures = check_tables(url, tables)
    resumed = sum(1 for t in tables if after.get(t, 0) > state["before"].get(t, 0))
    lat = np.array(latencies) * 1000
    served = total / elapsed
    print(
        f"{args.tables} tables (one WebSocket player and two server bots each), {elapsed:.0f} s, kill -9 at "
        f"{args.seconds / 2:.0f} s then restart"
    )
    print(
        f"hands served: {total} ({served:.1f} hands/s); in-process driver baseline {base:.1f} hands/s "
        f"(ratio {served / base:.2f})"
    )
    print(
        f"message latency (send -> ack): p50 {np.percentile(lat, 50):.1f} ms, p99 {np.percentile(lat, 99):.1f} ms "
        f"over {len(lat)} messages"
    )
    print(
        f"server RSS: {memory[0]:.0f} MiB at start, {memory[1]:.0f} MiB before the kill, "
        f"{state['restarted']:.0f} MiB after restart, {memory[2]:.0f} MiB at the end"
    )
    print(f"lost or duplicated hands: {bad} table(s) with a gap or a repeat; transcript failures: {failures}")
    print(f"tables that moved on after the restart: {resumed} of {len(tables)}")
    still = sorted(
        {
            f"{v['stage']} ({v['reason']})"
            for v in stages
            if after.get(v["table"], 0) <= state["before"].get(v["table"], 0)
        }
    )
    if still:
        print(f"where the others stand: {', '.join(still)}")


if __name__ == "__main__":
    main()
