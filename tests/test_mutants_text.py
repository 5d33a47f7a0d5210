"""Ruling text keys and folding (kb.text): the answers a wrong change would give silently.

A store keeps these keys beside every ruling, so they must stay what earlier versions wrote:
a key computed another way would make the next import add every ruling again.
"""

from __future__ import annotations

import threading

from sqlalchemy import select
from sqlalchemy.engine import Engine

from kb.derived import head_key, ruling_keys
from kb.edits import set_ruling_text
from kb.revisions import Change, apply_change, edit_transaction
from kb.schema import near_duplicates
from kb.text import better_text, has_symbols, normalize, text_key

LONG = (
    "If the copied permanent has {X} in its mana cost, X is 0. "
    "This is a longer ruling that passes sixty characters."
)


def test_the_keys_are_the_ones_stores_already_hold() -> None:
    assert ruling_keys(LONG) == {
        "text_key": "41f5dba4ce654bb3c131e54777674bee",
        "skeleton_key": "59975d95846091722205bfcaf151db04",
        "head_key": "1b4cc1b507c2fc52ebb68153334d52c3",
    }
    assert text_key(LONG) == "41f5dba4ce654bb3c131e54777674bee"
    assert head_key(LONG) == "1b4cc1b507c2fc52ebb68153334d52c3"


def test_the_head_key_is_shared_by_texts_that_begin_alike() -> None:
    other_end = LONG[:70] + " Another ending altogether."
    assert head_key(other_end) == head_key(LONG)
    assert text_key(other_end) != text_key(LONG)
    # Folded first: typography in the first characters makes no other head.
    assert head_key("  " + LONG.replace("'", "\u2019")) == head_key(LONG)
    assert head_key("Another beginning" + LONG) != head_key(LONG)


def test_symbols_are_what_stands_in_braces() -> None:
    assert has_symbols("{T}: Add {G}.")
    assert not has_symbols("Add one mana of any color.")
    assert not has_symbols("A closing } before an opening {")


def test_a_damaged_copy_shares_the_skeleton_however_its_gap_was_left() -> None:
    mended = ruling_keys("Add {G}.")["skeleton_key"]
    # The symbol dropped with or without the space before it.
    assert ruling_keys("Add .")["skeleton_key"] == mended
    assert ruling_keys("Add.")["skeleton_key"] == mended
    # A symbol that began the text leaves no leading gap behind.
    assert ruling_keys("{T} Tap it.")["skeleton_key"] == ruling_keys("Tap it.")["skeleton_key"]
    assert ruling_keys("Add {G}.")["skeleton_key"] != ruling_keys("Add {G} again.")["skeleton_key"]


def test_of_two_copies_with_as_many_symbols_the_kept_one_stays() -> None:
    kept = "Add {G} or {U}."
    incoming = "Add {U} or {G}."
    assert better_text(kept, incoming) == kept
    assert better_text("Add .", "Add .") == "Add ."
    assert better_text("Add {G}{G}.", "Add {G}.") == "Add {G}{G}."
    assert better_text("Add {G}.", "Add {G}{G}.") == "Add {G}{G}."


def test_folding_keeps_what_is_not_typography() -> None:
    assert normalize("\ufb01rst") == "first"  # NFKC: a ligature is its letters
    assert normalize("a\u00a0b\tc\n d") == "a b c d"
    assert normalize("\u2018a\u2019 \u201cb\u201d \u2013 \u2212") == "'a' \"b\" - -"
    assert normalize("Caf\u0065\u0301") == "Caf\u00e9"


def test_two_writers_pairing_at_once_find_the_pair_on_postgresql(postgres_engine: Engine) -> None:
    """Two transactions each write a text that begins like the other's. On PostgreSQL (READ
    COMMITTED) the second would compare with the first's old text, and neither would find the
    pair: ``refresh_near_duplicates`` takes a lock, so the second waits and then pairs."""
    with edit_transaction(postgres_engine) as connection:
        for ruling_id, text in ((1, "Old one."), (2, "Old two.")):
            apply_change(connection, Change("rulings", {"id": ruling_id}, None, {"text": text}))
    second = threading.Thread(
        target=set_ruling_text, args=(postgres_engine, "bob", 2, LONG + " Again.")
    )
    with edit_transaction(postgres_engine) as connection:
        apply_change(connection, Change("rulings", {"id": 1}, {"text": "Old one."}, {"text": LONG}))
        second.start()
        second.join(timeout=1)  # it waits for this transaction (or, unguarded, races it)
    second.join(timeout=60)
    assert not second.is_alive()
    with postgres_engine.connect() as connection:
        pairs = connection.execute(select(near_duplicates)).all()
    assert [tuple(pair) for pair in pairs] == [(1, 2, "same beginning")]
