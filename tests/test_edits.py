"""Audited edits: every change recorded, revertible, and safe with several editors at once."""

from __future__ import annotations

import multiprocessing
import re
import sqlite3
import threading
from typing import Any

import pytest
from conftest import assert_keys_and_pairs_follow_texts, run_kb
from realdata import DATA
from sqlalchemy import select
from sqlalchemy.engine import Engine, Row

from kb import derived, edits, revisions, schema
from kb.engine import make_engine
from kb.importing import run_import
from kb.locales import LOCALE_CODES

SAME_MODE = 2  # "You can’t choose the same mode more than once.", on both demo cards
SAME_MODE_TEXT = "You can’t choose the same mode more than once."


def ruling(database_url: str, ruling_id: int) -> Row[Any]:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        row = connection.execute(
            select(schema.rulings).where(schema.rulings.c.id == ruling_id)
        ).one()
    engine.dispose()
    return row


def test_editing_a_ruling_changes_it_on_every_card_and_is_recorded(demo_url: str) -> None:
    new = "You can't choose the same mode more than once, even with a copy."
    result = run_kb(demo_url, "edit", "ruling-text", str(SAME_MODE), new, "--editor", "ann")
    assert result.stdout == "revision 1\n"
    changed = ruling(demo_url, SAME_MODE)
    assert changed.text == new
    keys = derived.ruling_keys(new)
    assert {key: getattr(changed, key) for key in keys} == keys
    cards = run_kb(
        demo_url,
        "sql",
        "--csv",
        "SELECT DISTINCT card FROM card_rulings_view WHERE ruling_id = 2 ORDER BY card",
    )
    assert cards.stdout == "card\nCaught in the Crossfire\nThree Steps Ahead\n"
    history = run_kb(demo_url, "history", "--ruling", "2", "--csv").stdout.splitlines()
    assert history[0] == "id,made_at,editor,action,table_name,row_key,old_value,new_value"
    assert re.fullmatch(
        r'1,[0-9T:.-]+,ann,ruling-text,rulings,"{""id"": 2}",'
        r'"{""text"": ""You can’t choose the same mode more than once.""}",".*"',
        history[1],
    )


def test_rewording_a_ruling_says_which_reviewed_translations_wait_again(demo_url: str) -> None:
    for locale, translation in (("de", "Kein Modus zweimal."), ("it", "Nessun modo due volte.")):
        for step in (["translation", str(SAME_MODE), locale, translation], ["review", "2", locale]):
            assert run_kb(demo_url, "edit", *step, "--editor", "ann").exit_code == 0
    retyped = SAME_MODE_TEXT.replace("’", "'")  # the same key: the reviews stand
    result = run_kb(demo_url, "edit", "ruling-text", str(SAME_MODE), retyped, "--editor", "cy")
    assert result.stdout == "revision 5\n"
    reworded = SAME_MODE_TEXT + " Not even with a copy."
    result = run_kb(demo_url, "edit", "ruling-text", str(SAME_MODE), reworded, "--editor", "cy")
    assert result.stdout == (
        "revision 6\nits reviewed translations (de, it) wait for review again: "
        "the English text changed\n"
    )


