"""The schema where editors look: comments, kb schema, docs/schema.md, the views."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import inspect
from sqlalchemy.engine import Engine

from kb import db, schema_doc
from kb.cli import cli

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


def test_postgresql_stores_the_comments(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        return  # SQLite has no comments; the models keep them for kb schema
    inspector = inspect(engine)
    for table in db.Base.metadata.tables.values():
        assert inspector.get_table_comment(table.name)["text"] == table.comment
        stored = {
            column["name"]: column.get("comment") for column in inspector.get_columns(table.name)
        }
        assert stored == {column.name: column.comment for column in table.columns}
