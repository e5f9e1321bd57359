"""`fairdeal deal` (an evening dealt by commit-reveal or mental poker) and `fairdeal verify` (re-check transcripts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from fairdeal.engine.bots import HeuristicBot
from fairdeal.protocols.commit_reveal import TableSpec
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.deal_source import CommitRevealSource
from fairdeal.protocols.mp_player import HandAbandoned
from fairdeal.protocols.mp_source import MentalPokerSource
from fairdeal.files import require_empty_folder
from fairdeal.protocols.transcript import write_transcript
from fairdeal.protocols.verify import verify_log, verify_paths
from fairdeal.rules import get_convention

DEFAULT_NAMES = ("north", "east", "south", "west")
LOG_NAME = "evening.log"


@click.command("verify")
@click.argument("transcripts", nargs=-1, type=click.Path(path_type=Path))
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path),
              help="A game log: verify every transcript it cites, and the citations.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable report.")
@click.option("--no-replay", is_flag=True, help="Check the deal only, not the game record.")
def verify_command(transcripts: tuple[Path, ...], log_path: Path | None, as_json: bool, no_replay: bool) -> None:
    """Re-check hand transcripts: commitments, chain, deck, deal and the game record. Exit 0 only if all hold."""
    if bool(transcripts) == (log_path is not None):
        raise click.UsageError("give transcript files or --log LOG (one of the two)")
    if log_path is not None:
        report = verify_log(log_path, replay_records=not no_replay)
    else:
        report = verify_paths(list(transcripts), replay_records=not no_replay)
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
    else:
        for failure in report.failures:
            click.echo(failure.line())
        for note in report.notes:
            click.echo(f"note: {note}", err=True)
        if report.ok:
            click.echo(f"ok: {report.transcripts} transcript(s) verified")
    sys.exit(0 if report.ok else 1)


@click.command("deal")
@click.option("--protocol", type=click.Choice(["commit-reveal", "mental-poker"]), default="commit-reveal",
              show_default=True, help="mental-poker: the bots' player objects shuffle an encrypted deck themselves.")
@click.option("--system", default="sochi", show_default=True, help="The convention (sochi, leningrad, rostov, mailru).")
@click.option("--players", type=click.IntRange(3, 4), default=3, show_default=True)
@click.option("--hands", type=click.IntRange(1, 10_000), default=10, show_default=True,
              help="The most hands to play (the pulya may close earlier).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--table", default="table-1", show_default=True)
@click.option("--session", default="session-1", show_default=True)
@click.option("--deal-only", is_flag=True, help="Only deal: transcripts without play, no game log.")
def deal_command(protocol: str, system: str, players: int, hands: int, out_dir: Path, table: str, session: str,
                 deal_only: bool) -> None:
    """Play an evening with bots, every deal from the commit-reveal or the mental-poker protocol.

    Writes the game log OUT/evening.log and one transcript per hand in OUT/evening.log.transcripts/ (the log
    cites each by file and SHA-256); with --deal-only, just the transcripts, in OUT.
    """
    convention = get_convention(system)
    convention.check_players(players)
    spec = TableSpec(table, session, hands, DEFAULT_NAMES[:players], system=convention.name)
    require_empty_folder(out_dir)
    source = CommitRevealSource(spec) if protocol == "commit-reveal" else MentalPokerSource(spec)
    try:
        _deal_evening(source, spec, convention, protocol, hands, out_dir, deal_only)
    except HandAbandoned as abandoned:
        path = out_dir / f"abandoned-hand-{source.transcripts[-1]['hand']:04d}.json"
        write_transcript(source.transcripts[-1], path)
        raise click.ClickException(f"{abandoned}; transcript {path}") from None
    except MentalPokerError as error:
        raise click.ClickException(str(error)) from None


def _deal_evening(source, spec: TableSpec, convention, protocol: str, hands: int, out_dir: Path,
                  deal_only: bool) -> None:
    if deal_only:
        _deal_only(source, spec, out_dir)
        return
    # Imported here: `verify` and `--deal-only` need nothing of the match loop.
    from fairdeal.engine.match import play_match

    log = out_dir / LOG_NAME
    result = play_match(convention, spec.players, [HeuristicBot() for _ in spec.players], source=source,
                        max_hands=hands, log=log)
    amounts = ", ".join(f"{name} {float(a):+g}" for name, a in zip(spec.players, result.settlement.amounts))
    click.echo(f"{len(result.hands)} hands dealt by {protocol} and played; log {log}; "
               f"transcripts {log.name}.transcripts/")
    click.echo(f"settlement: {amounts}" + ("" if result.finished else f" ({result.stopped})"))


def _deal_only(source: CommitRevealSource | MentalPokerSource, spec: TableSpec, out_dir: Path) -> None:
    for hand in range(1, spec.hands + 1):
        dealer = (hand - 1) % len(spec.players)
        source.deal(hand, dealer)
        doc = source.finish(hand)
        path = out_dir / f"hand-{hand:04d}.json"
        digest = write_transcript(doc, path)
        talon = " ".join(doc["deal"]["talons"][0])
        click.echo(f"hand {hand}: dealer {spec.players[dealer]}, talon {talon}, {path.name} sha256 {digest[:16]}")


COMMANDS = [verify_command, deal_command]
