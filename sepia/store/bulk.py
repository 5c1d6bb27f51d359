"""Writing many rows fast, on both databases: PostgreSQL's COPY (rows, and a large value in pieces),
SQLite's executemany through the driver, new IDs a batch at a time, IN lists in chunks."""
from __future__ import annotations

import struct
from itertools import islice
from typing import Any, Iterable

from sqlalchemy import Connection, func, insert, select, text
from sqlalchemy.orm import Session

# IDs per IN (...) list: PostgreSQL takes at most 65,535 parameters in one statement (SQLAlchemy
# keeps its multi-row inserts under that limit by itself).
CHUNK = 5000


# Rows per multi-row INSERT of a run's items: a run's million documents go in batches whose memory
# is that of one batch, without an ORM object each (which took 3.5 GB and 100 s for 900,000).
BATCH = 10_000


def batches(rows: Iterable) -> Iterable[list]:
    rows = iter(rows)
    while batch := list(islice(rows, BATCH)):
        yield batch


def driver_of(connection: Connection) -> Any:
    """The database driver's own connection (sqlite3's or psycopg's) under SQLAlchemy's."""
    return connection.connection.driver_connection


def insert_rows(session: Session, model, columns: tuple[str, ...], rows: Iterable[tuple]) -> None:
    """Insert rows of values of `columns`: PostgreSQL's COPY (twice as fast as executemany), SQLite's
    executemany through the driver (SQLAlchemy's processing of each row's parameters took as long as
    the database's work; these columns need no conversion), a batch of rows in memory at a time."""
    connection, table = session.connection(), getattr(model, "__table__", model)  # a mapped class or a Table
    if connection.dialect.name == "postgresql":
        with driver_of(connection).cursor() as cursor, \
                cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return
    compiled = insert(table).compile(dialect=connection.dialect, column_keys=list(columns))
    assert compiled.positiontup is not None  # sqlite3's placeholders are positional (?)
    order = [columns.index(key) for key in compiled.positiontup]
    for batch in batches(rows):
        connection.exec_driver_sql(compiled.string, batch if order == sorted(order)
                                   else [tuple(row[i] for i in order) for row in batch])


def inserted_ids(session: Session, model, rows: list[dict]) -> list[int]:
    """Insert the rows (dicts with the same keys); their new IDs in the rows' order, a batch at a time.
    PostgreSQL: the batch's IDs drawn from the table's sequence in one statement, then the rows with
    them by COPY (a multi-row INSERT ... RETURNING took seconds of CPU to compose for 6,000 rows).
    SQLite: the batch inserted at once and its IDs read back: the transaction holds the store's one
    write lock from its first write on, so they are the IDs above the largest before the batch,
    numbered in the order inserted (returning them in order makes SQLite insert row by row)."""
    table = model.__table__
    connection = session.connection()
    ids: list[int] = []
    for batch in batches(rows):
        if connection.dialect.name == "postgresql":
            drawn = list(connection.scalars(text("SELECT nextval(pg_get_serial_sequence(:table, 'id')) "
                                                 "FROM generate_series(1, :n)"), {"table": table.name, "n": len(batch)}))
            columns = tuple(batch[0])
            insert_rows(session, model, ("id", *columns), ((pk, *(row[c] for c in columns))
                                                           for pk, row in zip(drawn, batch)))
            ids += drawn
            continue
        connection.execute(insert(table), batch)  # takes the write lock, if this is the first write
        last = connection.scalar(select(func.max(table.c.id)))
        assert last is not None  # the batch's rows are there
        ids += range(last - len(batch) + 1, last + 1)
    return ids



# ---------------------------------------------------------------- a file's bytes

BLOB_CHUNK = 1 << 20


# PostgreSQL's binary COPY of one bytea field: the header, a tuple of one field (then its bytes), the trailer.
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
_COPY_TRAILER = struct.pack("!h", -1)


def large_binary(session: Session, data: bytes):
    """What to give submission.content for `data` before fill_large_binary writes it in pieces: bound
    whole, the driver copies the bytes (psycopg once; SQLite twice into the row's record: 128 MB more
    at the peak of a 64 MB run's import). On SQLite room for it (zeroblob), on PostgreSQL nothing."""
    return func.zeroblob(len(data)) if session.get_bind().dialect.name == "sqlite" else b""


def fill_large_binary(session: Session, row, column: str, data: bytes) -> None:
    """Write `data` into the row's column a megabyte at a time: on SQLite into the room large_binary
    made (the row's last column: migration 0010), on PostgreSQL by a binary COPY into a temporary
    table, from which the server itself sets the column."""
    view = memoryview(data)
    pieces = (view[start:start + BLOB_CHUNK] for start in range(0, len(data), BLOB_CHUNK))
    driver = driver_of(session.connection())
    if session.get_bind().dialect.name == "sqlite":
        with driver.blobopen(row.__tablename__, column, row.id) as blob:
            for piece in pieces:
                blob.write(piece)
    else:
        with driver.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE sepia_large_binary (content bytea)")
            with cursor.copy("COPY sepia_large_binary (content) FROM STDIN (FORMAT BINARY)") as copy:
                copy.write(_COPY_HEADER + struct.pack("!hi", 1, len(data)))
                for piece in pieces:
                    copy.write(piece)
                copy.write(_COPY_TRAILER)
            cursor.execute(f"UPDATE {row.__tablename__} SET {column} = (SELECT content FROM sepia_large_binary) "
                           "WHERE id = %s", (row.id,))
            cursor.execute("DROP TABLE sepia_large_binary")
    session.expire(row, [column])  # the ORM's value is the placeholder
