"""The tables the loader writes, looked up once for every part of it."""

from __future__ import annotations

from kb import db

cards = db.Base.metadata.tables["cards"]
card_names = db.Base.metadata.tables["card_names"]
rulings = db.Base.metadata.tables["rulings"]
card_rulings = db.Base.metadata.tables["card_rulings"]
mechanics = db.Base.metadata.tables["mechanics"]
mechanic_names = db.Base.metadata.tables["mechanic_names"]
card_mechanics = db.Base.metadata.tables["card_mechanics"]
card_faces = db.Base.metadata.tables["card_faces"]
ruling_mechanics = db.Base.metadata.tables["ruling_mechanics"]
sources = db.Base.metadata.tables["sources"]
revisions = db.Base.metadata.tables["revisions"]
