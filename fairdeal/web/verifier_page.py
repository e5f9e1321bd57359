"""The offline verifier page: one HTML file, every script inline, that checks v4 commit-reveal transcripts in
the browser from ``file://`` (``fairdeal verifier-page``, ``/verifier`` of ``fairdeal serve``).

``python -m fairdeal.web.verifier_page`` (run by the Makefile) writes it from the page's sources, the esbuild
bundle of @noble and libsodium's WebAssembly build, and the system registry's decks and deal patterns, exported
here as data so the JavaScript deals exactly as ``fairdeal.deal`` does for every registered system and table size.
The page also carries Pyodide's core (from npm, pinned in the lockfile) and the modules of fairdeal's engine that
``page_replay`` imports, so it replays and scores records with the engine itself.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

from fairdeal.cards import DeckKind, to_ascii_list
from fairdeal.deal import DealPattern, get_pattern
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.system import conventions
from fairdeal.errors import FairdealError
from fairdeal.rules.overrides import parameter_forms

SOURCES = Path(__file__).with_name("verifier")
MENTAL_POKER = Path(__file__).with_name("mental_poker")
# The mental-poker verifier's classic scripts, each after the ones it uses.
MENTAL_POKER_SCRIPTS = (
    "group.js",
    "fiat_shamir.js",
    "proofs.js",
    "shuffle.js",
    "messages.js",
    "hand.js",
    "verify.js",
    "party.js",
)
PYODIDE = Path(__file__).with_name("node_modules") / "pyodide"
# Pyodide's loader, its Emscripten module, its WebAssembly binary, its standard library and its lockfile.
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
ENGINE_ZIP = "fairdeal.zip"
VENDOR = Path(__file__).with_name("static") / "vendor"
BUNDLE = VENDOR / "noble-verifier.js"
PAGE_NAME = "verifier.html"
# The served table's browser seat at a mental-poker table (after the bundle): the registry, the verifier, the
# mental-poker scripts and the seat (player.js), as one classic script.
SEAT_SCRIPT = VENDOR / "mental-poker.js"
REGISTRY_MARK = "/*REGISTRY*/"
ENGINE_MARK = "/*ENGINE*/"
SLOTS = ("/*NOBLE*/", "/*VERIFIER*/", "/*MENTAL_POKER*/", "/*PAGE*/", "/*ENGINE_LOADER*/", REGISTRY_MARK, ENGINE_MARK)
# Run in a fresh interpreter where numpy and msgspec cannot be imported, as under Pyodide: the modules the replay
# loads, by file, or the import that fails.
_CLOSURE = """
import importlib.abc, json, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "msgspec"):
            raise ModuleNotFoundError(f"{name} is not in the page's Pyodide")
sys.meta_path.insert(0, Absent())
import fairdeal.web.page_replay, fairdeal.systems
fairdeal.systems.registered()  # the registry imports its family modules on first use
print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() if n.split(".")[0] == "fairdeal")))
"""


class PageMissingError(FairdealError):
    """The page was not built (a checkout before ``make``)."""


def _pattern_data(pattern: DealPattern) -> dict[str, Any]:
    return {
        "deck": pattern.deck.value,
        "hands": pattern.hands,
        "talons": pattern.talons,
        "targets": [int(t) for t in pattern.targets],
        "table_sizes": list(pattern.table_sizes),
        "dummy_hand": pattern.dummy_hand,
        "aside_hand": pattern.aside_hand,
    }


def registry_data() -> dict[str, Any]:
    """Every registered system's players, deck and deal pattern per table size, the abort penalty of each seat per
    table size (the score items an evening's end charges), the patterns they name, the decks in code order (the
    order the shuffle starts from) and every house rule's type (so the page refuses what the engine cannot read)."""
    systems: dict[str, Any] = {}
    names: set[str] = set()
    for name, convention in sorted(conventions().items()):
        table = convention.table
        by_players = {str(n): table.pattern_name(n) for n in convention.players}
        names.update(by_players.values())
        systems[name] = {
            "players": list(convention.players),
            "deck": table.deck,
            "deal_pattern": table.deal_pattern,
            "patterns": by_players,
            # Computed here, by the engine's own rule, so the page never re-derives scoring.
            "abort_penalty": {
                str(n): [[line.to_record() for line in abort_penalty(convention, seat, n)] for seat in range(n)]
                for n in convention.players
            },
        }
    return {
        "decks": {kind.value: to_ascii_list(kind.codes()) for kind in DeckKind},
        "patterns": {name: _pattern_data(get_pattern(name)) for name in sorted(names)},
        "systems": systems,
        "parameters": dict(sorted(parameter_forms().items())),
    }


