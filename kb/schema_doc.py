"""The schema as editors see it, generated from kb.schema: ``kb schema`` and docs/schema.md."""

from __future__ import annotations

from sqlalchemy import Column, Table

from kb.schema import metadata
from kb.schema_views import VIEWS

MARKDOWN_PATH = "docs/schema.md"


def _type_name(column: Column[object]) -> str:
    """The column's type without its length (Mermaid allows no parentheses there)."""
    return str(column.type).split("(")[0].lower()


def _references(column: Column[object]) -> str:
    return ", ".join(key.target_fullname for key in column.foreign_keys)


def _column_flags(column: Column[object]) -> str:
    flags = ["PK"] if column.primary_key else []
    flags += ["FK"] if column.foreign_keys else []
    return ", ".join(flags)


def _tables() -> list[Table]:
    return sorted(metadata.tables.values(), key=lambda table: table.name)


def text() -> str:
    """Tables, columns, comments and references, for a terminal."""
    lines: list[str] = []
    for table in _tables():
        lines.append(f"{table.name}: {table.comment or ''}".rstrip())
        width = max(len(column.name) for column in table.columns)
        for column in table.columns:
            parts = [
                column.name.ljust(width),
                _type_name(column).ljust(8),
                "null" if column.nullable else "not null",
            ]
            if column.primary_key:
                parts.append("primary key")
            if column.foreign_keys:
                parts.append(f"-> {_references(column)}")
            if column.comment:
                parts.append(f"-- {column.comment}")
            lines.append("  " + "  ".join(parts))
        lines.append("")
    for name, (description, columns) in VIEWS.items():
        lines.append(f"{name} (view): {description}")
        lines.append(f"  {', '.join(columns)}")
        lines.append("")
    return "\n".join(lines)


def _mermaid() -> list[str]:
    lines = ["```mermaid", "erDiagram"]
    for table in _tables():
        for key in sorted(table.foreign_keys, key=lambda key: key.parent.name):
            optional = "o" if key.parent.nullable else "|"
            label = key.parent.name
            lines.append(f'    {key.column.table.name} |{optional}--o{{ {table.name} : "{label}"')
    for table in _tables():
        lines.append(f"    {table.name} {{")
        for column in table.columns:
            flags = f" {_column_flags(column)}" if _column_flags(column) else ""
            lines.append(f"        {_type_name(column)} {column.name}{flags}")
        lines.append("    }")
    lines.append("```")
    return lines


def markdown() -> str:
    """docs/schema.md: the diagram, then every table and view with its columns and comments."""
    lines = [
        "# The kb schema",
        "",
        "Generated from the tables in `kb/schema.py` by `kb schema --markdown > docs/schema.md`; "
        "a test fails when this file is stale.",
        "",
        *_mermaid(),
        "",
        "## Tables",
    ]
    for table in _tables():
        lines += ["", f"### `{table.name}`", "", table.comment or "", ""]
        lines += ["| column | type | null | key | meaning |", "|---|---|---|---|---|"]
        for column in table.columns:
            key = _column_flags(column)
            if column.foreign_keys:
                key += f" → `{_references(column)}`"
            null = "yes" if column.nullable else "no"
            lines.append(
                f"| `{column.name}` | {_type_name(column)} | {null} | {key} | "
                f"{column.comment or ''} |"
            )
    lines += ["", "## Views", ""]
    for name, (description, columns) in VIEWS.items():
        lines += [f"- `{name}`: {description} Columns: {', '.join(f'`{c}`' for c in columns)}."]
    return "\n".join(lines) + "\n"
