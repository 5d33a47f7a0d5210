"""What the store derives from a ruling's text and keeps beside it: its keys and near duplicates.

Whatever writes a ruling's text (the loader, ``kb edit``, ``kb revert``) writes ``ruling_keys``
with it, then calls ``refresh_near_duplicates`` once for the rulings it wrote. Migrations keep
frozen copies of these rules as they were when each migration was written: they never import
this module, so a change here does not change what replaying them derives.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import and_, func, insert, select
from sqlalchemy.engine import Connection

from kb.batches import BATCH_SIZE, chunks
from kb.schema import near_duplicates, rulings
from kb.text import digest, normalize, skeleton

HEAD_LENGTH = 60
"""Rulings whose folded texts begin with this many characters alike may be one ruling."""


def head_key(text: str) -> str:
    """Key of the folded text's first ``HEAD_LENGTH`` characters: shared by near duplicates."""
    return digest(normalize(text)[:HEAD_LENGTH])


def ruling_keys(text: str) -> dict[str, str]:
    """The keys a ruling stores beside its text, by column: they change whenever it does.
    (The text is folded once for all three: an import computes them for every new ruling.)"""
    folded = normalize(text)
    return {
        "text_key": digest(folded),
        # Without mana symbols: shared by a ruling and its damaged copies.
        "skeleton_key": digest(skeleton(folded)),
        "head_key": digest(folded[:HEAD_LENGTH]),
    }


SAME_WITHOUT_SYMBOLS = "same without symbols"
SAME_BEGINNING = "same beginning"
NEAR_LENGTH_SLACK = 10
"""Rulings that begin alike are near duplicates when their lengths differ by at most this."""
NEAR_DUPLICATES_LOCK = 0x6B625F6E656172  # "kb_near": a PostgreSQL advisory lock key


def refresh_near_duplicates(connection: Connection, ruling_ids: Iterable[int]) -> None:
    """Recompute the near_duplicates pairs of ``ruling_ids``, whose text was just written.

    Two rulings are near duplicates when their texts without mana symbols are the same (a
    damaged copy) or when their folded texts begin alike and their lengths are within
    ``NEAR_LENGTH_SLACK``. Finding every pair reads every ruling's keys, too slow for an
    editor's query; a ruling's pairs change only when its text does, so they are kept here.
    """
    ids = sorted(set(ruling_ids))
    if not ids:
        return
    if connection.dialect.name == "postgresql":
        # Two transactions refreshing rulings that pair with each other would each compare with
        # the other's old text (READ COMMITTED); taken in turn, the later one sees the earlier
        # one's text and pairs. SQLite lets one transaction write at a time already.
        connection.execute(select(func.pg_advisory_xact_lock(NEAR_DUPLICATES_LOCK)))
    for chunk in chunks(ids):
        connection.execute(
            near_duplicates.delete().where(
                near_duplicates.c.ruling_id.in_(chunk)
                | near_duplicates.c.other_ruling_id.in_(chunk)
            )
        )
    a, b = rulings.alias("a"), rulings.alias("b")
    same_skeleton = b.c.skeleton_key == a.c.skeleton_key
    same_beginning = and_(
        b.c.head_key == a.c.head_key,
        func.abs(func.length(a.c.text) - func.length(b.c.text)) <= NEAR_LENGTH_SLACK,
    )
    pairs: dict[tuple[int, int], str] = {}
    for chunk in chunks(ids):
        query = (
            select(a.c.id, b.c.id, same_skeleton)
            .select_from(a.join(b, and_(b.c.id != a.c.id, same_skeleton | same_beginning)))
            .where(a.c.id.in_(chunk))
        )
        for ruling_id, other_id, damaged in connection.execute(query):
            reason = SAME_WITHOUT_SYMBOLS if damaged else SAME_BEGINNING
            pairs[(min(ruling_id, other_id), max(ruling_id, other_id))] = reason
    for batch in chunks(pairs, BATCH_SIZE):
        connection.execute(
            insert(near_duplicates),
            [{"ruling_id": x, "other_ruling_id": y, "reason": pairs[(x, y)]} for x, y in batch],
        )
