"""The store's schema, declared once: SQLAlchemy Core tables on one ``MetaData``.

The Alembic migrations under migrations/ are the schema's source of truth; these tables mirror
them (``alembic check`` finds no drift, tests/test_migrations.py). Every part of kb that reads
or writes the store uses them: the loader, edits, the exporter, the site build, ``kb schema``
and migrations/env.py. Core tables, not ORM models: kb opens no ``Session``, and Core loads
without SQLAlchemy's ORM (docs/schema-migrations.md has the import costs). Community editors
write SQL against these table and column names, so they are part of kb's public interface.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Date,
    DateTime,
    FetchedValue,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)
from sqlalchemy import text as sql_text

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)

# Columns are NOT NULL unless they say nullable=True, as the migrations create them.

locales = Table(
    "locales",
    metadata,
    Column("code", String(16), primary_key=True),
    Column("english_name", String(64), nullable=False),
    Column("native_name", String(64), nullable=False),
    comment="The eleven languages Magic is printed in.",
)

PARSER_REVISION_COMMENT = (
    "The revision of kb's parsers that read the file (kb.importers.PARSER_REVISION); NULL: "
    "read before revisions were kept. An import reads again a file an older revision read."
)
sources = Table(
    "sources",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("uri", Text, nullable=False),
    Column("format", String(32), nullable=False),
    Column("sha256", String(64), nullable=False, index=True),
    Column("imported_at", DateTime, nullable=False),
    Column("stats", JSON, nullable=True),
    Column("parser_revision", Integer, nullable=True, comment=PARSER_REVISION_COMMENT),
    comment="Imported files: where records came from.",
)

cards = Table(
    "cards",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", Text, nullable=False, unique=True, comment="English name."),
    Column(
        "oracle_id",
        String(36),
        nullable=True,
        unique=True,
        comment="Scryfall Oracle ID, where known.",
    ),
    Column("mana_cost", Text, nullable=True),
    Column("type_line", Text, nullable=True),
    Column("oracle_text", Text, nullable=True),
    Column(
        "layout",
        String(32),
        nullable=True,
        comment="normal, split, transform, modal_dfc, meld, flip, adventure, ...",
    ),
    comment="One Oracle card, whatever its printings and languages.",
)

card_faces = Table(
    "card_faces",
    metadata,
    Column("card_id", Integer, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("name", Text, nullable=False),
    Column(
        "mana_cost",
        Text,
        nullable=True,
        comment="The face's mana cost (Oracle); NULL where it has none or the source lacks "
        "the face.",
    ),
    Column("type_line", Text, nullable=True, comment="The face's English type line (Oracle)."),
    Column("oracle_text", Text, nullable=True, comment="The face's English rules text (Oracle)."),
    comment="Faces of split, double-faced, flip, adventure and meld cards.",
)

card_names = Table(
    "card_names",
    metadata,
    Column("card_id", Integer, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("locale", String(16), ForeignKey("locales.code"), primary_key=True),
    Column("name", Text, nullable=False, comment="The name printed on cards in this locale."),
    Column(
        "source_id",
        Integer,
        ForeignKey("sources.id"),
        nullable=True,
        index=True,
        comment="The imported file that gave the name; NULL when an editor typed it.",
    ),
    Index("ix_card_names_name", "name"),
    comment="A card's printed name in one locale (English included).",
)

printed_texts = Table(
    "printed_texts",
    metadata,
    Column("card_id", Integer, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("locale", String(16), ForeignKey("locales.code"), primary_key=True),
    Column(
        "face",
        Integer,
        primary_key=True,
        comment="The face's position (card_faces.position); 0 for a card of one face.",
    ),
    Column(
        "face_name",
        Text,
        nullable=True,
        comment="The face's printed name in this locale, on a card of several faces; NULL on "
        "a card of one face (its name is card_names.name).",
    ),
    Column("type_line", Text, nullable=True, comment="The type line printed in this locale."),
    Column(
        "text",
        Text,
        nullable=True,
        comment="The rules text printed in this locale, reminder text included; NULL where the "
        "face has none.",
    ),
    Column(
        "english_type_line",
        Text,
        nullable=True,
        comment="The English type line of the same printing (MTGJSON originalType); NULL where "
        "the source has none (Scryfall, AtomicCards).",
    ),
    Column(
        "english_text",
        Text,
        nullable=True,
        comment="The English rules text of the same printing (MTGJSON originalText), which "
        "text translates line by line; NULL where the source has none (Scryfall, AtomicCards) "
        "or the face has no text.",
    ),
    Column(
        "set_code",
        String(32),
        nullable=True,
        comment="The printing's set, upper case (MTGJSON's setCode, Scryfall's set).",
    ),
    Column(
        "collector_number",
        String(32),
        nullable=True,
        comment="The printing's collector number in its set.",
    ),
    Column(
        "released_on",
        Date,
        nullable=True,
        comment="The printing's release date, by which the most recent printing is chosen; "
        "NULL where the source has none (AtomicCards).",
    ),
    Column(
        "source_id",
        Integer,
        ForeignKey("sources.id"),
        nullable=True,
        index=True,
        comment="The imported file that gave the printing; NULL when an editor added the row.",
    ),
    comment="A card face's printed type line and rules text in one locale, from the most "
    "recent printing that has them, with that printing and the English it printed. Printed "
    "texts receive no errata: the Oracle text (cards, card_faces) is the one that counts.",
)

rulings = Table(
    "rulings",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("text", Text, nullable=False),
    Column(
        "text_key",
        String(32),
        nullable=False,
        unique=True,
        comment="Hash of the text with typography folded: one per ruling.",
    ),
    Column(
        "skeleton_key",
        String(32),
        nullable=False,
        index=True,
        comment="Hash of the folded text without mana symbols: shared by damaged copies.",
    ),
    # Nullable only because SQLite cannot add a NOT NULL column to a table holding rows (and
    # rebuilding rulings would cascade-delete its links); kb fills it on every write.
    Column(
        "head_key",
        String(32),
        nullable=True,
        index=True,
        comment="Hash of the folded text's first 60 characters: shared by rulings that begin "
        "alike (near_duplicate_rulings).",
    ),
    Column(
        "origin",
        String(16),
        nullable=True,
        comment="Who wrote it, where a source says: wotc or scryfall.",
    ),
    comment="One ruling text, shared by every card it applies to.",
)

near_duplicates = Table(
    "near_duplicates",
    metadata,
    Column("ruling_id", Integer, ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "other_ruling_id",
        Integer,
        ForeignKey("rulings.id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
        comment="The later ruling of the pair (other_ruling_id > ruling_id).",
    ),
    Column(
        "reason",
        String(32),
        nullable=False,
        comment="same without symbols (a damaged copy) or same beginning.",
    ),
    comment="Pairs of rulings that may be one ruling; kb recomputes a ruling's pairs "
    "whenever its text is written (import, kb edit, kb revert).",
)

card_rulings = Table(
    "card_rulings",
    metadata,
    Column("card_id", Integer, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("ruling_id", Integer, ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "published_on",
        Date,
        nullable=True,
        comment="Date the ruling was published for this card; NULL where the page had none.",
    ),
    Column("position", Integer, nullable=False, comment="Order on the card's page."),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=True, index=True),
    # undated_links: the few links still waiting for a date, without reading every link.
    Index(
        "ix_card_rulings_undated",
        "card_id",
        sqlite_where=sql_text("published_on IS NULL"),
        postgresql_where=sql_text("published_on IS NULL"),
    ),
    # A ruling's cards read from the index alone (ruling_cards_view, untagged_rulings).
    Index("ix_card_rulings_ruling_id_card_id", "ruling_id", "card_id"),
    comment="A ruling as published for one card: links cards and rulings.",
)

RULE_TEXT = (
    "The rule that defines the mechanic, in English, as the Comprehensive Rules print it "
    "(702.29a Cycling is an activated ability ...)."
)
mechanics = Table(
    "mechanics",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("slug", String(64), nullable=False, unique=True, comment="Stable English identifier."),
    Column("kind", String(32), nullable=False, comment="keyword_ability, keyword_action or term."),
    Column("rule", String(16), nullable=True, comment="Comprehensive Rules section."),
    Column(
        "pattern",
        Text,
        nullable=True,
        comment="Regular expression (case-insensitive) that tags rulings and Oracle texts.",
    ),
    Column("rule_text", Text, nullable=True, comment=RULE_TEXT),
    comment="Keyword abilities, keyword actions and terms (such as outlaw) used as tags.",
)


def _mined_evidence() -> list[Column[Any]]:
    """A mined name's votes (migration 0010), on mechanic_names and type_names."""
    return [
        Column(
            "cards",
            Integer,
            nullable=True,
            comment="A mined name: how many cards voted for it (one vote per card).",
        ),
        Column(
            "voters",
            Integer,
            nullable=True,
            comment="A mined name: how many cards voted at all; cards / voters is its share.",
        ),
        Column(
            "method",
            String(16),
            nullable=True,
            comment="A mined name: line (aligned lines), contrast (words of the cards with the "
            "keyword against the others') or type (aligned type lines).",
        ),
        Column(
            "runner_up",
            Text,
            nullable=True,
            comment="A mined name: the name with the next most votes, if any.",
        ),
        Column(
            "runner_up_cards",
            Integer,
            nullable=True,
            comment="A mined name: how many cards voted for the runner-up.",
        ),
    ]


