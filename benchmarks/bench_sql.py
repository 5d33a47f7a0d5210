"""Editors' queries on kb and on the peer editors use today, side by side in one run.

    .venv/bin/python -m benchmarks.bench_sql [--postgres URL] [--runs 7] [--plans FILE]

The peer is the same corpus (../shared/realdata/mtgjson-sets-2022-05/) in mtgsqlive's layout,
one row per printing (benchmarks.mtgsqlive). kb's store is ``kb import`` of that corpus. Both
are built once into benchmarks/out/ (SQLite) and, with ``--postgres URL`` (or env
KB_TEST_POSTGRES_URL), into the databases kb_bench and peer_bench of that server.

For every saved query and a typical query on every view, the run times kb's SQL and the peer
SQL an editor would write for the same question (median of ``--runs`` after one warm-up, on one
open connection each), checks that the answers agree once the layouts' differences are
normalised, and reads the plans (SQLite: EXPLAIN QUERY PLAN, PostgreSQL: EXPLAIN) for index
use. Targets: kb ≤ 0.1 × the peer's time or under 1 ms, and under 50 ms.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, make_url, select, text
from sqlalchemy.engine import Connection, Engine, Row

from benchmarks import mtgsqlive
from kb import migrate
from kb.db import make_engine
from kb.importing import run_import
from kb.locales import canonical_locale
from kb.sql import saved_queries
from kb.text import TYPOGRAPHIC_FOLDS, normalize

Rows = Sequence[Row[Any]]
# The peer's SQL quotes its mixed-case table names: PostgreSQL folds unquoted names to lower case.
TARGET_RATIO = 0.1
FAST_ENOUGH_MS = 1.0
DESIGN_LIMIT_MS = 50.0
# A slow query is timed fewer times: at least 3 runs, then until this many seconds are spent.
TIME_BUDGET_SECONDS = 3.0


# Rulings a card of several printings repeats: the peer needs DISTINCT, and kb's one ruling may
# stand for several texts that differ only by typography (kb folds them), so texts compare folded.
def _sql_folded(column: str) -> str:
    """SQL that folds typography as kb does (quotes and dashes), so the peer groups the same."""
    expression = column
    for typographic, plain in TYPOGRAPHIC_FOLDS.items():
        quoted = plain.replace("'", "''")
        expression = f"replace({expression}, '{typographic}', '{quoted}')"
    return expression


PEER_RULING_CARD_COUNTS = f"""
    SELECT min(r.text) AS ruling, count(DISTINCT c.name) AS card_count
    FROM "cardRulings" r JOIN cards c ON c.uuid = r.uuid
    GROUP BY {_sql_folded("r.text")}"""


def _folded_counts(rows: Iterable[tuple[str, int]]) -> dict[str, int]:
    """(ruling text, card count) rows by folded text; typographic variants add up."""
    counts: Counter[str] = Counter()
    for ruling, card_count in rows:
        counts[normalize(ruling)] += card_count
    return dict(counts)


def _same_beginning(a: str, b: str) -> bool:
    return a[:60] == b[:60] and abs(len(a) - len(b)) <= 10


def _folded_pairs(pairs: Iterable[tuple[str, str]]) -> set[frozenset[str]]:
    """Pairs of distinct folded texts that share their beginning (what both sides can find)."""
    return {
        frozenset((normalize(a), normalize(b)))
        for a, b in pairs
        if _same_beginning(a, b) and normalize(a) != normalize(b)
    }


def _top_counts(rows: Rows) -> tuple[list[int], set[str]]:
    """The counts in order, and the texts above the last count (ties there may differ)."""
    counts = [row.card_count for row in rows]
    return counts, {normalize(row.ruling) for row in rows if row.card_count > counts[-1]}


def _split_names(joined: Iterable[str]) -> list[str]:
    """Card names joined with ", " split the same way on both sides (names may hold ", ")."""
    return sorted(", ".join(sorted(joined)).split(", "))


@dataclass(frozen=True)
class Case:
    """One editor's question, asked of kb and of the peer."""

    name: str
    kb_sql: str
    peer_sql: str | None
    kb_params: dict[str, Any]
    peer_params: dict[str, Any]
    same: Callable[[Rows, Rows], bool] | None
    """Whether the two answers agree; None where the peer cannot ask the question."""
    note: str = ""


