"""Which revision of kb's parsers read a file: sources.parser_revision.

An import skips a file whose exact bytes an earlier import read. A repair of the parsers (a
Russian subtype of two words, say) then never reached a store until the user forced a re-import.
Each file now records the parsers' revision (kb.importers.PARSER_REVISION), and an import reads
again a file that an older revision read. Files read before are NULL: the next import reads them
again once.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMENT = (
    "The revision of kb's parsers that read the file (kb.importers.PARSER_REVISION); NULL: "
    "read before revisions were kept. An import reads again a file an older revision read."
)


def upgrade() -> None:
    # A plain ADD COLUMN on SQLite too: a batch copy of the table would drop its triggers.
    op.add_column("sources", sa.Column("parser_revision", sa.Integer, comment=COMMENT))


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN on both engines (SQLite 3.35+).
    op.execute("ALTER TABLE sources DROP COLUMN parser_revision")
