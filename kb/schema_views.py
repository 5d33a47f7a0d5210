"""The views migrations create (0002, 0006, 0009) for editors' queries, as ``kb schema``,
docs/schema.md and ``kb datasette`` describe them. They are not tables in kb.schema's
``metadata``, which Alembic would try to create; tests/test_schema.py checks each view's
columns against a migrated store."""

from __future__ import annotations

VIEWS: dict[str, tuple[str, tuple[str, ...]]] = {
    "names_view": (
        "A card's name in every locale: one row per card and locale, name NULL where missing.",
        ("card_id", "card", "locale", "language", "name"),
    ),
    "card_rulings_view": (
        "A card's rulings in every locale, with its localized name (NULL where missing) and "
        "the ruling's mechanic tags (comma-separated slugs).",
        (
            "card_id",
            "card",
            "locale",
            "localized_name",
            "ruling_id",
            "ruling",
            "published_on",
            "position",
            "mechanics",
        ),
    ),
    "ruling_cards_view": (
        "Each ruling with the number and English names of the cards sharing it, and its tags.",
        ("ruling_id", "ruling", "card_count", "cards", "mechanics"),
    ),
    "near_duplicates_view": (
        "Each pair of near_duplicates with both rulings' texts.",
        ("ruling_id", "other_ruling_id", "reason", "ruling", "other_ruling"),
    ),
    "printed_texts_view": (
        "Each printed text beside its face's Oracle type line and text: printed_name is the "
        "face's printed name (the card's, for a card of one face); english_printed_text is "
        "the English of the same printing, NULL where the source has none.",
        (
            "card_id",
            "card",
            "locale",
            "face",
            "printed_name",
            "printed_type_line",
            "printed_text",
            "oracle_type_line",
            "oracle_text",
            "english_printed_text",
            "set_code",
            "collector_number",
            "released_on",
        ),
    ),
}