@dataclass
class Measure:
    milliseconds: float
    rows: Rows
    plan: list[str] = field(default_factory=list)


def _explain(connection: Connection, sql: str, params: dict[str, Any]) -> list[str]:
    if connection.dialect.name == "sqlite":
        rows = connection.execute(text(f"EXPLAIN QUERY PLAN {sql}"), params)
        return [row.detail for row in rows]
    return [row[0] for row in connection.execute(text(f"EXPLAIN {sql}"), params)]


def _measure(connection: Connection, sql: str, params: dict[str, Any], runs: int) -> Measure:
    statement = text(sql)
    rows = connection.execute(statement, params).fetchall()  # warm-up: caches and plan
    times: list[float] = []
    spent = 0.0
    while len(times) < runs and (len(times) < 3 or spent < TIME_BUDGET_SECONDS):
        started = time.perf_counter()
        connection.execute(statement, params).fetchall()
        times.append(time.perf_counter() - started)
        spent += times[-1]
    return Measure(statistics.median(times) * 1000, rows, _explain(connection, sql, params))


_INDEX_USE = re.compile(
    r"USING (?:COVERING )?INDEX|USING (?:INTEGER )?PRIMARY KEY|"
    r"Index Scan|Index Only Scan|Bitmap Index Scan"
)
# A full scan of a table: SQLite's "SCAN t" without an index, PostgreSQL's "Seq Scan on t".
_FULL_SCAN = re.compile(r"^\s*SCAN (\w+)(?!.*USING)|Seq Scan on (\w+)")


def index_used(plan: list[str]) -> bool:
    return any(_INDEX_USE.search(line) for line in plan)


def full_scans(plan: list[str]) -> list[str]:
    """Tables read whole; kb's 11-row locales table is meant to be (a cross join)."""
    scanned = (_FULL_SCAN.search(line) for line in plan)
    return sorted({m.group(1) or m.group(2) for m in scanned if m} - {"l", "locales"})


def _sample(kb: Connection, sql: str) -> Any:
    return kb.execute(text(sql)).scalar_one()


