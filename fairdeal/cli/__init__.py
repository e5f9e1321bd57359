"""The `fairdeal` command: a click group; each pillar adds its commands from a module of this package."""

from __future__ import annotations

import importlib
import os
import sys

import click

from fairdeal import __version__
from fairdeal.errors import FairdealError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fairdeal")
def cli() -> None:
    """fairdeal: provably fair dealing, a full Preferans engine, and an auditor that catches stacked decks."""


# Each module lists its click commands in COMMANDS; a new pillar adds its module name here.
COMMAND_MODULES: tuple[str, ...] = ("shuffling", "logs", "dealing", "play", "systems", "demo", "audit")


def _register_commands() -> None:
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"fairdeal.cli.{name}")
        for command in module.COMMANDS:
            cli.add_command(command)


_register_commands()


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
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # the last line of defence: a user never sees a traceback
        if os.environ.get("FAIRDEAL_DEBUG"):
            raise
        click.echo(f"internal error: {type(exc).__name__}: {exc} (set FAIRDEAL_DEBUG=1 for details)", err=True)
        sys.exit(70)
    sys.exit(code if isinstance(code, int) else 0)
