"""Reading and writing the service's rows: each accepted message and whatever it produced in one transaction."""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import Engine, func, insert, select, update

from fairdeal.errors import FairdealError
from fairdeal.protocols.canonical import encode
from fairdeal.protocols.encoding import canonical_json
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.signing import PROTOCOL_V4
from fairdeal.service import db
from fairdeal.service.mp_table import MP_SIGNED, STATEMENT, MpTable
from fairdeal.service.rows import RELAYED, SIGNED, Derived, Message, Seat, Stage
from fairdeal.service.served import ServedTable
from fairdeal.service.table import Table

SIGNED_ROWS = (SIGNED, RELAYED, MP_SIGNED, STATEMENT)  # rows whose body is a signed envelope


def _text(value: object) -> str:
    """Rows' JSON: sorted and compact (a sheet may hold fractions as floats, which v4's encoding refuses)."""
    return canonical_json(value).decode("utf-8")


def _document(value: object) -> str:
    """A transcript as ``fairdeal verify`` reads it: v4's canonical encoding, byte for byte."""
    return encode(value).decode("utf-8")


class Store:
    def __init__(self, engine: Engine, service_key: IdentityKey):
        self.engine, self.service_key = engine, service_key

    def create_table(self, table: ServedTable) -> None:
        with self.engine.begin() as c:
            c.execute(
                insert(db.tables).values(
                    id=table.id,
                    system=table.convention.name,
                    protocol=table.protocol,
                    seats=table.num_seats,
                    max_hands=table.max_hands,
                    status=table.stage.value,
                    service_key=table.service_public,  # the public identity key; the private one is a file
                    chain_tail=table.chain_tail if isinstance(table, Table) else "",
                )
            )

    def add_seat(self, table: ServedTable, seat: Seat) -> None:
        with self.engine.begin() as c:
            if (
                seat.bot_secret is None
                and c.execute(select(db.identities.c.key).where(db.identities.c.key == seat.key)).first() is None
            ):
                c.execute(insert(db.identities).values(key=seat.key, name=seat.name))
            c.execute(
                insert(db.seats).values(
                    table_id=table.id, seat=seat.seat, name=seat.name, key=seat.key, bot_secret=seat.bot_secret
                )
            )
            c.execute(update(db.tables).where(db.tables.c.id == table.id).values(status=table.stage.value))

    def append(self, table: ServedTable, message: Message, derived: Iterable[Derived]) -> None:
        """Store an accepted message, the service's envelopes it produced, the hands it closed (the settlement
        as hand 0) and the table's new status, atomically."""
        with self.engine.begin() as c:
            for row in [message, *table.outbox]:
                c.execute(
                    insert(db.messages).values(
                        table_id=table.id,
                        seat=row.seat,
                        seq=row.seq,
                        type=row.type,
                        body=_text(row.body),
                        signature=row.body.get("signature") if row.type in SIGNED_ROWS else None,
                    )
                )
            for d in derived:
                c.execute(
                    insert(db.transcripts).values(
                        table_id=table.id, hand=d.hand, document=_document(d.transcript), sha256=d.sha256
                    )
                )
                if d.line is not None:
                    c.execute(
                        insert(db.hand_lines).values(
                            table_id=table.id, hand=d.hand, line=_text(d.line), sheet=_text(d.sheet)
                        )
                    )
            c.execute(
                update(db.tables)
                .where(db.tables.c.id == table.id)
                .values(status=table.stage.value, reason=table.reason)
            )

    def set_status(self, table_id: str, stage: Stage, reason: str | None) -> None:
        with self.engine.begin() as c:
            c.execute(update(db.tables).where(db.tables.c.id == table_id).values(status=stage.value, reason=reason))

    def table_ids(self, live_only: bool = False) -> list[str]:
        query = select(db.tables.c.id).order_by(db.tables.c.created, db.tables.c.id)
        if live_only:
            query = query.where(db.tables.c.status.notin_([s.value for s in Stage if s.over]))
        with self.engine.connect() as c:
            return [row.id for row in c.execute(query)]

    def load(self, table_id: str) -> ServedTable | None:
        with self.engine.connect() as c:
            row = c.execute(select(db.tables).where(db.tables.c.id == table_id)).mappings().first()
            if row is None:
                return None
            seat_rows = list(c.execute(select(db.seats).where(db.seats.c.table_id == table_id)).mappings())
            messages = [
                Message(m.seat, m.seq, m.type, json.loads(m.body), m.signature)
                for m in c.execute(
                    select(db.messages).where(db.messages.c.table_id == table_id).order_by(db.messages.c.id)
                )
            ]
        if row["service_key"] != self.service_key.public.hex:
            raise FairdealError(f"table {table_id}: it was opened under another service key ({row['service_key']})")
        kind = MpTable if row["protocol"] == PROTOCOL_V4 else Table
        table = kind.load(dict(row), [dict(s) for s in seat_rows], messages, self.service_key)
        if row["status"] == Stage.ABORTED.value and table.stage is not Stage.ABORTED:
            table.stage, table.reason = Stage.ABORTED, row["reason"]  # an operator's abort: a status, not a row
        return table

    def transcripts(self, table_id: str) -> list[tuple[int, str]]:
        with self.engine.connect() as c:
            return [
                (r.hand, r.document)
                for r in c.execute(
                    select(db.transcripts).where(db.transcripts.c.table_id == table_id).order_by(db.transcripts.c.hand)
                )
            ]

    def lines(self, table_id: str) -> list[tuple[int, str]]:
        with self.engine.connect() as c:
            return [
                (r.hand, r.line)
                for r in c.execute(
                    select(db.hand_lines).where(db.hand_lines.c.table_id == table_id).order_by(db.hand_lines.c.hand)
                )
            ]

    def counts(self, table_id: str | None = None) -> dict[str, int]:
        """Rows per kind (for one table, or all): the operators' page and the tests read them."""
        out = {}
        with self.engine.connect() as c:
            for name, t in (("messages", db.messages), ("transcripts", db.transcripts), ("hands", db.hand_lines)):
                query = select(func.count()).select_from(t)
                if table_id is not None:
                    query = query.where(t.c.table_id == table_id)
                out[name] = c.execute(query).scalar_one()
        return out
