"""Generate the sample logs in ``samples/`` with fixed seeds: ``python -m fairdeal.tricks.samples --out samples/``.

* ``sochi-3p-honest.jsonl`` — three honest players, every hand played by the engine's bots.
* ``sochi-4p-talon-stacker.jsonl`` — four players; Vera, when she deals, stacks two aces into the talon with
  card-by-card runs and a crimped cut in 40% of her deals (at four the dealer sits out and profits from them).
* ``commit-reveal-evening.jsonl`` (+ ``.transcripts/``) — a short evening dealt by the commit-reveal protocol.
* ``mental-poker-evening.jsonl`` (+ ``.transcripts/``) — two hands dealt by mental poker.
* ``malformed-lines.jsonl`` — the start of the honest evening followed by broken lines the reader must report.
* ``format-example.jsonl`` — the example of ``protocols/game-log.md``: five hands (a whisted game, raspasy, a
  misère, a game one defender passes) by dealers who riffle twice and have the cut made, every field filled in,
  so the example validates and replays under ``fairdeal sheet`` and ``fairdeal audit``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from fairdeal.audit.run import RunOptions, run_audit
from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.deal_source import DealSource
from fairdeal.engine.match import play_match, with_pulya_size
from fairdeal.protocols.deal_source import CommitRevealSource
from fairdeal.protocols.mental_poker.source import MentalPokerSource
from fairdeal.protocols.table import TableSpec
from fairdeal.systems import get_convention
from fairdeal.tricks.catalogue import get_trick
from fairdeal.tricks.honest import HonestDealer
from fairdeal.tricks.table import EVENING_PULYA, Cheat, play_evening

THREE = ("Anna", "Boris", "Vera")
FOUR = ("Anna", "Boris", "Vera", "Gleb")
HONEST = "sochi-3p-honest.jsonl"
STACKER = "sochi-4p-talon-stacker.jsonl"
STACKER_SEAT = 2
STACKER_RATE = 0.4
STACKER_HANDS = 900
COMMIT_REVEAL = "commit-reveal-evening.jsonl"
MENTAL_POKER = "mental-poker-evening.jsonl"
MALFORMED = "malformed-lines.jsonl"
FORMAT_EXAMPLE = "format-example.jsonl"
FORMAT_EXAMPLE_SEED = 25  # the first seed whose five hands hold a whist, a pass, raspasy and a misère


def honest_evening(out: Path) -> Path:
    path = out / HONEST
    play_evening(THREE, 240, seed=3, log=path)
    return path


def stacker_evening(out: Path) -> Path:
    path = out / STACKER
    cheat = Cheat(STACKER_SEAT, get_trick("talon-runs"), STACKER_RATE)
    play_evening(FOUR, STACKER_HANDS, seed=4, cheat=cheat, log=path)
    return path


def protocol_evening(out: Path, name: str, source_class: Callable[[TableSpec], DealSource], hands: int) -> Path:
    path = out / name
    convention = with_pulya_size(get_convention("sochi"), EVENING_PULYA)
    spec = TableSpec(
        table="sample-table", session=name.split(".")[0], hands=hands, players=THREE, convention=convention
    )
    play_match(convention, THREE, [HeuristicBot() for _ in THREE], source=source_class(spec), max_hands=hands, log=path)
    return path


def malformed(out: Path, honest: Path) -> Path:
    """The header and eight good hands, then four bad lines: cut short, an unknown talon card, a null, a second header.

    The bad lines come last so the good hands still form one consistent pulya for the auditor's replay.
    """
    lines = honest.read_text(encoding="utf-8").splitlines()[:9]
    last = json.loads(lines[-1])
    talon = last["deal"]["talons"][0]
    seats = len(THREE)  # every seat holds ten cards at three, so the copied deal suits the next dealers too
    bad_card = dict(
        last,
        hand=last["hand"] + 1,
        dealer=(last["dealer"] + 1) % seats,
        deal=dict(last["deal"], talons=[["1X", talon[1]]]),
    )
    with_null = dict(last, hand=last["hand"] + 2, dealer=(last["dealer"] + 2) % seats, shuffle=None)
    broken = lines + [lines[-1][: len(lines[-1]) // 2], json.dumps(bad_card), json.dumps(with_null), lines[0]]
    path = out / MALFORMED
    path.write_text("\n".join(broken) + "\n", encoding="utf-8")
    return path


def format_example(out: Path) -> Path:
    path = out / FORMAT_EXAMPLE
    play_evening(THREE, 5, seed=FORMAT_EXAMPLE_SEED, honest=HonestDealer("riffle", 2), log=path)
    return path


def write_samples(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    honest = honest_evening(out)
    written = [honest, stacker_evening(out)]
    written.append(protocol_evening(out, COMMIT_REVEAL, CommitRevealSource, 6))
    written.append(protocol_evening(out, MENTAL_POKER, MentalPokerSource, 2))
    written.append(malformed(out, honest))
    written.append(format_example(out))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("samples"))
    args = parser.parse_args(argv)
    for path in write_samples(args.out):
        print(f"{path} ({path.stat().st_size:,} bytes)")
    verdict = run_audit(args.out / STACKER, RunOptions(alpha=0.01)).verdict
    print(
        f"audit of {STACKER}: suspects {', '.join(verdict.suspects()) or 'none'} (the stacker is {FOUR[STACKER_SEAT]})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
