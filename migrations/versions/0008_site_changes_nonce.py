"""Each change log row carries a random nonce, so that a build can tell its log from another.

A site's manifest records the log's last row (its id and nonce). An older copy of the store put
back in place (the same file, or a dump restored into the same database) and then edited
writes other rows under the same ids: the row at the site's position then has another nonce,
and the next build checks every card instead of trusting the log.

The nonce is the column's default, so the triggers that write the log need no change.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMENT = "Random: tells this row from a row another copy of the store wrote under the same id."
RANDOM = {
    "sqlite": "(lower(hex(randomblob(8))))",
    "postgresql": "substr(md5(random()::text), 1, 16)",
}


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    column = sa.Column(
        "nonce",
        sa.String(16),
        nullable=False,
        server_default=sa.text(RANDOM[dialect]),
        comment=COMMENT,
    )
    if dialect == "postgresql":
        # A volatile default: PostgreSQL rewrites the table, giving each row its own.
        op.add_column("site_changes", column)
        return
    # SQLite adds no column with an expression as its default: the table is copied, each row
    # given its own nonce. The triggers that write into it are set aside meanwhile.
    _in_copied_table(lambda batch: batch.add_column(column))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_column("site_changes", "nonce")
    else:
        _in_copied_table(lambda batch: batch.drop_column("nonce"))


def _site_changes() -> ModuleType:
    """Migration 0005, whose triggers (unchanged since) this one sets aside and puts back."""
    path = Path(__file__).with_name("0005_site_changes.py")
    spec = importlib.util.spec_from_file_location("kb_migration_0005", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _in_copied_table(change: Callable[[BatchOperations], object]) -> None:
    triggers = _site_changes()
    for statement in triggers.drop_triggers("sqlite"):
        op.execute(statement)
    with op.batch_alter_table(
        "site_changes", recreate="always", table_kwargs={"sqlite_autoincrement": True}
    ) as batch:
        change(batch)
    for statement in triggers.create_triggers("sqlite"):
        op.execute(statement)
