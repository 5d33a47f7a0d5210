"""A reviewed translation records the English text it was reviewed against.

ruling_translations.reviewed_key holds the ruling's text_key when the translation was marked
reviewed. Once an editor changes the English text, the keys differ: the site stops showing
the translation as reviewed and translations_to_review lists it again. Translations reviewed
before this revision are taken to match the English text they stand beside now.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMENT = (
    "The ruling's text_key when the translation was reviewed; while the English text keeps "
    "that key, the review stands. NULL: not recorded (a review written by hand)."
)


def upgrade() -> None:
    # A plain ADD COLUMN on SQLite too: a batch copy of the table would drop its change-log
    # triggers.
    op.add_column(
        "ruling_translations",
        sa.Column("reviewed_key", sa.String(32), nullable=True, comment=COMMENT),
    )
    op.execute(
        "UPDATE ruling_translations SET reviewed_key = "
        "(SELECT text_key FROM rulings WHERE rulings.id = ruling_translations.ruling_id) "
        "WHERE status = 'reviewed'"
    )


def downgrade() -> None:
    op.drop_column("ruling_translations", "reviewed_key")
