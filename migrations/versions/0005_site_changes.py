"""The change log for incremental site builds: site_changes and the triggers that fill it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A frozen copy of kb.changelog's triggers as they were when this migration was written, not an
# import: replaying it must create what it created then. kb.changelog drops and recreates them
# by these names on SQLite during an import, so a change there needs a migration of its own
# (a test checks that the triggers at head are kb.changelog's).
BULK_LOAD_SETTING = "kb.bulk_load"
CARDS_OF_ROW = {
    "cards": "SELECT {row}.id",
    "card_names": "SELECT {row}.card_id",
    "card_faces": "SELECT {row}.card_id",
    "card_rulings": "SELECT {row}.card_id",
    "card_mechanics": "SELECT {row}.card_id",
    "rulings": "SELECT card_id FROM card_rulings WHERE ruling_id = {row}.id",
    "ruling_mechanics": "SELECT card_id FROM card_rulings WHERE ruling_id = {row}.ruling_id",
    "ruling_translations": "SELECT card_id FROM card_rulings WHERE ruling_id = {row}.ruling_id",
    "mechanics": "SELECT CAST(NULL AS integer)",
    "mechanic_names": "SELECT CAST(NULL AS integer)",
}
"""For each table the site shows: the cards whose pages a row (NEW or OLD) is on, NULL for
"any card"."""
EVENTS = ("INSERT", "UPDATE", "DELETE")
POSTGRESQL_TRANSACTION = "pg_current_xact_id()::text::bigint"


def _rows(event: str) -> tuple[str, ...]:
    return {"INSERT": ("NEW",), "UPDATE": ("NEW", "OLD"), "DELETE": ("OLD",)}[event]


def _sqlite_trigger(table: str, event: str) -> str:
    cards = " UNION ".join(CARDS_OF_ROW[table].format(row=row) for row in _rows(event))
    return (
        f"CREATE TRIGGER site_changes_{table}_{event.lower()} AFTER {event} ON {table} "
        f"FOR EACH ROW BEGIN INSERT INTO site_changes (card_id) {cards}; END"
    )


def _postgresql_function(table: str) -> str:
    def insert(row: str) -> str:
        return (
            "INSERT INTO site_changes (card_id, transaction_id) "
            f"SELECT changed.card_id, {POSTGRESQL_TRANSACTION} "
            f"FROM ({CARDS_OF_ROW[table].format(row=row)}) AS changed (card_id);"
        )

    return (
        f"CREATE FUNCTION site_changes_{table}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        "BEGIN\n"
        f"  IF TG_OP <> 'DELETE' THEN {insert('NEW')} END IF;\n"
        f"  IF TG_OP <> 'INSERT' THEN {insert('OLD')} END IF;\n"
        "  RETURN NULL;\n"
        "END $$"
    )


def _postgresql_trigger(table: str) -> str:
    # An import sets BULK_LOAD_SETTING for its transaction and logs one "any card" row itself.
    return (
        f"CREATE TRIGGER site_changes_{table} AFTER {' OR '.join(EVENTS)} ON {table} "
        f"FOR EACH ROW WHEN (current_setting('{BULK_LOAD_SETTING}', true) IS DISTINCT FROM 'on') "
        f"EXECUTE FUNCTION site_changes_{table}()"
    )


# TRUNCATE (PostgreSQL only) fires no row trigger: it logs "any card".
POSTGRESQL_TRUNCATED = (
    "CREATE FUNCTION site_changes_truncated() RETURNS trigger LANGUAGE plpgsql AS $$\n"
    "BEGIN\n"
    "  INSERT INTO site_changes (card_id, transaction_id) "
    f"VALUES (NULL, {POSTGRESQL_TRANSACTION});\n"
    "  RETURN NULL;\n"
    "END $$"
)


def create_triggers(dialect: str) -> list[str]:
    """The statements that create the log's triggers on this dialect (0008 reuses them)."""
    if dialect == "postgresql":
        return [
            POSTGRESQL_TRUNCATED,
            *(
                statement
                for table in CARDS_OF_ROW
                for statement in (
                    _postgresql_function(table),
                    _postgresql_trigger(table),
                    f"CREATE TRIGGER site_changes_{table}_truncate AFTER TRUNCATE ON {table} "
                    "FOR EACH STATEMENT EXECUTE FUNCTION site_changes_truncated()",
                )
            ),
        ]
    return [_sqlite_trigger(table, event) for table in CARDS_OF_ROW for event in EVENTS]


def drop_triggers(dialect: str) -> list[str]:
    """The statements that drop them."""
    if dialect == "postgresql":
        return [
            *(f"DROP FUNCTION site_changes_{table}() CASCADE" for table in CARDS_OF_ROW),
            "DROP FUNCTION site_changes_truncated() CASCADE",
        ]
    return [
        f"DROP TRIGGER site_changes_{table}_{event.lower()}"
        for table in CARDS_OF_ROW
        for event in EVENTS
    ]


def upgrade() -> None:
    op.create_table(
        "site_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column(
            "card_id",
            sa.Integer(),
            nullable=True,
            comment="The card whose pages may have changed; NULL: any card.",
        ),
        sa.Column(
            "transaction_id",
            sa.BigInteger(),
            nullable=True,
            comment="PostgreSQL: the writing transaction (pg_current_xact_id).",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_site_changes")),
        comment="Change log for incremental site builds: one row per card a write may have "
        "changed, written by triggers; card_id NULL means any card.",
        sqlite_autoincrement=True,
    )
    for statement in create_triggers(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    for statement in drop_triggers(op.get_bind().dialect.name):
        op.execute(statement)
    op.drop_table("site_changes")
