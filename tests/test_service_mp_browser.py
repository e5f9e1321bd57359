"""End to end in Debian's headless Chromium at a mental-poker table: three browser players (separate contexts,
separate identity keys in their own IndexedDB) deal and play by clicking; one reloads mid-hand and her party comes
back from IndexedDB. A fourth context watches the table and records the traffic of all four sockets: from it, and
from the service's database, no card a player holds unplayed can be opened — a share of it is missing. The
transcripts verify in ``fairdeal verify`` and in the offline page. A browser witnesses a player who walks away,
and signs the end it checked."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from browser_helpers import click_something, wait_until
from click.testing import CliRunner
from mp_socket_seat import SocketSeat
from service_helpers import Server
from sqlalchemy import select

from fairdeal.cli import cli
from fairdeal.deal import get_pattern
from fairdeal.protocols.canonical import encode
from fairdeal.service import db

RUNNER = Path(__file__).parent / "js" / "run_verifier_page.cjs"
NAMES = ["Анна", "Boris", "Вера"]
# Steps whose shares open a card to every seat (a card played, the talon shown, the dummy or a hand laid open,
# the final reveal); 'deal' and 'take' give each share to one seat's cards, which that seat alone completes.
OPENING = {"play", "talon", "turn", "dummy", "open", "reveal"}


class Wiretap:
    """Every WebSocket frame a page sends or receives, as parsed JSON."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []

    def attach(self, page: Any) -> None:
        def socket(ws: Any) -> None:
            ws.on("framereceived", lambda payload: self._keep(payload))
            ws.on("framesent", lambda payload: self._keep(payload))

        page.on("websocket", socket)

    def _keep(self, payload: str | bytes) -> None:
        self.frames.append(json.loads(payload))

    def rows(self) -> list[dict[str, Any]]:
        """The seats' signed protocol messages seen on any socket, relayed or sent."""
        seen: dict[str, dict[str, Any]] = {}
        for frame in list(self.frames):
            if frame.get("type") == "chain":
                for row in frame["envelopes"]:
                    if row["type"] == "mp-signed":
                        seen[row["body"]["signature"]] = row["body"]
            elif frame.get("type") == "mp-signed":
                seen[frame["envelope"]["signature"]] = frame["envelope"]
        return list(seen.values())

    def last_view(self) -> dict[str, Any] | None:
        views = [f["view"] for f in list(self.frames) if f.get("type") == "view"]
        return views[-1] if views else None


def _shared(envelopes: list[dict[str, Any]], hand: int) -> tuple[dict[int, set[int]], set[int]]:
    """Per deck position, the seats whose decryption share of it is in ``envelopes``; and the positions whose
    shares were given to all (played or opened)."""
    sharers: dict[int, set[int]] = {}
    opened: set[int] = set()
    for envelope in envelopes:
        if envelope["hand"] != hand:
            continue
        body, kind = envelope["body"], envelope["kind"]
        positions = [body["position"]] if kind == "play" else [s["position"] for s in body.get("shares", [])]
        for position in positions:
            sharers.setdefault(position, set()).add(envelope["sender"])
            if kind in OPENING:
                opened.add(position)
    return sharers, opened


def _assert_nothing_private_opens(envelopes: list[dict[str, Any]], setup: dict[str, Any]) -> int:
    """No position of a player's hand is complete in ``envelopes`` unless a step open to all opened it; returns
    how many private positions were checked (none once the final reveal has begun: it opens every card)."""
    if any(e["hand"] == setup["hand"] and e["kind"] == "reveal" for e in envelopes):
        return 0
    pattern = get_pattern(setup["pattern"])
    sharers, opened = _shared(envelopes, setup["hand"])
    checked = 0
    for index, _name in enumerate(setup["players"]):
        for position in pattern.hand_positions[pattern.player_hands[index]]:
            if int(position) in opened:
                continue
            checked += 1
            assert len(sharers.get(int(position), set())) < len(setup["players"]), (
                f"position {position} of {setup['players'][index]}'s hand can be opened from the traffic"
            )
    return checked


def _database_envelopes(db_file: Path) -> list[dict[str, Any]]:
    engine = db.connect(str(db_file))
    with engine.connect() as c:
        rows = c.execute(select(db.messages.c.body).where(db.messages.c.type == "mp-signed")).scalars().all()
    engine.dispose()
    return [json.loads(body) for body in rows]


