"""Migrations are frozen: they import nothing of kb, and replaying them builds the schema they
always built, with the data they always derived.

tests/expected/schema-<engine>.txt holds what each revision changes in the schema, read from
the catalogue (sqlite_master; pg_catalog, as PostgreSQL 15 prints definitions) after the
migrations as they were when it was written. A migration that changes what it does fails
here. After adding a migration, append its revision to REVISIONS, refresh and review the diff
(only the new revision's section may appear):
    KB_REFRESH_EXPECTED=1 .venv/bin/pytest tests/test_migrations_frozen.py -k schema
"""

from __future__ import annotations

import ast
import os
import re

import pytest
from realdata import DATA, ROOT
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from kb import changelog, migrate
from kb.derived import refresh_near_duplicates, ruling_keys
from kb.engine import make_engine
from kb.importing import run_import

EXPECTED = ROOT / "tests" / "expected"
MIGRATIONS = ROOT / "migrations"
ENV_IMPORTS = {"kb.schema"}
"""What migrations/env.py may import of kb: the schema, which ``alembic check`` compares the
database with (no migration reads it)."""
REVISIONS = (
    "0001",
    "0002",
    "0003",
    "0004",
    "0005",
    "0006",
    "0007",
    "0008",
    "0009",
    "0010",
    "0011",
    "0012",
    "0013",
)
"""The revisions whose changes the expected files hold, in order."""


def _called(function: ast.expr) -> str:
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def kb_imports(source: str) -> set[str]:
    """The modules of kb that Python source imports, by statement or by a call with the name."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and _called(node.func) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.add(str(node.args[0].value))
    return {name for name in found if name == "kb" or name.startswith("kb.")}


def test_kb_imports_are_found() -> None:
    source = (
        "import os, kb.text\nfrom kb import db\nfrom . import kb\nfrom kbx import y\n"
        "importlib.import_module('kb.loader')\n__import__('kb')\nprint('kb.cli')\n"
    )
    assert kb_imports(source) == {"kb.text", "kb", "kb.loader"}


@pytest.mark.parametrize(
    "migration", sorted(path.name for path in (MIGRATIONS / "versions").glob("*.py"))
)
def test_no_migration_imports_kb(migration: str) -> None:
    source = (MIGRATIONS / "versions" / migration).read_text("utf-8")
    assert kb_imports(source) == set(), (
        f"{migration} imports kb's live code: copy what it needs into the migration"
    )


def test_env_imports_of_kb_only_the_schema() -> None:
    assert kb_imports((MIGRATIONS / "env.py").read_text("utf-8")) == ENV_IMPORTS


# SQLite quotes a table's name in its definition when it renames it (a batch copy does): the
# same table either way. sqlite_sequence, SQLite's own table of AUTOINCREMENT counters, comes
# with the first such table and is never dropped.
_QUOTED_NAME = re.compile(r'^CREATE TABLE "(\w+)"')


def _sqlite_schema(connection: Connection) -> dict[str, str]:
    rows = connection.execute(
        text("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name != 'sqlite_sequence'")
    )
    return {
        f"{kind} {name} ON {table}": _QUOTED_NAME.sub(r"CREATE TABLE \1", str(sql))
        for kind, name, table, sql in rows
    }


def _acl(column: str, kind: str, owner: str) -> str:
    """An access list, sorted, and written out when it is the default (NULL): the same grants
    either way (a revoke and a grant back leave the default written out)."""
    items = f'unnest(coalesce({column}, acldefault(CAST({kind} AS "char"), {owner})))'
    ordered = "string_agg(i::text, ',' ORDER BY i::text COLLATE \"C\")"
    return f"(SELECT '{{' || {ordered} || '}}' FROM {items} i)"


_RELATION_ACL = _acl("c.relacl", "CASE c.relkind WHEN 'S' THEN 's' ELSE 'r' END", "c.relowner")


# Each query gives (section, name, definition) rows of the public schema. The owner's name is
# the test server's user, so access lists show it as OWNER.
_POSTGRESQL_CATALOGUE = {
    "table": f"""
        SELECT 'table', c.relname, c.relkind::text || ' ' || coalesce(obj_description(c.oid,
               'pg_class'), '-') || ' acl ' || {_RELATION_ACL}
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'S')""",
    "column": """
        SELECT 'column', c.relname || '.' || lpad(row_number() OVER (PARTITION BY c.oid
               ORDER BY a.attnum)::text, 3, '0') || ' ' || a.attname,
               format_type(a.atttypid, a.atttypmod)
               || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
               || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
               || CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END
               || coalesce(' COMMENT ' || col_description(c.oid, a.attnum), '')
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v') AND a.attnum > 0
              AND NOT a.attisdropped""",
    "constraint": """
        SELECT 'constraint', c.conrelid::regclass::text || '.' || c.conname,
               pg_get_constraintdef(c.oid)
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE n.nspname = 'public'""",
    "index": """
        SELECT 'index', tablename || '.' || indexname, indexdef
        FROM pg_indexes WHERE schemaname = 'public'""",
    "view": """
        SELECT 'view', c.relname, pg_get_viewdef(c.oid, true)
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'v'""",
    "trigger": """
        SELECT 'trigger', t.tgrelid::regclass::text || '.' || t.tgname, pg_get_triggerdef(t.oid)
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND NOT t.tgisinternal""",
    "function": """
        SELECT 'function', p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')',
               pg_get_functiondef(p.oid)
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public'""",
    "default privileges": """
        SELECT 'default privileges', d.defaclobjtype::text, d.defaclacl::text
        FROM pg_default_acl d JOIN pg_namespace n ON n.oid = d.defaclnamespace
        WHERE n.nspname = 'public'""",
    "set_config": f"""
        SELECT 'function acl', 'pg_catalog.set_config', {_acl("proacl", "'f'", "proowner")}
        FROM pg_proc WHERE oid = 'pg_catalog.set_config(text, text, boolean)'::regprocedure""",
}


