"""`fairdeal verifier-page`: write the offline verifier page, one HTML file that checks transcripts in a browser."""

from __future__ import annotations

from pathlib import Path

import click

from fairdeal.files import write_file


@click.command("verifier-page")
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the page (an existing file is not replaced unless --force).",
)
@click.option("--force", is_flag=True, help="Replace an existing file.")
def verifier_page_command(out_path: Path, force: bool) -> None:
    """Write the offline verifier page: one HTML file that checks v4 transcripts of both protocols in a browser."""
    from fairdeal.web.verifier_page import page_bytes

    write_file(out_path, page_bytes(), force=force)
    click.echo(f"wrote {out_path}: open it in a browser (no network needed) and drop a transcript or an evening")


COMMANDS = [verifier_page_command]