def engine_zip() -> bytes:
    """The modules of fairdeal that the page's replay imports, as one zip (reproducible: sorted, fixed times)."""
    done = subprocess.run([sys.executable, "-c", _CLOSURE], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise FairdealError(f"the page's engine imports what Pyodide lacks: {done.stderr.strip().splitlines()[-1]}")
    package = Path(__file__).parent.parent
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in json.loads(done.stdout):
            path = Path(name)
            entry = zipfile.ZipInfo(path.relative_to(package.parent).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            archive.writestr(entry, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def engine_data() -> str:
    """The page's "engine" element: each file's bytes, gzip-compressed (reproducibly) and base64-encoded."""
    files = {name: (PYODIDE / name).read_bytes() for name in PYODIDE_FILES} | {ENGINE_ZIP: engine_zip()}
    packed = {name: base64.b64encode(gzip.compress(data, 9, mtime=0)).decode() for name, data in files.items()}
    return json.dumps(packed, sort_keys=True)


def _script_safe(text: str) -> str:
    """Text that cannot close the ``<script>`` element it is inlined into."""
    return text.replace("</", "<\\/")


def _registry_script() -> str:
    return "globalThis.FAIRDEAL_REGISTRY = " + json.dumps(registry_data(), sort_keys=True) + ";"


def _mental_poker_scripts(*extra: str) -> str:
    return "\n".join((MENTAL_POKER / name).read_text(encoding="utf-8") for name in (*MENTAL_POKER_SCRIPTS, *extra))


def build_seat_script() -> str:
    """The browser seat's script: what the page verifies with, and the seat that plays (``player.js``)."""
    verifier = (SOURCES / "verifier.js").read_text(encoding="utf-8")
    return "\n".join((_registry_script(), verifier, _mental_poker_scripts("player.js")))


def build_page(bundle: str) -> str:
    """The page's HTML: the template with the @noble bundle, the verifier, the page script and the registry."""
    template = (SOURCES / "page.html").read_text(encoding="utf-8")
    parts = {
        "/*NOBLE*/": bundle,
        "/*VERIFIER*/": (SOURCES / "verifier.js").read_text(encoding="utf-8"),
        "/*MENTAL_POKER*/": _mental_poker_scripts(),
        "/*PAGE*/": (SOURCES / "page.js").read_text(encoding="utf-8"),
        "/*ENGINE_LOADER*/": (SOURCES / "engine.js").read_text(encoding="utf-8"),
        REGISTRY_MARK: _registry_script(),
        ENGINE_MARK: engine_data(),
    }
    for slot in SLOTS:
        if template.count(slot) != 1:
            raise FairdealError(f"{SOURCES / 'page.html'}: the slot {slot} must appear exactly once")
        template = template.replace(slot, _script_safe(parts[slot]))
    return template


def page_bytes() -> bytes:
    """The shipped page (package data)."""
    try:
        return resources.files("fairdeal").joinpath("web", "static", "vendor", PAGE_NAME).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        raise PageMissingError(
            "the verifier page is not built: run make (it bundles @noble and libsodium with esbuild)"
        ) from None


def embedded_registry(page: str) -> Any:
    """The registry data a built page carries."""
    start = page.index("globalThis.FAIRDEAL_REGISTRY = ") + len("globalThis.FAIRDEAL_REGISTRY = ")
    return json.loads(page[start : page.index(";\n", start)].replace("<\\/", "</"))


def main() -> int:
    try:
        bundle = BUNDLE.read_text(encoding="utf-8")
    except OSError:
        print(f"Error: {BUNDLE}: the @noble bundle is missing (the Makefile builds it with esbuild)", file=sys.stderr)
        return 2
    try:
        built = {VENDOR / PAGE_NAME: build_page(bundle), SEAT_SCRIPT: build_seat_script()}
    except (OSError, FairdealError) as exc:
        print(f"Error: the verifier page cannot be built: {exc}", file=sys.stderr)
        return 2
    for target, text in built.items():
        partial = target.with_name(target.name + ".partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(target)  # atomic: a half-written file is never served
    return 0


if __name__ == "__main__":
    sys.exit(main())