def _postgresql_schema(connection: Connection) -> dict[str, str]:
    owner = connection.execute(text("SELECT current_user")).scalar_one()
    # In an access list the owner is a grantee ({owner=...) or a grantor (/owner, or /owner}).
    owner_in_acl = re.compile(rf"(?<=[{{,/]){re.escape(owner)}(?=[=,}}])")
    return {
        f"{section} {name}": owner_in_acl.sub("OWNER", str(definition))
        for query in _POSTGRESQL_CATALOGUE.values()
        for section, name, definition in connection.execute(text(query))
    }


def schema(connection: Connection) -> dict[str, str]:
    """Every object of the store's schema: its definition by its kind and name."""
    if connection.dialect.name == "postgresql":
        return _postgresql_schema(connection)
    return _sqlite_schema(connection)


def schema_changes(before: dict[str, str], after: dict[str, str]) -> str:
    """What a revision changed: objects added (+), changed (~, the new definition), removed (-)."""
    lines = []
    for name in sorted(before.keys() | after.keys()):
        if name not in after:
            lines.append(f"- {name}\n")
        elif name not in before:
            lines.append(f"+ {name}\n  {after[name]}\n")
        elif before[name] != after[name]:
            lines.append(f"~ {name}\n  {after[name]}\n")
    return "".join(lines)


def test_each_revision_builds_the_schema_it_always_built(empty_database_url: str) -> None:
    engine = make_engine(empty_database_url)
    sections, before = [], {}
    for revision in REVISIONS:
        migrate.upgrade(engine, revision)
        with engine.connect() as connection:
            after = schema(connection)
        sections.append(f"== revision {revision}\n{schema_changes(before, after)}")
        before = after
    engine.dispose()
    actual = "".join(sections)
    expected = EXPECTED / f"schema-{engine.dialect.name}.txt"
    if os.environ.get("KB_REFRESH_EXPECTED"):
        expected.write_text(actual, encoding="utf-8")
    assert actual == expected.read_text("utf-8"), (
        f"the migrations no longer build the schema in {expected}: a migration changed what it "
        "does (write a new migration instead)"
    )


