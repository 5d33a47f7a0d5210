"""Why a card has a mechanic: card_mechanics.origin.

A card's tag is ``listed`` when a source lists the keyword on the card (MTGJSON's and Scryfall's
``keywords``) or an editor tagged it (``kb edit tag``), and ``text`` when kb read it in the card's
Oracle text. Terms (outlaw) were always tagged so; keyword actions now are too, in the rule's sense
("counter target spell", not "+1/+1 counter"): sources list Scry on its cards but never Counter,
whose mechanic page listed no card. Mining tells an action that no source lists by its having no
``listed`` tag, so the two must be told apart.

Existing tags are set by their mechanic's kind: until now only a term's tags were read in a text.
Cards stored before get their keyword-action tags when an import next changes the mechanics (the
Comprehensive Rules of a later date) or the card.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COMMENT = (
    "Why the card has the mechanic: listed (a source lists the keyword on the card, or an "
    "editor tagged it) or text (kb read it in the card's Oracle text: a term, or a keyword "
    "action in the rule's sense, which sources list on few cards or none)."
)


def upgrade() -> None:
    # A plain ADD COLUMN on SQLite too: a batch copy of the table would drop its triggers.
    op.add_column(
        "card_mechanics",
        sa.Column(
            "origin", sa.String(16), nullable=False, server_default="listed", comment=COMMENT
        ),
    )
    op.execute(
        "UPDATE card_mechanics SET origin = 'text' WHERE mechanic_id IN "
        "(SELECT id FROM mechanics WHERE kind NOT LIKE 'keyword%')"
    )


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN on both engines (SQLite 3.35+), for the triggers' sake.
    op.execute("ALTER TABLE card_mechanics DROP COLUMN origin")
