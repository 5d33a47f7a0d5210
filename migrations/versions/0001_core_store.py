"""The core store: cards, names, shared rulings, mechanics, sources, translations.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A fixed copy, not kb.locales: a migration must keep meaning what it meant when written.
PRINT_LANGUAGES = [
    ("en", "English", "English"),
    ("de", "German", "Deutsch"),
    ("fr", "French", "français"),
    ("it", "Italian", "italiano"),
    ("es", "Spanish", "español"),
    ("pt-BR", "Portuguese (Brazil)", "português (Brasil)"),
    ("ja", "Japanese", "日本語"),
    ("ko", "Korean", "한국어"),
    ("ru", "Russian", "русский"),
    ("zh-Hans", "Chinese Simplified", "简体中文"),
    ("zh-Hant", "Chinese Traditional", "繁體中文"),
]


def upgrade() -> None:
    locales = op.create_table(
        "locales",
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("english_name", sa.String(64), nullable=False),
        sa.Column("native_name", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_locales")),
    )
    op.bulk_insert(
        locales,
        [{"code": c, "english_name": e, "native_name": n} for c, e, n in PRINT_LANGUAGES],
    )
    op.create_table(
        "sources",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uri", sa.Text(), nullable=False),
        sa.Column("format", sa.String(32), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.Column("stats", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sources")),
    )
    op.create_index(op.f("ix_sources_sha256"), "sources", ["sha256"])
    op.create_table(
        "cards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("oracle_id", sa.String(36), nullable=True),
        sa.Column("mana_cost", sa.Text(), nullable=True),
        sa.Column("type_line", sa.Text(), nullable=True),
        sa.Column("oracle_text", sa.Text(), nullable=True),
        sa.Column("layout", sa.String(32), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cards")),
        sa.UniqueConstraint("name", name=op.f("uq_cards_name")),
        sa.UniqueConstraint("oracle_id", name=op.f("uq_cards_oracle_id")),
    )
    op.create_table(
        "card_faces",
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_faces_card_id_cards"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("card_id", "position", name=op.f("pk_card_faces")),
    )
    op.create_table(
        "card_names",
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("locale", sa.String(16), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["card_id"], ["cards.id"], name=op.f("fk_card_names_card_id_cards"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["locale"], ["locales.code"], name=op.f("fk_card_names_locale_locales")
        ),
        sa.ForeignKeyConstraint(
            ["source_id"], ["sources.id"], name=op.f("fk_card_names_source_id_sources")
        ),
        sa.PrimaryKeyConstraint("card_id", "locale", name=op.f("pk_card_names")),
    )
    op.create_index("ix_card_names_name", "card_names", ["name"])
    op.create_index(op.f("ix_card_names_source_id"), "card_names", ["source_id"])
    op.create_table(
        "rulings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("text_key", sa.String(32), nullable=False),
        sa.Column("skeleton_key", sa.String(32), nullable=False),
        sa.Column("origin", sa.String(16), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rulings")),
        sa.UniqueConstraint("text_key", name=op.f("uq_rulings_text_key")),
    )
    op.create_index(op.f("ix_rulings_skeleton_key"), "rulings", ["skeleton_key"])
    op.create_table(
        "card_rulings",
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("ruling_id", sa.Integer(), nullable=False),
        sa.Column("published_on", sa.Date(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["card_id"],
            ["cards.id"],
            name=op.f("fk_card_rulings_card_id_cards"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["ruling_id"],
            ["rulings.id"],
            name=op.f("fk_card_rulings_ruling_id_rulings"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["source_id"], ["sources.id"], name=op.f("fk_card_rulings_source_id_sources")
        ),
        sa.PrimaryKeyConstraint("card_id", "ruling_id", name=op.f("pk_card_rulings")),
    )
    op.create_index(op.f("ix_card_rulings_ruling_id"), "card_rulings", ["ruling_id"])
    op.create_index(op.f("ix_card_rulings_source_id"), "card_rulings", ["source_id"])
    op.create_table(
        "mechanics",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("rule", sa.String(16), nullable=True),
        sa.Column("pattern", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mechanics")),
        sa.UniqueConstraint("slug", name=op.f("uq_mechanics_slug")),
    )
    op.create_table(
        "mechanic_names",
        sa.Column("mechanic_id", sa.Integer(), nullable=False),
        sa.Column("locale", sa.String(16), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["mechanic_id"],
            ["mechanics.id"],
            name=op.f("fk_mechanic_names_mechanic_id_mechanics"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["locale"], ["locales.code"], name=op.f("fk_mechanic_names_locale_locales")
        ),
        sa.PrimaryKeyConstraint("mechanic_id", "locale", name=op.f("pk_mechanic_names")),
    )
    for link, owner in (("card_mechanics", "card"), ("ruling_mechanics", "ruling")):
        op.create_table(
            link,
            sa.Column(f"{owner}_id", sa.Integer(), nullable=False),
            sa.Column("mechanic_id", sa.Integer(), nullable=False),
            sa.ForeignKeyConstraint(
                [f"{owner}_id"],
                [f"{owner}s.id"],
                name=op.f(f"fk_{link}_{owner}_id_{owner}s"),
                ondelete="CASCADE",
            ),
            sa.ForeignKeyConstraint(
                ["mechanic_id"],
                ["mechanics.id"],
                name=op.f(f"fk_{link}_mechanic_id_mechanics"),
                ondelete="CASCADE",
            ),
            sa.PrimaryKeyConstraint(f"{owner}_id", "mechanic_id", name=op.f(f"pk_{link}")),
        )
        op.create_index(op.f(f"ix_{link}_mechanic_id"), link, ["mechanic_id"])
    op.create_table(
        "ruling_translations",
        sa.Column("ruling_id", sa.Integer(), nullable=False),
        sa.Column("locale", sa.String(16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.ForeignKeyConstraint(
            ["ruling_id"],
            ["rulings.id"],
            name=op.f("fk_ruling_translations_ruling_id_rulings"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["locale"], ["locales.code"], name=op.f("fk_ruling_translations_locale_locales")
        ),
        sa.PrimaryKeyConstraint("ruling_id", "locale", name=op.f("pk_ruling_translations")),
    )


def downgrade() -> None:
    for table in (
        "ruling_translations",
        "ruling_mechanics",
        "card_mechanics",
        "mechanic_names",
        "mechanics",
        "card_rulings",
        "rulings",
        "card_names",
        "card_faces",
        "cards",
        "sources",
        "locales",
    ):
        op.drop_table(table)
