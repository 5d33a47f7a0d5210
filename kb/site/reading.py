"""The connections a build reads pages' data on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection, Engine

from kb.engine import SQLITE_CACHE_KIB

SQLITE_DEFAULT_CACHE_KIB = 2000
"""SQLite's own default page cache size."""


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A connection that reads pages' data. On SQLite with the default page cache, not kb's
    larger one: a build reads each row about once, and a page cache that fills up counts in
    the memory of every worker."""
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.exec_driver_sql(f"PRAGMA cache_size=-{SQLITE_DEFAULT_CACHE_KIB}")
        try:
            yield connection
        finally:
            if sqlite:
                connection.exec_driver_sql(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
