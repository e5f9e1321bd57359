"""Dependencies point one way: the engine (and the deal-source port it consumes) imports neither the protocols nor
any cryptography, directly or through the modules it imports."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "fairdeal" / "engine"
MODULES = sorted(p.stem for p in ENGINE.glob("*.py") if p.stem != "__init__")
LATER_PILLARS = ("fairdeal.protocols", "fairdeal.audit", "fairdeal.tricks", "fairdeal.cli")
CRYPTO = ("nacl", "rbcl", "cryptography", "Crypto", "hashlib", "hmac", "secrets")


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _within(name: str, roots: tuple[str, ...]) -> bool:
    return any(name == root or name.startswith(root + ".") for root in roots)


@pytest.mark.parametrize("module", MODULES)
def test_no_engine_module_imports_the_protocols_or_a_crypto_library(module):
    found = {name for name in _imports(ENGINE / f"{module}.py") if _within(name, LATER_PILLARS + CRYPTO)}
    assert not found, f"fairdeal/engine/{module}.py imports {sorted(found)}"


def test_importing_every_engine_module_loads_no_protocol_and_no_crypto_module():
    script = (
        "import importlib, json, sys\n"
        f"for name in {MODULES!r}: importlib.import_module('fairdeal.engine.' + name)\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    loaded = json.loads(
        subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout
    )
    assert [name for name in loaded if _within(name, LATER_PILLARS + ("nacl", "rbcl", "cryptography"))] == []
