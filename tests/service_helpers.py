"""A scripted WebSocket player for the service tests: the Player role of commit-reveal, from its own key."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
from websockets.sync.client import connect

from fairdeal.protocols.canonical import encode
from fairdeal.protocols.commit_reveal4 import messages as m
from fairdeal.protocols.commit_reveal4.parties import Player
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.signed import Envelope, parse
from fairdeal.service.app import login_statement


class ScriptedPlayer:
    """Joins (or resumes) a seat over a WebSocket and plays: the v4 Player role of its own key (roster signature,
    acceptance, commitments, seeds, countersignatures, settlement), then legal actions chosen at random."""

    def __init__(
        self,
        server: Server,
        table: str,
        name: str,
        seat: int | None,
        key: IdentityKey | None = None,
        rng: np.random.Generator | None = None,
    ):
        self.server, self.table, self.name, self.seat = server, table, name, seat
        self.key = key or IdentityKey.generate(name)
        self.rng = rng or np.random.default_rng(0)
        self.seeds: dict[tuple[int, int], bytes] = {}
        self.done: set[tuple] = set()
        self.views: list[dict] = []
        self.errors: list[str] = []
        self.chain: list[dict] = []  # every signed message of the session, as the relay sent them
        self.player: Player | None = None
        self.shown = 0
        self.seq = 0
        self.acks = 0  # messages of mine the table accepted
        self.ws = None

    @property
    def public_key(self) -> str:
        return self.key.public.hex

    def connect(self) -> dict:
        self._cm = connect(f"ws://127.0.0.1:{self.server.port}/ws/{self.table}", open_timeout=10)
        self.ws = self._cm.__enter__()
        nonce = json.loads(self.ws.recv(timeout=10))["nonce"]
        self.chain, self.shown = [], 0  # the relay sends the whole chain again; my party skips what it knows
        self.ws.send(
            json.dumps(
                {
                    "type": "hello",
                    "key": self.public_key,
                    "name": self.name,
                    "seat": self.seat,
                    "signature": self.key.sign(encode(login_statement(self.table, nonce))).hex(),
                }
            )
        )
        self.receive("view")
        return self.views[-1]

    def close(self) -> None:
        self._cm.__exit__(None, None, None)
        self.ws = None

    def receive(self, kind: str | None = None, timeout: float = 30) -> dict:
        while True:
            message = json.loads(self.ws.recv(timeout=timeout))
            if message["type"] == "view":
                self.views.append(message["view"])
            if message["type"] == "chain":
                assert message["from"] == len(self.chain), "the relay skipped part of the chain"
                self.chain += message["envelopes"]
            if message["type"] == "error":
                self.errors.append(message["error"])
            if kind is None or message["type"] == kind:
                return message

    def send(self, kind: str, body: dict, **override) -> dict:
        """Send a game action's envelope; returns the ack or the error that answers it."""
        self.seq = max(self.seq, self.views[-1]["last_seq"] if self.views else 0) + 1
        envelope = {
            "type": kind,
            "table": self.table,
            "seat": self.seat,
            "seq": self.seq,
            "body": body,
            "signature": None,
        } | override
        return self.send_raw(json.dumps(envelope))

    def send_raw(self, text: str | bytes) -> dict:
        self.ws.send(text if isinstance(text, str) else text.decode("utf-8"))
        while True:
            message = self.receive()
            if message["type"] in ("ack", "error"):
                return message

    def send_signed(self, envelope: dict, **override) -> dict:
        frame = {"type": "signed", "table": self.table, "seat": self.seat, "envelope": envelope} | override
        return self.send_raw(encode(frame))

    def news(self) -> list[Envelope]:
        shown, self.shown = self.chain[self.shown :], len(self.chain)
        return [parse(e) for e in shown]

    def answer(self, need: str, hand: int) -> Envelope:
        """What my v4 ``Player`` answers to the step ``need`` of ``hand``."""
        assert self.player is not None
        news = self.news()
        if need == m.ACCEPT:
            return self.player.accept_session(news)
        if need == m.COMMIT:
            return self.player.commit(hand, news)
        if need == m.REVEAL:
            return self.player.reveal(hand, news)
        if need == m.RECORD_SIGN:
            return self.player.countersign(hand, news)
        return self.player.sign_settlement(news)

    def sign_roster(self, view: dict) -> dict:
        roster = Roster.from_json(view["protocol"]["roster"])
        frame = {
            "type": "roster-sign",
            "table": self.table,
            "seat": self.seat,
            "signature": self.key.sign(roster.message()).hex(),
        }
        return self.send_raw(encode(frame))

    def _seed(self, hand: int, attempt: int) -> bytes:
        return self.seeds.setdefault((hand, attempt), secrets.token_bytes(32))

    def step(self, view: dict) -> bool:
        """Do what ``view`` asks of this seat (once); False when nothing is asked."""
        protocol, game = view["protocol"], view["game"]
        need, hand = protocol["need"], protocol["hand"]
        if need is not None and (need, hand, protocol["chain"]) not in self.done:
            self.done.add((need, hand, protocol["chain"]))
            if need == "roster-sign":
                self._ok(self.sign_roster(view))
            else:
                if self.player is None:  # the roster is signed by all now: my party checks it before accepting
                    self.player = Player(self.seat, self.key, Roster.from_json(protocol["roster"]), self._seed)
                self._ok(self.send_signed(self.answer(need, hand).to_json()))
            return True
        if game and game["legal"] and ("act", hand, game["step"]) not in self.done:
            self.done.add(("act", hand, game["step"]))
            action = game["legal"][int(self.rng.integers(len(game["legal"])))]
            self._ok(self.send("act", {"action": action}))
            return True
        return False

    def _ok(self, reply: dict) -> None:
        assert reply["type"] == "ack", reply
        self.acks += 1

    def play_until(self, done, limit: float = 60.0) -> dict:
        """Act on every view until ``done(view)``; returns that view."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            view = self.views[-1]
            if done(view):
                return view
            if not self.step(view):
                try:
                    self.receive("view", timeout=max(0.1, deadline - time.monotonic()))
                except TimeoutError:
                    break
        view = self.views[-1]
        raise AssertionError(
            f"{self.name}: the table did not reach the wanted state in {limit} s: at {view['stage']} "
            f"({view['reason']}), asked {view['protocol']['need']}; errors {self.errors[-3:]}"
        )


def create_table(server: Server, system: str = "sochi", seats: int = 3, max_hands: int = 60) -> str:
    reply = server.http.post("/api/tables", json={"system": system, "seats": seats, "max_hands": max_hands})
    assert reply.status_code == 201, reply.text
    return reply.json()["table"]


def hands_done(n: int):
    return lambda view: len(view["history"]) >= n


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``fairdeal serve`` in its own process on a free loopback port (so a test can kill -9 and restart it)."""

    def __init__(
        self,
        db_url: str,
        bot_delay: float = 0.0,
        port: int | None = None,
        turn_timeout: float = 300,
        key: str | None = None,
    ):
        if key is None and "://" in db_url:  # a server database: one key per database, not in the working folder
            folder = Path(tempfile.gettempdir()) / "fairdeal-test-service-keys"
            folder.mkdir(exist_ok=True)
            key = str(folder / f"{hashlib.sha256(db_url.encode()).hexdigest()[:16]}.key")
        self.db_url, self.bot_delay, self.turn_timeout, self.key = db_url, bot_delay, turn_timeout, key
        self.port = port or free_port()
        self.process: subprocess.Popen | None = None
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=30)

    def start(self) -> Server:
        command = [
            sys.executable,
            "-m",
            "fairdeal",
            "serve",
            "--port",
            str(self.port),
            "--db",
            self.db_url,
            "--bot-delay",
            str(self.bot_delay),
            "--turn-timeout",
            str(self.turn_timeout),
            *(["--key", self.key] if self.key else []),
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"fairdeal serve exited: {self.process.stderr.read().decode()}")
            try:
                if self.http.get("/api/systems").status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError("fairdeal serve did not start within 30 s")

    def kill(self) -> None:
        """``kill -9``: no shutdown of any kind."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class PostgresCluster:
    """A throwaway PostgreSQL cluster on a temp dir and a free loopback port, run as the ``postgres`` user when
    the tests run as root (initdb refuses root)."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="fairdeal-pg-"))
        self.port = free_port()
        self.bin = _pg_bin()

    def _run(self, *args: str) -> None:
        command = [str(a) for a in args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def start(self) -> str:
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        data = self.dir / "data"
        self._run(self.bin / "initdb", "-D", data, "-U", "fairdeal", "--auth=trust", "-E", "UTF8")
        self._run(
            self.bin / "pg_ctl",
            "-D",
            data,
            "-l",
            self.dir / "log",
            "-w",
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )
        self._run(self.bin / "createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "fairdeal", "fairdeal")
        return f"postgresql://fairdeal@127.0.0.1:{self.port}/fairdeal"

    def stop(self) -> None:
        try:
            self._run(self.bin / "pg_ctl", "-D", self.dir / "data", "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _pg_bin() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not versions:
        raise RuntimeError("PostgreSQL is not installed (make installs Debian's postgresql as root)")
    return versions[-1].parent
