"""Editors' SQL run from Python with run_query's defaults: one second and a thousand rows."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from kb import sql

ENDLESS = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
ROWS = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :last) "
    "SELECT i FROM n"
)


def test_the_default_row_limit_is_a_thousand(engine: Engine) -> None:
    exactly = sql.run_query(engine, ROWS, {"last": 1000})
    assert (len(exactly.rows), exactly.truncated) == (1000, False)
    more = sql.run_query(engine, ROWS, {"last": 1001})
    assert (len(more.rows), more.truncated) == (1000, True)
    assert more.rows[-1] == (1000,)


def test_the_default_time_limit_is_one_second(engine: Engine) -> None:
    with pytest.raises(sql.QueryError) as raised:
        sql.run_query(engine, ENDLESS)
    assert str(raised.value) == (
        "query stopped: it ran longer than the time limit of 1 s (--time-limit)"
    )