PREFIX = "When this spell resolves, choose the modes in the order they are printed and then "
"""Longer than the head: rulings that begin with it share a head key."""
TAIL = "follow each of them in turn."
RULINGS = [
    PREFIX + TAIL,
    PREFIX.replace("choose", "pick") + TAIL,  # another beginning
    PREFIX + TAIL + " " + "x" * 9,  # 10 characters longer: near the first
    PREFIX + TAIL + " " + "x" * 10,  # 11 longer: near the one before, not the first
    PREFIX.replace("When", "Ｗｈｅｎ") + "follow each in turn.",  # NFKC folds it: near the first
    "{T}: Add {C}{C}. Spend this mana only to cast colorless spells.",
    ": Add . Spend this mana only to cast colorless spells.",  # a damaged copy of the above
    "Pay {2}{U} to copy it. " + PREFIX,
    "Pay  to copy it.  " + PREFIX,  # damaged, and the heads differ
    "“Three Steps Ahead” counts as one spell, whatever modes you chose.",
    '"Three Steps Ahead"  counts as one spell, whatever modes you chose!',  # same head
    " Written by hand,\twith spaces around it.\n",  # its head key is of the text stripped
]
"""Rulings written beside data/'s, each against a corner of the near-duplicate rules: typography
folded, lengths at the slack and past it, damaged copies (whose beginnings may differ)."""


