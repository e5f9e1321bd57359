"""End to end in Debian's headless Chromium: three browser players, each with its own identity key in its own
IndexedDB, sit at a table and play two whole hands by clicking; one reloads the page mid-hand and carries on.
Every protocol message is signed in the browsers (fairdeal-commit-reveal/4); the downloaded transcripts and the
signed settlement verify in Python with the roster pinned and each browser's exported key as ``--me``, and the
database holds every message each browser sent."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from browser_helpers import click_something, wait_until
from service_helpers import Server, create_table
from sqlalchemy import func, select

from fairdeal.protocols.commit_reveal4.check import Pins
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.verify import verify_documents
from fairdeal.service import db

# FAIRDEAL_SCREENSHOTS=docs/screenshots refreshes the committed pictures; otherwise they go to the test's temp dir.
SHOTS_DIR = os.environ.get("FAIRDEAL_SCREENSHOTS")
NAMES = ["Анна", "Boris", "Вера"]


def _export_key(page, path: Path) -> Path:
    """The browser's identity key, exported from the lobby as the key file `fairdeal keys new` writes."""
    page.goto(page.url.split("#")[0] + "#")
    page.wait_for_selector("#export-key")
    with page.expect_download() as download:
        page.click("#export-key")
    download.value.save_as(path)
    path.chmod(0o600)
    return path


def _operator_row(page, server: Server, table: str) -> tuple[str, bool, str]:
    """The operators' page's row of ``table``: its stage as shown, whether Abort is greyed out, the row's class."""
    page.goto(f"http://127.0.0.1:{server.port}/operator")
    row = page.locator(f"#tables tr[data-table='{table}']")
    row.wait_for(timeout=10_000)
    return row.locator("td").nth(2).inner_text(), row.locator("button.abort").is_disabled(), row.get_attribute("class")


def test_three_browsers_play_two_hands_one_reconnecting(browser, tmp_path):
    shots = Path(SHOTS_DIR) if SHOTS_DIR else tmp_path
    with Server(str(tmp_path / "fairdeal.db")) as server:
        table = create_table(server, max_hands=2)
        url = f"http://127.0.0.1:{server.port}/#{table}"
        pages, console = [], []
        for seat, name in enumerate(NAMES):
            page = browser.new_context(viewport={"width": 1280, "height": 820}).new_page()
            page.on("console", lambda m, seat=seat: console.append(f"{seat}: {m.text}"))
            page.on("pageerror", lambda e, seat=seat: console.append(f"{seat}: {e}"))
            page.goto(f"http://127.0.0.1:{server.port}/")
            page.fill("#name", name)
            page.press("#name", "Tab")
            page.goto(url)
            page.click(f"button.sit[data-seat='{seat}']")
            wait_until(lambda seat=seat: len(server.http.get(f"/api/tables/{table}").json()["roster"]) == seat + 1)
            pages.append(page)
        for page in pages:
            page.wait_for_selector("#mine", timeout=20_000)
        keys = {r["seat"]: r["key"] for r in server.http.get(f"/api/tables/{table}").json()["roster"]}
        assert len(set(keys.values())) == 3
        rng = np.random.default_rng(5)
        reloaded, shot = False, False
        deadline = time.monotonic() + 120
        while server.http.get(f"/api/tables/{table}").json()["stage"] != "finished":
            if time.monotonic() > deadline:
                for i, page in enumerate(pages):
                    page.screenshot(path=str(tmp_path / f"stuck-{i}.png"))
                statuses = [page.inner_text("#status") for page in pages]
                raise AssertionError(
                    f"two hands were not finished in time; {statuses}; {console[-10:]}; shots in {tmp_path}"
                )
            for seat, page in enumerate(pages):
                if not reloaded and seat == 1 and page.query_selector("#trick .played"):
                    page.reload()  # drop the connection mid-hand; the key and seeds stay in IndexedDB
                    try:
                        page.wait_for_selector("#mine", timeout=40_000)
                    except Exception:
                        page.screenshot(path=str(tmp_path / "reload.png"))
                        raise
                    reloaded = True
                if not shot and page.query_selector_all("#trick .played").__len__() >= 2:
                    page.screenshot(path=str(shots / "table.png"))
                    shot = True
                click_something(page, rng)
            time.sleep(0.05)
        checked = "() => [...document.querySelectorAll('#history td.check')].map((e) => e.innerText).join() === '✓,✓'"
        for page in pages:  # every row's check, not only the last: a reloaded page checks the first hand again
            page.wait_for_function(checked, timeout=60_000)  # three Chromium pages beside the other workers
        for page in pages:  # each browser re-derived each deck from the revealed seeds, and its own cards
            assert page.locator("#history td.check").all_inner_texts() == ["✓", "✓"]
        pages[0].locator("#sheet").screenshot(path=str(shots / "sheet.png"))
        pages[0].screenshot(path=str(shots / "table-finished.png"))
        docs = server.http.get(f"/api/tables/{table}/transcripts").json()
        roster = server.http.get(f"/api/tables/{table}/roster").json()
        view = server.http.get(f"/api/tables/{table}").json()
        key_files = [_export_key(page, tmp_path / f"seat-{seat}.key") for seat, page in enumerate(pages)]
    assert reloaded and len(docs) == 3 and docs[2]["format"] == "fairdeal-settlement"
    assert [s["key"] for s in roster["roster"]["seats"]] == [keys[s] for s in range(3)]
    for seat, path in enumerate(key_files):
        me = IdentityKey.load(path)
        assert me.public.hex == keys[seat]
        report = verify_documents(
            [(f"doc {i}", d) for i, d in enumerate(docs)], pins=Pins(Roster.from_json(roster), (), me)
        )
        assert report.failures == (), report.failures
        mine = f"me: player {NAMES[seat]} at seat {seat}: my signed commitment, seed and countersignature"
        assert any(n.startswith(mine) and n.endswith("in hands 1, 2") for n in report.notes), report.notes
    engine = db.connect(str(tmp_path / "fairdeal.db"))
    with engine.connect() as c:
        per_seat = dict(
            c.execute(
                select(db.messages.c.seat, func.max(db.messages.c.seq))
                .where(db.messages.c.table_id == table)
                .group_by(db.messages.c.seat)
            ).all()
        )
        total = c.execute(select(func.count()).select_from(db.messages).where(db.messages.c.table_id == table)).scalar()
    people = {seat: top for seat, top in per_seat.items() if seat >= 0}  # -1, -2: the service's own rows
    assert total - sum(n for seat, n in per_seat.items() if seat < 0) == sum(people.values()) and set(people) == {
        0,
        1,
        2,
    }
    assert view["stage"] == "finished" and len(view["history"]) == 2


