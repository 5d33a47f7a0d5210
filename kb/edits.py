"""Audited edits by community editors: what each ``kb edit`` changes, as a kb.revisions
Change (one row, from the state the editor saw to the new one), and ``kb history``."""

from __future__ import annotations

from sqlalchemy import Column, func, or_, select
from sqlalchemy.engine import Connection, Engine

from kb.revisions import (
    Change,
    EditError,
    Values,
    commit_change,
    matches,
    table_named,
)
from kb.schema import (
    card_faces,
    card_names,
    card_rulings,
    cards,
    mechanic_names,
    mechanics,
    printed_texts,
    revisions,
    ruling_translations,
    rulings,
)
from kb.sql import QueryResult

TRANSLATION_STATUSES = ("draft", "reviewed")


def _filled(value: str, what: str) -> str:
    """An editor's text without surrounding spaces, as the importers store texts; never
    empty."""
    stripped = value.strip()
    if not stripped:
        raise EditError(f"{what} cannot be empty")
    return stripped


def find_card(connection: Connection, card: str) -> int:
    """A card by id, English name or any localized name."""
    if card.isdigit():
        query = select(cards.c.id).where(cards.c.id == int(card))
    else:
        query = (
            select(cards.c.id)
            .outerjoin(card_names, card_names.c.card_id == cards.c.id)
            .where(or_(cards.c.name == card, card_names.c.name == card))
            .limit(1)
        )
    found: int | None = connection.execute(query).scalar()
    if found is None:
        raise EditError(f"no card {card!r} (give its id, English name or a localized name)")
    return found


def _ruling(connection: Connection, ruling_id: int, column: Column[str] = rulings.c.text) -> str:
    """The ruling's text (or ``column``); an EditError when there is no such ruling."""
    found = connection.execute(select(column).where(rulings.c.id == ruling_id)).scalar()
    if found is None:
        raise EditError(f"no ruling {ruling_id}")
    return found


def _mechanic(connection: Connection, slug: str) -> int:
    found: int | None = connection.execute(
        select(mechanics.c.id).where(mechanics.c.slug == slug)
    ).scalar()
    if found is None:
        raise EditError(f"no mechanic {slug!r}")
    return found


def set_ruling_text(
    engine: Engine, editor: str, ruling_id: int, new_text: str, expect_text: str | None = None
) -> int:
    """Change a ruling's text (on every card that shares it); ``expect_text`` is what the
    editor saw, by default the text read now. Returns the revision id."""
    new_text = _filled(new_text, "a ruling's text")

    def plan(connection: Connection) -> Change:
        current = _ruling(connection, ruling_id)
        old = current if expect_text is None else expect_text
        return Change(
            "rulings", {"id": ruling_id}, {"text": old}, {"text": new_text}, None, ruling_id
        )

    return commit_change(engine, editor, "ruling-text", plan)


def reviews_outdated(engine: Engine, ruling_id: int) -> list[str]:
    """The locales whose translation of the ruling was reviewed against another English text
    than its text now: they wait for review again."""
    query = (
        select(ruling_translations.c.locale)
        .join(rulings, rulings.c.id == ruling_translations.c.ruling_id)
        .where(
            ruling_translations.c.ruling_id == ruling_id,
            ruling_translations.c.status == "reviewed",
            ruling_translations.c.reviewed_key != rulings.c.text_key,
        )
        .order_by(ruling_translations.c.locale)
    )
    with engine.connect() as connection:
        return list(connection.execute(query).scalars())


def set_card_name(
    engine: Engine,
    editor: str,
    card: str,
    locale: str,
    name: str,
    expect_name: str | None = None,
) -> int:
    """Add or change a card's name in ``locale``."""
    name = _filled(name, "a card's name")

    def plan(connection: Connection) -> Change:
        card_id = find_card(connection, card)
        row = connection.execute(
            select(card_names.c.name, card_names.c.source_id).where(
                card_names.c.card_id == card_id, card_names.c.locale == locale
            )
        ).one_or_none()
        old: Values | None = None
        if row is not None:
            old = {"name": row.name if expect_name is None else expect_name}
            old["source_id"] = row.source_id
        key = {"card_id": card_id, "locale": locale}
        # An editor's name comes from no imported file.
        return Change("card_names", key, old, {"name": name, "source_id": None}, card_id)

    return commit_change(engine, editor, "card-name", plan)


PRINTED_COLUMNS = {
    "text": ("printed-text", "a printed text"),
    "type_line": ("printed-type-line", "a printed type line"),
    "face_name": ("face-name", "a face's printed name"),
}
"""The printed_texts columns editors correct: each one's action (kb edit ...) and what it is."""


def set_mechanic_name(
    engine: Engine,
    editor: str,
    mechanic: str,
    locale: str,
    name: str,
    expect_name: str | None = None,
) -> int:
    """Confirm or correct a mechanic's name in ``locale`` (the name may be the mined one): an
    editor's name, which no mined name replaces."""
    name = _filled(name, "a mechanic's name")

    def plan(connection: Connection) -> Change:
        mechanic_id = _mechanic(connection, mechanic)
        row = connection.execute(
            select(mechanic_names.c.name, mechanic_names.c.origin).where(
                mechanic_names.c.mechanic_id == mechanic_id, mechanic_names.c.locale == locale
            )
        ).one_or_none()
        old: Values | None = None
        if row is not None:
            old = {"name": row.name if expect_name is None else expect_name, "origin": row.origin}
        key = {"mechanic_id": mechanic_id, "locale": locale}
        return Change("mechanic_names", key, old, {"name": name, "origin": "editor"})

    return commit_change(engine, editor, "mechanic-name", plan)


