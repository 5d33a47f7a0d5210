"""``kb translations export``: the rulings as a bilingual gettext PO file, or a template (POT).

One entry per shared ruling: ``msgctxt`` is ``ruling:ID`` (its id, which stays when the English
text is reworded or mended, unlike its text key), ``msgid`` its English text, ``msgstr`` the
locale's translation. Translator comments name its cards and mechanics, localized, and its
dates. A reviewed translation whose English text changed since its review is ``#, fuzzy``. The
file is written by Babel's ``babel.messages.pofile`` and depends on the store alone: the same
store gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Select

from kb.batches import chunks
from kb.edits import find_card
from kb.locales import BY_CODE
from kb.revisions import EditError
from kb.schema import (
    card_names,
    card_rulings,
    cards,
    mechanic_names,
    mechanics,
    revisions,
    ruling_mechanics,
    ruling_translations,
    rulings,
    sources,
)

CONTEXT_PREFIX = "ruling:"
PROJECT = "kb rulings"
HEADER_COMMENT = (
    "# Translations of Magic: The Gathering rulings, exported by kb.\n"
    "# Unofficial community translations; the English text is the only official one.\n"
    "#"
)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def context(ruling_id: int) -> str:
    return f"{CONTEXT_PREFIX}{ruling_id}"


@dataclass
class Entry:
    """One ruling as the file shows it."""

    ruling_id: int
    english: str
    translation: str = ""
    outdated: bool = False
    # (sort key, as shown): sorted here, not by the database, whose collation differs between
    # engines (the English name, the slug, compared by code point).
    cards: list[tuple[str, str]] = field(default_factory=list)
    mechanics: list[tuple[str, str]] = field(default_factory=list)
    dates: list[dt.date] = field(default_factory=list)

    def comments(self) -> list[str]:
        lines = [f"cards: {_listed(self.cards)}"] if self.cards else []
        if self.mechanics:
            lines.append(f"mechanics: {_listed(self.mechanics)}")
        if self.dates:
            first, last = min(self.dates).isoformat(), max(self.dates).isoformat()
            lines.append(
                f"published: {first}" if first == last else f"published: {first} to {last}"
            )
        return lines


def _listed(named: list[tuple[str, str]]) -> str:
    return "; ".join(shown for _key, shown in sorted(named))


@dataclass(frozen=True)
class Selection:
    """Which rulings to export: all, or those of a mechanic or card, or the untranslated."""

    mechanic: str | None = None
    card: str | None = None
    untranslated: bool = False


def _ruling_query(
    connection: Connection, locale: str | None, selection: Selection
) -> Select[tuple[int, str, str]]:
    query = select(rulings.c.id, rulings.c.text, rulings.c.text_key).order_by(rulings.c.id)
    if selection.mechanic is not None:
        mechanic_id = connection.execute(
            select(mechanics.c.id).where(mechanics.c.slug == selection.mechanic)
        ).scalar()
        if mechanic_id is None:
            raise EditError(f"no mechanic {selection.mechanic!r}")
        tagged = select(ruling_mechanics.c.ruling_id).where(
            ruling_mechanics.c.mechanic_id == mechanic_id
        )
        query = query.where(rulings.c.id.in_(tagged))
    if selection.card is not None:
        card_id = find_card(connection, selection.card)
        shown = select(card_rulings.c.ruling_id).where(card_rulings.c.card_id == card_id)
        query = query.where(rulings.c.id.in_(shown))
    if selection.untranslated and locale is not None:
        translated = select(ruling_translations.c.ruling_id).where(
            ruling_translations.c.locale == locale
        )
        query = query.where(rulings.c.id.not_in(translated))
    return query


def _localized(english: str, localized: str | None) -> str:
    """``Drei Schritte voraus (Three Steps Ahead)``, or the English name alone."""
    return english if localized is None or localized == english else f"{localized} ({english})"


def entries(connection: Connection, locale: str | None, selection: Selection) -> list[Entry]:
    """The selected rulings, by id, with what their comments show in ``locale``."""
    found = {
        row.id: (Entry(row.id, row.text), row.text_key)
        for row in connection.execute(_ruling_query(connection, locale, selection))
    }
    names_locale = locale or "en"
    for chunk in chunks(sorted(found)):
        _add_cards(connection, names_locale, chunk, found)
        _add_mechanics(connection, names_locale, chunk, found)
        if locale is not None:
            _add_translations(connection, locale, chunk, found)
    return [entry for entry, _key in found.values()]


def _add_cards(
    connection: Connection, locale: str, chunk: list[int], found: dict[int, tuple[Entry, str]]
) -> None:
    localized = card_names.alias("localized")
    query = (
        select(
            card_rulings.c.ruling_id, cards.c.name, localized.c.name, card_rulings.c.published_on
        )
        .join(cards, cards.c.id == card_rulings.c.card_id)
        .outerjoin(localized, and_(localized.c.card_id == cards.c.id, localized.c.locale == locale))
        .where(card_rulings.c.ruling_id.in_(chunk))
    )
    for ruling_id, english, name, published_on in connection.execute(query):
        entry = found[ruling_id][0]
        entry.cards.append((english, _localized(english, name)))
        if published_on is not None:
            entry.dates.append(published_on)


def _add_mechanics(
    connection: Connection, locale: str, chunk: list[int], found: dict[int, tuple[Entry, str]]
) -> None:
    english, localized = mechanic_names.alias("english"), mechanic_names.alias("localized")
    query = (
        select(ruling_mechanics.c.ruling_id, mechanics.c.slug, english.c.name, localized.c.name)
        .join(mechanics, mechanics.c.id == ruling_mechanics.c.mechanic_id)
        .outerjoin(english, and_(english.c.mechanic_id == mechanics.c.id, english.c.locale == "en"))
        .outerjoin(
            localized, and_(localized.c.mechanic_id == mechanics.c.id, localized.c.locale == locale)
        )
        .where(ruling_mechanics.c.ruling_id.in_(chunk))
        # Not for the order (sorted in Python): SQLite answers this 20 times faster with it.
        .order_by(ruling_mechanics.c.ruling_id, mechanics.c.slug)
    )
    for ruling_id, slug, english_name, name in connection.execute(query):
        shown = _localized(english_name or slug, name)
        found[ruling_id][0].mechanics.append((slug, shown))


def _add_translations(
    connection: Connection, locale: str, chunk: list[int], found: dict[int, tuple[Entry, str]]
) -> None:
    query = select(
        ruling_translations.c.ruling_id,
        ruling_translations.c.text,
        ruling_translations.c.status,
        ruling_translations.c.reviewed_key,
    ).where(ruling_translations.c.locale == locale, ruling_translations.c.ruling_id.in_(chunk))
    for ruling_id, text, status, reviewed_key in connection.execute(query):
        entry, text_key = found[ruling_id]
        entry.translation = text
        # As the site and translations_to_review read it: a review not recorded (NULL) stands.
        entry.outdated = status == "reviewed" and reviewed_key not in (None, text_key)


def store_time(connection: Connection) -> dt.datetime:
    """When the store last changed (an import or an edit): the file's dates, so that the same
    store gives the same bytes."""
    times = [
        connection.execute(select(func.max(sources.c.imported_at))).scalar(),
        connection.execute(select(func.max(revisions.c.made_at))).scalar(),
    ]
    latest = max((time for time in times if time is not None), default=None)
    return EPOCH if latest is None else latest.replace(tzinfo=dt.UTC, microsecond=0)


def build_catalog(connection: Connection, locale: str | None, selection: Selection) -> Catalog:
    """The PO catalog of ``locale``'s translations, or the template (``locale`` None)."""
    when = store_time(connection)
    result = Catalog(
        locale=None if locale is None else BY_CODE[locale].babel,
        header_comment=HEADER_COMMENT,
        project=PROJECT,
        version=when.strftime("%Y-%m-%d"),
        creation_date=when,
        revision_date=None if locale is None else when,
        last_translator=None if locale is None else "kb community translators",
        language_team=None if locale is None else f"kb {BY_CODE[locale].english_name}",
        charset="utf-8",
        # A template's header stays fuzzy (its fields are placeholders), a translation's not.
        fuzzy=locale is None,
    )
    result.msgid_bugs_address = ""  # kb has none; Babel puts EMAIL@ADDRESS for an empty one
    for entry in entries(connection, locale, selection):
        result.add(
            entry.english,
            entry.translation,
            auto_comments=entry.comments(),
            flags=("fuzzy",) if entry.outdated else (),
            context=context(entry.ruling_id),
        )
    return result


def render(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    # No wrapping (as xgettext --no-wrap): an entry per line pair, and a third of the time.
    write_po(out, catalog, width=0, no_location=True)
    return out.getvalue()


def export_to_file(
    connection: Connection, locale: str | None, selection: Selection, path: Path
) -> int:
    """Write the file beside ``path`` then rename it: a failed export leaves no half file.
    Returns how many rulings it holds."""
    po = build_catalog(connection, locale, selection)
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(render(po))
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return len(po)
