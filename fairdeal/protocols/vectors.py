"""Test vectors for ``protocols/vectors/commit-reveal/``: inputs -> chain, commitments, XOF bytes, draws, deck, deal.

Every secret is derived from a fixed label (keys and seeds are SHA-256 of text), and ed25519 signatures are
deterministic, so the whole transcript — and its hash — is reproducible. ``python -m fairdeal.protocols.vectors``
rewrites the files; ``--check`` compares them with a fresh computation (the test suite does the same).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nacl.signing import SigningKey

from fairdeal.cards import to_ascii_list
from fairdeal.protocols.commit_reveal import DealerService, Player
from fairdeal.protocols.deal_source import CommitRevealSource
from fairdeal.protocols.derive import build_chain, deck_stream, seed_commitment
from fairdeal.protocols.fisher_yates import STREAM_BYTES, draws_from_stream
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import transcript_hash
from fairdeal.protocols.verify import deck_input_of
from fairdeal.resources import protocol_file
from fairdeal.rules import HUSSAR, LENINGRAD, SOCHI

VECTOR_DIR = protocol_file("vectors", "commit-reveal")


def fixed_bytes(label: str) -> bytes:
    return hashlib.sha256(label.encode("utf-8")).digest()


@dataclass(frozen=True)
class Case:
    name: str
    spec: TableSpec
    dealers: tuple[int, ...]  # one per hand of the session


CASES = (
    Case(
        "three-players-russian",
        TableSpec("table-7", "2026-11-29/evening", 2, ("Анна", "Boris", "Clara"), SOCHI),
        (0, 1),
    ),
    Case(
        "four-players-dealer-sits-out",
        TableSpec("table-12", "s-4p", 2, ("north", "east", "south", "west"), LENINGRAD),
        (3, 0),
    ),
    Case("hussar-two-players", TableSpec("hussar-1", "s-h", 1, ("rotmistr", "kornet"), HUSSAR), (1,)),
)


def run_case(case: Case) -> dict[str, Any]:
    spec = case.spec
    tail = fixed_bytes(f"{case.name}/service-tail")
    service = DealerService(spec, SigningKey(fixed_bytes(f"{case.name}/service-key")), tail)
    players = [
        Player(
            name,
            seat,
            SigningKey(fixed_bytes(f"{case.name}/key/{name}")),
            # The default binds the loop's name; mypy cannot type a lambda with a default argument.
            lambda hand, name=name: fixed_bytes(f"{case.name}/seed/{name}/{hand}"),  # type: ignore[misc]
        )
        for seat, name in enumerate(spec.players)
    ]
    source = CommitRevealSource(spec, service, players)
    hands = []
    for hand, dealer in enumerate(case.dealers, start=1):
        source.deal(hand, dealer)
        doc = source.finish(hand)
        hands.append(_hand_vector(spec, case.name, hand, dealer, deck_input_of(doc), doc))
    return {
        "name": case.name,
        "protocol": doc["protocol"],
        "table": spec.table,
        "session": spec.session,
        "hands": spec.hands,
        "players": list(spec.players),
        "deck": spec.deck.value,
        "deal_pattern": spec.pattern.name,
        "system": spec.system,
        "service_tail": tail.hex(),
        "chain": [link.hex() for link in build_chain(spec.table, spec.session, tail, spec.hands)],
        "hand_vectors": hands,
    }


def _hand_vector(
    spec: TableSpec, case: str, hand: int, dealer: int, data: bytes, doc: Mapping[str, Any]
) -> dict[str, Any]:
    stream = deck_stream(data, STREAM_BYTES)
    found = draws_from_stream(stream, spec.deck.size)
    assert found is not None  # the fixed cases' streams are long enough
    draws, used = found
    seeds = [fixed_bytes(f"{case}/seed/{name}/{hand}") for name in spec.players]
    return {
        "hand": hand,
        "dealer": dealer,
        "service_seed": doc["service"]["seed"],
        "player_seeds": [
            {
                "player": name,
                "seed": seed.hex(),
                "commitment": seed_commitment(spec.table, spec.session, hand, name, seed).hex(),
            }
            for name, seed in zip(spec.players, seeds)
        ],
        "deck_input": data.hex(),
        "stream_prefix": stream.hex(),
        "draws": draws,
        "bytes_used": used,
        "start_order": to_ascii_list(spec.deck.codes()),
        "deck_order": doc["deck_order"],
        "deal": doc["deal"],
        "transcript": doc,
        "transcript_sha256": transcript_hash(doc),
    }


def fisher_yates_vectors() -> dict[str, Any]:
    """Hand-made byte streams exercising rejection: for a 5-card deck the limits are 255, 256, 255, 256."""
    streams = ["ff00000000", "fffe01020300", "0405060708", "fe0103ff0001"]
    cases = []
    for text in streams:
        result = draws_from_stream(bytes.fromhex(text), 5)
        draws, used = result if result is not None else (None, None)
        cases.append({"deck_size": 5, "stream": text, "draws": draws, "bytes_used": used})
    return {"name": "fisher-yates-rejection", "note": "draws for i = n-1..1; null = stream ran out", "cases": cases}


def all_vectors() -> dict[str, dict[str, Any]]:
    files = {f"{case.name}.json": run_case(case) for case in CASES}
    files["fisher-yates-rejection.json"] = fisher_yates_vectors()
    return files


def render(vector: Mapping[str, Any]) -> str:
    return json.dumps(vector, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, vector in all_vectors().items():
        path = VECTOR_DIR / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != render(vector):
                stale.append(name)
        else:
            VECTOR_DIR.mkdir(parents=True, exist_ok=True)
            path.write_text(render(vector), encoding="utf-8")
    for name in stale:
        print(f"stale vector: {name}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
