"""The change log for incremental site builds: site_changes and the triggers that fill it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# kb's own statements, not copies: an import drops and recreates the same triggers on SQLite.
from kb.changelog import create_triggers, drop_triggers

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "site_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column(
            "card_id",
            sa.Integer(),
            nullable=True,
            comment="The card whose pages may have changed; NULL: any card.",
        ),
        sa.Column(
            "transaction_id",
            sa.BigInteger(),
            nullable=True,
            comment="PostgreSQL: the writing transaction (pg_current_xact_id).",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_site_changes")),
        comment="Change log for incremental site builds: one row per card a write may have "
        "changed, written by triggers; card_id NULL means any card.",
        sqlite_autoincrement=True,
    )
    for statement in create_triggers(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    for statement in drop_triggers(op.get_bind().dialect.name):
        op.execute(statement)
    op.drop_table("site_changes")