def _rows(connection: Connection) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every kb table but the change log (whose rows a downgrade drops)."""
    tables = set(inspect(connection).get_table_names()) - {"site_changes", "alembic_version"}
    return {
        table: sorted(
            (tuple(row) for row in connection.execute(text(f"SELECT * FROM {table}"))), key=repr
        )
        for table in sorted(tables)
    }


def test_0004_derives_what_the_live_code_derives(database_url: str) -> None:
    """data/ imported and RULINGS written by today's code at head; back to 0003 (which drops
    the head keys and the pairs) and up again: 0004 derives the same keys and pairs."""
    engine = make_engine(database_url)
    run_import(engine, [DATA])
    with engine.begin() as connection:
        first = connection.execute(text("SELECT max(id) FROM rulings")).scalar_one() + 1
        ids = list(range(first, first + len(RULINGS)))
        connection.execute(
            text(
                "INSERT INTO rulings (id, text, text_key, skeleton_key, head_key) "
                "VALUES (:id, :text, :text_key, :skeleton_key, :head_key)"
            ),
            [{"id": id_, "text": t, **ruling_keys(t)} for id_, t in zip(ids, RULINGS, strict=True)],
        )
        refresh_near_duplicates(connection, ids)
        # The parsers' revision is 0013's: the way down drops it, the way up leaves it empty.
        connection.execute(text("UPDATE sources SET parser_revision = NULL"))
    with engine.connect() as connection:
        live = _rows(connection)
    migrate.downgrade(engine, "0003")
    with engine.connect() as connection:
        assert "near_duplicates" not in inspect(connection).get_table_names()
        assert "head_key" not in {c["name"] for c in inspect(connection).get_columns("rulings")}
    migrate.upgrade(engine)
    with engine.connect() as connection:
        replayed = _rows(connection)
    engine.dispose()
    assert replayed == live
    pairs = {
        (x - first, y - first, reason) for x, y, reason in live["near_duplicates"] if x >= first
    }
    assert pairs == {
        (0, 2, "same beginning"),
        (0, 4, "same beginning"),
        (2, 3, "same beginning"),
        (5, 6, "same without symbols"),
        (7, 8, "same without symbols"),
        (9, 10, "same beginning"),
    }


def test_the_triggers_at_head_are_those_kb_changelog_creates(database_url: str) -> None:
    """An import drops and recreates the change log's triggers with kb.changelog's statements
    (on SQLite): they must be the ones the migrations left, or the next import changes them."""
    engine = make_engine(database_url)
    with engine.begin() as connection:
        migrated = schema(connection)
        for statement in changelog.drop_triggers(connection.dialect.name):
            connection.exec_driver_sql(statement)
        dropped = schema(connection)
        for statement in changelog.create_triggers(connection.dialect.name):
            connection.exec_driver_sql(statement)
        recreated = schema(connection)
    engine.dispose()
    # SQLite: one trigger per table and event; PostgreSQL: a row trigger and a TRUNCATE
    # trigger per table, and their functions.
    logging = {name for name in migrated if name.startswith(("trigger ", "function site_changes"))}
    assert len(logging) == {"sqlite": 33, "postgresql": 34}[engine.dialect.name]
    assert logging.isdisjoint(dropped)
    assert recreated == migrated


def test_down_to_base_and_up_again_builds_the_same_schema(empty_database_url: str) -> None:
    """The downgrades leave nothing that changes the upgrades' result: no trigger, function,
    view or grant of an earlier pass is left behind or found in the way."""
    engine = make_engine(empty_database_url)
    migrate.upgrade(engine)
    with engine.connect() as connection:
        first = schema(connection)
    migrate.downgrade(engine, "base")
    with engine.connect() as connection:
        left = {name for name in schema(connection) if "alembic_version" not in name}
    migrate.upgrade(engine)
    with engine.connect() as connection:
        again = schema(connection)
    engine.dispose()
    # On PostgreSQL, set_config's access list is read even at base (it is given back to all).
    assert left <= {"function acl pg_catalog.set_config"}
    assert schema_changes(first, again) == ""


def test_each_downgrade_undoes_its_upgrade(empty_database_url: str) -> None:
    engine = make_engine(empty_database_url)
    upgraded = {}
    for revision in REVISIONS:
        migrate.upgrade(engine, revision)
        with engine.connect() as connection:
            upgraded[revision] = schema(connection)
    for revision in reversed(REVISIONS[:-1]):
        migrate.downgrade(engine, revision)
        with engine.connect() as connection:
            left = schema_changes(upgraded[revision], schema(connection))
        assert left == "", f"down to {revision}, the schema differs from the upgrade's:\n{left}"
    engine.dispose()


def test_0008_keeps_the_log_and_its_triggers(empty_database_url: str) -> None:
    """On SQLite 0008 copies site_changes with 0005's triggers set aside: the rows stay, each
    gets its own nonce, and the triggers log writes again afterwards."""
    engine = make_engine(empty_database_url)
    migrate.upgrade(engine, "0007")
    with engine.begin() as connection:
        for name in ("Alpha", "Beta", "Gamma"):
            connection.execute(text("INSERT INTO cards (name) VALUES (:name)"), {"name": name})
        logged = connection.execute(text("SELECT id, card_id FROM site_changes ORDER BY id")).all()
    migrate.upgrade(engine)
    with engine.begin() as connection:
        kept = connection.execute(
            text("SELECT id, card_id, nonce FROM site_changes ORDER BY id")
        ).all()
        connection.execute(text("UPDATE cards SET layout = 'normal' WHERE name = 'Beta'"))
        added = connection.execute(
            text("SELECT card_id, nonce FROM site_changes WHERE id > :last"),
            {"last": logged[-1].id},
        ).all()
    engine.dispose()
    assert len(logged) == 3
    assert [(row.id, row.card_id) for row in kept] == [tuple(row) for row in logged]
    assert len({row.nonce for row in kept}) == 3
    assert all(re.fullmatch("[0-9a-f]{16}", row.nonce) for row in kept)
    # PostgreSQL logs the new row and the old one, SQLite their cards once.
    assert {row.card_id for row in added} == {logged[1].card_id}
    assert all(re.fullmatch("[0-9a-f]{16}", row.nonce) for row in added)
