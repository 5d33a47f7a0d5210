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

    def lines(self, verbose: bool = False) -> list[str]:
        c = self.counts
        lines = [
            f"cards: {c['cards new']} new, {c['cards updated']} updated, "
            f"{c['cards unchanged']} unchanged",
            f"names: {c['names new']} new, {c['names changed']} changed, "
            f"{c['names unchanged']} unchanged"
            + _as_edited(c["names as edited"])
            + _kept_official(c["names kept official"]),
            f"rulings: {c['rulings new']} new, {c['rulings reused']} reused, "
            f"{c['rulings improved']} improved (damaged copies mended)"
            + _as_edited(c["rulings as edited"]),
            f"links: {c['links new']} new, {c['links dated']} dated, "
            f"{c['links unchanged']} unchanged",
            f"mechanics: {c['mechanics new']} new, {c['mechanics updated']} updated",
            f"tags: {c['card tags new']} new on cards, {c['ruling tags new']} new on rulings",
        ]
        if c["files skipped"]:
            lines.append(
                f"files: {c['files skipped']} skipped (imported before: same checksum; --force)"
            )
        if self.unknown_files:
            lines.append(f"files: {len(self.unknown_files)} of no known format skipped")
            lines.extend(f"  {unknown}" for unknown in self.unknown_files if verbose)
        if self.other_locales:
            counted = ", ".join(f"{k} {v}" for k, v in sorted(self.other_locales.items()))
            lines.append(f"names in languages outside the 11 (not stored): {counted}")
        if self.warnings:
            lines.append(f"warnings: {len(self.warnings)}" + ("" if verbose else " (--verbose)"))
            if verbose:
                lines.extend(f"  {warning}" for warning in self.warnings)
        if not self.changed:
            lines.append("nothing changed: the store already held all of it")
        return lines


def _kept_official(count: int) -> str:
    if not count:
        return ""
    return f", {count} kept from an official source (use --replace-name)"


def _as_edited(count: int) -> str:
    """The summary's note of rows a source still says otherwise, kept as editors corrected."""
    return f", {count} kept as an editor corrected them" if count else ""