def cases(kb: Connection) -> list[Case]:
    """The saved queries and the views' typical queries, with parameters drawn from the store."""
    saved = {name: query.sql for name, query in saved_queries().items()}
    # The card with the most rulings among those with an Italian name, the ruling on the most
    # cards, and the card with the most names: questions whose answers are not trivially small.
    italian_name = _sample(
        kb,
        """SELECT n.name FROM card_names n JOIN card_rulings cr ON cr.card_id = n.card_id
           WHERE n.locale = 'it' GROUP BY n.card_id, n.name ORDER BY count(*) DESC, n.name
           LIMIT 1""",
    )
    shared_ruling_id, shared_ruling = kb.execute(
        text(
            """SELECT r.id, r.text FROM rulings r JOIN card_rulings cr ON cr.ruling_id = r.id
               GROUP BY r.id, r.text ORDER BY count(*) DESC, r.id LIMIT 1"""
        )
    ).one()
    named_card = _sample(
        kb,
        """SELECT c.name FROM cards c JOIN card_names n ON n.card_id = c.id
           GROUP BY c.id, c.name ORDER BY count(*) DESC, c.name LIMIT 1""",
    )
    return [
        Case(
            "missing_names (flying, it)",
            saved["missing_names"],
            """SELECT DISTINCT c.name FROM cards c
               WHERE ', ' || c.keywords || ', ' LIKE :keyword
                 AND NOT EXISTS (
                   SELECT 1 FROM cards p JOIN "cardForeignData" f ON f.uuid = p.uuid
                   WHERE p.name = c.name AND f.language = :language)""",
            {"mechanic": "flying", "locale": "it"},
            {"keyword": "%, Flying, %", "language": "Italian"},
            lambda kb_rows, peer_rows: (
                {row.card for row in kb_rows} == {row.name for row in peer_rows}
            ),
            "peer: the keywords column (no mechanic tags)",
        ),
        Case(
            "untagged_rulings",
            saved["untagged_rulings"],
            PEER_RULING_CARD_COUNTS,
            {},
            {},
            lambda kb_rows, peer_rows: (
                _folded_counts((row.ruling, row.card_count) for row in kb_rows).items()
                <= _folded_counts((row.ruling, row.card_count) for row in peer_rows).items()
            ),
            "peer has no tags: every ruling with its card count; same = kb's rows among them",
        ),
        Case(
            "most_shared_rulings",
            saved["most_shared_rulings"],
            f"{PEER_RULING_CARD_COUNTS} ORDER BY card_count DESC LIMIT 20",
            {},
            {},
            lambda kb_rows, peer_rows: _top_counts(kb_rows) == _top_counts(peer_rows),
            "same counts; same texts above the 20th count (ties ordered differently)",
        ),
        Case(
            "undated_links",
            saved["undated_links"],
            """SELECT DISTINCT c.name, r.text FROM "cardRulings" r JOIN cards c ON c.uuid = r.uuid
               WHERE r.date IS NULL""",
            {},
            {},
            lambda kb_rows, peer_rows: (
                {(row.card, normalize(row.ruling)) for row in kb_rows}
                == {(row.name, normalize(row.text)) for row in peer_rows}
            ),
        ),
        Case(
            "near_duplicate_rulings",
            saved["near_duplicate_rulings"],
            """WITH texts AS (
                 SELECT DISTINCT text, substr(text, 1, 60) AS head, length(text) AS size
                 FROM "cardRulings")
               SELECT a.text AS ruling, b.text AS other_ruling
               FROM texts a JOIN texts b ON b.head = a.head AND b.text > a.text
               WHERE abs(a.size - b.size) <= 10""",
            {},
            {},
            lambda kb_rows, peer_rows: (
                _folded_pairs((row.ruling, row.other_ruling) for row in kb_rows)
                == _folded_pairs((row.ruling, row.other_ruling) for row in peer_rows)
            ),
            "peer: same beginning only (SQL cannot strip symbols); pairs of folded texts",
        ),
        Case(
            "translations_to_review (it)",
            saved["translations_to_review"],
            None,
            {"locale": "it"},
            {},
            None,
            "peer has no community translations",
        ),
        Case(
            "card_rulings_view: a card's rulings by Italian name",
            """SELECT ruling, published_on FROM card_rulings_view
               WHERE locale = :locale AND localized_name = :name ORDER BY position""",
            """SELECT DISTINCT r.text, r.date FROM "cardForeignData" f
               JOIN "cardRulings" r ON r.uuid = f.uuid
               WHERE f.language = :language AND f.name = :name""",
            {"locale": "it", "name": italian_name},
            {"language": "Italian", "name": italian_name},
            lambda kb_rows, peer_rows: (
                {(normalize(row.ruling), str(row.published_on)) for row in kb_rows}
                == {(normalize(row.text), row.date) for row in peer_rows}
            ),
        ),
        Case(
            "ruling_cards_view: the cards sharing one ruling",
            "SELECT card_count, cards FROM ruling_cards_view WHERE ruling_id = :ruling_id",
            """SELECT DISTINCT c.name FROM "cardRulings" r JOIN cards c ON c.uuid = r.uuid
               WHERE r.text = :ruling""",
            {"ruling_id": shared_ruling_id},
            {"ruling": shared_ruling},
            lambda kb_rows, peer_rows: (
                kb_rows[0].card_count == len(peer_rows)
                and _split_names([kb_rows[0].cards]) == _split_names(r.name for r in peer_rows)
            ),
            "kb by ruling id, the peer by its text (its only identity)",
        ),
        Case(
            "names_view: one card's names",
            "SELECT locale, name FROM names_view WHERE card = :card AND name IS NOT NULL",
            """SELECT DISTINCT f.language, f.name FROM cards c
               JOIN "cardForeignData" f ON f.uuid = c.uuid WHERE c.name = :card""",
            {"card": named_card},
            {"card": named_card},
            lambda kb_rows, peer_rows: (
                {(row.locale, row.name) for row in kb_rows if row.locale != "en"}
                == {(canonical_locale(row.language), row.name) for row in peer_rows}
            ),
        ),
    ]


def _kb_store(url: str, corpus: Path) -> Engine:
    """kb's store at ``url``, migrated, with the corpus imported unless it already is."""
    engine = make_engine(url)
    migrate.upgrade(engine)
    with engine.connect() as connection:
        imported = connection.scalar(text("SELECT count(*) FROM sources"))
    if not imported:
        run_import(engine, [corpus])
    return engine


