"""A printing read again by a later import (``kb import --force``, or a file that an older
revision of the parsers read): what kb now makes of it replaces what an older kb stored, so the
parser's repairs reach a store imported before them; an editor's correction, a face named from
the card's name and another source's copy of the printing stay (kb/loader/texts.py)."""

from __future__ import annotations

import pytest
from conftest import run_kb
from printed_helpers import BOLT_2009, WATCHDOG, printed, sets
from realdata import realdata
from sqlalchemy import select, text
from sqlalchemy.engine import Engine

from kb import schema
from kb.engine import make_engine
from kb.importers import PARSER_REVISION
from kb.importing import ImportOptions, run_import

FORCE = ImportOptions(force=True)
OLDER_BOLT = BOLT_2009.replace("einer Kreatur", "einer_Kreatur")
"""Lightning Bolt's German text as a kb before a repair of the parser might have stored it."""


def stored_as_older_kb(engine: Engine, card: str, **columns: str) -> None:
    """Write ``columns`` of the card's German printed text, as an older kb's parser had."""
    assignments = ", ".join(f"{column} = :{column}" for column in columns)
    with engine.begin() as connection:
        written = connection.execute(
            text(
                f"UPDATE printed_texts SET {assignments} WHERE locale = 'de' AND card_id = "
                "(SELECT id FROM cards WHERE name = :card)"
            ),
            {"card": card, **columns},
        )
        assert written.rowcount == 1


@pytest.mark.realdata
def test_a_forced_import_mends_what_an_older_kb_stored(engine: Engine) -> None:
    run_import(engine, sets("M10"))
    stored_as_older_kb(engine, "Lightning Bolt", text=OLDER_BOLT)
    # Without --force the file's checksum says it was read: nothing is read again.
    skipped = run_import(engine, sets("M10"))
    assert skipped.counts["files skipped"] == 1
    assert printed(engine, "Lightning Bolt")[0]["printed_text"] == OLDER_BOLT
    forced = run_import(engine, sets("M10"), FORCE)
    assert (forced.counts["texts reread"], forced.counts["texts changed"]) == (1, 0)
    [bolt] = printed(engine, "Lightning Bolt")
    assert (bolt["printed_text"], bolt["set_code"], bolt["source"]) == (
        BOLT_2009,
        "M10",
        "M10.json.gz",
    )
    # Read again once more, the same printing reads the same: nothing changes.
    again = run_import(engine, sets("M10"), FORCE)
    assert again.counts["texts reread"] == 0 and not again.changed
    assert printed(engine, "Lightning Bolt") == [bolt]


def read_by_an_older_kb(engine: Engine) -> None:
    """The sources as migration 0013 leaves those of an import before it: no revision."""
    with engine.begin() as connection:
        connection.execute(text("UPDATE sources SET parser_revision = NULL"))


def revisions(engine: Engine) -> list[int | None]:
    with engine.connect() as connection:
        query = select(schema.sources.c.parser_revision).order_by(schema.sources.c.id)
        return list(connection.execute(query).scalars())


@pytest.mark.realdata
def test_a_file_an_older_parser_read_is_read_again_without_force(engine: Engine) -> None:
    run_import(engine, sets("M10"))
    assert revisions(engine) == [PARSER_REVISION]
    stored_as_older_kb(engine, "Lightning Bolt", text=OLDER_BOLT)
    read_by_an_older_kb(engine)
    c = run_import(engine, sets("M10")).counts
    assert (c["files read again"], c["files skipped"], c["texts reread"]) == (1, 0, 1)
    assert printed(engine, "Lightning Bolt")[0]["printed_text"] == BOLT_2009
    # The file is now this revision's: the next import skips it.
    assert revisions(engine) == [None, PARSER_REVISION]
    again = run_import(engine, sets("M10"))
    assert (again.counts["files skipped"], again.counts["files read again"]) == (1, 0)


