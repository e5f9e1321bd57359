"""The `fairdeal` command: a click group; each pillar adds its commands from a module of this package."""

from __future__ import annotations

import importlib
import os
import sys

import click

from fairdeal import __version__
from fairdeal.errors import FairdealError, one_line


class LazyGroup(click.Group):
    """Imports a command's module only when that command runs, so `fairdeal shuffle` does not pay for scipy,
    matplotlib and the crypto libraries, and a broken pillar cannot take the others down with it. `fairdeal --help`
    lists the commands from ``SHORT_HELP``, importing no command module."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module_name = COMMAND_MODULES.get(name)
        if module_name is None:
            return None
        module = importlib.import_module(f"fairdeal.cli.{module_name}")
        commands: list[click.Command] = module.COMMANDS
        return next(c for c in commands if c.name == name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = [(name, _shorten(self._short_help(ctx, name), limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _short_help(self, ctx: click.Context, name: str) -> str:
        known = SHORT_HELP.get(name)
        if known is not None:
            return known
        command = self.get_command(ctx, name)
        return command.get_short_help_str(limit=1000) if command is not None else ""


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 3, 0)].rsplit(" ", 1)[0] + "..."


# Command name -> the module of this package that defines it (in its COMMANDS list).
COMMAND_MODULES: dict[str, str] = {
    "shuffle": "shuffling",
    "theory": "shuffling",
    "deal-pattern": "logs",
    "log": "logs",
    "deal": "dealing",
    "verify": "dealing",
    "play": "play",
    "sheet": "play",
    "systems": "systems",
    "audit": "audit",
    "store": "store",
    "query": "store",
    "import": "formats",
    "export": "formats",
    "demo": "demo",
    "casebook": "demo",
    "solve": "solving",
    "review": "solving",
    "serve": "serving",
    "keys": "keys",
    "verifier-page": "verifier",
}

# Each command's one-line help, so that `fairdeal --help` imports nothing; tests/test_cli.py keeps every entry
# equal to the command's own short help (a command missing here is imported to ask it).
SHORT_HELP: dict[str, str] = {
    "shuffle": "Apply a shuffle written in the notation and show the deck before and after.",
    "theory": "Exact shuffle theory.",
    "deal-pattern": "Show which hand or talon receives each deck position (1 = top of the deck).",
    "log": "Game logs (format v1, protocols/game-log.md).",
    "deal": "Play an evening with bots, every deal from the commit-reveal or the mental-poker protocol.",
    "verify": "Re-check hand transcripts: commitments, chain, deck, deal and the game record.",
    "play": "Play a pulya with bots (or take a seat with --human) and print the sheet and the settlement.",
    "sheet": "Recompute the pulya sheet and settlement from a game log, replaying every hand through the engine.",
    "systems": "List the systems `fairdeal play --system NAME` plays.",
    "audit": (
        "Audit game logs (files, directories, globs, '-' for stdin, .gz/.zst, a `fairdeal store` folder): replay "
        "shuffles and hands, test dealers and players, report in plain words; one report per table."
    ),
    "demo": "List the cardsharp's tricks, or show one step by step and catch it.",
    "casebook": "Regenerate the casebook: one page per technique with measured power and false-alarm rate.",
    "export": (
        "Write a game log as PPN (protocols/ppn.md); a record PPN cannot express is one line LOG:LINE: field: message "
        "on stderr and the exit code is 1."
    ),
    "import": (
        "Read PPN (protocols/ppn.md), gambler.ru protocol records (protocols/gambler.md) or the deals-only CSV/JSON "
        "form (protocols/deals.md) into a game log; every record that cannot be mapped is one line FILE:LINE: field: "
        "message."
    ),
    "query": (
        "Ask the store a question in SQL (DuckDB) over the views `hands` (one row per stored line: table_id, day, "
        "line, kind, hand, dealer, dealer_name, shuffle, text, record as JSON) and `tables` (one row per appended "
        "log)."
    ),
    "review": "Card by card, the double-dummy cost of each play of a logged hand (computed from the log alone).",
    "solve": "Double-dummy solve each layout of FILE (one JSON object a line; see fairdeal/solver/problems.py).",
    "serve": "Serve tables on HTTP and WebSockets; every message, transcript and sheet is kept in the database.",
    "keys": "Identity keys: make one (`keys new`) or show its public key (`keys show`).",
    "verifier-page": (
        "Write the offline verifier page: one HTML file that checks v4 transcripts of both protocols in a browser."
    ),
    "store": (
        "Append game logs (files, directories, globs, '-', .gz/.zst) to a Parquet store partitioned by table and day; "
        "a log whose bytes are stored already is skipped."
    ),
}


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fairdeal")
def cli() -> None:
    """fairdeal: provably fair dealing, a full Preferans engine, and an auditor that catches stacked decks."""


def main() -> None:
    """Entry point: user errors become one line on stderr; tracebacks only with FAIRDEAL_DEBUG=1."""
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except FairdealError as exc:
        click.echo(f"Error: {one_line(str(exc))}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # the last line of defence: a user never sees a traceback
        if os.environ.get("FAIRDEAL_DEBUG"):
            raise
        click.echo(f"internal error: {type(exc).__name__}: {exc} (set FAIRDEAL_DEBUG=1 for details)", err=True)
        sys.exit(70)
    sys.exit(code if isinstance(code, int) else 0)
