"""A scripted WebSocket player for the service tests: the Player role of commit-reveal, from its own key."""

from __future__ import annotations

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
from nacl.signing import SigningKey
from websockets.sync.client import connect

from fairdeal.protocols.commit_reveal import seed_statement, sign
from fairdeal.protocols.derive import chain_step, seed_commitment
from fairdeal.service.app import login_statement


class ScriptedPlayer:
    """Joins (or resumes) a seat over a WebSocket and plays: countersign, commit, open, then legal actions."""

    def __init__(
        self,
        server: Server,
        table: str,
        name: str,
        seat: int | None,
        key: SigningKey | None = None,
        rng: np.random.Generator | None = None,
    ):
        self.server, self.table, self.name, self.seat = server, table, name, seat
        self.key = key or SigningKey.generate()
        self.rng = rng or np.random.default_rng(0)
        self.seeds: dict[int, bytes] = {}
        self.done: set[tuple] = set()
        self.views: list[dict] = []
        self.errors: list[str] = []
        self.seq = 0
        self.ws = None

    @property
    def public_key(self) -> str:
        return self.key.verify_key.encode().hex()

    def connect(self) -> dict:
        self._cm = connect(f"ws://127.0.0.1:{self.server.port}/ws/{self.table}", open_timeout=10)
        self.ws = self._cm.__enter__()
        nonce = json.loads(self.ws.recv(timeout=10))["nonce"]
        self.ws.send(
            json.dumps(
                {
                    "type": "hello",
                    "key": self.public_key,
                    "name": self.name,
                    "seat": self.seat,
                    "signature": sign(self.key, login_statement(self.table, nonce)),
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
            if message["type"] == "error":
                self.errors.append(message["error"])
            if kind is None or message["type"] == kind:
                return message

    def send(self, kind: str, body: dict, **override) -> dict:
        """Send an envelope; returns the ack or the error that answers it."""
        self.seq = max(self.seq, self.views[-1]["last_seq"] if self.views else 0) + 1
        envelope = {
            "type": kind,
            "table": self.table,
            "seat": self.seat,
            "seq": self.seq,
            "body": body,
            "signature": None,
        } | override
        self.ws.send(json.dumps(envelope))
        while True:
            message = self.receive()
            if message["type"] in ("ack", "error"):
                return message

    def step(self, view: dict) -> bool:
        """Do what ``view`` asks of this seat (once); False when nothing is asked."""
        protocol, game = view["protocol"], view["game"]
        need, hand = protocol["need"], protocol.get("hand")
        if need == "countersign" and ("cs",) not in self.done:
            self.done.add(("cs",))
            self._ok(self.send("countersign", {"signature": sign(self.key, protocol["statement"])}))
            return True
        if need == "commit" and ("commit", hand) not in self.done:
            self.done.add(("commit", hand))
            self._check_chain(protocol)
            seed = self.seeds.setdefault(hand, secrets.token_bytes(32))
            digest = seed_commitment(self.table, "pulya", hand, self.name, seed).hex()
            statement = seed_statement(
                protocol["statement"], hand, protocol["dealer"], self.seat, protocol["service_commitment"], digest
            )
            self._ok(self.send("commit", {"statement": statement, "signature": sign(self.key, statement)}))
            return True
        if need == "seed" and ("seed", hand) not in self.done:
            self.done.add(("seed", hand))
            self._ok(self.send("seed", {"seed": self.seeds[hand].hex()}))
            return True
        if game and game["legal"] and ("act", hand, game["step"]) not in self.done:
            self.done.add(("act", hand, game["step"]))
            action = game["legal"][int(self.rng.integers(len(game["legal"])))]
            self._ok(self.send("act", {"action": action}))
            return True
        return False

    def _check_chain(self, protocol: dict) -> None:
        """The service's commitment must be the chain's next link: the anchor, or the last hand's reveal."""
        hand = protocol["hand"]
        expected = protocol["anchor"] if hand == 1 else protocol["reveals"][str(hand - 1)]
        assert protocol["service_commitment"] == expected
        if hand > 1:
            link = bytes.fromhex(protocol["reveals"][str(hand - 1)])
            previous = protocol["anchor"] if hand == 2 else protocol["reveals"][str(hand - 2)]
            assert chain_step(self.table, "pulya", hand - 1, link).hex() == previous

    def _ok(self, reply: dict) -> None:
        assert reply["type"] == "ack", reply

    def play_until(self, done, limit: float = 60.0) -> dict:
        """Act on every view until ``done(view)``; returns that view."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            view = self.views[-1]
            if done(view):
                return view
            if not self.step(view):
                self.receive("view")
        raise AssertionError(f"{self.name}: the table did not reach the wanted state in {limit} s")


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

    def __init__(self, db_url: str, bot_delay: float = 0.0, port: int | None = None, turn_timeout: float = 300):
        self.db_url, self.bot_delay, self.turn_timeout = db_url, bot_delay, turn_timeout
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