def set_printed(
    engine: Engine,
    editor: str,
    card: str,
    locale: str,
    column: str,
    value: str,
    face: int = 0,
    expect: str | None = None,
) -> int:
    """Add or correct a card face's printed text, type line or face name (``column``) in
    ``locale``; ``expect`` is what the editor saw, by default the value read now. A later
    import keeps the correction while its printing still says what it replaced."""
    action, what = PRINTED_COLUMNS[column]
    if locale == "en":
        raise EditError("printed texts are kept for other locales; English is the Oracle text")
    value = _filled(value, what)

    def plan(connection: Connection) -> Change:
        card_id = find_card(connection, card)
        _check_face(connection, card_id, face, column)
        key = {"card_id": card_id, "locale": locale, "face": face}
        current = connection.execute(
            select(printed_texts.c[column]).where(matches(printed_texts, key))
        ).one_or_none()
        old: Values | None = None
        if current is not None:
            old = {column: current[0] if expect is None else expect}
        return Change("printed_texts", key, old, {column: value}, card_id)

    return commit_change(engine, editor, action, plan)


def _check_face(connection: Connection, card_id: int, face: int, column: str) -> None:
    """A face the card has: 0 on a card of one face (whose name is a card name, not a face's)."""
    faces: int = connection.execute(
        select(func.count()).select_from(card_faces).where(card_faces.c.card_id == card_id)
    ).scalar_one()
    if not faces and column == "face_name":
        raise EditError("the card has one face, named as the card: use kb edit card-name")
    if face < 0 or face >= max(faces, 1):
        which = f"faces 0 to {faces - 1}" if faces else "one face (0)"
        raise EditError(f"no face {face}: the card has {which}")


def set_tag(
    engine: Engine,
    editor: str,
    mechanic: str,
    tagged: bool,
    card: str | None = None,
    ruling_id: int | None = None,
) -> int:
    """Tag (or untag) a card or a ruling with a mechanic."""
    if card is not None and ruling_id is not None:
        raise EditError("name a card or a ruling, not both")

    def plan(connection: Connection) -> Change:
        mechanic_id = _mechanic(connection, mechanic)
        card_id: int | None = None
        if card is not None:
            card_id = find_card(connection, card)
            table, key = "card_mechanics", {"card_id": card_id, "mechanic_id": mechanic_id}
        elif ruling_id is not None:
            _ruling(connection, ruling_id)
            table, key = "ruling_mechanics", {"ruling_id": ruling_id, "mechanic_id": mechanic_id}
        else:
            raise EditError("name a card (--card) or a ruling (--ruling) to tag")
        row = connection.execute(
            select(table_named(table)).where(matches(table_named(table), key))
        ).first()
        # A card tag's origin too (listed or read in the text): a revert puts back what was.
        present: Values | None = (
            None if row is None else {k: v for k, v in row._mapping.items() if k not in key}
        )
        return Change(table, key, present, (present or {}) if tagged else None, card_id, ruling_id)

    return commit_change(engine, editor, "tag" if tagged else "untag", plan)


def set_translation(
    engine: Engine,
    editor: str,
    ruling_id: int,
    locale: str,
    new_text: str | None = None,
    status: str = "draft",
) -> int:
    """Add or change a ruling's translation (``new_text``), or only set its status (review)."""
    if locale == "en":
        raise EditError("rulings are in English already; translations are for other locales")
    if status not in TRANSLATION_STATUSES:
        raise EditError(f"status must be one of {', '.join(TRANSLATION_STATUSES)}")
    if new_text is not None:
        new_text = _filled(new_text, "a translation")

    def plan(connection: Connection) -> Change:
        english_key = _ruling(connection, ruling_id, rulings.c.text_key)
        row = connection.execute(
            select(
                ruling_translations.c.text,
                ruling_translations.c.status,
                ruling_translations.c.reviewed_key,
            ).where(
                ruling_translations.c.ruling_id == ruling_id,
                ruling_translations.c.locale == locale,
            )
        ).one_or_none()
        old = None if row is None else dict(row._mapping)
        text = new_text if new_text is not None else (old or {}).get("text")
        if text is None:
            raise EditError(f"ruling {ruling_id} has no {locale} translation to review")
        # A review is of the English text as it is now (see ruling_translations.reviewed_key).
        reviewed_key = english_key if status == "reviewed" else None
        new = {"text": text, "status": status, "reviewed_key": reviewed_key}
        key = {"ruling_id": ruling_id, "locale": locale}
        return Change("ruling_translations", key, old, new, None, ruling_id)

    action = "translation" if new_text is not None else "review"
    return commit_change(engine, editor, action, plan)


def history(
    engine: Engine,
    card: str | None = None,
    ruling_id: int | None = None,
    editor: str | None = None,
) -> QueryResult:
    """Revisions, oldest first, filtered by card, ruling and editor."""
    columns = [
        revisions.c.id,
        revisions.c.made_at,
        revisions.c.editor,
        revisions.c.action,
        revisions.c.table_name,
        revisions.c.row_key,
        revisions.c.old_value,
        revisions.c.new_value,
    ]
    query = select(*columns).order_by(revisions.c.id)
    with engine.connect() as connection:
        if card is not None:
            card_id = find_card(connection, card)
            # A card's history includes the changes of the rulings it shows.
            shown = select(card_rulings.c.ruling_id).where(card_rulings.c.card_id == card_id)
            query = query.where(
                or_(revisions.c.card_id == card_id, revisions.c.ruling_id.in_(shown))
            )
        if ruling_id is not None:
            query = query.where(revisions.c.ruling_id == ruling_id)
        if editor is not None:
            query = query.where(revisions.c.editor == editor)
        rows = [tuple(row) for row in connection.execute(query)]
    return QueryResult([column.key for column in columns], rows, truncated=False)
