"""Near-duplicate rulings: an indexed key of each ruling's beginning, and the pairs kept in
near_duplicates; card_rulings_view lets the planner drop the tables a query does not read.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""

import hashlib
import importlib.util
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HEAD_KEY_COMMENT = (
    "Hash of the folded text's first 60 characters: shared by rulings that begin alike "
    "(near_duplicate_rulings)."
)
NEAR_DUPLICATES_COMMENT = (
    "Pairs of rulings that may be one ruling; kb recomputes a ruling's pairs whenever its text "
    "is written (import, kb edit, kb revert)."
)
BACKFILL_BATCH = 5000

# Frozen copies of kb.text's head key and kb.loader's near-duplicate rules as they were when
# this migration was written, not imports: replaying it must derive what it derived then,
# whatever kb computes today. Should kb's rules change, a new migration recomputes the keys.
TYPOGRAPHIC_FOLDS = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u2032": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2033": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
}
TYPOGRAPHY = str.maketrans(TYPOGRAPHIC_FOLDS)
SPACE = re.compile(r"\s+")
HEAD_LENGTH = 60
SAME_WITHOUT_SYMBOLS = "same without symbols"
SAME_BEGINNING = "same beginning"
NEAR_LENGTH_SLACK = 10
# Every ordered pair of distinct rulings whose texts without symbols are the same (a damaged
# copy: the reason), or that begin alike with lengths within NEAR_LENGTH_SLACK; a pair may come
# twice. Two joins on one key each, not one on either key: the head keys just written have no
# statistics yet, and PostgreSQL would compare every ruling with every other (minutes on the
# 2022 corpus) where a join on one key is hashed.
NEAR_PAIRS = f"""
    SELECT a.id, b.id, b.skeleton_key = a.skeleton_key
    FROM rulings a JOIN rulings b ON b.skeleton_key = a.skeleton_key AND b.id != a.id
    UNION ALL
    SELECT a.id, b.id, b.skeleton_key = a.skeleton_key
    FROM rulings a JOIN rulings b ON b.head_key = a.head_key AND b.id != a.id
        AND abs(length(a.text) - length(b.text)) <= {NEAR_LENGTH_SLACK}"""


def head_key(text: str) -> str:
    """Hash of the text's first HEAD_LENGTH characters, typography folded."""
    folded = SPACE.sub(" ", unicodedata.normalize("NFKC", text).translate(TYPOGRAPHY)).strip()
    return hashlib.blake2b(folded[:HEAD_LENGTH].encode("utf-8"), digest_size=16).hexdigest()


def _editors() -> ModuleType:
    """Migration 0002, whose view builder this one reuses (and whose view it restores)."""
    path = Path(__file__).with_name("0002_editors.py")
    spec = importlib.util.spec_from_file_location("kb_migration_0002", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _card_rulings_view(editors: ModuleType) -> str:
    # Every link has its card and its ruling, so LEFT JOIN gives the same rows as JOIN; it lets
    # PostgreSQL (and SQLite) leave out a joined table whose columns a query does not read,
    # which on PostgreSQL halves the planning of a lookup by localized name.
    ruling_tags = editors._ordered_list(
        "m.slug",
        "ruling_mechanics rm JOIN mechanics m ON m.id = rm.mechanic_id "
        "WHERE rm.ruling_id = cr.ruling_id",
    )
    return f"""
        SELECT cr.card_id AS card_id, c.name AS card, l.code AS locale,
               n.name AS localized_name, cr.ruling_id AS ruling_id, r.text AS ruling,
               cr.published_on, cr.position, {ruling_tags} AS mechanics
        FROM card_rulings cr
        LEFT JOIN cards c ON c.id = cr.card_id
        LEFT JOIN rulings r ON r.id = cr.ruling_id
        CROSS JOIN locales l
        LEFT JOIN card_names n ON n.card_id = cr.card_id AND n.locale = l.code"""


def _replace_view(definition: str) -> None:
    op.execute("DROP VIEW card_rulings_view")
    op.execute(f"CREATE VIEW card_rulings_view AS {definition}")


def _fill_head_keys() -> None:
    connection = op.get_bind()
    rulings = sa.table("rulings", sa.column("id"), sa.column("text"), sa.column("head_key"))
    rows = connection.execute(sa.select(rulings.c.id, rulings.c.text)).all()
    update = (
        sa.update(rulings)
        .where(rulings.c.id == sa.bindparam("ruling_id"))
        .values(head_key=sa.bindparam("key"))
    )
    for start in range(0, len(rows), BACKFILL_BATCH):
        batch = rows[start : start + BACKFILL_BATCH]
        connection.execute(update, [{"ruling_id": id_, "key": head_key(t)} for id_, t in batch])


def upgrade() -> None:
    op.add_column(
        "rulings", sa.Column("head_key", sa.String(32), nullable=True, comment=HEAD_KEY_COMMENT)
    )
    _fill_head_keys()
    op.create_index(op.f("ix_rulings_head_key"), "rulings", ["head_key"])
    _create_near_duplicates()
    _replace_view(_card_rulings_view(_editors()))


def _create_near_duplicates() -> None:
    op.create_table(
        "near_duplicates",
        sa.Column("ruling_id", sa.Integer(), nullable=False),
        sa.Column(
            "other_ruling_id",
            sa.Integer(),
            nullable=False,
            comment="The later ruling of the pair (other_ruling_id > ruling_id).",
        ),
        sa.Column(
            "reason",
            sa.String(32),
            nullable=False,
            comment="same without symbols (a damaged copy) or same beginning.",
        ),
        sa.ForeignKeyConstraint(
            ["ruling_id"],
            ["rulings.id"],
            name=op.f("fk_near_duplicates_ruling_id_rulings"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["other_ruling_id"],
            ["rulings.id"],
            name=op.f("fk_near_duplicates_other_ruling_id_rulings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ruling_id", "other_ruling_id", name=op.f("pk_near_duplicates")),
        comment=NEAR_DUPLICATES_COMMENT,
    )
    op.create_index(
        op.f("ix_near_duplicates_other_ruling_id"), "near_duplicates", ["other_ruling_id"]
    )
    _fill_near_duplicates()


def _fill_near_duplicates() -> None:
    connection = op.get_bind()
    pairs: dict[tuple[int, int], str] = {}
    for ruling_id, other_id, damaged in connection.execute(sa.text(NEAR_PAIRS)):
        reason = SAME_WITHOUT_SYMBOLS if damaged else SAME_BEGINNING
        pairs[(min(ruling_id, other_id), max(ruling_id, other_id))] = reason
    rows = [{"ruling_id": x, "other_ruling_id": y, "reason": r} for (x, y), r in pairs.items()]
    near_duplicates = sa.table(
        "near_duplicates", sa.column("ruling_id"), sa.column("other_ruling_id"), sa.column("reason")
    )
    for start in range(0, len(rows), BACKFILL_BATCH):
        connection.execute(sa.insert(near_duplicates), rows[start : start + BACKFILL_BATCH])


def downgrade() -> None:
    _replace_view(_editors()._views()["card_rulings_view"])
    op.drop_table("near_duplicates")
    op.drop_index(op.f("ix_rulings_head_key"), table_name="rulings")
    op.drop_column("rulings", "head_key")
