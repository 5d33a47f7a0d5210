"""Mechanic tags: which mechanics a text speaks of."""

from __future__ import annotations

import re
from collections.abc import Iterable

# A pattern that is one word or phrase between word boundaries, optionally plural:
# r"\bspree\b", r"\boutlaws?\b", r"\bdouble\s+strike\b".
_PLAIN_PHRASE = re.compile(r"\\b((?:[\w'-]|\\-|\\s\+| )+?)(?:s\?)?\\b")
_WORD = re.compile(r"[\w'-]+")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def word_pattern(name: str) -> str:
    r"""A whole-word pattern for a mechanic's name: "Double Strike" → r"\bdouble\s+strike\b"."""
    words = (re.escape(word) for word in name.lower().split())
    return r"\b" + r"\s+".join(words) + r"\b"


def slugify_mechanic(name: str) -> str:
    """``First strike`` → ``first-strike``: the mechanic's stable identifier."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-")


class MechanicMatcher:
    """Matches many mechanics' patterns against many texts, case-insensitively.

    Most patterns are a plain word or phrase. Those are indexed by their first word, so a text is
    tested only against the patterns whose first word it contains (a corpus has ~250 mechanics
    and ~60,000 rulings); the regular expression still decides. Other patterns always run.

    A word of the text is a run of letters, digits, apostrophes and hyphens, taken also without
    its quotes and its possessive ('s): "outlaw's" is the word outlaw. A word joined to another
    by a hyphen is not that word: "Smelt-Ward Minotaur" does not speak of ward, though
    ``\bward\b`` alone would match it.
    """

    def __init__(self, patterns: Iterable[tuple[int, str | None]]) -> None:
        self._by_first_word: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
        self._always: list[tuple[int, re.Pattern[str]]] = []
        for mechanic_id, pattern in patterns:
            if not pattern:
                continue
            compiled = (mechanic_id, re.compile(pattern, re.IGNORECASE))
            plain = _PLAIN_PHRASE.fullmatch(pattern)
            phrase = plain.group(1).replace(r"\s+", " ").replace("\\", "") if plain else ""
            first_word = _WORD.match(phrase.lower())
            if first_word is None:
                self._always.append(compiled)
            else:
                self._by_first_word.setdefault(first_word.group(0), []).append(compiled)

    def matches(self, text: str) -> set[int]:
        words: set[str] = set()
        for word in _WORD.findall(text.lower()):
            # "outlaw's", "outlaws'" and 'spree' in straight quotes must reach the patterns
            # indexed under "outlaw" and "spree", as the regular expressions would match them.
            bare = word.strip("'-")
            words.update((word, bare, bare.removesuffix("'s")))
        # "outlaws" must reach the pattern indexed under "outlaw".
        words |= {word[:-1] for word in words if word.endswith("s")}
        candidates = [c for word in words for c in self._by_first_word.get(word, ())]
        return {
            mechanic_id for mechanic_id, regex in (*candidates, *self._always) if regex.search(text)
        }