mechanic_names = Table(
    "mechanic_names",
    metadata,
    Column(
        "mechanic_id", Integer, ForeignKey("mechanics.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("locale", String(16), ForeignKey("locales.code"), primary_key=True),
    Column("name", Text, nullable=False),
    Column(
        "origin",
        String(16),
        nullable=False,
        server_default="source",
        comment="Where the name comes from: source (an imported file: the rules, the catalog), "
        "mined (voted by the printed texts, kb/mining), editor (kb edit mechanic-name; never "
        "replaced by a mined name).",
    ),
    *_mined_evidence(),
    comment="A mechanic's name in one locale.",
)

type_names = Table(
    "type_names",
    metadata,
    Column("type", String(64), primary_key=True, comment="The English name: Rogue."),
    Column("locale", String(16), ForeignKey("locales.code"), primary_key=True),
    Column("name", Text, nullable=False),
    *_mined_evidence(),
    comment="A card type, supertype or subtype's name in one locale, mined from type lines.",
)

card_mechanics = Table(
    "card_mechanics",
    metadata,
    Column("card_id", Integer, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "mechanic_id", Integer, ForeignKey("mechanics.id", ondelete="CASCADE"), primary_key=True
    ),
    Column(
        "origin",
        String(16),
        nullable=False,
        server_default="listed",
        comment="Why the card has the mechanic: listed (a source lists the keyword on the card, "
        "or an editor tagged it) or text (kb read it in the card's Oracle text: a term, or a "
        "keyword action in the rule's sense, which sources list on few cards or none).",
    ),
    # A mechanic's cards read from the index alone (missing_names).
    Index("ix_card_mechanics_mechanic_id_card_id", "mechanic_id", "card_id"),
    comment="Tags: which cards have which mechanic.",
)

ruling_mechanics = Table(
    "ruling_mechanics",
    metadata,
    Column("ruling_id", Integer, ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True),
    Column(
        "mechanic_id",
        Integer,
        ForeignKey("mechanics.id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
    ),
    comment="Tags: which rulings explain which mechanic.",
)

ruling_translations = Table(
    "ruling_translations",
    metadata,
    Column("ruling_id", Integer, ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True),
    Column("locale", String(16), ForeignKey("locales.code"), primary_key=True),
    Column("text", Text, nullable=False),
    Column("status", String(16), nullable=False, default="draft", comment="draft or reviewed."),
    Column(
        "reviewed_key",
        String(32),
        nullable=True,
        comment="The ruling's text_key when the translation was reviewed; while the English "
        "text keeps that key, the review stands. NULL: not recorded (a review written by hand).",
    ),
    # translations_to_review asks for one locale's drafts.
    Index("ix_ruling_translations_locale_status", "locale", "status"),
    comment="Community translations of rulings; unofficial, shown beside the English.",
)

revisions = Table(
    "revisions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("editor", String(64), nullable=False, index=True, comment="Who made the edit."),
    Column("made_at", DateTime, nullable=False, comment="When (UTC)."),
    Column("action", String(32), nullable=False, comment="The edit, e.g. ruling-text."),
    Column("table_name", String(64), nullable=False, comment="The table the edit changed."),
    Column(
        "row_key", JSON, nullable=False, comment="Primary key of the changed row, as a JSON object."
    ),
    Column(
        "old_value",
        JSON,
        nullable=True,
        comment="The changed columns before the edit; NULL when the row was added.",
    ),
    Column(
        "new_value",
        JSON,
        nullable=True,
        comment="The changed columns after the edit; NULL when the row was removed.",
    ),
    Column(
        "card_id",
        Integer,
        nullable=True,
        index=True,
        comment="The card concerned, if any (for kb history --card).",
    ),
    Column(
        "ruling_id",
        Integer,
        nullable=True,
        index=True,
        comment="The ruling concerned, if any (for kb history --ruling).",
    ),
    Column(
        "reverts_id",
        Integer,
        ForeignKey("revisions.id"),
        nullable=True,
        comment="The revision this one undoes.",
    ),
    comment="Audit log: every edit made with kb edit or kb revert.",
)

site_changes = Table(
    "site_changes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "card_id",
        Integer,
        nullable=True,
        comment="The card whose pages may have changed; NULL: any card.",
    ),
    Column(
        "transaction_id",
        BigInteger,
        nullable=True,
        comment="PostgreSQL: the writing transaction (pg_current_xact_id).",
    ),
    Column(
        "nonce",
        String(16),
        # Each engine's random expression, set by migration 0008.
        server_default=FetchedValue(),
        nullable=False,
        comment="Random: tells this row from a row another copy of the store wrote under the "
        "same id.",
    ),
    comment="Change log for incremental site builds: one row per card a write may have "
    "changed, written by triggers; card_id NULL means any card.",
    sqlite_autoincrement=True,
)
