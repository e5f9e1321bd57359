"""The first schema: identities, tables, seats, messages, transcripts, hand lines.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _id_type() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    now = sa.func.now()
    op.create_table(
        "identities",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), server_default=now, nullable=False),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("system", sa.String(40), nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("max_hands", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("service_key", sa.String(64), nullable=False),
        sa.Column("chain_tail", sa.String(64), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), server_default=now, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("bot_secret", sa.String(64), nullable=True),
        sa.UniqueConstraint("table_id", "name"),
        sa.UniqueConstraint("table_id", "key"),
    )
    op.create_table(
        "messages",
        sa.Column("id", _id_type(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("type", sa.String(24), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("signature", sa.String(128), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), server_default=now, nullable=False),
        sa.UniqueConstraint("table_id", "seat", "seq"),
    )
    op.create_index("ix_messages_table_id", "messages", ["table_id"])
    op.create_table(
        "transcripts",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("hand", sa.Integer, primary_key=True),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
    )
    op.create_table(
        "hand_lines",
        sa.Column("table_id", sa.String(40), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("hand", sa.Integer, primary_key=True),
        sa.Column("line", sa.Text, nullable=False),
        sa.Column("sheet", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in ("hand_lines", "transcripts", "messages", "seats", "tables", "identities"):
        op.drop_table(name)
