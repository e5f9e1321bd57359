"""Test-wide settings: CI runs hypothesis derandomized, and no test fails on a slow shared machine's deadline; the
built offline verifier page as a file, for the tests that run it under Node or Chromium."""

import os
from pathlib import Path

import pytest
from browser_helpers import ARGS, CHROMIUM
from hypothesis import settings

from fairdeal.web.verifier_page import page_bytes

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(scope="session")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped verifier page, written once to a file."""
    path = tmp_path_factory.mktemp("page") / "verifier.html"
    path.write_bytes(page_bytes())
    return path


@pytest.fixture
def browser():
    """Debian's Chromium, headless, driven by Playwright."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is needed (make installs it as root)")
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield instance
        instance.close()
