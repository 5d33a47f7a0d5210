"""The tables the loader writes, looked up once for every part of it."""

from __future__ import annotations

from kb.schema import (
    card_faces,
    card_mechanics,
    card_names,
    card_rulings,
    cards,
    mechanic_names,
    mechanics,
    printed_texts,
    revisions,
    ruling_mechanics,
    rulings,
    sources,
    type_names,
)

__all__ = [
    "card_faces",
    "card_mechanics",
    "card_names",
    "card_rulings",
    "cards",
    "mechanic_names",
    "mechanics",
    "printed_texts",
    "revisions",
    "ruling_mechanics",
    "rulings",
    "sources",
    "type_names",
]
