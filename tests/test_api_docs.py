"""The public API (issue 19): `import fairdeal` is light, every documented name resolves, and the examples of
docs/api.md run as written."""

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import fairdeal

API_PAGE = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def test_import_fairdeal_loads_nothing_heavy():
    code = "import sys, fairdeal; print(sorted(m for m in ('numpy', 'scipy', 'nacl') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "[]"


def test_every_public_name_resolves_and_is_documented():
    page = API_PAGE.read_text(encoding="utf-8")
    for name in fairdeal.__all__:
        assert getattr(fairdeal, name) is not None
    for name in ("get_convention", "new_hand", "play_match", "verify_log", "run_audit"):
        assert f"fairdeal.{name}(" in page
    with pytest.raises(AttributeError):
        getattr(fairdeal, "no_such_thing")  # noqa: B009 - a literal attribute would be a type error here


def test_all_lists_exactly_the_lazy_names():
    assert sorted(fairdeal.__all__) == sorted(["__version__", *fairdeal._API])


def test_the_examples_of_the_api_page_run():
    failures, tried = doctest.testfile(str(API_PAGE), module_relative=False, globs={}, optionflags=doctest.ELLIPSIS)
    assert tried > 10 and failures == 0
