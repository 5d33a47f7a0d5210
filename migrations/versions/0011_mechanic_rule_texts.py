"""A mechanic's page quotes the rule that defines it: mechanics.rule_text.

The Comprehensive Rules importer stores, beside the rule's number (702.29), the text of the rule
that defines the mechanic, as the rules print it ("702.29a Cycling is an activated ability
..."). Stores imported before keep NULL until the rules are imported again.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMENT = (
    "The rule that defines the mechanic, in English, as the Comprehensive Rules print it "
    "(702.29a Cycling is an activated ability ...)."
)


def upgrade() -> None:
    # A plain ADD COLUMN on SQLite too: a batch copy of the table would drop its triggers.
    op.add_column("mechanics", sa.Column("rule_text", sa.Text(), nullable=True, comment=COMMENT))


def downgrade() -> None:
    op.drop_column("mechanics", "rule_text")