def _postgres_database(server_url: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``server_url``, created if missing."""
    server = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        exists = connection.scalar(
            select(text("1")).select_from(text("pg_database")).where(text("datname = :name")),
            {"name": name},
        )
        if not exists:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    server.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


@dataclass
class Result:
    engine: str
    case: Case
    kb: Measure
    peer: Measure | None

    @property
    def ratio(self) -> float | None:
        return self.kb.milliseconds / self.peer.milliseconds if self.peer else None

    @property
    def same(self) -> str:
        if self.peer is None or self.case.same is None:
            return "n/a"
        return "yes" if self.case.same(self.kb.rows, self.peer.rows) else "NO"

    @property
    def on_target(self) -> bool:
        fast = self.kb.milliseconds < FAST_ENOUGH_MS
        ratio = self.ratio
        return self.kb.milliseconds < DESIGN_LIMIT_MS and (
            fast or (ratio is not None and ratio <= TARGET_RATIO)
        )


def run(engine_name: str, kb: Engine, peer: Engine, runs: int) -> list[Result]:
    results = []
    with kb.connect() as kb_connection, peer.connect() as peer_connection:
        for case in cases(kb_connection):
            kb_measure = _measure(kb_connection, case.kb_sql, case.kb_params, runs)
            peer_measure = (
                _measure(peer_connection, case.peer_sql, case.peer_params, runs)
                if case.peer_sql
                else None
            )
            results.append(Result(engine_name, case, kb_measure, peer_measure))
    return results


def table(results: list[Result]) -> str:
    lines = [
        "| engine | query | kb ms | peer ms | ratio | same answer | kb index | "
        "kb full scans | peer index | on target |",
        "|---|---|--:|--:|--:|---|---|---|---|---|",
    ]
    for result in results:
        peer = result.peer
        lines.append(
            f"| {result.engine} | {result.case.name} | {result.kb.milliseconds:.2f} | "
            + (f"{peer.milliseconds:.2f} | {result.ratio:.3f}" if peer else "– | –")
            + f" | {result.same} | {'yes' if index_used(result.kb.plan) else 'no'} | "
            f"{', '.join(full_scans(result.kb.plan)) or '–'} | "
            + ("yes" if peer and index_used(peer.plan) else "no" if peer else "–")
            + f" | {'yes' if result.on_target else 'NO'} |"
        )
    return "\n".join(lines)


def plans(results: list[Result]) -> str:
    sections = []
    for result in results:
        sections.append(f"## {result.engine}: {result.case.name}\n### kb\n{result.case.kb_sql}")
        sections.append("\n".join(result.kb.plan))
        if result.peer and result.case.peer_sql:
            sections.append(f"### peer\n{result.case.peer_sql}\n" + "\n".join(result.peer.plan))
    return "\n\n".join(sections) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=os.environ.get("KB_TEST_POSTGRES_URL"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--corpus", type=Path, default=mtgsqlive.REAL_CORPUS)
    parser.add_argument("--plans", type=Path, default=mtgsqlive.OUT / "plans.md")
    args = parser.parse_args()
    mtgsqlive.OUT.mkdir(parents=True, exist_ok=True)
    stores = [
        (
            "SQLite",
            f"sqlite:///{mtgsqlive.OUT / 'kb.sqlite'}",
            f"sqlite:///{mtgsqlive.DEFAULT_SQLITE}",
        )
    ]
    if args.postgres:
        stores.append(
            (
                "PostgreSQL",
                _postgres_database(args.postgres, "kb_bench"),
                _postgres_database(args.postgres, "peer_bench"),
            )
        )
    results: list[Result] = []
    for engine_name, kb_url, peer_url in stores:
        kb = _kb_store(kb_url, args.corpus)
        peer = mtgsqlive.ensure_built(peer_url, args.corpus)
        # Both sides measured with fresh statistics, whichever run built them.
        for engine in (kb, peer):
            mtgsqlive.analyze(engine)
        results += run(engine_name, kb, peer, args.runs)
        kb.dispose()
        peer.dispose()
    print(table(results))
    args.plans.write_text(plans(results), encoding="utf-8")
    print(f"\nplans: {args.plans}")


if __name__ == "__main__":
    main()
