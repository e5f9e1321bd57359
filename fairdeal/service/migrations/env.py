"""Alembic environment: the service hands over an open connection (``config.attributes["connection"]``)."""

from alembic import context

from fairdeal.service.db import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
