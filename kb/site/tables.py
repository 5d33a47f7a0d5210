"""The tables and columns the site build reads, as SQLAlchemy core table clauses.

The build does not import kb.db: loading SQLAlchemy's ORM and kb's models took 0.15 to 0.2 s
of every ``kb build``'s start on a slow machine (a small site's whole build is ~2.3 s). These
clauses name only what the build reads; a test checks every one against the models, which
mirror the migrations.
"""

from __future__ import annotations

from sqlalchemy import Date, Integer, String, Text, column, table

cards = table(
    "cards",
    column("id", Integer),
    column("name", Text),
    column("mana_cost", Text),
    column("type_line", Text),
)
card_faces = table(
    "card_faces", column("card_id", Integer), column("position", Integer), column("name", Text)
)
card_names = table(
    "card_names", column("card_id", Integer), column("locale", String), column("name", Text)
)
rulings = table("rulings", column("id", Integer), column("text", Text), column("text_key", String))
card_rulings = table(
    "card_rulings",
    column("card_id", Integer),
    column("ruling_id", Integer),
    column("published_on", Date),
    column("position", Integer),
)
mechanics = table(
    "mechanics", column("id", Integer), column("slug", String), column("rule", String)
)
mechanic_names = table(
    "mechanic_names",
    column("mechanic_id", Integer),
    column("locale", String),
    column("name", Text),
)
card_mechanics = table("card_mechanics", column("card_id", Integer), column("mechanic_id", Integer))
ruling_mechanics = table(
    "ruling_mechanics", column("ruling_id", Integer), column("mechanic_id", Integer)
)
ruling_translations = table(
    "ruling_translations",
    column("ruling_id", Integer),
    column("locale", String),
    column("status", String),
    column("text", Text),
    column("reviewed_key", String),
)
