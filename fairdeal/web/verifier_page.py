"""The offline verifier page: one HTML file, every script inline, that checks v4 commit-reveal transcripts in
the browser from ``file://`` (``fairdeal verifier-page``, ``/verifier`` of ``fairdeal serve``).

``python -m fairdeal.web.verifier_page`` (run by the Makefile) writes it from the page's sources, the esbuild
bundle of @noble and libsodium's WebAssembly build, and the system registry's decks and deal patterns, exported
here as data so the JavaScript deals exactly as ``fairdeal.deal`` does for every registered system and table size.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from fairdeal.cards import DeckKind, to_ascii_list
from fairdeal.deal import DealPattern, get_pattern
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.system import conventions
from fairdeal.errors import FairdealError
from fairdeal.rules.overrides import parameter_types

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
VENDOR = Path(__file__).with_name("static") / "vendor"
BUNDLE = VENDOR / "noble-verifier.js"
PAGE_NAME = "verifier.html"
REGISTRY_MARK = "/*REGISTRY*/"
SLOTS = ("/*NOBLE*/", "/*VERIFIER*/", "/*MENTAL_POKER*/", "/*PAGE*/", REGISTRY_MARK)


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
    table size (the score items an evening's end charges), the patterns they name and the decks in code order (the
    order the shuffle starts from)."""
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
        "parameters": sorted(parameter_types()),
    }


def _script_safe(text: str) -> str:
    """Text that cannot close the ``<script>`` element it is inlined into."""
    return text.replace("</", "<\\/")


def build_page(bundle: str) -> str:
    """The page's HTML: the template with the @noble bundle, the verifier, the page script and the registry."""
    template = (SOURCES / "page.html").read_text(encoding="utf-8")
    parts = {
        "/*NOBLE*/": bundle,
        "/*VERIFIER*/": (SOURCES / "verifier.js").read_text(encoding="utf-8"),
        "/*MENTAL_POKER*/": "\n".join(
            (MENTAL_POKER / name).read_text(encoding="utf-8") for name in MENTAL_POKER_SCRIPTS
        ),
        "/*PAGE*/": (SOURCES / "page.js").read_text(encoding="utf-8"),
        REGISTRY_MARK: "globalThis.FAIRDEAL_REGISTRY = " + json.dumps(registry_data(), sort_keys=True) + ";",
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
    target = VENDOR / PAGE_NAME
    partial = target.with_suffix(".html.partial")
    partial.write_text(build_page(bundle), encoding="utf-8")
    partial.replace(target)  # atomic: a half-written page is never served
    return 0


if __name__ == "__main__":
    sys.exit(main())