def _seat_browsers(
    browser: Any, server: Server, table: str, wiretap: Wiretap, console: list[str], seats: tuple[int, ...] = (0, 1, 2)
) -> list[Any]:
    pages = []
    for seat in seats:
        name = NAMES[seat]
        page = browser.new_context(viewport={"width": 1280, "height": 820}).new_page()
        page.on("console", lambda m, seat=seat: console.append(f"{seat}: {m.text}"))
        page.on("pageerror", lambda e, seat=seat: console.append(f"{seat}: {e}"))
        wiretap.attach(page)
        page.goto(f"http://127.0.0.1:{server.port}/")
        page.fill("#name", name)
        page.press("#name", "Tab")
        page.goto(f"http://127.0.0.1:{server.port}/#{table}")
        page.click(f"button.sit[data-seat='{seat}']")
        wait_until(
            lambda seat=seat: seat in [r["seat"] for r in server.http.get(f"/api/tables/{table}").json()["roster"]]
        )
        pages.append(page)
    return pages


def _assert_verifies(tmp_path: Path, page: Path, docs: list[dict[str, Any]], log: str) -> None:
    """The table's documents verify in ``fairdeal verify`` and in the offline page; its log validates."""
    files = []
    for i, doc in enumerate(docs):
        path = tmp_path / f"doc-{i}.json"
        path.write_bytes(encode(doc))
        files.append(str(path))
    (tmp_path / "evening.jsonl").write_text(log, encoding="utf-8")
    for command in (["verify", *files], ["log", "validate", str(tmp_path / "evening.jsonl")]):
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, result.output
    shown = subprocess.run(["node", str(RUNNER), str(page), *files], capture_output=True, text=True, timeout=300)
    assert shown.returncode == 0, shown.stderr


def _roster(server: Server, table: str) -> list[dict[str, Any]]:
    return list(server.http.get(f"/api/tables/{table}").json()["roster"])


def _reload(player: Any) -> None:
    player.reload()
    player.wait_for_selector("#mine .card", timeout=40_000)


@pytest.mark.parametrize(("system", "hands"), [("sochi", 2), ("preferans-1800s", 1)])
def test_three_browsers_deal_mentally_and_a_spy_opens_no_card(browser, tmp_path, page, system, hands):
    db_file = tmp_path / "fairdeal.db"
    with Server(str(db_file)) as server:
        body = {"system": system, "seats": 3, "max_hands": hands, "dealing": "mental-poker"}
        table = server.http.post("/api/tables", json=body).json()["table"]
        wiretap, console = Wiretap(), []
        pages = _seat_browsers(browser, server, table, wiretap, console)
        spy = browser.new_context().new_page()  # watches the table, sits nowhere
        wiretap.attach(spy)
        spy.goto(f"http://127.0.0.1:{server.port}/#{table}")
        rng = np.random.default_rng(7)
        reloaded, discarded, checked = set(), False, 0
        deadline = time.monotonic() + 240
        while (view := server.http.get(f"/api/tables/{table}").json())["stage"] != "finished":
            assert view["stage"] != "aborted", view["reason"]
            if time.monotonic() > deadline:
                statuses = [p.inner_text("#status") for p in pages]
                raise AssertionError(f"the evening did not finish: {view['stage']}; {statuses}; {console[-10:]}")
            watched = wiretap.last_view()
            dealt = watched and watched["stage"] == "play" and watched["due"]
            if dealt and watched["due"]["step"] not in ("keys", "shuffle", "deal", "reveal", "discard-open"):
                checked += _assert_nothing_private_opens(wiretap.rows(), watched["setup"])
                checked += _assert_nothing_private_opens(_database_envelopes(db_file), watched["setup"])
            game = view["game"]
            if game and game["phase"] == "play" and game["declarer"] is not None and not discarded:
                discarded = True  # the declarer reloads in play: his discard's nonce comes back from IndexedDB
                _reload(pages[game["declarer"]])
                reloaded.add("after the discard")
            for seat, player in enumerate(pages):
                if "after the deal" not in reloaded and seat == 1 and player.query_selector("#mine .card"):
                    _reload(player)  # dealt, she reloads: her key share comes back from IndexedDB
                    reloaded.add("after the deal")
                click_something(player, rng)
            time.sleep(0.05)
        for player in pages:
            player.wait_for_function(
                f"() => document.querySelectorAll('#history td.check').length === {hands}", timeout=30_000
            )
            assert player.locator("#history td.check").all_inner_texts() == ["✓"] * hands
        docs = server.http.get(f"/api/tables/{table}/transcripts").json()
        log = server.http.get(f"/api/tables/{table}/log").text
    assert checked > 0 and "after the deal" in reloaded and not [line for line in console if "Error" in line]
    assert len(docs) == hands + 1 and docs[-1]["format"] == "fairdeal-settlement"
    _assert_verifies(tmp_path, page, docs, log)
    engine = db.connect(str(db_file))
    with engine.connect() as c:
        sent = c.execute(select(db.messages.c.seat, db.messages.c.type)).all()
    for seat in range(3):  # every seat dealt from its own browser
        assert {"roster-sign", "mp-signed", "statement"} <= {kind for s, kind in sent if s == seat}


