"""Fingerprints of what pages show, and the digest the manifest records pages' bytes with.

A page's fingerprint changes when what it shows changes (a card's names, rulings and tags) or
when the code that renders it does (the code version: templates, catalogs, the renderer); an
incremental build renders only the pages whose fingerprint changed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson
import xxhash

from kb.resources import resource_dir
from kb.site import render
from kb.site.forms import shown
from kb.site.render import Languages
from kb.site.views import CardEntry, CardView, MechanicView

HASH_LENGTH = 20
"""Hashes in the manifest: the first 80 bits of an XXH3-128, in hexadecimal. A fingerprint, as
a page's hash (kb.site.staging.page_hash), only tells a build whether what a page shows
changed: no cryptographic hash is needed, and XXH3 takes a tenth of SHA-256's time."""


def digest(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return xxhash.xxh3_128_hexdigest(raw)[:HASH_LENGTH]


def code_version(base_url: str, languages: Languages) -> str:
    """What every page depends on besides the store: templates, catalogs, the renderer and the
    locales (their names and folders); the site's address and locales."""
    package = Path(render.__file__).parents[1]
    roots = [resource_dir("templates"), package / "site", package / "locale"]
    files = [
        (root, path)
        for root in roots
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.suffix in {".html", ".xml", ".css", ".py", ".po"}
    ]
    files.append((package, package / "locales.py"))
    hasher = xxhash.xxh3_128(repr((base_url, [locale.code for locale in languages])).encode())
    for root, path in files:
        hasher.update(path.relative_to(root).as_posix().encode("utf-8") + path.read_bytes())
    return hasher.hexdigest()[:HASH_LENGTH]


def _sequence(value: object) -> list[object]:
    if isinstance(value, tuple):  # Items and other tuples, which orjson takes only exactly
        return list(value)
    raise TypeError(f"{type(value).__name__} in a page's input")


def encoded(data: object) -> bytes:
    """Data as a page receives it, encoded canonically (views as their fields, dicts by key): the
    same input gives the same bytes."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS, default=_sequence)


@dataclass
class Fingerprints:
    """Fingerprints of what pages show."""

    version: str

    def of(self, *parts: object) -> str:
        return digest(repr((self.version, parts)))

    @staticmethod
    def names(card: CardEntry) -> str:
        """What a link to the card shows in any locale (a digest: the index and mechanic pages
        fingerprint every card's names)."""
        return digest(encoded((card.slug, card.name, card.names)))

    def mechanics(self, mechanics: Iterable[MechanicView]) -> str:
        """What pages show of every mechanic (the home page lists them by kind, a mechanic's
        page shows its own name, rule and rule text): each view as templates receive it,
        whole. Its cards and general rulings, which templates receive apart, are not in it."""
        return self.page([shown(mechanic) for mechanic in mechanics])

    def page(self, context: object) -> str:
        """What a page shows whose template receives ``context``, whole. Hashed from its
        encoding as it stands, not from a copy or a repr of it: the feeds' context is a large
        site's 1.3 MB, and a repr of those bytes would be 2.2 MB more at the build's peak."""
        hasher = xxhash.xxh3_128(self.version.encode())
        hasher.update(encoded(context))
        return hasher.hexdigest()[:HASH_LENGTH]

    def card(self, card: CardView) -> str:
        """What the card's pages show: the view its template receives, whole (the template reads
        nothing else but its environment's globals, which the code version covers)."""
        return self.page(card)
