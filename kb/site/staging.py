"""Staging: a build writes its pages into a staging folder (kb.site.output's), never into the
live site, and refuses to build into a folder that holds files kb did not write."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import xxhash
from sqlalchemy.engine import Engine

from kb.engine import sqlite_file
from kb.site import OutputFolderError
from kb.site.fingerprints import HASH_LENGTH
from kb.site.manifest import Previous
from kb.site.output import check_folder
from kb.site.render import Page


@dataclass(frozen=True)
class Stager:
    """Writes pages into a build's staging folder, except those whose bytes the previous site
    holds already."""

    folder: Path
    previous: Previous | None
    """None in a full build: every page is written."""

    def stage(self, page: Page, old_hash: str) -> tuple[str, bool]:
        """Write a rendered page into the staging folder unless the previous site holds its
        bytes; (hash, written). Paths are made of slugs ([a-z0-9-]) and fixed folder names, so
        they stay inside."""
        data = page.text
        if isinstance(data, str) and len(data) <= ENCODED_AT_ONCE:
            data = data.encode("utf-8")
        content = page_hash(data) if isinstance(data, bytes) else _hash_in_slices(data)
        if self.previous is not None and old_hash == content and self.previous.present(page.path):
            return content, False
        target = f"{self.folder}/{page.path}"  # a string: pathlib's joins cost more than a write
        try:
            _write(target, data)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _write(target, data)
        return content, True


ENCODED_AT_ONCE = 1 << 20
"""Characters of a page encoded in one piece. A larger page (a large site's A–Z index of
30,000 cards, a sitemap) is encoded a slice at a time, twice (for its hash, then to write it):
a whole copy of it as bytes would be the build's peak memory."""
ENCODED_SLICE = 1 << 18
"""Characters of a slice (up to 768 KB in UTF-8)."""


def _encoded_in_slices(text: str) -> Iterator[bytes]:
    for start in range(0, len(text), ENCODED_SLICE):
        yield text[start : start + ENCODED_SLICE].encode("utf-8")


def page_hash(data: bytes) -> str:
    """What tells a page's bytes from the previous site's (the manifest's page hashes): XXH3's
    128 bits, the first HASH_LENGTH hex digits. Ten times as fast as SHA-256 on a card page
    (0.3 µs against 3.3 µs for 5 KB: with SHA-256, hashing was a fifth of staging a page), and
    what it guards needs no cryptographic hash: a build compares its own pages, and two
    different pages with one hash would leave the old one in place, never show another."""
    return xxhash.xxh3_128_hexdigest(data)[:HASH_LENGTH]


def _hash_in_slices(text: str) -> str:
    """``page_hash`` of the text's UTF-8 bytes, encoded a slice at a time."""
    hasher = xxhash.xxh3_128()
    for data in _encoded_in_slices(text):
        hasher.update(data)
    return hasher.hexdigest()[:HASH_LENGTH]


def _write(path: str, data: bytes | str) -> None:
    """Write the page: its bytes, or its text a slice at a time."""
    # Three system calls for a page: creating files is most of a full build's time on some disks.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for piece in (data,) if isinstance(data, bytes) else _encoded_in_slices(data):
            os.write(descriptor, piece)
    finally:
        os.close(descriptor)


def move_into_place(source: str, target: str) -> None:
    """Move a staged page to its place in the live site."""
    try:
        os.replace(source, target)
    except FileNotFoundError:  # a folder the previous site lacks
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(source, target)


def check_output_folder(out: Path, engine: Engine) -> None:
    """Refuse to build where the build would replace files kb did not write: into a folder
    that is neither new, empty nor a site kb built, or one that holds the store."""
    store = sqlite_file(engine)
    if store and Path(store).resolve().is_relative_to(out) and out.is_dir():
        raise OutputFolderError(f"{out}: holds the store {Path(store).resolve()}; build elsewhere")
    check_folder(out)
