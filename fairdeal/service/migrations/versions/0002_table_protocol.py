"""Each table names the protocol that deals it: commit-reveal (every table before this revision) or mental poker.

Revision ID: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(
            sa.Column("protocol", sa.String(40), nullable=False, server_default="fairdeal-commit-reveal/4")
        )


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("protocol")