@pytest.mark.realdata
def test_a_file_read_again_that_adds_nothing_takes_the_revision(engine: Engine) -> None:
    run_import(engine, sets("M10"))
    read_by_an_older_kb(engine)
    summary = run_import(engine, sets("M10"))
    assert summary.counts["files read again"] == 1 and not summary.changed
    assert revisions(engine) == [PARSER_REVISION]
    assert run_import(engine, sets("M10")).counts["files skipped"] == 1


@pytest.mark.realdata
def test_a_cards_name_follows_its_printing_read_again(engine: Engine) -> None:
    """A name an older kb stored (before names were mended as cards print them, say) gives way
    to the name of the printing read again."""
    run_import(engine, sets("M10"))
    with engine.begin() as connection:
        renamed = connection.execute(
            text(
                "UPDATE card_names SET name = 'blitzschlag' WHERE locale = 'de' AND card_id = "
                "(SELECT id FROM cards WHERE name = 'Lightning Bolt')"
            )
        )
        assert renamed.rowcount == 1
    forced = run_import(engine, sets("M10"), FORCE)
    assert (forced.counts["names changed"], forced.counts["texts reread"]) == (1, 0)
    assert printed(engine, "Lightning Bolt")[0]["printed_name"] == "Blitzschlag"


@pytest.mark.realdata
def test_the_summary_says_how_many_texts_were_read_anew(database_url: str) -> None:
    run_kb(database_url, "-q", "import", *map(str, sets("M10")))
    engine = make_engine(database_url)
    stored_as_older_kb(engine, "Lightning Bolt", text=OLDER_BOLT)
    read_by_an_older_kb(engine)
    engine.dispose()
    imported = run_kb(database_url, "import", *map(str, sets("M10")))
    assert imported.exit_code == 0
    lines = imported.stdout.splitlines()
    [texts] = [line for line in lines if line.startswith("printed texts")]
    assert texts.startswith("printed texts: 0 new, 0 from a later printing, 1 read anew from ")
    assert texts.endswith(" unchanged")
    assert "files: 1 read again (an older kb read them)" in lines


@pytest.mark.realdata
def test_an_editors_correction_stands_when_its_printing_is_read_again(database_url: str) -> None:
    """The same printing read again keeps the column an editor corrected; the columns no editor
    touched follow the source."""
    run_kb(database_url, "-q", "import", *map(str, sets("M10")))
    fixed = "Der Blitzschlag fügt einer Kreatur oder einem Spieler deiner Wahl 3 Schaden zu."
    edit = run_kb(database_url, "edit", "printed-text", "Blitzschlag", "de", fixed, "--editor", "a")
    assert edit.exit_code == 0
    engine = make_engine(database_url)
    [edited] = printed(engine, "Lightning Bolt")
    assert edited["printed_text"] == fixed
    stored_as_older_kb(engine, "Lightning Bolt", english_text="Lightning Bolt deals 3 damage")
    forced = run_import(engine, sets("M10"), FORCE)
    assert (forced.counts["texts reread"], forced.counts["texts as edited"]) == (1, 1)
    assert printed(engine, "Lightning Bolt") == [edited]
    engine.dispose()


@pytest.mark.realdata
def test_another_sources_copy_of_a_printing_does_not_replace_it(engine: Engine) -> None:
    """Scryfall's German Alpine Watchdog of M21 and MTGJSON's are one printing: the copy stored
    first stays, whichever source a later run reads; its own source read again mends it."""
    run_import(engine, sets("M21"))
    [watchdog] = printed(engine, "Alpine Watchdog")
    stored_as_older_kb(engine, "Alpine Watchdog", text="older")
    other = run_import(engine, [realdata(WATCHDOG)])
    assert other.counts["texts reread"] == 0
    assert printed(engine, "Alpine Watchdog")[0]["printed_text"] == "older"
    run_import(engine, sets("M21"), FORCE)
    assert printed(engine, "Alpine Watchdog") == [watchdog]