def test_a_browser_checks_an_evenings_end_shows_the_charge_and_signs_the_settlement(browser, tmp_path):
    """Dan (a scripted seat) countersigns hand 1 and walks away in hand 2: the browser at seat 0 checks the
    service's signed end against its own chain, countersigns the settlement, and shows the end and the charge."""
    import threading

    from service_helpers import ScriptedPlayer

    with Server(str(tmp_path / "fairdeal.db"), turn_timeout=6) as server:
        table = create_table(server, max_hands=3)
        page = browser.new_context(viewport={"width": 1280, "height": 820}).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{server.port}/")
        page.fill("#name", "Анна")
        page.press("#name", "Tab")
        page.goto(f"http://127.0.0.1:{server.port}/#{table}")
        page.click("button.sit[data-seat='0']")
        wait_until(lambda: len(server.http.get(f"/api/tables/{table}").json()["roster"]) == 1)
        assert server.http.post(f"/api/tables/{table}/bots", json={"seat": 1}).status_code == 200
        dan = ScriptedPlayer(server, table, "Dan", 2)
        dan.connect()

        def walked(view: dict) -> bool:
            need, hand = view["protocol"]["need"], view["protocol"]["hand"]
            if need == "record-sign" and hand == 2:
                dan.done.add((need, hand, view["protocol"]["chain"]))
            return view["stage"] in ("ended", "aborted")

        walker = threading.Thread(target=lambda: dan.play_until(walked, limit=170), daemon=True)
        walker.start()
        rng = np.random.default_rng(3)
        deadline = time.monotonic() + 180
        while server.http.get(f"/api/tables/{table}").json()["stage"] not in ("ended", "aborted"):
            assert time.monotonic() < deadline, "the evening did not end in time"
            click_something(page, rng)
            time.sleep(0.05)
        walker.join(timeout=30)
        page.wait_for_selector("#ended", timeout=20_000)
        shown = page.inner_text("#ended")
        view = server.http.get(f"/api/tables/{table}").json()
        docs = server.http.get(f"/api/tables/{table}/transcripts").json()
        roster = server.http.get(f"/api/tables/{table}/roster").json()
        key = _export_key(page, tmp_path / "anna.key")
        operator = _operator_row(page, server, table)
        refused = server.http.post(f"/api/tables/{table}/abort", json={})
        dan.close()
    assert not errors, errors
    assert operator == ("ended in hand 2 (record-sign), the hand void; charged: Dan", True, "over")
    assert refused.status_code == 409 and "already ended" in refused.json()["error"]
    assert view["stage"] == "ended" and view["ended"]["charged"] == [2], view["reason"]
    assert "Вечер окончен досрочно" in shown and "Dan" in shown and "2" in shown
    signs = [e["sender"] for e in docs[-1]["messages"] if e["kind"] == "settlement-sign"]
    assert signs == [0, 1]  # the browser, then the bot; never the charged seat
    report = verify_documents(
        [(f"doc {i}", d) for i, d in enumerate(docs)], pins=Pins(Roster.from_json(roster), (), IdentityKey.load(key))
    )
    assert report.failures == (), [f.line() for f in report.failures]
    assert any("player Dan charged" in note for note in report.notes)
