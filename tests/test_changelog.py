"""The store's change log and the incremental builds that read it, on each engine."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from realdata import DATA
from sqlalchemy import select, text, update
from sqlalchemy.engine import Connection, Engine

from kb import changelog, edits, schema
from kb.engine import make_engine, sqlite_file
from kb.importing import run_import
from kb.locales import BY_CODE, LOCALES
from kb.records import ParseError
from kb.site.build import BuildOptions, build

SPREE_MODES = "You can%t choose the same mode%"


def _edit_spree_modes(connection: Connection, text: str) -> None:
    """Change the text of the Spree ruling that stands on every Spree card."""
    connection.execute(
        update(schema.rulings).where(schema.rulings.c.text.like(SPREE_MODES)).values(text=text)
    )


def _logged(engine: Engine) -> list[int | None]:
    with engine.connect() as connection:
        return list(
            connection.execute(
                select(schema.site_changes.c.card_id).order_by(schema.site_changes.c.id)
            ).scalars()
        )


def _card_ids(engine: Engine, ruling_text: str) -> list[int]:
    with engine.connect() as connection:
        return sorted(
            connection.execute(
                select(schema.card_rulings.c.card_id)
                .join(schema.rulings)
                .where(schema.rulings.c.text.like(ruling_text))
            ).scalars()
        )


def _triggers(engine: Engine) -> int:
    query = (
        "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'site_changes_%'"
        if engine.dialect.name == "postgresql"
        else "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"
    )
    with engine.connect() as connection:
        return int(connection.execute(text(query)).scalar_one())


def test_an_import_logs_one_row_for_any_card(engine: Engine) -> None:
    triggers = _triggers(engine)
    # PostgreSQL: one row trigger and one TRUNCATE trigger per table; SQLite: one per event.
    assert triggers == len(changelog.CARDS_OF_ROW) * (
        2 if engine.dialect.name == "postgresql" else 3
    )
    run_import(engine, [DATA])
    assert _logged(engine) == [None]
    run_import(engine, [DATA])  # nothing changed: nothing logged
    assert _logged(engine) == [None]
    assert _triggers(engine) == triggers


def test_a_failed_import_keeps_the_triggers(engine: Engine, tmp_path: Path) -> None:
    triggers = _triggers(engine)
    bad = tmp_path / "cards.json"
    bad.write_text('[{"object": "card", "name": ', "utf-8")
    with pytest.raises(ParseError):
        run_import(engine, [DATA, bad])
    assert _triggers(engine) == triggers
    assert _logged(engine) == []


def test_every_write_logs_the_cards_it_may_change(demo_store: Engine) -> None:
    spree_cards = _card_ids(demo_store, SPREE_MODES)
    with demo_store.begin() as connection:  # a write outside kb is logged too
        _edit_spree_modes(connection, "Edited.")
    assert sorted(set(_logged(demo_store)[1:])) == spree_cards

    with demo_store.connect() as connection:
        since = changelog.position(connection)
        card_id = connection.execute(
            select(schema.cards.c.id).where(schema.cards.c.name == "Three Steps Ahead")
        ).scalar_one()
    edits.set_card_name(demo_store, "editor", "Three Steps Ahead", "fr", "Un nom")
    with demo_store.connect() as connection:
        now = changelog.position(connection)
        assert changelog.changed_cards(connection, since, now) == {card_id}
        # A position from before kb recorded the log's last row: every card is checked.
        assert changelog.changed_cards(connection, since.partition("@")[0], now) is None
    with demo_store.begin() as connection:  # a mechanic's names are on every card page
        connection.execute(
            update(schema.mechanic_names).values(name=schema.mechanic_names.c.name + "!")
        )
    with demo_store.connect() as connection:
        assert changelog.changed_cards(connection, since, changelog.position(connection)) is None


def test_incremental_build_reads_only_the_changed_cards(demo_store: Engine, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build(demo_store, out)
    spree_cards = _card_ids(demo_store, SPREE_MODES)
    with demo_store.begin() as connection:
        _edit_spree_modes(connection, "Edited.")
    looked_at: list[int] = []
    result = build(demo_store, out, loaded=looked_at.append)
    assert looked_at == [len(spree_cards) * len(LOCALES)]
    pages = [*out.rglob("*.html"), *out.rglob("*.atom")]
    edited = [path for path in pages if "Edited." in path.read_text("utf-8")]
    # The cards' pages, Spree's, and the feeds and recent changes pages, which show it too.
    assert len(edited) == result.written == len(spree_cards) * len(LOCALES) + 3 * len(LOCALES)

    looked_at.clear()
    again = build(demo_store, out, loaded=looked_at.append)
    assert (looked_at, again.written) == ([0], 0)


def test_a_write_committed_during_a_build_is_in_the_next(
    demo_store: Engine, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build(demo_store, out)
    with demo_store.connect() as writer:
        _edit_spree_modes(writer, "Late.")
        # The build reads the store while the write is not committed yet.
        assert build(demo_store, out).written == 0
        writer.commit()
    assert build(demo_store, out).written > 0
    assert "Late." in (out / "de/cards/three-steps-ahead.html").read_text("utf-8")


def test_a_build_of_some_locales_leaves_the_others_to_the_next_build(
    demo_store: Engine, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build(demo_store, out)
    with demo_store.begin() as connection:
        _edit_spree_modes(connection, "Edited.")
    build(demo_store, out, BuildOptions(locales=(BY_CODE["de"],)))
    assert "Edited." not in (out / "it/cards/three-steps-ahead.html").read_text("utf-8")
    build(demo_store, out)
    for locale in LOCALES:
        page = out / locale.folder / "cards/three-steps-ahead.html"
        assert "Edited." in page.read_text("utf-8"), locale.code


def _copy_of(store: Engine, request: pytest.FixtureRequest, tmp_path: Path) -> Engine:
    """Another store with the same contents (and so the same change log)."""
    store.dispose()
    path = sqlite_file(store)
    if path is not None:
        return make_engine(f"sqlite:///{shutil.copy(path, tmp_path / 'copy.sqlite')}")
    url = store.url.render_as_string(hide_password=False)
    return make_engine(request.getfixturevalue("postgres").copy(url))


def test_a_copy_of_the_store_edited_apart_is_built_as_itself(
    demo_store: Engine, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build(demo_store, out)
    copy = _copy_of(demo_store, request, tmp_path)
    # One name each, on two cards: the two logs reach the same length with other writes.
    edits.set_card_name(demo_store, "ann", "Three Steps Ahead", "fr", "Le nom original")
    edits.set_card_name(copy, "bob", "Caught in the Crossfire", "fr", "Le nom de la copie")
    build(demo_store, out)
    assert "Le nom original" in (out / "fr/cards/three-steps-ahead.html").read_text()

    build(copy, out)
    assert _pages(out) == _pages(build(copy, tmp_path / "fresh").out)
    assert "Le nom de la copie" in (out / "fr/cards/caught-in-the-crossfire.html").read_text()
    copy.dispose()


def test_an_older_copy_put_back_is_checked_whole(sqlite_url: str, tmp_path: Path) -> None:
    store = make_engine(sqlite_url)
    run_import(store, [DATA])
    out = tmp_path / "site"
    build(store, out)
    path = str(sqlite_file(store))
    backup = shutil.copy(path, tmp_path / "backup.sqlite")
    edits.set_card_name(store, "ann", "Three Steps Ahead", "fr", "Un nom de trop")
    build(store, out)
    store.dispose()
    shutil.copyfile(backup, path)  # the same file, its older contents
    build(store, out)
    assert "Un nom de trop" not in (out / "fr/cards/three-steps-ahead.html").read_text()
    store.dispose()


def test_an_older_copy_put_back_and_edited_past_the_site_is_checked_whole(
    sqlite_url: str, tmp_path: Path
) -> None:
    """The copy's log reaches the site's position again with other writes: the log row at that
    position is not the one the site was built after."""
    store = make_engine(sqlite_url)
    run_import(store, [DATA])
    out = tmp_path / "site"
    build(store, out)
    path = str(sqlite_file(store))
    store.dispose()  # its write-ahead log checkpointed: the file alone is the store
    backup = shutil.copy(path, tmp_path / "backup.sqlite")
    edits.set_card_name(store, "ann", "Three Steps Ahead", "fr", "Un nom de trop")
    build(store, out)
    store.dispose()
    shutil.copyfile(backup, path)
    edits.set_card_name(store, "bob", "Caught in the Crossfire", "fr", "Un autre nom")
    build(store, out)
    assert "Un nom de trop" not in (out / "fr/cards/three-steps-ahead.html").read_text()
    assert "Un autre nom" in (out / "fr/cards/caught-in-the-crossfire.html").read_text()
    full = build(store, tmp_path / "full", BuildOptions(full=True)).out
    assert _pages(out) == _pages(full)
    store.dispose()


@pytest.mark.postgres
def test_a_log_replaced_under_the_site_is_checked_whole(postgres_engine: Engine) -> None:
    """As a dump restored into the same database would: the row at the site's position is
    another one."""
    run_import(postgres_engine, [DATA])
    edits.set_card_name(postgres_engine, "ann", "Three Steps Ahead", "fr", "Un nom")
    with postgres_engine.connect() as connection:
        since = changelog.position(connection)
        assert changelog.changed_cards(connection, since, since) == set()
    with postgres_engine.begin() as connection:
        changelog.begin_bulk_load(connection)  # restored rows, no trigger
        connection.execute(text("UPDATE site_changes SET nonce = 'restored'"))
    with postgres_engine.connect() as connection:
        assert changelog.changed_cards(connection, since, changelog.position(connection)) is None


def _pages(folder: Path) -> dict[str, bytes]:
    return {
        str(page.relative_to(folder)): page.read_bytes()
        for page in sorted(folder.rglob("*"))
        if page.is_file() and page.name != ".kb-manifest"
    }


@pytest.mark.postgres
def test_truncating_a_table_logs_any_card(postgres_engine: Engine) -> None:
    run_import(postgres_engine, [DATA])
    with postgres_engine.connect() as connection:
        since = changelog.position(connection)
    with postgres_engine.begin() as connection:
        connection.execute(text("TRUNCATE ruling_translations"))
    with postgres_engine.connect() as connection:
        assert changelog.changed_cards(connection, since, changelog.position(connection)) is None
