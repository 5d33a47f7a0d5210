"""The output folder's record of its pages (the manifest), and the previous site as an
incremental build sees it.

The manifest holds each page's fingerprint (what it shows) and its bytes' hash, the code version
of the build that wrote it and the store's change log position that build read; an incremental
build compares fingerprints with it to find the pages to render, and hashes to find those to
write."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from kb.locales import LOCALES
from kb.site.fingerprints import HASH_LENGTH
from kb.site.output import MANIFEST
from kb.site.views import CardEntry

NO_PAGE = "-" * HASH_LENGTH
"""A card's hash in a locale it has no page in (yet)."""


MANIFEST_FORMAT = "kb-manifest 3"


class CardRecord(NamedTuple):
    fingerprint: str
    """What the card's pages show; "" when some of its pages may be stale (a build of some
    locales only saw it change)."""
    names: str
    """The digest of its names (Fingerprints.names), which the pages listing it depend on."""
    hashes: str
    """Its page hashes in the order of LOCALES, NO_PAGE where it has none."""


@dataclass
class Manifest:
    """The output folder's record of the pages: what each shows (fingerprint) and its bytes'
    hash, the build's code version and the store's change log position it was built from.
    Card pages are recorded per card, with one hash per locale, so the record has one line
    per card, not one per page."""

    version: str = ""
    """The fingerprints' version (code, base address, the site's locales) of the build that
    wrote it."""
    position: str = ""
    """kb.changelog's position when that build read the store."""
    base_url: str = ""
    """The site's base address ("" none), which a build without one keeps."""
    cards: dict[str, CardRecord] = field(default_factory=dict)
    """By card slug."""
    pages: dict[str, tuple[str, str]] = field(default_factory=dict)
    """The other pages: path → (fingerprint, hash)."""
    folders: dict[str, int] = field(default_factory=dict, compare=False)
    """The card folders' modification times when the manifest was written: a folder whose
    time has not changed since has every page recorded, and none other."""

    @classmethod
    def read(cls, folder: Path) -> Manifest | None:
        """None when there is none, or one in an older format (the next build is full)."""
        try:
            text = (folder / MANIFEST).read_text("utf-8")
        except FileNotFoundError:
            return None
        header, _, body = text.partition("\n")
        fields = header.split("\t")
        if len(fields) != 5 or fields[0] != MANIFEST_FORMAT:
            return None
        _format, version, position, base_url, folders = fields
        manifest = cls(version, position, base_url)
        for entry in filter(None, folders.split(" ")):
            name, _, time = entry.rpartition("=")
            manifest.folders[name] = int(time)
        for line in body.splitlines():
            kind, key, *values = line.split("\t")
            if kind == "card":
                manifest.cards[key] = CardRecord(*values)
            else:
                manifest.pages[key] = (values[0], values[1])
        return manifest

    def write(self, folder: Path) -> None:
        temporary = folder / f"{MANIFEST}.tmp"
        self.note_folders(folder)
        with temporary.open("w", encoding="utf-8") as file:
            folders = " ".join(f"{name}={time}" for name, time in self.folders.items())
            header = (MANIFEST_FORMAT, self.version, self.position, self.base_url, folders)
            file.write("\t".join(header) + "\n")
            for kind, entries in (("card", self.cards), ("page", self.pages)):
                file.writelines(
                    f"{kind}\t{key}\t{chr(9).join(values)}\n"
                    for key, values in sorted(entries.items())
                )
        os.replace(temporary, folder / MANIFEST)

    def note_folders(self, folder: Path) -> None:
        """Note the card folders' times: the site in ``folder`` has the pages recorded."""
        self.folders = dict(_card_folder_times(folder))

    def card_hashes(self, slug: str) -> list[str]:
        """A card's page hashes, one per locale of LOCALES."""
        record = self.cards.get(slug)
        hashes = record.hashes if record is not None else NO_PAGE * len(LOCALES)
        return [hashes[start : start + HASH_LENGTH] for start in range(0, len(hashes), HASH_LENGTH)]


def _card_folder_times(site: Path) -> Iterator[tuple[str, int]]:
    for locale in LOCALES:
        time = _card_folder_time(site, locale.folder)
        if time is not None:
            yield locale.folder, time


def _card_folder_time(site: Path, folder: str) -> int | None:
    """The modification time of a locale folder's cards/ folder; None when there is none."""
    try:
        return (site / folder / "cards").stat().st_mtime_ns
    except FileNotFoundError:
        return None


class Previous:
    """The previous site as an incremental build sees it: its manifest, and which files exist
    (a card folder listed once when it changed since the manifest was written; files never
    read)."""

    def __init__(self, out: Path, manifest: Manifest) -> None:
        self.out = out
        self.manifest = manifest
        self._listings: dict[str, frozenset[str]] = {}
        self._touched: dict[tuple[int, ...], list[tuple[int, frozenset[str]]]] = {}

    def present(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        if folder.endswith("/cards") and folder not in self._listings:
            # One file: not worth listing a folder of 30,000 card pages.
            return os.path.exists(f"{self.out}/{path}")
        return name in self._listing(folder)

    def _listing(self, folder: str) -> frozenset[str]:
        listing = self._listings.get(folder)
        if listing is None:
            try:
                listing = frozenset(os.listdir(self.out / folder))
            except FileNotFoundError:
                listing = frozenset()
            self._listings[folder] = listing
        return listing

    def missing_pages(
        self, card: CardEntry, hashes: str, locales: tuple[int, ...]
    ) -> Sequence[int]:
        """The locales (indexes in LOCALES) of the card's pages that the previous site lacks:
        none recorded, or the file gone."""
        touched = self._touched_card_folders(locales)
        if NO_PAGE not in hashes and (
            not touched or all(f"{card.slug}.html" in listing for _locale, listing in touched)
        ):
            return ()  # the usual case, decided without splitting the hashes
        name = f"{card.slug}.html"
        recorded = self.manifest.card_hashes(card.slug)
        gone = {locale for locale, listing in touched if name not in listing}
        return [locale for locale in locales if recorded[locale] == NO_PAGE or locale in gone]

    def touched(self, locales: tuple[int, ...]) -> bool:
        """Whether a card folder of these locales (indexes in LOCALES) changed since the
        manifest was written."""
        return bool(self._touched_card_folders(locales))

    def _touched_card_folders(self, locales: tuple[int, ...]) -> list[tuple[int, frozenset[str]]]:
        """The card folders of these locales (indexes in LOCALES) whose modification time is
        not the one the manifest noted, each with its listing. The others hold exactly the
        pages the manifest records, and are not even listed."""
        touched = self._touched.get(locales)
        if touched is None:
            touched = self._touched[locales] = [
                (locale, self._listing(f"{LOCALES[locale].folder}/cards"))
                for locale in locales
                if _card_folder_time(self.out, LOCALES[locale].folder)
                != self.manifest.folders.get(LOCALES[locale].folder)
            ]
        return touched
