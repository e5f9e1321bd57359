"""`fairdeal keys`: long-term identity keys for protocol v4 (made and shown; the private key is never printed)."""

from __future__ import annotations

from pathlib import Path

import click

from fairdeal.errors import FairdealError


class KeyFailure(click.ClickException):
    exit_code = 2


@click.group("keys")
def keys_group() -> None:
    """Identity keys: make one (`keys new`) or show its public key (`keys show`)."""


@keys_group.command("new")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The key file.")
@click.option("--name", default="", help="Your name at the table (stored with the key).")
def new_command(out: Path, name: str) -> None:
    """Make an Ed25519 identity key in a new file (mode 0600) and print its public key."""
    from fairdeal.protocols.identity import IdentityKey

    key = IdentityKey.generate(name)
    try:
        key.save(out)
    except FairdealError as exc:
        raise KeyFailure(str(exc)) from None
    click.echo(f"{key.public.hex}  {name}".rstrip())


@keys_group.command("show")
@click.argument("key_file", type=click.Path(dir_okay=False, path_type=Path))
def show_command(key_file: Path) -> None:
    """Print the public key (and name) of a key file."""
    from fairdeal.protocols.identity import IdentityKey

    try:
        key = IdentityKey.load(key_file)
    except FairdealError as exc:
        raise KeyFailure(str(exc)) from None
    click.echo(f"{key.public.hex}  {key.name}".rstrip())


COMMANDS = [keys_group]
