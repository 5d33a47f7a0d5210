"""Mechanic tags: which mechanics a text speaks of."""

from __future__ import annotations

import re
from collections.abc import Iterable

_PLAIN_WORD = re.compile(r"\\b([\w' -]+?)(?:s\?)?\\b")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slugify_mechanic(name: str) -> str:
    """``First strike`` → ``first-strike``: the mechanic's stable identifier."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-")


class MechanicMatcher:
    """Matches many mechanics' patterns against many texts, case-insensitively.

    Most patterns are a word between word boundaries; a substring test on the lower-cased text
    rules those out before the regular expression runs, which keeps tagging a whole corpus fast.
    """

    def __init__(self, patterns: Iterable[tuple[int, str | None]]) -> None:
        self._patterns: list[tuple[int, str | None, re.Pattern[str]]] = []
        for mechanic_id, pattern in patterns:
            if not pattern:
                continue
            plain = _PLAIN_WORD.fullmatch(pattern)
            literal = plain.group(1).lower() if plain else None
            self._patterns.append((mechanic_id, literal, re.compile(pattern, re.IGNORECASE)))

    def matches(self, text: str) -> set[int]:
        lowered = text.lower()
        return {
            mechanic_id
            for mechanic_id, literal, regex in self._patterns
            if (literal is None or literal in lowered) and regex.search(text)
        }
