"""The names of the formats kb imports and exports, apart from the code that reads and writes
them: the command line offers them without loading the importers and the exporters."""

from __future__ import annotations

from typing import Final

CATALOG: Final = "catalog"
SCRYFALL_RULINGS: Final = "scryfall-rulings"
SCRYFALL_CARDS: Final = "scryfall-cards"
MTGJSON: Final = "mtgjson"
COMPREHENSIVE_RULES: Final = "comprehensive-rules"
SEED_PAGE: Final = "seed-page"

IMPORT_FORMATS = (
    CATALOG,
    COMPREHENSIVE_RULES,
    SCRYFALL_CARDS,
    MTGJSON,
    SCRYFALL_RULINGS,
    SEED_PAGE,
)
"""In the order an import reads them: mechanics first, then the cards they tag, then the rulings
that name cards."""
EXPORT_FORMATS = (MTGJSON, SCRYFALL_RULINGS, "csv")

OUTPUT_STYLES = ("table", "csv", "tsv", "json", "markdown")
"""How kb sql, kb query and kb history print a result (kb.sql.format_result)."""
