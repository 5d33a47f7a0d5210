"""What an import did, in words: the summary kb import and kb demo close with."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the loader is the writer: kb build does without it
    from kb.loader import Summary


def summary_lines(summary: Summary, verbose: bool = False) -> list[str]:
    """A line per kind of record and what became of them, then the files skipped, the names in
    languages kb does not store and the warnings (``verbose``: each of them, too)."""
    c = summary.counts
    lines = [
        f"cards: {c['cards new']} new, {c['cards updated']} updated, "
        f"{c['cards unchanged']} unchanged",
        f"names: {c['names new']} new, {c['names changed']} changed, "
        f"{c['names unchanged']} unchanged"
        + _as_edited(c["names as edited"])
        + _kept_official(c["names kept official"]),
        *_texts_line(c),
        f"rulings: {c['rulings new']} new, {c['rulings reused']} reused, "
        f"{c['rulings improved']} improved (damaged copies mended)"
        + _as_edited(c["rulings as edited"]),
        f"links: {c['links new']} new, {c['links dated']} dated, {c['links unchanged']} unchanged",
        f"mechanics: {c['mechanics new']} new, {c['mechanics updated']} updated",
        f"tags: {c['card tags new']} new on cards, {c['ruling tags new']} new on rulings",
    ]
    if c["files skipped"]:
        lines.append(
            f"files: {c['files skipped']} skipped (imported before: same checksum; --force)"
        )
    if c["files read again"]:
        lines.append(f"files: {c['files read again']} read again (an older kb read them)")
    if summary.unknown_files:
        lines.append(f"files: {len(summary.unknown_files)} of no known format skipped")
        lines.extend(f"  {unknown}" for unknown in summary.unknown_files if verbose)
    if summary.other_locales:
        counted = ", ".join(f"{k} {v}" for k, v in sorted(summary.other_locales.items()))
        lines.append(f"names in languages outside the 11 (not stored): {counted}")
    if summary.warnings:
        lines.append(f"warnings: {len(summary.warnings)}" + ("" if verbose else " (--verbose)"))
        if verbose:
            lines.extend(f"  {warning}" for warning in summary.warnings)
    if not summary.changed:
        lines.append("nothing changed: the store already held all of it")
    return lines


def _texts_line(c: Counter[str]) -> list[str]:
    """The printed texts' line, where the files had any (most of kb's own have none)."""
    keys = ("texts new", "texts changed", "texts reread", "texts unchanged", "texts as edited")
    if not any(c[key] for key in keys):
        return []
    return [
        f"printed texts: {c['texts new']} new, {c['texts changed']} from a later printing, "
        + (f"{reread} read anew from their printing, " if (reread := c["texts reread"]) else "")
        + f"{c['texts unchanged']} unchanged"
        + _as_edited(c["texts as edited"])
        + (
            f", {named} faces named from the card's name"
            if (named := c["texts faces named"])
            else ""
        )
    ]


def _kept_official(count: int) -> str:
    if not count:
        return ""
    return f", {count} kept from an official source (use --replace-name)"


def _as_edited(count: int) -> str:
    """The note of rows a source still says otherwise, kept as editors corrected them."""
    return f", {count} kept as an editor corrected them" if count else ""
