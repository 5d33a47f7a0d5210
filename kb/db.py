"""The store: SQLAlchemy models (engines and their settings: kb.engine).

The Alembic migrations under migrations/ are the schema's source of truth; these models mirror
them (a test asserts ``alembic check`` finds no drift). Community editors write SQL against these
table and column names, so they are part of kb's public interface.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Date,
    DateTime,
    FetchedValue,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
)
from sqlalchemy import text as sql_text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Locale(Base):
    """The eleven languages Magic is printed in; filled by the first migration."""

    __tablename__ = "locales"
    __table_args__ = ({"comment": "The eleven languages Magic is printed in."},)

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    english_name: Mapped[str] = mapped_column(String(64))
    native_name: Mapped[str] = mapped_column(String(64))


class Source(Base):
    """One imported file: where records came from."""

    __tablename__ = "sources"
    __table_args__ = ({"comment": "Imported files: where records came from."},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uri: Mapped[str] = mapped_column(Text)
    format: Mapped[str] = mapped_column(String(32))
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    imported_at: Mapped[dt.datetime] = mapped_column(DateTime)
    stats: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class Card(Base):
    """One Oracle card, whatever its printings and languages."""

    __tablename__ = "cards"
    __table_args__ = ({"comment": "One Oracle card, whatever its printings and languages."},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text, unique=True, comment="English name.")
    oracle_id: Mapped[str | None] = mapped_column(
        String(36), unique=True, comment="Scryfall Oracle ID, where known."
    )
    mana_cost: Mapped[str | None] = mapped_column(Text)
    type_line: Mapped[str | None] = mapped_column(Text)
    oracle_text: Mapped[str | None] = mapped_column(Text)
    layout: Mapped[str | None] = mapped_column(
        String(32), comment="normal, split, transform, modal_dfc, meld, flip, adventure, ..."
    )

    names: Mapped[list[CardName]] = relationship(back_populates="card")
    faces: Mapped[list[CardFace]] = relationship(order_by="CardFace.position")


class CardFace(Base):
    """The faces of a card of several (split, double-faced, flip, adventure, meld)."""

    __tablename__ = "card_faces"
    __table_args__ = ({"comment": "Faces of split, double-faced, flip, adventure and meld cards."},)

    card_id: Mapped[int] = mapped_column(
        ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(Text)


class CardName(Base):
    """A card's printed name in one locale (English included)."""

    __tablename__ = "card_names"
    __table_args__ = (
        Index("ix_card_names_name", "name"),
        {"comment": "A card's printed name in one locale (English included)."},
    )

    card_id: Mapped[int] = mapped_column(
        ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True
    )
    locale: Mapped[str] = mapped_column(ForeignKey("locales.code"), primary_key=True)
    name: Mapped[str] = mapped_column(Text, comment="The name printed on cards in this locale.")
    source_id: Mapped[int | None] = mapped_column(
        ForeignKey("sources.id"),
        index=True,
        comment="The imported file that gave the name; NULL when an editor typed it.",
    )

    card: Mapped[Card] = relationship(back_populates="names")


