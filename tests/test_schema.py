"""The schema where editors look: comments, kb schema, docs/schema.md, the views."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import Table, inspect
from sqlalchemy.engine import Engine

from kb import schema, schema_doc, schema_views
from kb.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def test_docs_schema_md_is_up_to_date() -> None:
    committed = (ROOT / schema_doc.MARKDOWN_PATH).read_text(encoding="utf-8")
    assert committed == schema_doc.markdown(), (
        "docs/schema.md is stale: run kb schema --markdown > docs/schema.md"
    )


def test_every_table_is_described() -> None:
    assert all(table.comment for table in schema.metadata.tables.values())
    markdown = schema_doc.markdown()
    assert "erDiagram" in markdown
    assert '    rulings ||--o{ card_rulings : "ruling_id"' in markdown
    assert "| `text_key` | varchar | no | UQ |" not in markdown  # keys shown are PK and FK only


def test_kb_schema_prints_tables_columns_comments_and_references() -> None:
    output = CliRunner().invoke(cli, ["schema"]).stdout
    assert "rulings: One ruling text, shared by every card it applies to.\n" in output
    assert "ruling_id  integer   not null  primary key  -> rulings.id" in output
    assert "-- Hash of the folded text without mana symbols: shared by damaged copies." in output
    assert "names_view (view):" in output
    assert CliRunner().invoke(cli, ["schema", "--markdown"]).stdout == schema_doc.markdown()


def test_views_have_the_documented_columns(engine: Engine) -> None:
    inspector = inspect(engine)
    assert set(inspector.get_view_names()) == set(schema_views.VIEWS)
    for name, (_description, columns) in schema_views.VIEWS.items():
        assert tuple(column["name"] for column in inspector.get_columns(name)) == columns


@pytest.mark.postgres
def test_postgresql_stores_the_comments(postgres_engine: Engine) -> None:
    # SQLite has no comments; kb.schema keeps them for kb schema.
    inspector = inspect(postgres_engine)
    for table in schema.metadata.tables.values():
        assert inspector.get_table_comment(table.name)["text"] == table.comment
        stored = {
            column["name"]: column.get("comment") for column in inspector.get_columns(table.name)
        }
        assert stored == {column.name: column.comment for column in table.columns}


def test_each_table_is_importable_under_its_own_name() -> None:
    """kb.schema declares every table once, as a module name equal to the table's name, so that
    ``from kb.schema import rulings`` is the table the store calls rulings."""
    named = {name: value for name, value in vars(schema).items() if isinstance(value, Table)}
    assert named.keys() == schema.metadata.tables.keys()
    for name, table in named.items():
        assert table.name == name and table.metadata is schema.metadata


def test_no_module_of_kb_loads_the_orm() -> None:
    """kb works through SQLAlchemy Core alone: its ORM would add ~0.15 to 0.2 s to every
    command's start (kb build's above all) and kb opens no Session."""
    walk = (
        "import importlib, pkgutil, sys, kb\n"
        "for module in pkgutil.walk_packages(kb.__path__, 'kb.'):\n"
        "    importlib.import_module(module.name)\n"
        "print(*sorted(sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", walk], capture_output=True, text=True, check=True
    ).stdout.split()
    assert {"kb.schema", "kb.site.build", "kb.edits", "kb.loader"} <= set(loaded)
    assert "sqlalchemy.orm" not in loaded
