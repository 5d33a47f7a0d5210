"""Indexes for editors' saved queries: translations to review, links with no date.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


UNDATED = sa.text("published_on IS NULL")


def upgrade() -> None:
    op.create_index(
        "ix_ruling_translations_locale_status", "ruling_translations", ["locale", "status"]
    )
    op.create_index(
        "ix_card_rulings_undated",
        "card_rulings",
        ["card_id"],
        sqlite_where=UNDATED,
        postgresql_where=UNDATED,
    )


def downgrade() -> None:
    op.drop_index("ix_card_rulings_undated", table_name="card_rulings")
    op.drop_index("ix_ruling_translations_locale_status", table_name="ruling_translations")