def test_the_editor_is_required(demo_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KB_EDITOR", raising=False)
    result = run_kb(demo_url, "edit", "ruling-text", "2", "x")
    assert result.exit_code == 2
    assert "Missing option '--editor'" in result.stderr
    monkeypatch.setenv("KB_EDITOR", "env-editor")
    assert (
        run_kb(demo_url, "edit", "card-name", "Three Steps Ahead", "ko", "세 발짝 앞서").exit_code
        == 0
    )
    assert "env-editor" in run_kb(demo_url, "history", "--editor", "env-editor").stdout


def test_a_locale_argument_is_named_locale_and_its_codes_are_in_the_help(demo_url: str) -> None:
    """Not click's list of every choice in its usage line and errors, lower-cased."""
    wrong = run_kb(demo_url, "edit", "card-name", "Three Steps Ahead", "xx", "X", "--editor", "a")
    assert wrong.exit_code == 2
    assert wrong.stderr.splitlines()[0].endswith(" edit card-name [OPTIONS] CARD LOCALE NAME")
    assert wrong.stderr.splitlines()[-1].startswith("Error: Invalid value for 'LOCALE': 'xx' is")
    shown = " ".join(run_kb(demo_url, "edit", "--help").stdout.split())
    assert f"any case: {', '.join(LOCALE_CODES)}." in shown  # every code, none stale


def test_names_tags_translations_history_and_revert(demo_url: str) -> None:
    edit = ["edit", "--help"]
    assert run_kb(demo_url, *edit).exit_code == 0
    steps = [
        ["edit", "card-name", "Drei Schritte voraus", "KO", "세 발짝 앞서"],  # any case
        ["edit", "card-name", "Three Steps Ahead", "it", " Tre passi avanti\n"],  # stripped
        ["edit", "tag", "outlaw", "--card", "Three Steps Ahead"],
        ["edit", "untag", "spree", "--ruling", "2"],
        ["edit", "translation", "2", "it", "Non puoi scegliere lo stesso modo più di una volta."],
        ["edit", "review", "2", "it"],
    ]
    for number, step in enumerate(steps, start=1):
        result = run_kb(demo_url, *step, "--editor", "ann")
        assert result.stdout == f"revision {number}\n", result.output
    names = run_kb(
        demo_url,
        "sql",
        "--csv",
        "SELECT locale, name FROM names_view WHERE card_id = 1 AND locale IN ('it', 'ko') "
        "ORDER BY locale",
    )
    assert names.stdout == "locale,name\nit,Tre passi avanti\nko,세 발짝 앞서\n"
    card_history = run_kb(demo_url, "history", "--card", "Three Steps Ahead", "--csv").stdout
    # Ruling 2 stands on Three Steps Ahead: its changes are in the card's history too.
    assert [line.split(",")[3] for line in card_history.splitlines()[1:]] == [
        "card-name",
        "card-name",
        "tag",
        "untag",
        "translation",
        "review",
    ]
    # Undo, newest first; each undo is itself a revision.
    for number in range(len(steps), 0, -1):
        assert run_kb(demo_url, "revert", str(number), "--editor", "bob").exit_code == 0
    state = run_kb(
        demo_url,
        "sql",
        "--csv",
        "SELECT (SELECT count(*) FROM card_names WHERE card_id = 1 AND locale = 'ko') AS ko, "
        "(SELECT name FROM card_names WHERE card_id = 1 AND locale = 'it') AS it, "
        "(SELECT count(*) FROM card_mechanics) AS card_tags, "
        "(SELECT count(*) FROM ruling_mechanics WHERE ruling_id = 2) AS ruling_2_tags, "
        "(SELECT count(*) FROM ruling_translations) AS translations, "
        "(SELECT count(*) FROM revisions WHERE editor = 'bob') AS reverts",
    )
    assert (
        state.stdout
        == "ko,it,card_tags,ruling_2_tags,translations,reverts\n0,Tre Passi Avanti,3,1,0,6\n"
    )


def test_an_import_that_still_says_what_an_editor_corrected_keeps_the_correction(
    demo_url: str,
) -> None:
    corrected_name = "Drei Schritte voraus (korrigiert)"
    corrected_text = "You can’t choose the same mode more than once, in any case."
    for step in (
        ["edit", "card-name", "Three Steps Ahead", "de", corrected_name],
        ["edit", "ruling-text", str(SAME_MODE), corrected_text],
        ["edit", "untag", "spree", "--card", "Three Steps Ahead"],  # the catalog tags it
        ["edit", "card-name", "Three Steps Ahead", "ko", "세 발짝 앞서"],  # a name added
    ):
        assert run_kb(demo_url, *step, "--editor", "ann").exit_code == 0
    before = run_kb(demo_url, "sql", "--csv", STATE).stdout
    # The catalog and the seed pages still say "Drei Schritte voraus" and the old text; the
    # German page names its card by that name.
    again = run_kb(demo_url, "import", str(DATA))
    assert again.exit_code == 0, again.output
    lines = again.stdout.splitlines()
    assert lines[1].endswith("13 unchanged, 1 kept as an editor corrected them")
    assert lines[2].endswith("(damaged copies mended), 2 kept as an editor corrected them")
    assert run_kb(demo_url, "sql", "--csv", STATE).stdout == before
    assert corrected_name in before and corrected_text in before and before.endswith(",0\n")


STATE = (
    "SELECT (SELECT name FROM card_names WHERE card_id = 1 AND locale = 'de') AS name, "
    f"(SELECT text FROM rulings WHERE id = {SAME_MODE}) AS text, "
    "(SELECT count(*) FROM rulings) AS rulings, (SELECT count(*) FROM card_rulings) AS links, "
    "(SELECT count(*) FROM card_mechanics WHERE card_id = 1) AS card_tags"
)
"""What an import may have undone: the corrected name and text, no ruling added, the tag
removed."""


def test_a_stale_edit_is_a_conflict_and_nothing_is_lost(demo_url: str) -> None:
    engine = make_engine(demo_url)
    seen = SAME_MODE_TEXT  # both editors read this
    edits.set_ruling_text(engine, "ann", SAME_MODE, "ann's text", expect_text=seen)
    with pytest.raises(revisions.ConflictError, match="changed by someone else"):
        edits.set_ruling_text(engine, "bob", SAME_MODE, "bob's text", expect_text=seen)
    engine.dispose()
    assert ruling(demo_url, SAME_MODE).text == "ann's text"
    result = run_kb(
        demo_url, "edit", "ruling-text", "2", "x", "--expect-text", seen, "--editor", "bob"
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("kb: error: rulings id=2 was changed by someone else")
    # Reverting a revision whose row changed since is a conflict too.
    assert run_kb(demo_url, "edit", "ruling-text", "2", "carl's", "--editor", "carl").exit_code == 0
    assert run_kb(demo_url, "revert", "1", "--editor", "dan").stderr.startswith(
        "kb: error: rulings id=2 was changed by someone else"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["edit", "ruling-text", "999", "x"], "kb: error: no ruling 999\n"),
        (
            ["edit", "ruling-text", "3", SAME_MODE_TEXT],
            "kb: error: another ruling already has this text; link the cards to that one\n",
        ),
        (
            ["edit", "card-name", "Nobody", "it", "x"],
            "kb: error: no card 'Nobody' (give its id, English name or a localized name)\n",
        ),
        (
            ["edit", "tag", "spree", "--card", "Three Steps Ahead"],
            "kb: error: nothing to change: the new value is the current one\n",
        ),
        (["edit", "tag", "nope", "--ruling", "1"], "kb: error: no mechanic 'nope'\n"),
        (["edit", "review", "1", "de"], "kb: error: ruling 1 has no de translation to review\n"),
        (["revert", "42"], "kb: error: no revision 42\n"),
        (["edit", "ruling-text", "1", " "], "kb: error: a ruling's text cannot be empty\n"),
        (
            ["edit", "card-name", "Three Steps Ahead", "de", ""],
            "kb: error: a card's name cannot be empty\n",
        ),
        (["edit", "translation", "1", "it", "\n"], "kb: error: a translation cannot be empty\n"),
    ],
)
def test_bad_edits_are_one_line_errors(demo_url: str, args: list[str], message: str) -> None:
    result = run_kb(demo_url, *args, "--editor", "ann")
    assert (result.exit_code, result.stderr) == (1, message)


