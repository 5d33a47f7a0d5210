"""The schema where editors look: comments, kb schema, docs/schema.md, the views."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import inspect
from sqlalchemy.engine import Engine
from sqlalchemy.sql import TableClause

from kb import db, schema_doc
from kb.cli import cli
from kb.site import tables as site_tables

ROOT = Path(__file__).resolve().parents[1]


def test_docs_schema_md_is_up_to_date() -> None:
    committed = (ROOT / schema_doc.MARKDOWN_PATH).read_text(encoding="utf-8")
    assert committed == schema_doc.markdown(), (
        "docs/schema.md is stale: run kb schema --markdown > docs/schema.md"
    )


def test_every_table_is_described() -> None:
    assert all(table.comment for table in db.Base.metadata.tables.values())
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
    assert set(inspector.get_view_names()) == set(db.VIEWS)
    for name, (_description, columns) in db.VIEWS.items():
        assert tuple(column["name"] for column in inspector.get_columns(name)) == columns


@pytest.mark.postgres
def test_postgresql_stores_the_comments(postgres_engine: Engine) -> None:
    # SQLite has no comments; the models keep them for kb schema.
    inspector = inspect(postgres_engine)
    for table in db.Base.metadata.tables.values():
        assert inspector.get_table_comment(table.name)["text"] == table.comment
        stored = {
            column["name"]: column.get("comment") for column in inspector.get_columns(table.name)
        }
        assert stored == {column.name: column.comment for column in table.columns}


def test_the_site_builds_tables_are_the_models() -> None:
    """kb.site.tables names what the build reads without loading the models: each of its
    columns is a column of the model's table, of the same type."""
    for name, light in vars(site_tables).items():
        if not isinstance(light, TableClause):
            continue
        model = db.Base.metadata.tables[light.name]
        assert name == light.name
        for column in light.c:
            assert type(column.type) is type(model.c[column.name].type), (light.name, column.name)


def test_kb_build_does_without_the_orm() -> None:
    """kb's command line and site builder load neither kb.db's models nor SQLAlchemy's ORM
    (~0.15 to 0.2 s of every build's start)."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, kb.cli, kb.site.build; print(*sorted(sys.modules))"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert "kb.site.build" in loaded
    assert "kb.db" not in loaded and "sqlalchemy.orm" not in loaded
