"""The service's database: identities, tables, seats, every accepted message, transcripts, log lines and sheets.

One schema for SQLite (the embedded default) and PostgreSQL, through SQLAlchemy Core; the schema is created and
upgraded by the Alembic migrations in ``migrations/`` — never by ``create_all`` — so a database made by an older
release is brought forward in place. A table's live state is always rebuilt from these rows (``table.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    func,
)

from fairdeal.errors import FairdealError

if TYPE_CHECKING:
    from sqlalchemy.engine.interfaces import DBAPIConnection
    from sqlalchemy.pool import ConnectionPoolEntry

MIGRATIONS = Path(__file__).with_name("migrations")
metadata = MetaData()

identities = Table(
    "identities",
    metadata,
    Column("key", String(64), primary_key=True),  # ed25519 public key, hex; never a private key
    Column("name", String(40), nullable=False),
    Column("created", DateTime(timezone=True), server_default=func.now(), nullable=False),
)

tables = Table(
    "tables",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("system", String(40), nullable=False),
    # the dealing protocol: fairdeal-commit-reveal/4 or fairdeal-mental-poker/4 (migration 0002)
    Column("protocol", String(40), nullable=False, server_default="fairdeal-commit-reveal/4"),
    Column("seats", Integer, nullable=False),
    Column("max_hands", Integer, nullable=False),
    Column("status", String(16), nullable=False),  # a Stage value: seating ... finished, ended, aborted
    Column("reason", Text, nullable=True),  # why it ended early or was aborted
    Column("service_key", String(64), nullable=False),  # the service's signing-key seed (server secret)
    Column("chain_tail", String(64), nullable=False),  # the secret tail of the service's seed chain ("": none)
    Column("created", DateTime(timezone=True), server_default=func.now(), nullable=False),
)

seats = Table(
    "seats",
    metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(40), nullable=False),
    Column("key", String(64), nullable=False),
    Column("bot_secret", String(64), nullable=True),  # a server-side bot's signing-key seed; NULL for a person
    UniqueConstraint("table_id", "name"),
    UniqueConstraint("table_id", "key"),
)

messages = Table(
    "messages",
    metadata,
    Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True),
    Column("table_id", String(40), ForeignKey("tables.id"), nullable=False, index=True),
    Column("seat", Integer, nullable=False),
    Column("seq", BigInteger, nullable=False),  # the sender's own sequence number: replays are refused
    Column("type", String(24), nullable=False),
    Column("body", Text, nullable=False),  # canonical JSON of the envelope's body
    Column("signature", String(128), nullable=True),  # protocol v4 signs every envelope; v1 leaves it empty
    Column("created", DateTime(timezone=True), server_default=func.now(), nullable=False),
    UniqueConstraint("table_id", "seat", "seq"),
)

transcripts = Table(
    "transcripts",
    metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("hand", Integer, primary_key=True),
    Column("document", Text, nullable=False),  # canonical JSON, as `fairdeal verify` reads it
    Column("sha256", String(64), nullable=False),
)

hand_lines = Table(
    "hand_lines",
    metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("hand", Integer, primary_key=True),
    Column("line", Text, nullable=False),  # the game-log hand line (protocols/game-log.md)
    Column("sheet", Text, nullable=False),  # the sheet after the hand (sheet_json)
)


def connect(url: str) -> Engine:
    """An engine for ``url`` with the schema at the newest migration; a bare path means a SQLite file."""
    if "://" not in url:
        url = f"sqlite:///{Path(url).resolve()}"
    elif url.startswith(("postgresql://", "postgres://")):  # psycopg 3, not SQLAlchemy's default psycopg2
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    try:
        engine = create_engine(url, future=True, pool_pre_ping=True)
    except Exception as exc:  # a malformed URL or a missing driver is the user's to fix
        raise FairdealError(f"--db {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    upgrade(engine)
    return engine


def _sqlite_pragmas(connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    # WAL keeps readers off the writer's lock; synchronous=NORMAL is still durable at each checkpoint under WAL,
    # and a kill -9 of the server loses no committed transaction.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def upgrade(engine: Engine) -> None:
    """Run the Alembic migrations up to head on ``engine``."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    except Exception as exc:
        cause = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        where = engine.url.render_as_string(hide_password=True)
        raise FairdealError(f"database {where}: {cause[0] if cause else type(exc).__name__}") from None
