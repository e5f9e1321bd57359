"""`fairdeal serve`: the online table — a browser client, WebSocket tables, a database, server-side bots."""

from __future__ import annotations

import click

from fairdeal.errors import FairdealError


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (localhost by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--db",
    "db_url",
    default="fairdeal.db",
    show_default=True,
    help="A SQLite file, or a SQLAlchemy URL such as postgresql+psycopg://user@host/db.",
)
@click.option(
    "--key",
    "key_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="The service's identity key file (made on first start); by default DB.service-key beside the database.",
)
@click.option(
    "--bot-delay",
    default=0.4,
    show_default=True,
    type=click.FloatRange(0, 10),
    help="Seconds a server-side bot waits before each game action, so people can follow.",
)
@click.option(
    "--turn-timeout",
    default=300.0,
    show_default=True,
    type=click.FloatRange(1, 86400),
    help="Seconds a person may take; then a bot plays his card, or, in the dealing protocol, the table ends.",
)
def serve_command(
    host: str, port: int, db_url: str, key_path: str | None, bot_delay: float, turn_timeout: float
) -> None:
    """Serve tables on HTTP and WebSockets; every message, transcript and sheet is kept in the database."""
    import uvicorn

    from fairdeal.service.app import create_app

    app = create_app(db_url, key_path=key_path, bot_delay=bot_delay, turn_timeout=turn_timeout)
    click.echo(f"fairdeal serve: http://{host}:{port}/  (database {app.state.store.engine.url.render_as_string()})")
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning", ws_max_size=64 * 1024)
    except OSError as exc:
        raise FairdealError(f"cannot listen on {host}:{port}: {exc}") from None


COMMANDS = [serve_command]
