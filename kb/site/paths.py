"""Safe, stable file names for pages: URL-safe, inside the output folder, unique."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
MAX_SLUG = 80


def _digest(name: str) -> str:
    return hashlib.blake2b(name.encode("utf-8"), digest_size=4).hexdigest()


def base_slug(name: str) -> str:
    """``Æther Vial`` → ``aether-vial``; only [a-z0-9-], so never ``..``, ``/`` or empty."""
    ascii_name = (
        name  # most names: the index computes 30,000 slugs on every build
        if name.isascii()
        else unicodedata.normalize("NFKD", name.replace("Æ", "Ae").replace("æ", "ae"))
        .encode("ascii", "ignore")
        .decode("ascii")
    )
    slug = _NOT_SLUG.sub("-", ascii_name.lower()).strip("-")[:MAX_SLUG].strip("-")
    return slug or f"page-{_digest(name)}"


def unique_slugs(names: Iterable[str], reserved: frozenset[str] = frozenset()) -> dict[str, str]:
    """A unique slug for each name. Names whose slugs collide (with each other or with a
    ``reserved`` file name) all get a hash of the full name, so a name's slug depends only on
    the names it collides with, never on their order."""
    names = sorted(set(names))
    bases = {name: base_slug(name) for name in names}
    taken = Counter(bases.values())
    return {
        name: base if taken[base] == 1 and base not in reserved else f"{base}-{_digest(name)}"
        for name, base in bases.items()
    }


def relative_href(from_page: str, to_page: str) -> str:
    """The relative link from one page of the site to another (both relative to its root)."""
    depth = from_page.count("/")
    return "../" * depth + to_page