def _walked_evening(
    browser: Any, tmp_path: Path, silent: frozenset[tuple[int, int, str]]
) -> tuple[list[dict[str, Any]], str]:
    """A Sochi evening of two browsers (seats 0 and 2, playing by clicks) and Boris on a socket, who leaves the
    ``silent`` (hand, attempt, step)s unanswered until the service times him out: it must end, each browser
    showing the end. Returns the table's documents and its log."""
    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=6) as server:
        body = {"system": "sochi", "seats": 3, "max_hands": 2, "dealing": "mental-poker"}
        table = server.http.post("/api/tables", json=body).json()["table"]
        wiretap, console = Wiretap(), []
        pages = _seat_browsers(browser, server, table, wiretap, console, seats=(0, 2))
        walker = SocketSeat(server.port, table, NAMES[1], 1, silent=silent)
        walker.connect()
        rng = np.random.default_rng(11)
        final = walker.play_until(
            lambda v: v["over"], limit=240, beside=lambda: [click_something(player, rng) for player in pages]
        )
        walker.close()
        assert final["stage"] == "ended", (final["reason"], console[-10:])
        for player in pages:
            player.wait_for_selector("#ended", timeout=30_000)
        docs = server.http.get(f"/api/tables/{table}/transcripts").json()
        log = server.http.get(f"/api/tables/{table}/log").text
    assert not [line for line in console if "Error" in line], console
    return docs, log


def test_a_browser_witnesses_a_player_who_walks_away_and_signs_the_end(browser, tmp_path, page):
    """Boris signs the roster and never deals. Each time he is timed out, Вера's browser — the next player of the
    hand — signs the abandon of that attempt; after the third the evening ends, and both browsers check the end
    against the stopped hand before they sign the settlement. Everything verifies."""
    docs, log = _walked_evening(browser, tmp_path, frozenset((1, a, "keys") for a in (1, 2, 3)))
    stopped, settlement = docs
    abandons = [a["messages"][-1] for a in stopped["aborts"]] + [stopped["messages"][-1]]
    assert [(m["kind"], m["sender"], m["body"]["player"]) for m in abandons] == [("abandon", 2, NAMES[1])] * 3
    assert sorted(s["sender"] for s in settlement["statements"]) == [0, 2]
    _assert_verifies(tmp_path, page, docs, log)


@pytest.mark.parametrize("step", ["act", "play"])
def test_a_browser_witnesses_a_player_late_with_a_decision_or_a_card(browser, tmp_path, page, step):
    """Boris stops answering when the game awaits his decision (or his card): the next player's browser signs the
    abandon at that step by itself, the hand is void and states the start its game is followed from, both
    browsers sign the end, and the evening verifies in Python and in the page — whose step was due followed
    through the chain of signed decisions and proven cards."""
    docs, log = _walked_evening(browser, tmp_path, frozenset((h, 1, step) for h in (1, 2)))
    stopped, settlement = docs[-2:]
    abandon = stopped["messages"][-1]
    at = "decide" if step == "act" else "play"
    assert (abandon["kind"], abandon["body"]) == ("abandon", {"player": NAMES[1], "at": at})
    assert "record" not in stopped and set(stopped["start"]) == {"raspasy_streak", "refe"}
    assert sorted(s["sender"] for s in settlement["statements"]) == [0, 2]
    _assert_verifies(tmp_path, page, docs, log)
