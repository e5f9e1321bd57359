"""`fairdeal import FORMAT FILE --out LOG` and `fairdeal export ppn LOG`: other notations to and from the log."""

from __future__ import annotations

from pathlib import Path

import click

from fairdeal.errors import FairdealError
from fairdeal.log.formats import Imported, log_bytes, read_text
from fairdeal.log.store import write_atomic

IMPORTERS = ("ppn", "gambler", "deals-csv", "deals-json")


def _read(fmt: str, text: str, pattern: str, system: str, dealing: str, started: str | None) -> Imported:
    if fmt == "ppn":
        from fairdeal.log.formats.ppn import read_ppn

        return read_ppn(text)
    if fmt == "gambler":
        from fairdeal.log.formats.gambler import read_gambler

        return read_gambler(text, system)
    from fairdeal.log.formats.deals import TableFacts, read_csv, read_json

    facts = TableFacts(pattern, system, dealing, started)
    return read_csv(text, facts) if fmt == "deals-csv" else read_json(text, facts)


@click.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(IMPORTERS))
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The game log to write (JSON Lines, protocols/game-log.md).",
)
@click.option("--pattern", default="russian", show_default=True, help="deals-csv/json: the deal pattern.")
@click.option("--system", default="sochi", show_default=True, help="gambler, deals-csv/json: the rule system.")
@click.option(
    "--dealing",
    default="server-rng",
    show_default=True,
    type=click.Choice(["physical", "commit-reveal", "mental-poker", "server-rng"]),
    help="deals-csv/json: how the deck was dealt.",
)
@click.option("--started", default=None, help="deals-csv/json: the ISO-8601 start of the session.")
def import_command(
    fmt: str, file: Path, out: Path, pattern: str, system: str, dealing: str, started: str | None
) -> None:
    """Read PPN (protocols/ppn.md), gambler.ru protocol records (protocols/gambler.md) or the deals-only CSV/JSON
    form (protocols/deals.md) into a game log; every
    record that cannot be mapped is one line FILE:LINE: field: message. Exit 1 if any was left out."""
    try:
        imported = _read(fmt, read_text(file), pattern, system, dealing, started)
    except OSError as exc:
        raise click.ClickException(f"{file}: cannot read: {exc.strerror or exc}") from None
    except FairdealError as exc:
        raise click.ClickException(str(exc)) from None
    for problem in imported.problems:
        click.echo(problem.show(str(file)), err=True)
    if not imported.records:
        raise click.ClickException(f"{file}: nothing could be imported")
    write_atomic(out, log_bytes(imported.records))
    hands = sum(1 for r in imported.records if getattr(r, "type", "") == "hand" or hasattr(r, "dealer"))
    click.echo(f"{out}: {hands} hands written; {len(imported.problems)} record problem(s)")
    click.get_current_context().exit(1 if imported.problems else 0)


@click.command("export")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(["ppn"]))
@click.argument("log", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here instead of standard output.",
)
def export_command(fmt: str, log: Path, out: Path | None) -> None:
    """Write a game log as PPN (protocols/ppn.md); a record PPN cannot express is one line LOG:LINE: field:
    message on stderr and the exit code is 1."""
    from fairdeal.log.formats.ppn import write_ppn

    try:
        text, problems = write_ppn(log)
    except OSError as exc:
        raise click.ClickException(f"{log}: cannot read: {exc.strerror or exc}") from None
    except FairdealError as exc:
        raise click.ClickException(str(exc)) from None
    for problem in problems:
        click.echo(problem.show(str(log)), err=True)
    if out is None:
        click.echo(text, nl=False)
    else:
        write_atomic(out, text.encode("utf-8"))
    click.get_current_context().exit(1 if problems else 0)


COMMANDS = [import_command, export_command]
