"""kb sql: read-only queries on both engines, enforced by the connection, with limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_kb
from sqlalchemy import func, inspect, select
from sqlalchemy.engine import Engine

from kb import schema, sql
from kb.cli import cli
from kb.engine import make_engine

DATA = Path(__file__).resolve().parents[1] / "data"
TWO_LOCALES = "SELECT code, english_name FROM locales WHERE code IN ('de', 'it') ORDER BY code"
ENDLESS = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"


def test_csv_of_the_locales(database_url: str) -> None:
    result = run_kb(database_url, "sql", "--csv", "SELECT code FROM locales ORDER BY code")
    assert result.exit_code == 0, result.output
    expected = "code\nde\nen\nes\nfr\nit\nja\nko\npt-BR\nru\nzh-Hans\nzh-Hant\n"
    assert result.stdout == expected


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("--table", "code  english_name\n----  ------------\nde    German\nit    Italian\n"),
        ("--tsv", "code\tenglish_name\nde\tGerman\nit\tItalian\n"),
        (
            "--markdown",
            "| code | english_name |\n| --- | --- |\n| de | German |\n| it | Italian |\n",
        ),
    ],
)
def test_output_styles(database_url: str, option: str, expected: str) -> None:
    assert run_kb(database_url, "sql", option, TWO_LOCALES).stdout == expected


def test_a_table_lines_up_wide_characters_and_keeps_a_row_on_one_line(demo_url: str) -> None:
    query = (
        "SELECT name, locale FROM card_names WHERE card_id = 1 AND locale IN ('ja', 'de') "
        "ORDER BY locale"
    )
    assert run_kb(demo_url, "sql", query).stdout == (
        "name                  locale\n"
        "--------------------  ------\n"
        "Drei Schritte voraus  de\n"
        "三歩先                ja\n"  # three characters, six columns
    )
    two_lines = sql.QueryResult(["text", "n"], [("first\nsecond", 1)], truncated=False)
    table = sql.format_result(two_lines, "table")
    assert table == "text          n\n------------  -\nfirst second  1\n"


def test_json_output_and_table_by_default(database_url: str) -> None:
    result = run_kb(database_url, "sql", "--json", TWO_LOCALES)
    assert json.loads(result.stdout) == [
        {"code": "de", "english_name": "German"},
        {"code": "it", "english_name": "Italian"},
    ]
    assert run_kb(database_url, "sql", TWO_LOCALES).stdout.startswith("code  english_name\n")


def test_two_output_styles_are_a_usage_error(database_url: str) -> None:
    result = run_kb(database_url, "sql", "--json", "--csv", TWO_LOCALES)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.endswith("Error: choose one output style, not --csv and --json\n")
    history = run_kb(database_url, "history", "--table", "--markdown")
    assert history.exit_code == 2
    assert "Error: choose one output style, not --table and --markdown\n" in history.stderr


def test_a_query_that_is_not_utf8_is_one_line_error(database_url: str, tmp_path: Path) -> None:
    latin1 = tmp_path / "q.sql"
    latin1.write_bytes("SELECT 'Éclair'".encode("latin-1"))
    from_file = run_kb(database_url, "sql", "--file", str(latin1))
    assert from_file.exit_code == 1
    assert (
        from_file.output
        == f"kb: error: {latin1}: not UTF-8 text (byte 8: invalid continuation byte)\n"
    )
    from_stdin = CliRunner().invoke(
        cli, ["--db", database_url, "sql", "-"], input=latin1.read_bytes()
    )
    assert (
        from_stdin.output
        == "kb: error: stdin: not UTF-8 text (byte 8: invalid continuation byte)\n"
    )


def test_named_parameters_stdin_and_file(database_url: str, tmp_path: Path) -> None:
    query = "SELECT native_name FROM locales WHERE code = :code"
    assert run_kb(database_url, "sql", "--csv", query, "-p", "code", "it").stdout == (
        "native_name\nitaliano\n"
    )
    from_stdin = run_kb(database_url, "sql", "--csv", "-", "-p", "code", "de", stdin=query)
    assert from_stdin.stdout == "native_name\nDeutsch\n"
    path = tmp_path / "q.sql"
    path.write_text("-- the French name\n" + query, encoding="utf-8")
    from_file = run_kb(database_url, "sql", "--csv", "--file", str(path), "-p", "code", "fr")
    assert from_file.stdout == "native_name\nfrançais\n"
    # A typed comparison: CAST, since :code::int would not be read as a parameter.
    typed = run_kb(
        database_url, "sql", "--csv", "SELECT CAST(:n AS INTEGER) + 1 AS m", "-p", "n", "41"
    )
    assert typed.stdout == "m\n42\n"
    # A literal % is not a driver placeholder.
    like = run_kb(database_url, "sql", "--csv", "SELECT code FROM locales WHERE code LIKE 'z%'")
    assert sorted(like.stdout.splitlines()) == ["code", "zh-Hans", "zh-Hant"]
    # A value for no parameter of the query (a misspelt name) is an error, not ignored.
    misspelt = run_kb(database_url, "sql", query, "-p", "code", "it", "-p", "cdoe", "de")
    assert (misspelt.exit_code, misspelt.stdout) == (1, "")
    assert misspelt.stderr == "kb: error: -p cdoe: the query has no :cdoe parameter\n"
    saved = ["query", "missing_names", "-p", "mechanic", "spree", "-p", "locale", "it"]
    extra = run_kb(database_url, *saved, "-p", "x", "1", "-p", "y", "2")
    assert extra.stderr == "kb: error: -p x, -p y: the query has no :x or :y parameter\n"


def test_row_limit_cuts_and_says_so(database_url: str) -> None:
    result = run_kb(database_url, "sql", "--csv", "--max-rows", "2", TWO_LOCALES)
    assert result.stdout == "code,english_name\nde,German\nit,Italian\n"
    assert result.stderr == ""
    cut = run_kb(database_url, "sql", "--csv", "--max-rows", "1", TWO_LOCALES)
    assert cut.stdout == "code,english_name\nde,German\n"
    assert cut.stderr == "kb: only the first 1 rows are shown (--max-rows)\n"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("DELETE FROM locales", "only queries can run here (SELECT, WITH, VALUES), not DELETE"),
        (
            "SELECT code FROM locales WHERE code = :code",
            "the query's :code needs a value (-p code VALUE)",
        ),
    ],
)
def test_errors_are_one_line(database_url: str, query: str, message: str) -> None:
    result = run_kb(database_url, "sql", query)
    assert result.exit_code == 1
    assert result.stderr == f"kb: error: {message}\n"


def test_a_missing_table_is_the_databases_own_message(database_url: str) -> None:
    result = run_kb(database_url, "sql", "SELECT * FROM nowhere")
    assert result.exit_code == 1
    sqlite = "kb: error: no such table: nowhere\n"
    postgresql = 'kb: error: relation "nowhere" does not exist (at character 15)\n'
    assert result.stderr == (sqlite if database_url.startswith("sqlite") else postgresql)


@pytest.mark.postgres
def test_postgresql_errors_give_the_position(postgres_engine: Engine) -> None:
    url = postgres_engine.url.render_as_string(hide_password=False)
    result = run_kb(url, "sql", "SELECT * FROM nowhere")
    assert result.stderr == 'kb: error: relation "nowhere" does not exist (at character 15)\n'


def test_time_limit_stops_the_query_and_the_connection_stays_usable(database_url: str) -> None:
    engine = make_engine(database_url, pool_size=1) if "postgresql" in database_url else None
    engine = engine or make_engine(database_url)
    with pytest.raises(sql.QueryError, match=r"time limit of 0\.2 s"):
        sql.run_query(engine, ENDLESS, time_limit=0.2)
    assert sql.run_query(engine, "SELECT count(*) AS n FROM locales").rows == [(11,)]
    engine.dispose()
    result = run_kb(database_url, "sql", "--time-limit", "0.2", ENDLESS)
    assert result.stderr == (
        "kb: error: query stopped: it ran longer than the time limit of 0.2 s (--time-limit)\n"
    )


# Statements the database itself must refuse: they go through execute_read_only, which skips
# run_query's check of the first word.
WRITES = [
    "INSERT INTO locales VALUES ('xx', 'X', 'X')",
    "UPDATE locales SET english_name = 'X'",
    "DELETE FROM locales",
    "CREATE TABLE evil (id INTEGER)",
    "DROP TABLE card_faces",
    "ALTER TABLE locales ADD COLUMN evil INTEGER",
    "SELECT 1; DELETE FROM locales",
    "SELECT 1 AS one; DROP TABLE card_faces",
    "WITH gone AS (DELETE FROM locales RETURNING code) SELECT * FROM gone",
    "WITH x AS (SELECT 1) INSERT INTO locales SELECT 'xx', 'X', 'X' FROM x",
    "SELECT * FROM locales FOR UPDATE",
]
SQLITE_BYPASSES = [
    "PRAGMA query_only = OFF",
    "PRAGMA journal_mode = DELETE",
    "PRAGMA writable_schema = ON",
    "SELECT load_extension('libevil')",
    "SELECT * FROM pragma_table_info('locales')",
    "BEGIN IMMEDIATE",
    "SAVEPOINT evil",
    "CREATE TEMP TABLE evil (id INTEGER)",
    "ANALYZE",
    "VACUUM",
]
POSTGRESQL_BYPASSES = [
    "RESET ROLE",
    "SET ROLE NONE",
    "SELECT 1; RESET ROLE",
    "SET statement_timeout = 0",
    "SELECT set_config('statement_timeout', '0', false)",
    "SELECT set_config('role', session_user, true)",
    "SELECT set_config('role', session_user, true), "
    "query_to_xml('SELECT pg_read_file(''/etc/hostname'')', true, false, '')",
    "SELECT set_config('session_authorization', session_user, true)",
    "SET TRANSACTION READ WRITE",
    "COPY locales TO '/tmp/kb_evil_copy'",
    "COPY locales FROM '/etc/hostname'",
    "SELECT pg_read_file('/etc/hostname')",
    "SELECT pg_read_binary_file('/etc/hostname')",
    "SELECT pg_ls_dir('.')",
    "SELECT pg_stat_file('/etc/hostname')",
    "SELECT lo_import('/etc/hostname')",
    "SELECT lo_export(1, '/tmp/kb_evil_lo')",
    "DO $$ BEGIN RAISE EXCEPTION '%', pg_read_file('/etc/hostname'); END $$",
    "SELECT nextval('sources_id_seq')",
    "LOCK TABLE locales",
]


def _store_state(engine: Engine) -> tuple[int, list[str]]:
    with engine.connect() as connection:
        locales = connection.execute(select(func.count()).select_from(schema.locales)).scalar_one()
    return locales, sorted(inspect(engine).get_table_names())


def _assert_refused(engine: Engine, statement: str) -> None:
    before = _store_state(engine)
    with pytest.raises(sql.QueryError) as refused:
        sql.execute_read_only(engine, statement)
    assert "\n" not in str(refused.value)
    assert _store_state(engine) == before


@pytest.mark.parametrize("statement", WRITES)
def test_writes_are_refused_by_the_connection(engine: Engine, statement: str) -> None:
    _assert_refused(engine, statement)


@pytest.mark.parametrize("statement", SQLITE_BYPASSES)
def test_sqlite_bypasses_are_refused(sqlite_url: str, statement: str) -> None:
    engine = make_engine(sqlite_url)
    _assert_refused(engine, statement)
    engine.dispose()


def test_sqlite_attach_and_vacuum_into_create_no_file(sqlite_url: str, tmp_path: Path) -> None:
    engine = make_engine(sqlite_url)
    evil = tmp_path / "evil.sqlite"
    _assert_refused(engine, f"ATTACH DATABASE '{evil}' AS evil")
    _assert_refused(engine, f"VACUUM INTO '{evil}'")
    _assert_refused(engine, f"SELECT * FROM locales; ATTACH DATABASE '{evil}' AS evil")
    assert not evil.exists()
    engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("statement", POSTGRESQL_BYPASSES)
def test_postgresql_bypasses_are_refused(postgres_engine: Engine, statement: str) -> None:
    _assert_refused(postgres_engine, statement)
    assert not Path("/tmp/kb_evil_copy").exists()
    assert not Path("/tmp/kb_evil_lo").exists()


@pytest.mark.postgres
def test_a_query_runs_as_kb_reader_on_postgresql(postgres_engine: Engine) -> None:
    result = sql.run_query(
        postgres_engine,
        "SELECT current_user AS role, current_setting('transaction_read_only') AS ro",
    )
    assert result.rows == [("kb_reader", "on")]


@pytest.mark.postgres
def test_postgresql_queries_are_not_jit_compiled(postgres_engine: Engine) -> None:
    # Compiling costs far more than an editor's query takes to run.
    setting = select(func.current_setting("jit"))
    with postgres_engine.connect() as connection:
        server_setting = connection.scalar(setting)
    result = sql.run_query(postgres_engine, "SELECT current_setting('jit') AS jit")
    assert result.rows == [("off",)]
    # Only for kb's transaction: the pooled connection keeps the server's setting.
    with postgres_engine.connect() as connection:
        assert connection.scalar(setting) == server_setting


def test_views_keep_queries_short(demo_url: str) -> None:
    italian = run_kb(
        demo_url,
        "sql",
        "--csv",
        "SELECT DISTINCT localized_name FROM card_rulings_view WHERE locale = :locale "
        "AND mechanics = 'outlaw'",
        "-p",
        "locale",
        "it",
    )
    assert italian.stdout == "localized_name\nPreso nel Fuoco Incrociato\n"
    shared = run_kb(
        demo_url,
        "sql",
        "--csv",
        "SELECT count(*) AS n, min(cards) AS cards FROM ruling_cards_view WHERE card_count = 2",
    )
    assert shared.stdout == 'n,cards\n12,"Caught in the Crossfire, Three Steps Ahead"\n'
    names = run_kb(
        demo_url,
        "sql",
        "--csv",
        "SELECT locale, name FROM names_view WHERE card = :card AND locale IN ('de', 'ko') "
        "ORDER BY locale",
        "-p",
        "card",
        "Three Steps Ahead",
    )
    assert names.stdout == "locale,name\nde,Drei Schritte voraus\nko,\n"
