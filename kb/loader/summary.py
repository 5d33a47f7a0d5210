"""What an import did, counted as it goes, for the closing summary and the sources' stats."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Summary:
    """What an import did, for the closing summary."""

    counts: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    other_locales: Counter[str] = field(default_factory=Counter)
    unknown_files: list[str] = field(default_factory=list)
    """Files in folders that are of no known format, each with why: skipped."""

    CHANGES = (
        "cards new",
        "cards updated",
        "names new",
        "names changed",
        "texts new",
        "texts changed",
        "texts reread",
        "texts faces named",
        "rulings new",
        "rulings improved",
        "links new",
        "links dated",
        "mechanics new",
        "mechanics updated",
        "card tags new",
        "ruling tags new",
    )

    @property
    def changed(self) -> bool:
        return any(self.counts[key] for key in self.CHANGES)
