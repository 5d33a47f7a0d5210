"""Editors' queries read less: link indexes that hold the card id, and near_duplicates_view.

- The indexes of card_rulings by ruling and of card_mechanics by mechanic also hold the card id,
  so a ruling's cards (ruling_cards_view, untagged_rulings, most_shared_rulings) and a
  mechanic's cards (missing_names) are read from the index alone, without visiting the table
  for each link's card id. Each replaces a one-column index on the same leading column: an
  import maintains as many indexes as before.
- near_duplicates_view: each pair of near_duplicates with both texts.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, leading column): each index on it becomes an index on (column, card_id).
LINKS = (("card_rulings", "ruling_id"), ("card_mechanics", "mechanic_id"))


def _near_duplicates_view() -> str:
    if op.get_bind().dialect.name == "postgresql":
        # Joined, PostgreSQL would hash the whole rulings table twice to look up ~1,700 texts.
        # A lateral subquery that cannot be flattened (OFFSET 0) is looked up pair by pair,
        # and PostgreSQL caches each ruling's text for the pairs that repeat it (Memoize): the
        # pairs come in cliques, 3,883 pairs of 1,683 rulings in the 2022 corpus.
        return """
            SELECT p.ruling_id, p.other_ruling_id, p.reason, a.text AS ruling,
                   b.text AS other_ruling
            FROM near_duplicates p
            CROSS JOIN LATERAL (SELECT r.text FROM rulings r WHERE r.id = p.ruling_id OFFSET 0) a
            CROSS JOIN LATERAL
                (SELECT r.text FROM rulings r WHERE r.id = p.other_ruling_id OFFSET 0) b"""
    # SQLite has no LATERAL; it looks each text up by rowid.
    return """
        SELECT p.ruling_id, p.other_ruling_id, p.reason, a.text AS ruling,
               b.text AS other_ruling
        FROM near_duplicates p
        JOIN rulings a ON a.id = p.ruling_id
        JOIN rulings b ON b.id = p.other_ruling_id"""


def upgrade() -> None:
    for table, column in LINKS:
        op.create_index(f"ix_{table}_{column}_card_id", table, [column, "card_id"])
        op.drop_index(f"ix_{table}_{column}", table_name=table)
    op.execute(f"CREATE VIEW near_duplicates_view AS {_near_duplicates_view()}")


def downgrade() -> None:
    op.execute("DROP VIEW near_duplicates_view")
    for table, column in LINKS:
        op.create_index(f"ix_{table}_{column}", table, [column])
        op.drop_index(f"ix_{table}_{column}_card_id", table_name=table)
