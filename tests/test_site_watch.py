"""``kb build --watch``: a build that keeps running and builds again after each write to the
store, on each engine; whatever it kept, its site is the one a new build makes."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from realdata import DATA
from sqlalchemy import delete, insert, or_, text, update
from sqlalchemy.engine import Connection, Engine

from kb import schema
from kb.derived import ruling_keys
from kb.engine import make_engine
from kb.importing import run_import
from kb.locales import LOCALES, Locale
from kb.site import data as site_data
from kb.site import watch as site_watch
from kb.site.build import BuildOptions, BuildResult, CodeChanged, WatchState, build
from kb.site.manifest import Manifest
from kb.site.output import MANIFEST
from kb.site.watch import watch

SPREE_MODES = "You can%t choose the same mode%"
EDITED = "Edited:"
SPREE_PAGES = 2 * 11 + 11 + 2 * 11
"""The pages that show the Spree ruling: the two Spree cards' and Spree's, and the feeds and
recent changes pages (where it is a new ruling), in 11 locales."""
SUMMARY = "115 pages in {out}: 115 written, 0 unchanged, 0 removed"


def _pages(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }


def _as_a_new_build_makes_it(engine: Engine, site: Path, tmp_path: Path) -> None:
    fresh = build(engine, tmp_path / "fresh", BuildOptions(full=True)).out
    assert _pages(site) == _pages(fresh)


def _edit_spree_modes(engine: Engine, new_text: str) -> None:
    """Change the text of the Spree ruling that stands on both Spree cards (first edit: the
    text the demo data gives it; later ones: the text the last one gave it)."""
    with engine.begin() as connection:
        connection.execute(
            update(schema.rulings)
            .where(
                or_(
                    schema.rulings.c.text.like(SPREE_MODES),
                    schema.rulings.c.text.like(f"{EDITED}%"),
                )
            )
            .values(text=f"{EDITED} {new_text}")
        )


class _Watcher:
    """kb.site.watch.watch in a thread, its builds and failures in queues."""

    def __init__(self, engine: Engine, out: Path, kept: WatchState) -> None:
        self.builds: queue.Queue[BuildResult] = queue.Queue()
        self.failures: queue.Queue[Exception] = queue.Queue()
        self.indexed: queue.Queue[tuple[Locale, ...]] = queue.Queue()
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=watch,
            args=(engine, out, BuildOptions(), kept, self.stop),
            kwargs={
                "built": lambda result, _seconds: self.builds.put(result),
                "failed": self.failures.put,
                "interval": 0.01,
                "caught_up": lambda locales, _seconds: self.indexed.put(locales),
            },
        )
        self.thread.start()

    def next_build(self) -> BuildResult:
        """The next build's result, once the search index caught up with its pages (the
        watcher puts the pages in place first, then indexes the locales they changed)."""
        result = self.builds.get(timeout=60)
        if result.search_pending:
            assert self.indexed.get(timeout=60) == result.search_pending
        return result

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=60)


@pytest.fixture
def watching(demo_store: Engine, tmp_path: Path) -> Iterator[tuple[_Watcher, Path, WatchState]]:
    kept = WatchState()
    out = build(demo_store, tmp_path / "site", kept=kept).out
    watcher = _Watcher(demo_store, out, kept)
    yield watcher, out, kept
    watcher.close()


def test_watch_builds_again_after_each_write(
    demo_store: Engine, tmp_path: Path, watching: tuple[_Watcher, Path, WatchState]
) -> None:
    watcher, out, kept = watching
    _edit_spree_modes(demo_store, "& <kept>.")
    assert watcher.next_build().written == SPREE_PAGES
    assert "Edited: &amp; &lt;kept&gt;." in (out / "de/cards/three-steps-ahead.html").read_text()
    _as_a_new_build_makes_it(demo_store, out, tmp_path)

    with demo_store.begin() as connection:  # a new card: the index is read again
        card_id = connection.execute(
            insert(schema.cards).values(name="Fire // Ice").returning(schema.cards.c.id)
        ).scalar_one()
        connection.execute(
            insert(schema.card_names).values(card_id=card_id, locale="de", name="Feuer // Eis")
        )
    assert watcher.next_build().written > 11
    assert (out / "de/cards/fire-ice.html").is_file()
    _as_a_new_build_makes_it(demo_store, out, tmp_path / "2")

    with demo_store.begin() as connection:  # renamed: its pages move
        connection.execute(
            update(schema.cards).where(schema.cards.c.id == card_id).values(name="Ice // Fire")
        )
    # its pages move, and the F sections it was alone in go (German names it Feuer // Eis)
    assert watcher.next_build().removed == 11 + 10
    _as_a_new_build_makes_it(demo_store, out, tmp_path / "3")

    with demo_store.begin() as connection:
        connection.execute(delete(schema.cards).where(schema.cards.c.id == card_id))
    # its pages, and the sections it was alone in: I (German: F, for Feuer // Eis)
    assert watcher.next_build().removed == 2 * 11
    _as_a_new_build_makes_it(demo_store, out, tmp_path / "4")

    watcher.close()
    assert not kept.unwritten
    assert Manifest.read(out) == kept.manifest
    assert build(demo_store, out).written == 0
    assert watcher.failures.empty()


def test_tags_and_general_rulings_are_read_again_where_the_cards_changed(
    demo_store: Engine, tmp_path: Path, watching: tuple[_Watcher, Path, WatchState]
) -> None:
    """The kept index's mechanics are brought up to date from the changed cards alone: their
    tags, and the rulings that may be general now (a mechanic's page shows those once)."""
    watcher, out, kept = watching
    with demo_store.begin() as connection:  # a card with no ruling: the index is read again
        fire_ice = connection.execute(
            insert(schema.cards).values(name="Fire // Ice").returning(schema.cards.c.id)
        ).scalar_one()
    watcher.next_build()
    assert kept.index is not None
    cards = kept.index.cards

    def ids(connection: Connection) -> dict[str, int]:
        found = {
            name: card_id
            for card_id, name in connection.execute(text("SELECT id, name FROM cards"))
        }
        found.update(
            (slug, mechanic_id)
            for mechanic_id, slug in connection.execute(text("SELECT id, slug FROM mechanics"))
        )
        return found

    with demo_store.connect() as connection:
        known = ids(connection)
        outlaw_ruling = connection.execute(
            text("SELECT id FROM rulings WHERE text LIKE 'A card, spell, or permanent is an%'")
        ).scalar_one()
    three_steps, crossfire = known["Three Steps Ahead"], known["Caught in the Crossfire"]
    edits = [
        # a card with no general ruling changed: the general rulings are those found before
        insert(schema.card_names).values(card_id=fire_ice, locale="de", name="Feuer // Eis"),
        # a card tagged: listed on the mechanic's pages
        insert(schema.card_mechanics).values(card_id=three_steps, mechanic_id=known["outlaw"]),
        # a tagged ruling on a second card: general now
        insert(schema.card_rulings).values(
            card_id=three_steps, ruling_id=outlaw_ruling, published_on=None, position=99
        ),
        # untagged: general no more
        delete(schema.ruling_mechanics).where(schema.ruling_mechanics.c.ruling_id == outlaw_ruling),
        # a general ruling deleted
        delete(schema.rulings).where(schema.rulings.c.text.like(SPREE_MODES)),
        # a tagged card renamed in one locale: its mechanics' pages and that locale's A–Z
        update(schema.card_names)
        .where(schema.card_names.c.card_id == three_steps, schema.card_names.c.locale == "de")
        .values(name="Drei Schritte zurück"),
        # a card untagged
        delete(schema.card_mechanics).where(
            schema.card_mechanics.c.card_id == crossfire,
            schema.card_mechanics.c.mechanic_id == known["spree"],
        ),
    ]
    for number, edit in enumerate(edits):
        with demo_store.begin() as connection:
            connection.execute(edit)
        assert watcher.next_build().written > 0
        _as_a_new_build_makes_it(demo_store, out, tmp_path / str(number))
        assert kept.index is not None and kept.index.cards is cards
    assert watcher.failures.empty()


def test_too_many_rulings_to_look_up_by_id_read_the_mechanics_whole(
    demo_store: Engine,
    tmp_path: Path,
    watching: tuple[_Watcher, Path, WatchState],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    watcher, out, kept = watching
    assert kept.index is not None
    cards = kept.index.cards
    monkeypatch.setattr(site_data, "RULINGS_BY_ID", 0)
    _edit_spree_modes(demo_store, "read whole.")
    assert watcher.next_build().written == SPREE_PAGES
    _as_a_new_build_makes_it(demo_store, out, tmp_path)
    assert kept.index.cards is cards  # the cards' entries are kept all the same


def test_a_ruling_counts_once_it_stands_on_a_card(
    demo_store: Engine, tmp_path: Path, watching: tuple[_Watcher, Path, WatchState]
) -> None:
    """The home pages count the rulings the site shows: a ruling written with no card (which
    the change log does not see) counts from the write that links it to a card."""
    watcher, out, _kept = watching
    text_of_it = "A ruling that stands on no card yet."
    with demo_store.begin() as connection:
        ruling_id = connection.execute(
            insert(schema.rulings)
            .values(text=text_of_it, **ruling_keys(text_of_it))
            .returning(schema.rulings.c.id)
        ).scalar_one()
    _as_a_new_build_makes_it(demo_store, out, tmp_path / "unlinked")
    with demo_store.begin() as connection:
        card_id = connection.execute(
            text("SELECT id FROM cards WHERE name = 'Three Steps Ahead'")
        ).scalar_one()
        connection.execute(
            insert(schema.card_rulings).values(
                card_id=card_id, ruling_id=ruling_id, published_on=None, position=99
            )
        )
    assert watcher.next_build().written > 0
    assert "22 Klarstellungen" in (out / "de/index.html").read_text()
    _as_a_new_build_makes_it(demo_store, out, tmp_path / "linked")


def test_a_build_that_fails_is_reported_and_the_next_write_builds_again(
    demo_store: Engine, watching: tuple[_Watcher, Path, WatchState]
) -> None:
    watcher, out, _kept = watching
    before = _pages(out)
    with demo_store.begin() as connection:
        connection.execute(text("ALTER TABLE rulings RENAME TO rulings_away"))
        connection.execute(
            update(schema.card_names).values(name=schema.card_names.c.name + " (neu)")
        )
    failure = watcher.failures.get(timeout=60)
    assert "rulings" in str(failure)
    assert _pages(out) == before
    with demo_store.begin() as connection:
        connection.execute(text("ALTER TABLE rulings_away RENAME TO rulings"))
        connection.execute(update(schema.card_names).values(name=schema.card_names.c.name + "!"))
    watcher.next_build()
    assert "(neu)!" in (out / "de/cards/three-steps-ahead.html").read_text()
    assert watcher.failures.empty()


def test_a_failure_at_every_look_is_told_once(
    demo_store: Engine, watching: tuple[_Watcher, Path, WatchState], monkeypatch: pytest.MonkeyPatch
) -> None:
    watcher = watching[0]
    monkeypatch.setattr(site_watch, "RECHECK", 0.1)  # SQLite's log is read again every 0.1 s
    with demo_store.begin() as connection:  # every look at the change log fails now
        connection.execute(text("ALTER TABLE site_changes RENAME TO site_changes_away"))
    assert "site_changes" in str(watcher.failures.get(timeout=60))
    for _other_writer in range(5):  # PostgreSQL: snapshots that differ from look to look
        with demo_store.begin() as connection:
            connection.execute(text("UPDATE locales SET code = code WHERE code = 'en'"))
        time.sleep(0.2)  # some twenty looks
    assert watcher.failures.empty()
    with demo_store.begin() as connection:
        connection.execute(text("ALTER TABLE site_changes_away RENAME TO site_changes"))
    _edit_spree_modes(demo_store, "after the failures.")
    assert watcher.next_build().written == SPREE_PAGES
    assert watcher.failures.empty()


def test_a_build_that_keeps_running_stops_when_its_code_changes(
    demo_store: Engine, tmp_path: Path
) -> None:
    """Its templates are loaded once: a build with others on disk would render the old ones.
    (A new base address changes the code version as an edited template does.)"""
    kept = WatchState()
    out = build(demo_store, tmp_path / "site", kept=kept).out
    before = _pages(out)
    _edit_spree_modes(demo_store, "once.")
    with pytest.raises(CodeChanged, match="start it again"):
        build(demo_store, out, BuildOptions(base_url="https://rulings.example/"), kept=kept)
    assert _pages(out) == before


def test_the_manifest_is_written_when_the_store_is_quiet(
    demo_store: Engine, tmp_path: Path
) -> None:
    kept = WatchState()
    out = build(demo_store, tmp_path / "site", kept=kept).out
    written = Manifest.read(out)
    first_index = kept.index
    assert first_index is not None
    _edit_spree_modes(demo_store, "once.")
    build(demo_store, out, kept=kept)
    # The pages are in place, the manifest is not yet; the index of cards was not read again.
    assert kept.unwritten and Manifest.read(out) == written
    assert kept.manifest is not None and kept.manifest.folders == {
        locale.folder: (out / locale.folder / "cards").stat().st_mtime_ns for locale in LOCALES
    }  # the next build lists no folder of card pages
    assert kept.index is not None and kept.index.cards is first_index.cards
    assert "Edited: once." in (out / "it/cards/three-steps-ahead.html").read_text()
    kept.write_manifest(out)
    assert not kept.unwritten and Manifest.read(out) == kept.manifest


def test_a_page_deleted_by_hand_is_written_again(demo_store: Engine, tmp_path: Path) -> None:
    """What a build that keeps running knows of the site does not hide a missing page."""
    with demo_store.begin() as connection:
        connection.execute(insert(schema.cards).values(name="Island"))
    kept = WatchState()
    out = build(demo_store, tmp_path / "site", kept=kept).out
    _edit_spree_modes(demo_store, "once.")
    build(demo_store, out, kept=kept)
    (out / "it/cards/island.html").unlink()
    _edit_spree_modes(demo_store, "twice.")
    assert build(demo_store, out, kept=kept).written == SPREE_PAGES + 1
    _as_a_new_build_makes_it(demo_store, out, tmp_path)


def test_a_manifest_older_than_the_pages_costs_pages_written_again(
    demo_store: Engine, tmp_path: Path
) -> None:
    """A watcher killed before it wrote its manifest: the next build is right all the same, and
    writes again the pages the watcher wrote last."""
    kept = WatchState()
    out = build(demo_store, tmp_path / "site", kept=kept).out
    _edit_spree_modes(demo_store, "once.")
    build(demo_store, out, kept=kept)
    assert kept.unwritten
    again = build(demo_store, out)  # a new process, with the older manifest
    assert again.rendered == again.written == SPREE_PAGES
    _as_a_new_build_makes_it(demo_store, out, tmp_path)


def test_a_manifest_another_build_wrote_is_read_again(demo_store: Engine, tmp_path: Path) -> None:
    kept = WatchState()
    out = build(demo_store, tmp_path / "site", kept=kept).out
    _edit_spree_modes(demo_store, "by the watcher.")
    build(demo_store, out, kept=kept)
    _edit_spree_modes(demo_store, "by another build.")
    build(demo_store, out)  # writes its manifest: the watcher's is not the site's any more
    kept.write_manifest(out)
    assert "another build" in (out / "de/cards/three-steps-ahead.html").read_text()
    assert kept.manifest is None
    assert build(demo_store, out, kept=kept).written == 0
    kept.write_manifest(out)
    assert kept.manifest == Manifest.read(out)


def _default_interrupt() -> None:
    """In the child: Ctrl-C's signal handled, even when this process ignores it (a background
    job's SIGINT is ignored, and children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_build_watch_command(sqlite_url: str, tmp_path: Path, stop: signal.Signals) -> None:
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    out = tmp_path / "site"
    kb = Path(sys.executable).with_name("kb")
    command = [str(kb), "--db", sqlite_url, "build", "--watch", "--interval", "0.01"]
    watcher = subprocess.Popen(
        [*command, "--out", str(out), "--jobs", "1"],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_default_interrupt,
    )
    try:
        assert watcher.stdout is not None
        assert watcher.stdout.readline() == f"{SUMMARY.format(out=out)}\n"
        assert watcher.stdout.readline() == "watching the store for changes (Ctrl-C stops)\n"
        _edit_spree_modes(engine, "once.")
        rebuilt = watcher.stdout.readline()
        assert re.fullmatch(
            rf"\d\d:\d\d:\d\d 115 pages in {re.escape(str(out))}: 55 written, 60 unchanged, "
            r"0 removed \(\d+\.\d\d s\)\n",
            rebuilt,
        ), rebuilt
        # The pages first, then the search index of the locales whose pages changed (all:
        # an English ruling is on every locale's pages).
        caught_up = watcher.stdout.readline()
        assert re.fullmatch(
            r"\d\d:\d\d:\d\d search index of en, de, fr, it, es, pt-BR, ja, ko, ru, zh-Hans, "
            r"zh-Hant caught up \(\d+\.\d\d s\)\n",
            caught_up,
        ), caught_up
        watcher.send_signal(stop)
        assert watcher.communicate(timeout=60)[0] == "stopped\n"
        assert watcher.returncode == 0
    finally:
        if watcher.poll() is None:
            os.kill(watcher.pid, signal.SIGKILL)
    assert build(engine, out).written == 0  # the watcher wrote its manifest before it stopped
    engine.dispose()