class Ruling(Base):
    """One ruling text, shared by every card it applies to."""

    __tablename__ = "rulings"
    __table_args__ = ({"comment": "One ruling text, shared by every card it applies to."},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    text_key: Mapped[str] = mapped_column(
        String(32), unique=True, comment="Hash of the text with typography folded: one per ruling."
    )
    skeleton_key: Mapped[str] = mapped_column(
        String(32),
        index=True,
        comment="Hash of the folded text without mana symbols: shared by damaged copies.",
    )
    # Nullable only because SQLite cannot add a NOT NULL column to a table holding rows (and
    # rebuilding rulings would cascade-delete its links); kb fills it on every write.
    head_key: Mapped[str | None] = mapped_column(
        String(32),
        index=True,
        comment="Hash of the folded text's first 60 characters: shared by rulings that begin "
        "alike (near_duplicate_rulings).",
    )
    origin: Mapped[str | None] = mapped_column(
        String(16), comment="Who wrote it, where a source says: wotc or scryfall."
    )


class NearDuplicate(Base):
    """Two rulings that may be one: kept up to date by kb, read by near_duplicate_rulings."""

    __tablename__ = "near_duplicates"
    __table_args__ = (
        {
            "comment": "Pairs of rulings that may be one ruling; kb recomputes a ruling's pairs "
            "whenever its text is written (import, kb edit, kb revert)."
        },
    )

    ruling_id: Mapped[int] = mapped_column(
        ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True
    )
    other_ruling_id: Mapped[int] = mapped_column(
        ForeignKey("rulings.id", ondelete="CASCADE"),
        primary_key=True,
        index=True,
        comment="The later ruling of the pair (other_ruling_id > ruling_id).",
    )
    reason: Mapped[str] = mapped_column(
        String(32), comment="same without symbols (a damaged copy) or same beginning."
    )


class CardRuling(Base):
    """A ruling as published for one card."""

    __tablename__ = "card_rulings"
    __table_args__ = (
        # undated_links: the few links still waiting for a date, without reading every link.
        Index(
            "ix_card_rulings_undated",
            "card_id",
            sqlite_where=sql_text("published_on IS NULL"),
            postgresql_where=sql_text("published_on IS NULL"),
        ),
        # A ruling's cards read from the index alone (ruling_cards_view, untagged_rulings).
        Index("ix_card_rulings_ruling_id_card_id", "ruling_id", "card_id"),
        {"comment": "A ruling as published for one card: links cards and rulings."},
    )

    card_id: Mapped[int] = mapped_column(
        ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True
    )
    ruling_id: Mapped[int] = mapped_column(
        ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True
    )
    published_on: Mapped[dt.date | None] = mapped_column(
        Date, comment="Date the ruling was published for this card; NULL where the page had none."
    )
    position: Mapped[int] = mapped_column(Integer, comment="Order on the card's page.")
    source_id: Mapped[int | None] = mapped_column(ForeignKey("sources.id"), index=True)


class Mechanic(Base):
    """A keyword or grouping term that cards and rulings are tagged with."""

    __tablename__ = "mechanics"
    __table_args__ = (
        {"comment": "Keyword abilities, keyword actions and terms (such as outlaw) used as tags."},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True, comment="Stable English identifier.")
    kind: Mapped[str] = mapped_column(
        String(32), comment="keyword_ability, keyword_action or term."
    )
    rule: Mapped[str | None] = mapped_column(String(16), comment="Comprehensive Rules section.")
    pattern: Mapped[str | None] = mapped_column(
        Text, comment="Regular expression (case-insensitive) that tags rulings and Oracle texts."
    )


class MechanicName(Base):
    __tablename__ = "mechanic_names"
    __table_args__ = ({"comment": "A mechanic's name in one locale."},)

    mechanic_id: Mapped[int] = mapped_column(
        ForeignKey("mechanics.id", ondelete="CASCADE"), primary_key=True
    )
    locale: Mapped[str] = mapped_column(ForeignKey("locales.code"), primary_key=True)
    name: Mapped[str] = mapped_column(Text)


class CardMechanic(Base):
    __tablename__ = "card_mechanics"
    __table_args__ = (
        # A mechanic's cards read from the index alone (missing_names).
        Index("ix_card_mechanics_mechanic_id_card_id", "mechanic_id", "card_id"),
        {"comment": "Tags: which cards have which mechanic."},
    )

    card_id: Mapped[int] = mapped_column(
        ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True
    )
    mechanic_id: Mapped[int] = mapped_column(
        ForeignKey("mechanics.id", ondelete="CASCADE"), primary_key=True
    )


class RulingMechanic(Base):
    __tablename__ = "ruling_mechanics"
    __table_args__ = ({"comment": "Tags: which rulings explain which mechanic."},)

    ruling_id: Mapped[int] = mapped_column(
        ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True
    )
    mechanic_id: Mapped[int] = mapped_column(
        ForeignKey("mechanics.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class RulingTranslation(Base):
    """A community translation of a ruling; unofficial, shown beside the English original."""

    __tablename__ = "ruling_translations"
    __table_args__ = (
        # translations_to_review asks for one locale's drafts.
        Index("ix_ruling_translations_locale_status", "locale", "status"),
        {"comment": "Community translations of rulings; unofficial, shown beside the English."},
    )

    ruling_id: Mapped[int] = mapped_column(
        ForeignKey("rulings.id", ondelete="CASCADE"), primary_key=True
    )
    locale: Mapped[str] = mapped_column(ForeignKey("locales.code"), primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="draft", comment="draft or reviewed.")
    reviewed_key: Mapped[str | None] = mapped_column(
        String(32),
        comment="The ruling's text_key when the translation was reviewed; while the English "
        "text keeps that key, the review stands. NULL: not recorded (a review written by hand).",
    )


class Revision(Base):
    """One audited edit by a community editor; ``kb revert`` undoes one by adding another."""

    __tablename__ = "revisions"
    __table_args__ = ({"comment": "Audit log: every edit made with kb edit or kb revert."},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    editor: Mapped[str] = mapped_column(String(64), index=True, comment="Who made the edit.")
    made_at: Mapped[dt.datetime] = mapped_column(DateTime, comment="When (UTC).")
    action: Mapped[str] = mapped_column(String(32), comment="The edit, e.g. ruling-text.")
    table_name: Mapped[str] = mapped_column(String(64), comment="The table the edit changed.")
    row_key: Mapped[dict[str, Any]] = mapped_column(
        JSON, comment="Primary key of the changed row, as a JSON object."
    )
    old_value: Mapped[dict[str, Any] | None] = mapped_column(
        JSON, comment="The changed columns before the edit; NULL when the row was added."
    )
    new_value: Mapped[dict[str, Any] | None] = mapped_column(
        JSON, comment="The changed columns after the edit; NULL when the row was removed."
    )
    card_id: Mapped[int | None] = mapped_column(
        Integer, index=True, comment="The card concerned, if any (for kb history --card)."
    )
    ruling_id: Mapped[int | None] = mapped_column(
        Integer, index=True, comment="The ruling concerned, if any (for kb history --ruling)."
    )
    reverts_id: Mapped[int | None] = mapped_column(
        ForeignKey("revisions.id"), comment="The revision this one undoes."
    )


class SiteChange(Base):
    """A card whose pages a write may have changed (kb.changelog's triggers write these)."""

    __tablename__ = "site_changes"
    __table_args__ = (
        {
            "comment": "Change log for incremental site builds: one row per card a write may "
            "have changed, written by triggers; card_id NULL means any card.",
            "sqlite_autoincrement": True,
        },
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    card_id: Mapped[int | None] = mapped_column(
        Integer, comment="The card whose pages may have changed; NULL: any card."
    )
    transaction_id: Mapped[int | None] = mapped_column(
        BigInteger, comment="PostgreSQL: the writing transaction (pg_current_xact_id)."
    )
    nonce: Mapped[str] = mapped_column(
        String(16),
        # Each engine's random expression, set by migration 0008.
        server_default=FetchedValue(),
        comment="Random: tells this row from a row another copy of the store wrote under the "
        "same id.",
    )


# Views created by migration 0002 for editors' queries. They are not tables in Base.metadata
# (Alembic would try to create them); this is what kb schema and docs/schema.md show of them.
VIEWS: dict[str, tuple[str, tuple[str, ...]]] = {
    "names_view": (
        "A card's name in every locale: one row per card and locale, name NULL where missing.",
        ("card_id", "card", "locale", "language", "name"),
    ),
    "card_rulings_view": (
        "A card's rulings in every locale, with its localized name (NULL where missing) and "
        "the ruling's mechanic tags (comma-separated slugs).",
        (
            "card_id",
            "card",
            "locale",
            "localized_name",
            "ruling_id",
            "ruling",
            "published_on",
            "position",
            "mechanics",
        ),
    ),
    "ruling_cards_view": (
        "Each ruling with the number and English names of the cards sharing it, and its tags.",
        ("ruling_id", "ruling", "card_count", "cards", "mechanics"),
    ),
    "near_duplicates_view": (
        "Each pair of near_duplicates with both rulings' texts.",
        ("ruling_id", "other_ruling_id", "reason", "ruling", "other_ruling"),
    ),
}