WORKERS = 4
EDITS_EACH = 10


def _append_marks(database_url: str, worker: int) -> None:
    """One editor process: append its marks to ruling 2, redoing an edit after a conflict."""
    engine = make_engine(database_url)
    for number in range(EDITS_EACH):
        while True:
            current = ruling_text_now(engine)
            try:
                edits.set_ruling_text(
                    engine, f"w{worker}", SAME_MODE, f"{current} [{worker}.{number}]", current
                )
                break
            except revisions.ConflictError:
                continue
    engine.dispose()


def ruling_text_now(engine: Engine) -> str:
    with engine.connect() as connection:
        return connection.execute(
            select(schema.rulings.c.text).where(schema.rulings.c.id == SAME_MODE)
        ).scalar_one()


def test_an_edit_waits_for_another_writer_to_put_the_store_in_wal_mode(sqlite_url: str) -> None:
    """Switching a SQLite store to WAL needs an exclusive lock, and SQLite refuses it at once,
    without the busy timeout, while another connection holds a write lock: the edit waits."""
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    writer = sqlite3.connect(engine.url.database, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE rulings SET origin = origin WHERE id = 2")
    releasing = threading.Timer(0.3, writer.execute, ["COMMIT"])
    releasing.start()
    edits.set_ruling_text(engine, "ann", SAME_MODE, SAME_MODE_TEXT + " (702.172)")
    releasing.join()
    writer.close()
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert ruling_text_now(engine) == SAME_MODE_TEXT + " (702.172)"
    engine.dispose()


def test_parallel_editors_lose_no_update(demo_url: str) -> None:
    context = multiprocessing.get_context("fork")
    processes = [
        context.Process(target=_append_marks, args=(demo_url, worker)) for worker in range(WORKERS)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
    assert [process.exitcode for process in processes] == [0] * WORKERS
    engine = make_engine(demo_url)
    final = ruling_text_now(engine)
    with engine.connect() as connection:
        revisions = connection.execute(
            select(schema.revisions).order_by(schema.revisions.c.id)
        ).all()
    engine.dispose()
    marks = re.findall(r"\[(\d)\.(\d+)\]", final)
    assert sorted(marks) == sorted(
        (str(w), str(n)) for w in range(WORKERS) for n in range(EDITS_EACH)
    )
    for worker in range(WORKERS):  # each editor's marks in its own order
        assert [int(n) for w, n in marks if w == str(worker)] == list(range(EDITS_EACH))
    assert len(revisions) == WORKERS * EDITS_EACH
    # The revisions chain: each starts from the text the previous one left.
    texts = [SAME_MODE_TEXT] + [revision.new_value["text"] for revision in revisions]
    assert [revision.old_value["text"] for revision in revisions] == texts[:-1]
    assert texts[-1] == final


def test_near_duplicates_stay_right_when_two_editors_change_a_pair_at_once(demo_url: str) -> None:
    """Ruling 10 is edited to begin like ruling 6 while another editor, not yet committed, is
    changing ruling 6 away: the second edit's pairs must be found against the first's text."""
    engine = make_engine(demo_url)
    token = ruling(demo_url, 6).text
    lookalike = token.replace("’", "'") + " (707.2)"
    second = threading.Thread(target=edits.set_ruling_text, args=(engine, "bob", 10, lookalike))
    with revisions.edit_transaction(engine) as connection:
        unrelated = {"text": "A ruling about something else entirely."}
        change = revisions.Change("rulings", {"id": 6}, {"text": token}, unrelated)
        revisions.apply_change(connection, change)
        second.start()
        second.join(timeout=1)  # it waits for this transaction (or, unguarded, races it)
    second.join(timeout=60)
    assert not second.is_alive()
    assert ruling(demo_url, 10).text == lookalike
    assert_keys_and_pairs_follow_texts(engine)
    engine.dispose()


def test_a_reverted_untag_puts_back_the_tags_origin(demo_url: str) -> None:
    """Caught in the Crossfire is an outlaw by its Oracle text, not by a source's keywords: an
    untag and its revert leave it so (mining tells the actions no source lists by it)."""
    engine = make_engine(demo_url)
    origin = select(schema.card_mechanics.c.origin).join(schema.mechanics)
    origin = origin.where(schema.mechanics.c.slug == "outlaw")

    def outlaw() -> list[str]:
        with engine.connect() as connection:
            return list(connection.execute(origin).scalars())

    assert outlaw() == ["text"]
    with pytest.raises(revisions.EditError, match="nothing to change"):
        edits.set_tag(engine, "ann", "outlaw", True, card="Caught in the Crossfire")
    untagged = edits.set_tag(engine, "ann", "outlaw", False, card="Caught in the Crossfire")
    assert outlaw() == []
    revisions.revert(engine, "bob", untagged)
    assert outlaw() == ["text"]
    # A tag an editor adds is listed.
    edits.set_tag(engine, "ann", "outlaw", True, card="Three Steps Ahead")
    assert sorted(outlaw()) == ["listed", "text"]
    engine.dispose()
