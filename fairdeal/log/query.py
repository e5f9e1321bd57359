"""Ad-hoc questions over a store in SQL (DuckDB): the views ``hands`` and ``tables`` over its Parquet files
(the table's partition key is the column ``table_id``).

Only the files that table rows name are read, so the hands of an append that never finished stay invisible.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairdeal.errors import LogError
from fairdeal.log.store import Store

if TYPE_CHECKING:
    import duckdb


def _quoted(items: list[str]) -> str:
    return "[" + ", ".join("'" + item.replace("'", "''") + "'" for item in items) + "]"


def connect(root: str | Path) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the store's views; an empty store has empty views of the same columns."""
    import duckdb

    store = Store(root)
    logs = store.logs()
    connection = duckdb.connect()
    hands = [str(log.hands_file) for table_logs in logs.values() for log in table_logs]
    tables = [str(p) for p in store.table_files()]
    if not tables:
        raise LogError(f"{root}: the store is empty; add logs with `fairdeal store LOG --out {root}`")
    connection.execute(
        'CREATE VIEW tables AS SELECT "table" AS table_id, * EXCLUDE (header, "table"), try(decode(header)) AS header '
        f"FROM read_parquet({_quoted(tables)}, hive_partitioning = true)"
    )
    connection.execute(
        'CREATE VIEW hands AS SELECT "table" AS table_id, day, line, kind, hand, dealer, dealer_name, shuffle, '
        f"try(decode(raw)) AS text, CASE WHEN json_valid(try(decode(raw))) THEN try(decode(raw))::JSON END AS record "
        f"FROM read_parquet({_quoted(hands)}, hive_partitioning = true, union_by_name = true)"
    )
    return connection


def run_query(root: str | Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of ``sql``; a query DuckDB rejects is one line naming why."""
    import duckdb

    connection = connect(root)
    try:
        result = connection.execute(sql)
        names = [d[0] for d in result.description or []]
        return names, result.fetchall()
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise LogError(f"query: {first}") from None
