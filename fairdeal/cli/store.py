"""`fairdeal store LOG... --out DIR` (append logs to the Parquet archive) and `fairdeal query SQL --store DIR`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from fairdeal.errors import FairdealError, LogError, one_line
from fairdeal.log.sources import LogSource, expand, plain_copy

if TYPE_CHECKING:
    from fairdeal.log.store import Appended, Store


@click.command("store")
@click.argument("logs", nargs=-1, required=True)
@click.option(
    "--out",
    "root",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The store folder (made when missing); appended to, never rewritten.",
)
def store_command(logs: tuple[str, ...], root: Path) -> None:
    """Append game logs (files, directories, globs, '-', .gz/.zst) to a Parquet store partitioned by table and
    day; a log whose bytes are stored already is skipped. Exit 2 if a log could not be stored."""
    from fairdeal.log.store import Store

    try:
        store = Store(root, create=True)
        sources = expand(logs)
    except FairdealError as exc:
        raise click.ClickException(str(exc)) from None
    code = 0
    for source in sources:
        try:
            done = _append(store, source)
        except (FairdealError, OSError, EOFError) as exc:
            click.echo(f"Error: {source.name}: {one_line(str(exc))}", err=True)
            code = 2
            continue
        if done.skipped:
            click.echo(f"{done.source}: already in the store (table {done.table}); skipped")
        else:
            click.echo(
                f"{done.source}: {done.hands:,} hands, {done.lines:,} lines -> table {done.table}, day {done.day}"
            )
    click.get_current_context().exit(code)


def _append(store: Store, source: LogSource) -> Appended:
    if source.path is not None:
        return store.append(source)
    with tempfile.TemporaryDirectory(prefix="fairdeal-store-") as folder:  # stdin is read twice: digest, rows
        spooled = plain_copy(source, Path(folder))
        return store.append(LogSource(source.name, spooled))


@click.command("query")
@click.argument("sql")
@click.option(
    "--store",
    "root",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The store folder written by `fairdeal store`.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per result row.")
def query_command(sql: str, root: Path, as_json: bool) -> None:
    """Ask the store a question in SQL (DuckDB) over the views `hands` (one row per stored line: table_id, day,
    line, kind, hand, dealer, dealer_name, shuffle, text, record as JSON) and `tables` (one row per appended log)."""
    from fairdeal.log.query import run_query

    try:
        names, rows = run_query(root, sql)
    except (FairdealError, LogError) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        for row in rows:
            click.echo(json.dumps(dict(zip(names, row)), ensure_ascii=False, default=str))
        return
    click.echo("\t".join(names))
    for row in rows:
        click.echo("\t".join("" if v is None else str(v) for v in row))


COMMANDS = [store_command, query_command]
