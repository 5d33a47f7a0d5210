"""Mined mechanic names: where a mechanic's name comes from, and a mined name's evidence.

``mechanic_names`` gains ``origin`` ('source': an imported file, the rules or the catalog;
'mined': kb/mining, from the printed texts; 'editor': ``kb edit mechanic-name``, which a mined
name never replaces) and, for a mined name, its votes: how many cards voted for it, how many
voted at all, how it was mined, and the runner-up. ``type_names`` holds the card types,
supertypes and subtypes mined from the printed type lines, with the same evidence.

It comes after 0011 (mechanics' rule texts), which reached main first: a store already at 0011
must still get this one, so it revises the head rather than 0009.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ORIGIN = (
    "Where the name comes from: source (an imported file: the rules, the catalog), mined "
    "(voted by the printed texts, kb/mining), editor (kb edit mechanic-name; never replaced by "
    "a mined name)."
)
EVIDENCE = {
    "cards": "A mined name: how many cards voted for it (one vote per card).",
    "voters": "A mined name: how many cards voted at all; cards / voters is its share.",
    "method": "A mined name: line (aligned lines), contrast (words of the cards with the "
    "keyword against the others') or type (aligned type lines).",
    "runner_up": "A mined name: the name with the next most votes, if any.",
    "runner_up_cards": "A mined name: how many cards voted for the runner-up.",
}
TYPE_NAMES = "A card type, supertype or subtype's name in one locale, mined from type lines."


def _evidence() -> list[sa.Column]:  # type: ignore[type-arg]
    return [
        sa.Column("cards", sa.Integer(), nullable=True, comment=EVIDENCE["cards"]),
        sa.Column("voters", sa.Integer(), nullable=True, comment=EVIDENCE["voters"]),
        sa.Column("method", sa.String(16), nullable=True, comment=EVIDENCE["method"]),
        sa.Column("runner_up", sa.Text(), nullable=True, comment=EVIDENCE["runner_up"]),
        sa.Column(
            "runner_up_cards", sa.Integer(), nullable=True, comment=EVIDENCE["runner_up_cards"]
        ),
    ]


def upgrade() -> None:
    # Plain ADD COLUMNs (no batch copy): existing names are the sources'.
    op.add_column(
        "mechanic_names",
        sa.Column("origin", sa.String(16), nullable=False, server_default="source", comment=ORIGIN),
    )
    for column in _evidence():
        op.add_column("mechanic_names", column)
    op.create_table(
        "type_names",
        sa.Column("type", sa.String(64), nullable=False, comment="The English name: Rogue."),
        sa.Column("locale", sa.String(16), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        *_evidence(),
        sa.ForeignKeyConstraint(
            ["locale"], ["locales.code"], name=op.f("fk_type_names_locale_locales")
        ),
        sa.PrimaryKeyConstraint("type", "locale", name=op.f("pk_type_names")),
        comment=TYPE_NAMES,
    )


def downgrade() -> None:
    op.drop_table("type_names")
    # ALTER TABLE ... DROP COLUMN on both engines (SQLite 3.35+): a batch copy of
    # mechanic_names would drop its change-log triggers.
    for column in ("runner_up_cards", "runner_up", "method", "voters", "cards", "origin"):
        op.execute(f"ALTER TABLE mechanic_names DROP COLUMN {column}")
