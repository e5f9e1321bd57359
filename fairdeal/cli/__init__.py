"""The `fairdeal` command: a click group; each pillar adds its commands from a module of this package."""

from __future__ import annotations

import importlib
import os
import sys

import click

from fairdeal import __version__
from fairdeal.errors import FairdealError


class LazyGroup(click.Group):
    """Imports a command's module only when that command runs, so `fairdeal shuffle` does not pay for scipy,
    matplotlib and the crypto libraries, and a broken pillar cannot take the others down with it."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module_name = COMMAND_MODULES.get(name)
        if module_name is None:
            return None
        module = importlib.import_module(f"fairdeal.cli.{module_name}")
        return next(c for c in module.COMMANDS if c.name == name)


# Command name -> the module of this package that defines it (in its COMMANDS list).
COMMAND_MODULES: dict[str, str] = {
    "shuffle": "shuffling", "theory": "shuffling",
    "deal-pattern": "logs", "log": "logs",
    "deal": "dealing", "verify": "dealing",
    "play": "play", "sheet": "play", "systems": "systems",
    "audit": "audit",
    "demo": "demo", "casebook": "demo",
    "serve": "serving",
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
