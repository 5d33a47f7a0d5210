"""Helpers that tests/test_store_files.py and tests/test_store_urls.py share: kb run in the
working directory, the editor's option, and a SQLite store's rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner, Result

from kb.cli import cli

EDITOR = ["--editor", "ada"]


def kb(*args: str, db: str | None = None) -> Result:
    return CliRunner().invoke(cli, [*(["--db", db] if db else []), *args])


def ok(*args: str, db: str | None = None) -> Result:
    result = kb(*args, db=db)
    assert result.exit_code == 0, (args, result.output)
    return result


def dump(path: Path) -> list[str]:
    """Every row of the SQLite database at ``path`` (with its -wal if there is one)."""
    connection = sqlite3.connect(path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()
