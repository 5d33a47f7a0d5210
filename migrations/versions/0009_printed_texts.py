"""Printed texts: a card face's type line and rules text in each locale, and Oracle faces.

``printed_texts`` holds, per card, locale and face, what the most recent printing that has it
says in that locale (MTGJSON ``foreignData``, Scryfall ``printed_text``), with that printing
(set, collector number, release date), the file it came from, and the English printed on the
same printing (MTGJSON ``originalText``/``originalType``). ``card_faces`` gains each face's
English Oracle cost, type line and text, which ``cards`` held only joined (" // ").

The new table feeds the site's change log like the other tables the site shows: its triggers
are written out here as kb.changelog made them on the day (0005's, for one more table). The
view ``printed_texts_view`` sets each printed text beside the face's Oracle type line and text.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE_COMMENT = (
    "A card face's printed type line and rules text in one locale, from the most recent "
    "printing that has them, with that printing and the English it printed. Printed texts "
    "receive no errata: the Oracle text (cards, card_faces) is the one that counts."
)
COLUMN_COMMENTS = {
    "face": "The face's position (card_faces.position); 0 for a card of one face.",
    "face_name": "The face's printed name in this locale, on a card of several faces; NULL on "
    "a card of one face (its name is card_names.name).",
    "type_line": "The type line printed in this locale.",
    "text": "The rules text printed in this locale, reminder text included; NULL where the "
    "face has none.",
    "english_type_line": "The English type line of the same printing (MTGJSON originalType); "
    "NULL where the source has none (Scryfall, AtomicCards).",
    "english_text": "The English rules text of the same printing (MTGJSON originalText), which "
    "text translates line by line; NULL where the source has none (Scryfall, AtomicCards) or "
    "the face has no text.",
    "set_code": "The printing's set, upper case (MTGJSON's setCode, Scryfall's set).",
    "collector_number": "The printing's collector number in its set.",
    "released_on": "The printing's release date, by which the most recent printing is chosen; "
    "NULL where the source has none (AtomicCards).",
    "source_id": "The imported file that gave the printing; NULL when an editor added the row.",
}
FACE_COMMENTS = {
    "mana_cost": "The face's mana cost (Oracle); NULL where it has none or the source lacks "
    "the face.",
    "type_line": "The face's English type line (Oracle).",
    "oracle_text": "The face's English rules text (Oracle).",
}

VIEW = """
    SELECT c.id AS card_id, c.name AS card, p.locale, p.face,
           CASE WHEN f.card_id IS NULL THEN n.name ELSE p.face_name END AS printed_name,
           p.type_line AS printed_type_line, p.text AS printed_text,
           CASE WHEN f.card_id IS NULL THEN c.type_line ELSE f.type_line END
               AS oracle_type_line,
           CASE WHEN f.card_id IS NULL THEN c.oracle_text ELSE f.oracle_text END
               AS oracle_text,
           p.english_text AS english_printed_text,
           p.set_code, p.collector_number, p.released_on
    FROM printed_texts p
    JOIN cards c ON c.id = p.card_id
    LEFT JOIN card_faces f ON f.card_id = p.card_id AND f.position = p.face
    LEFT JOIN card_names n ON n.card_id = p.card_id AND n.locale = p.locale"""

# kb.changelog's triggers for printed_texts (CARDS_OF_ROW "SELECT {row}.card_id"), frozen.
SQLITE_TRIGGERS = [
    "CREATE TRIGGER site_changes_printed_texts_insert AFTER INSERT ON printed_texts "
    "FOR EACH ROW BEGIN INSERT INTO site_changes (card_id) SELECT NEW.card_id; END",
    "CREATE TRIGGER site_changes_printed_texts_update AFTER UPDATE ON printed_texts "
    "FOR EACH ROW BEGIN INSERT INTO site_changes (card_id) SELECT NEW.card_id UNION "
    "SELECT OLD.card_id; END",
    "CREATE TRIGGER site_changes_printed_texts_delete AFTER DELETE ON printed_texts "
    "FOR EACH ROW BEGIN INSERT INTO site_changes (card_id) SELECT OLD.card_id; END",
]
_PG_INSERT = (
    "INSERT INTO site_changes (card_id, transaction_id) "
    "SELECT changed.card_id, pg_current_xact_id()::text::bigint "
    "FROM (SELECT {row}.card_id) AS changed (card_id);"
)
POSTGRESQL_TRIGGERS = [
    "CREATE FUNCTION site_changes_printed_texts() RETURNS trigger LANGUAGE plpgsql AS $$\n"
    "BEGIN\n"
    f"  IF TG_OP <> 'DELETE' THEN {_PG_INSERT.format(row='NEW')} END IF;\n"
    f"  IF TG_OP <> 'INSERT' THEN {_PG_INSERT.format(row='OLD')} END IF;\n"
    "  RETURN NULL;\n"
    "END $$",
    "CREATE TRIGGER site_changes_printed_texts AFTER INSERT OR UPDATE OR DELETE ON "
    "printed_texts FOR EACH ROW WHEN (current_setting('kb.bulk_load', true) IS DISTINCT FROM "
    "'on') EXECUTE FUNCTION site_changes_printed_texts()",
    "CREATE TRIGGER site_changes_printed_texts_truncate AFTER TRUNCATE ON printed_texts "
    "FOR EACH STATEMENT EXECUTE FUNCTION site_changes_truncated()",
]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    # Plain ADD COLUMNs: a batch copy of card_faces would drop its change-log triggers.
    for column, comment in FACE_COMMENTS.items():
        op.add_column("card_faces", sa.Column(column, sa.Text(), nullable=True, comment=comment))
    op.create_table(
        "printed_texts",
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("locale", sa.String(16), nullable=False),
        sa.Column("face", sa.Integer(), nullable=False, comment=COLUMN_COMMENTS["face"]),
        *(
            sa.Column(name, sa.Text(), nullable=True, comment=COLUMN_COMMENTS[name])
            for name in ("face_name", "type_line", "text", "english_type_line", "english_text")
        ),
        sa.Column("set_code", sa.String(32), nullable=True, comment=COLUMN_COMMENTS["set_code"]),
        sa.Column(
            "collector_number",
            sa.String(32),
            nullable=True,
            comment=COLUMN_COMMENTS["collector_number"],
        ),
        sa.Column("released_on", sa.Date(), nullable=True, comment=COLUMN_COMMENTS["released_on"]),
        sa.Column("source_id", sa.Integer(), nullable=True, comment=COLUMN_COMMENTS["source_id"]),
        sa.ForeignKeyConstraint(
            ["card_id"],
            ["cards.id"],
            name=op.f("fk_printed_texts_card_id_cards"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["locale"], ["locales.code"], name=op.f("fk_printed_texts_locale_locales")
        ),
        sa.ForeignKeyConstraint(
            ["source_id"], ["sources.id"], name=op.f("fk_printed_texts_source_id_sources")
        ),
        sa.PrimaryKeyConstraint("card_id", "locale", "face", name=op.f("pk_printed_texts")),
        comment=TABLE_COMMENT,
    )
    op.create_index(op.f("ix_printed_texts_source_id"), "printed_texts", ["source_id"])
    op.execute(f"CREATE VIEW printed_texts_view AS {VIEW}")
    for statement in POSTGRESQL_TRIGGERS if dialect == "postgresql" else SQLITE_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.execute("DROP VIEW printed_texts_view")
    if dialect == "postgresql":
        op.execute("DROP FUNCTION site_changes_printed_texts() CASCADE")
    # SQLite drops the table's triggers with it.
    op.drop_index(op.f("ix_printed_texts_source_id"), table_name="printed_texts")
    op.drop_table("printed_texts")
    for column in reversed(list(FACE_COMMENTS)):
        if dialect == "postgresql":
            op.drop_column("card_faces", column)
        else:
            # SQLite's own DROP COLUMN (3.35+) keeps card_faces' triggers; a batch copy would not.
            op.execute(f"ALTER TABLE card_faces DROP COLUMN {column}")
