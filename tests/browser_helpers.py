"""Headless Chromium for the service's browser tests: Debian's build, how it is launched, and what a player does."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def wait_until(condition: Callable[[], Any], limit: float = 20.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "the table did not change in time"
        time.sleep(0.1)


def click_something(page: Any, rng: Any) -> bool:
    """One click a player would make now: an action button, a playable card (of his hand, or of a hand open to
    all that he plays), or a card to discard."""
    for selector in ("#mine button.act", "#felt .card.act", "#mine .card.pick:not(.chosen)"):
        found = page.locator(selector)
        count = found.count()
        if count:
            target = found.nth(int(rng.integers(count)) if "pick" not in selector else 0)
            try:
                target.click(timeout=5000)
            except Exception:  # the view changed under the pointer: look again
                return False
            return True
    return False
