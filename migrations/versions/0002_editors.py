"""Community editors: revisions (audit log), views for short queries, schema comments, and on
PostgreSQL the read-only role ``kb_reader`` that ``kb sql`` runs queries as.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

READER_ROLE = "kb_reader"

# Fixed copies of the models' comments, not imported from kb.db: a migration must keep meaning
# what it meant when written. SQLite has no comments; Alembic compares them on PostgreSQL only.
TABLE_COMMENTS = {
    "locales": "The eleven languages Magic is printed in.",
    "sources": "Imported files: where records came from.",
    "cards": "One Oracle card, whatever its printings and languages.",
    "card_faces": "Faces of split, double-faced, flip, adventure and meld cards.",
    "card_names": "A card's printed name in one locale (English included).",
    "rulings": "One ruling text, shared by every card it applies to.",
    "card_rulings": "A ruling as published for one card: links cards and rulings.",
    "mechanics": "Keyword abilities, keyword actions and terms (such as outlaw) used as tags.",
    "mechanic_names": "A mechanic's name in one locale.",
    "card_mechanics": "Tags: which cards have which mechanic.",
    "ruling_mechanics": "Tags: which rulings explain which mechanic.",
    "ruling_translations": (
        "Community translations of rulings; unofficial, shown beside the English."
    ),
}
COLUMN_COMMENTS: dict[tuple[str, str], str] = {
    ("cards", "name"): "English name.",
    ("cards", "oracle_id"): "Scryfall Oracle ID, where known.",
    ("cards", "layout"): "normal, split, transform, modal_dfc, meld, flip, adventure, ...",
    ("card_names", "name"): "The name printed on cards in this locale.",
    ("card_names", "source_id"): (
        "The imported file that gave the name; NULL when an editor typed it."
    ),
    ("rulings", "text_key"): "Hash of the text with typography folded: one per ruling.",
    ("rulings", "skeleton_key"): (
        "Hash of the folded text without mana symbols: shared by damaged copies."
    ),
    ("rulings", "origin"): "Who wrote it, where a source says: wotc or scryfall.",
    ("card_rulings", "published_on"): (
        "Date the ruling was published for this card; NULL where the page had none."
    ),
    ("card_rulings", "position"): "Order on the card's page.",
    ("mechanics", "slug"): "Stable English identifier.",
    ("mechanics", "kind"): "keyword_ability, keyword_action or term.",
    ("mechanics", "rule"): "Comprehensive Rules section.",
    ("mechanics", "pattern"): (
        "Regular expression (case-insensitive) that tags rulings and Oracle texts."
    ),
    ("ruling_translations", "status"): "draft or reviewed.",
}


def _ordered_list(expression: str, source: str) -> str:
    """A scalar subquery: ``expression`` over ``source``, sorted and joined with ', '."""
    if op.get_bind().dialect.name == "postgresql":
        return f"(SELECT string_agg({expression}, ', ' ORDER BY {expression}) FROM {source})"
    # SQLite before 3.44 has no ORDER BY inside aggregates; it concatenates in the order of
    # the ordered subquery.
    return (
        f"(SELECT group_concat(item, ', ') FROM "
        f"(SELECT {expression} AS item FROM {source} ORDER BY 1) AS items)"
    )


def _views() -> dict[str, str]:
    ruling_tags = _ordered_list(
        "m.slug",
        "ruling_mechanics rm JOIN mechanics m ON m.id = rm.mechanic_id WHERE rm.ruling_id = r.id",
    )
    ruling_cards = _ordered_list(
        "c2.name",
        "card_rulings cr2 JOIN cards c2 ON c2.id = cr2.card_id WHERE cr2.ruling_id = r.id",
    )
    return {
        "names_view": """
            SELECT c.id AS card_id, c.name AS card, l.code AS locale,
                   l.english_name AS language, n.name AS name
            FROM cards c
            CROSS JOIN locales l
            LEFT JOIN card_names n ON n.card_id = c.id AND n.locale = l.code""",
        "card_rulings_view": f"""
            SELECT c.id AS card_id, c.name AS card, l.code AS locale,
                   n.name AS localized_name, r.id AS ruling_id, r.text AS ruling,
                   cr.published_on, cr.position, {ruling_tags} AS mechanics
            FROM card_rulings cr
            JOIN cards c ON c.id = cr.card_id
            JOIN rulings r ON r.id = cr.ruling_id
            CROSS JOIN locales l
            LEFT JOIN card_names n ON n.card_id = c.id AND n.locale = l.code""",
        "ruling_cards_view": f"""
            SELECT r.id AS ruling_id, r.text AS ruling,
                   (SELECT count(*) FROM card_rulings cr WHERE cr.ruling_id = r.id)
                       AS card_count,
                   {ruling_cards} AS cards, {ruling_tags} AS mechanics
            FROM rulings r""",
    }


def _create_reader_role() -> None:
    """``kb_reader`` may only read kb's tables and views; ``kb sql`` switches to it.

    Roles belong to the cluster, not the database: the role is created once and shared by every
    kb database on the server (two migrations racing to create it are both fine).
    """
    op.execute(
        f"""
        DO $$ BEGIN
            CREATE ROLE {READER_ROLE} NOLOGIN;
        EXCEPTION WHEN duplicate_object THEN NULL;
        END $$"""
    )
    op.execute(f"GRANT USAGE ON SCHEMA public TO {READER_ROLE}")
    op.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {READER_ROLE}")
    # Tables that later migrations create are readable too.
    op.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {READER_ROLE}")
    # set_config('role', ...) is a function, so the user's query could switch back to the
    # session user (a superuser, perhaps) in the middle of a SELECT. Without EXECUTE on it
    # kb_reader cannot; superusers are unaffected, other non-superuser roles lose it in this
    # database only.
    op.execute("REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC")


def _drop_reader_privileges() -> None:
    op.execute("GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO PUBLIC")
    op.execute(
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT ON TABLES FROM {READER_ROLE}"
    )
    op.execute(f"REVOKE SELECT ON ALL TABLES IN SCHEMA public FROM {READER_ROLE}")
    op.execute(f"REVOKE USAGE ON SCHEMA public FROM {READER_ROLE}")
    # The role itself stays: other kb databases on the same server may still use it.


def upgrade() -> None:
    op.create_table(
        "revisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("editor", sa.String(64), nullable=False, comment="Who made the edit."),
        sa.Column("made_at", sa.DateTime(), nullable=False, comment="When (UTC)."),
        sa.Column("action", sa.String(32), nullable=False, comment="The edit, e.g. ruling-text."),
        sa.Column(
            "table_name", sa.String(64), nullable=False, comment="The table the edit changed."
        ),
        sa.Column(
            "row_key",
            sa.JSON(),
            nullable=False,
            comment="Primary key of the changed row, as a JSON object.",
        ),
        sa.Column(
            "old_value",
            sa.JSON(),
            nullable=True,
            comment="The changed columns before the edit; NULL when the row was added.",
        ),
        sa.Column(
            "new_value",
            sa.JSON(),
            nullable=True,
            comment="The changed columns after the edit; NULL when the row was removed.",
        ),
        sa.Column(
            "card_id",
            sa.Integer(),
            nullable=True,
            comment="The card concerned, if any (for kb history --card).",
        ),
        sa.Column(
            "ruling_id",
            sa.Integer(),
            nullable=True,
            comment="The ruling concerned, if any (for kb history --ruling).",
        ),
        sa.Column(
            "reverts_id", sa.Integer(), nullable=True, comment="The revision this one undoes."
        ),
        sa.ForeignKeyConstraint(
            ["reverts_id"], ["revisions.id"], name=op.f("fk_revisions_reverts_id_revisions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_revisions")),
        comment="Audit log: every edit made with kb edit or kb revert.",
    )
    for column in ("editor", "card_id", "ruling_id"):
        op.create_index(op.f(f"ix_revisions_{column}"), "revisions", [column])
    if op.get_bind().dialect.name == "postgresql":
        for table, comment in TABLE_COMMENTS.items():
            op.create_table_comment(table, comment)
        for (table, column), comment in COLUMN_COMMENTS.items():
            op.alter_column(table, column, comment=comment)
    for name, query in _views().items():
        op.execute(f"CREATE VIEW {name} AS {query}")
    if op.get_bind().dialect.name == "postgresql":
        _create_reader_role()


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _drop_reader_privileges()
    for name in _views():
        op.execute(f"DROP VIEW {name}")
    if op.get_bind().dialect.name == "postgresql":
        for table, column in COLUMN_COMMENTS:
            op.alter_column(table, column, comment=None)
        for table in TABLE_COMMENTS:
            op.drop_table_comment(table)
    op.drop_table("revisions")
