"""Names sorted the way readers of each script expect: the Unicode Collation Algorithm with
its default table (DUCET), as pyuca computes it, and the letters an index groups names under."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache
from itertools import groupby
from operator import itemgetter
from typing import TypeVar

from pyuca import Collator
from pyuca.collator import COLL_ELEMENT_PATTERN
from pyuca.trie import Node
from pyuca.utils import hexstrings2int

T = TypeVar("T")
_FIRST = itemgetter(0)

_HANGUL_INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
"""The 19 leading consonants (U+1100 to U+1112) as the letters Korean indexes show."""


class _LazyFirstLevel(dict[int, Node]):
    """The first level of pyuca's DUCET trie, each character's node made when it is first
    looked up (pyuca's trie reads only ``in`` and ``[]`` on it)."""

    def __init__(self, unparsed: dict[str, str]) -> None:
        super().__init__()
        self._unparsed = unparsed
        """Each character's collation elements as DUCET writes them, by its code point as
        DUCET writes it (four or more hexadecimal digits)."""

    def __contains__(self, code: object) -> bool:
        return dict.__contains__(self, code) or (
            isinstance(code, int) and f"{code:04X}" in self._unparsed
        )

    def get(self, code: int, default: Node | None = None) -> Node | None:
        return self[code] if code in self else default  # noqa: SIM401 (this is get)

    def __missing__(self, code: int) -> Node:
        elements = _elements(self._unparsed.pop(f"{code:04X}"))  # KeyError: not in DUCET
        node = self[code] = Node()
        node.value = elements
        return node


class _LazyCollator(Collator):  # type: ignore[misc]
    """pyuca's collator, with DUCET split into lines and each character's entry parsed when it
    is first looked up: parsing all of its 30,000 lines took 0.15 to 0.3 s of every build (an
    incremental one's included), and a site's names use a few hundred characters. The
    algorithm (contractions, implicit weights) is pyuca's own; the 868 contractions are parsed
    whole."""

    def load(self, filename: str) -> None:
        unparsed: dict[str, str] = {}
        contractions: list[tuple[str, str]] = []
        with open(filename, encoding="utf-8") as keys_file:
            lines = keys_file.read().split("\n")
        for line in lines:  # code points ; collation elements # the characters' names
            codes, semicolon, elements = line.partition(";")
            if not semicolon or line.startswith("#"):
                continue
            if line.startswith("@implicitweights"):
                first, last = codes[len("@implicitweights") :].split("..")
                base = elements.split("#", 1)[0]
                self.implicit_weights.append([int(first, 16), int(last, 16), int(base, 16)])
                continue
            codes = codes.rstrip()
            if " " in codes:
                contractions.append((codes, elements))
            else:
                unparsed[codes] = elements
        first_level = self.table.root.children = _LazyFirstLevel(unparsed)
        for codes, elements in contractions:
            head, *rest = [int(code, 16) for code in codes.split()]
            node = first_level.get(head)
            if node is None:  # a contraction's first character without an entry of its own
                node = first_level[head] = Node()
            for code in rest:
                if node.children is None:
                    node.children = {}
                node = node.children.setdefault(code, Node())
            node.value = _elements(elements)


def _elements(text: str) -> list[list[int]]:
    """Collation elements as pyuca reads them: [primary, secondary, tertiary] weights."""
    text = text.split("#", 1)[0]
    return [hexstrings2int(found.groups()) for found in COLL_ELEMENT_PATTERN.finditer(text)]


@cache
def _collator() -> Collator:
    return _LazyCollator()


_LEVELS = 4
"""pyuca's sort key: the weights of each of four levels in turn, levels separated by 0."""


@cache
def _character(character: str) -> tuple[tuple[str, ...], frozenset[int]]:
    """One character's non-zero weights per level (encode_weights), and the characters that
    would continue a contraction it starts (DUCET's multi-character entries)."""
    collator = _collator()
    node = collator.table.root.children.get(ord(character))
    elements = node.value if node is not None and node.value else None
    if elements is None:
        elements = collator.implicit_weight(ord(character))
    weights = tuple(
        encode_weights(
            [element[level] for element in elements if len(element) > level and element[level]]
        )
        for level in range(_LEVELS)
    )
    return weights, frozenset(node.children or ()) if node is not None else frozenset()


class _LevelWeights(dict[int, str]):
    """A ``str.translate`` table: a character → its weights at one level, filled on demand."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def __missing__(self, code: int) -> str:
        weights = self[code] = _character(chr(code))[0][self.level]
        return weights


_LEVEL_WEIGHTS = tuple(_LevelWeights(level) for level in range(_LEVELS))


@cache
def _maybe_contraction() -> re.Pattern[str]:
    """A character that begins one of DUCET's contractions, followed by one that may continue
    it: one that continues any contraction, a combining mark, or any character beyond the
    Basic Multilingual Plane (where combining marks are rare; sort_key checks them exactly)."""
    root = _collator().table.root.children
    starters = {code for code, node in root.items() if node.children}
    followers = {code for code in starters for code in root[code].children}
    followers.update(code for code in range(0x10000) if unicodedata.combining(chr(code)))
    return re.compile(
        f"[{_character_class(starters)}]([{_character_class(followers)}]|[\U00010000-\U0010ffff])"
    )


def prepare() -> None:
    """Read the collation table now (a build that keeps running reads it before the first
    change)."""
    _maybe_contraction()


def _character_class(codes: Iterable[int]) -> str:
    return "".join(re.escape(chr(code)) for code in sorted(codes))


def sort_key(name: str) -> str:
    """The Unicode Collation Algorithm's key (DUCET): "Éclair" sorts with E, kana in gojūon
    order, Hangul in its alphabetical order.

    pyuca's key (encode_weights), computed level by level with ``str.translate`` from cached
    per-character weights unless a contraction may be involved (a character that starts one,
    followed by one that continues it or by a combining mark): a whole site sorts hundreds of
    thousands of names."""
    decomposed = unicodedata.normalize("NFD", name)
    if _maybe_contraction().search(decomposed):
        characters = [_character(character) for character in decomposed]
        for (_weights, continuations), following in zip(characters, decomposed[1:], strict=False):
            if ord(following) in continuations or unicodedata.combining(following):
                return encode_weights(_collator().sort_key(name))
    return "\0".join([decomposed.translate(weights) for weights in _LEVEL_WEIGHTS])


def collated(items: Iterable[T], name: Callable[[T], str]) -> list[T]:
    """The items in the order of their names' sort keys, items of equal keys in their given
    order. Names are compared by their first level first, and only those tied there by their
    whole key: few names tie at the first level, which is a quarter of a key's work."""
    by_first_level = sorted([(_first_level(name(item)), item) for item in items], key=_FIRST)
    ordered = []
    for _level, tied in groupby(by_first_level, key=_FIRST):
        group = [item for _key, item in tied]
        ordered += sorted(group, key=lambda item: sort_key(name(item))) if len(group) > 1 else group
    return ordered


def _first_level(name: str) -> str:
    """The first level of sort_key(name): what comes before its first 0."""
    decomposed = unicodedata.normalize("NFD", name)
    if _maybe_contraction().search(decomposed):
        return sort_key(name).partition("\0")[0]
    return decomposed.translate(_LEVEL_WEIGHTS[0])


def encode_weights(weights: Iterable[int]) -> str:
    """Collation weights (16-bit in DUCET, 0 between levels) as a string of one character per
    weight, which compares as the weights do: a tenth of the memory of a tuple of ints when a
    locale's 30,000 names are sorted."""
    return "".join(map(chr, weights))


def initial(name: str) -> str:
    """The letter a name is listed under: the base letter without accents (É → E), the initial
    consonant of a Hangul syllable, else the first character itself."""
    return _initial_of(name.lstrip()[:1])


@cache
def _initial_of(character: str) -> str:
    """The letter of the names that begin with ``character``: a site's hundreds of thousands of
    names begin with a few thousand distinct characters at most."""
    first = unicodedata.normalize("NFKD", character or "#")[:1]
    if first.isalpha() and unicodedata.category(first) != "Lo":
        return first.upper()
    if "\u1100" <= first <= "\u1112":  # a Hangul syllable decomposes to its leading consonant
        return _HANGUL_INITIALS[ord(first) - 0x1100]
    return first if first.isalpha() else "#"
