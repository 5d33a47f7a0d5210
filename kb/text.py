"""Ruling text identity: when two texts are the same ruling.

Two copies of a ruling are the same entry when they differ only by typography: Unicode
normalisation form, curly or straight quotes, dashes, spacing. A copy that lost its mana symbols
(``{X}``, ``{T}``) when a page was scraped is a *damaged variant*: the same ruling, and the text
with the symbols is the better one. The keys a ruling stores beside its text, and the near
duplicates they find, are derived from these in kb.derived.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

TYPOGRAPHIC_FOLDS: dict[str, str] = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u2032": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2033": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
}
"""Typographic characters and the plain ones they compare as."""
TYPOGRAPHY = str.maketrans(TYPOGRAPHIC_FOLDS)
"""The same, as ``str.translate`` takes it (kb card folds names with it too)."""
NORMALIZED_CACHED = 1 << 15
"""How many folded texts ``normalize`` keeps: every distinct ruling of the 2022 MTGJSON corpus
(23,320), about 15 MB; kb.loader.run clears them before the mining."""
_SPACE = re.compile(r"\s+")
_SYMBOL = re.compile(r"\{[^{}]*\}")
# A dropped symbol leaves its neighbours' spacing behind: "has  in" or "( )".
_SPACE_BEFORE_PUNCTUATION = re.compile(r" (?=[.,;:)])")


@functools.lru_cache(maxsize=NORMALIZED_CACHED)
def normalize(text: str) -> str:
    """The text with typography folded: what identifies a ruling. (Kept for the last texts
    folded: an import folds each ruling's text for its key, again for its other keys when new
    and for its tags, and MTGJSON repeats a card's rulings in every set file.)"""
    folded = unicodedata.normalize("NFKC", text).translate(TYPOGRAPHY)
    return _SPACE.sub(" ", folded).strip()


def digest(folded: str) -> str:
    """Fixed-size key of a folded text (``normalize``'s result): what the stored keys are."""
    return hashlib.blake2b(folded.encode("utf-8"), digest_size=16).hexdigest()


def text_key(text: str) -> str:
    """Fixed-size key of the normalised text (unique per ruling)."""
    return digest(normalize(text))


def has_symbols(text: str) -> bool:
    return _SYMBOL.search(text) is not None


def skeleton(folded: str) -> str:
    """The folded text without its mana symbols: shared by a ruling and its damaged copies."""
    stripped = _SPACE.sub(" ", _SYMBOL.sub("", folded)).strip()
    return _SPACE_BEFORE_PUNCTUATION.sub("", stripped)


def better_text(kept: str, incoming: str) -> str:
    """Of two copies of one ruling, the one to keep: the one that still has its symbols."""
    if len(_SYMBOL.findall(incoming)) > len(_SYMBOL.findall(kept)):
        return incoming
    return kept
