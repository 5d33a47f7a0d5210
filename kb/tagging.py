"""Mechanic tags: which mechanics a text speaks of, and how each mechanic the rules define tags.

docs/tagging.md says why each keyword action tags as it does, and how precise the tags are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from kb.records import MechanicRecord

# A pattern that is one word or phrase between word boundaries, optionally plural:
# r"\bspree\b", r"\boutlaws?\b", r"\bdouble\s+strike\b".
_PLAIN_PHRASE = re.compile(r"\\b((?:[\w'-]|\\-|\\s\+| )+?)(?:s\?)?\\b")
# A verb's forms then plain words: r"\b(?:mill|milled|mills)\b", r"\b(?:set|sets)\s+in\s+motion\b".
_FORM = r"(?:[\w'-]|\\-)+"
_FORMS = re.compile(rf"\\b\(\?:({_FORM}(?:\|{_FORM})*)\)(?:\\s\+{_FORM})*\\b")
_WORD = re.compile(r"[\w'-]+")
# An aside that names a mechanic as an example or a likely reason is not about it: "(such as
# kicker or replicate)", "(as with Storm)", "perhaps because it has indestructible".
_ASIDE = re.compile(
    r"\((?:such as|as with|like|for example|e\.g\.|perhaps|most likely)\b[^()]*\)"
    r"|\b(?:perhaps|most likely)\b[^.;,()]*",
    re.IGNORECASE,
)
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def word_pattern(name: str) -> str:
    r"""A whole-word pattern for a mechanic's name: "Double Strike" → r"\bdouble\s+strike\b"."""
    words = (re.escape(word) for word in name.lower().split())
    return r"\b" + r"\s+".join(words) + r"\b"


RULES_VOCABULARY = frozenset(
    {
        "activate",
        "attach",
        "cast",
        "create",
        "destroy",
        "discard",
        "exchange",
        "exile",
        "play",
        "reveal",
        "sacrifice",
        "search",
        "shuffle",
        "tap-and-untap",
    }
)
"""Keyword actions (701) that are the basic vocabulary of the rules: nearly every ruling uses
them, and no reader looks them up. They tag no ruling by word; they keep their page and rule."""

_CLAUSE = r"[^.;:!?]*?"  # the rest of one clause: a sense is read within it
_DOUBLED = r"(?:power|toughness|life|counters?|mana|damage|number|amount|results?)"
_SENSES = {
    # 701.5: to counter a spell or ability. The noun (+1/+1 counters, a loyalty counter) is
    # far more common; the verb has a spell or ability for object, a modal or "to" before it,
    # or an -ed/-ing form.
    "counter": r"\bcounter(?:ed|ing)\b"
    r"|\bcounters?\s+(?:target|up\s+to|spells?|abilit(?:y|ies))\b"
    r"|\bcounters?\s+(?:that|the|this|those|each|all|any|a|an|one|two|three|x|another|its"
    r"|their|your|his|her)\s+(?:[\w-]+\s+){0,2}?(?:spells?|abilit(?:y|ies)|copy|copies)\b"
    r"|\b(?:to|can|can't|cannot|will|won't|would|wouldn't|may|might|could|couldn't|must"
    r"|doesn't|don't|didn't|you|not|try|tries|attempts?)\s+counter\b"
    r"|\bcounters\s+(?:it|them)\b(?!\s+(?:has|had|have)\b)",
    # 701.9: to double power, toughness, a life total, counters or mana (and, by a replacement
    # effect, damage). Double strike, double-faced cards and the names Double Negative, Body
    # Double are not it: the verb is lower case (or starts a sentence, or is inflected) with
    # its object in the same clause.
    "double": rf"(?-i:\bdouble|(?:^|(?<=[.!?] ))Double|\b[dD]oubl(?:es|ed|ing))\b(?!\s*-|\s+strike)"
    rf"{_CLAUSE}\b{_DOUBLED}\b"
    rf"|\b{_DOUBLED}\b{_CLAUSE}(?-i:\bdoubled)\b",
    # 701.35: "support N". "If you support the Phyrexians" (Mirrodin Besieged) is English.
    "support": r"\bsupport(?:s|ed)?\s+(?:\d+|n|x|one|two|three|action|abilit(?:y|ies)|part)\b",
}
"""Keyword actions whose word has another, commoner sense: they tag only in the rule's."""
_SENSE_WORDS = {
    _SENSES["counter"]: frozenset({"counter", "countered", "countering", "counters"}),
    _SENSES["double"]: frozenset({"double", "doubled", "doubles", "doubling"}),
    _SENSES["support"]: frozenset({"support", "supported", "supports"}),
}
"""The words one of which a text must hold for a sense's pattern to match: its index."""

_IRREGULAR = {
    "fight": ("fought",),
    "monstrosity": ("monstrous",),  # 701.31b: a permanent that became monstrous
    "regenerate": ("regeneration",),  # a regeneration shield is 701.15's replacement effect
    "surveil": ("surveilled", "surveilling"),
}


def card_keyword(
    name: str, rule: str | None = None, rule_text: str | None = None, line: int | None = None
) -> MechanicRecord:
    """A keyword that no rule heads (an ability word, a variant, or whatever a card lists), as
    the cards' keywords and the rules' mentions of it both make it: of kind "keyword", tagging
    by its name. One maker, so that whichever comes first, the same mechanic stands."""
    return MechanicRecord(
        slug=slugify_mechanic(name),
        kind="keyword",
        rule=rule,
        names={"en": name},
        pattern=rule_pattern("keyword", name),
        rule_text=rule_text,
        line=line,
    )


def rule_pattern(kind: str, name: str) -> str | None:
    r"""The pattern a mechanic the rules define tags rulings with (None: it tags none by word).

    A keyword action is a verb and tags in every form of it ("mills", "milled", "scried"), a
    keyword ability by its name: "Double Strike" → r"\bdouble\s+strike\b".
    """
    slug = slugify_mechanic(name)
    if slug in RULES_VOCABULARY:
        return None
    if slug in _SENSES:
        return _SENSES[slug]
    if kind == "keyword_action":
        return verb_pattern(name)
    return word_pattern(name)


def verb_pattern(name: str) -> str:
    r"""A whole-word pattern for a verb's forms, its first word inflected: "Scry" →
    r"\b(?:scried|scries|scry|scrying)\b", "Venture into the Dungeon" →
    r"\b(?:venture|ventured|ventures|venturing)\s+into\s+the\s+dungeon\b"."""
    verb, *rest = name.lower().split()
    stem = verb[:-1] if verb.endswith("e") else verb
    forms = {verb, stem + "ed", stem + "ing", *_IRREGULAR.get(verb, ())}
    if verb.endswith(("s", "sh", "ch", "x")):
        forms.add(verb + "es")
    elif verb.endswith("y") and verb[-2] not in "aeiou":
        forms |= {verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"}
        forms.discard(stem + "ed")
    else:
        forms.add(verb + "s")
    if len(verb) > 2 and verb[-1] in "lt" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
        forms |= {verb + verb[-1] + "ed", verb + verb[-1] + "ing"}  # surveilled, setting
    alternatives = "|".join(re.escape(form) for form in sorted(forms))
    return r"\b(?:" + alternatives + ")" + "".join(r"\s+" + re.escape(w) for w in rest) + r"\b"


def slugify_mechanic(name: str) -> str:
    """``First strike`` → ``first-strike``: the mechanic's stable identifier."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-")


QUICK_WORDS: Final = 64
"""The most first words for which ``MechanicMatcher`` looks for any of them first."""


class MechanicMatcher:
    """Matches many mechanics' patterns against many texts, case-insensitively.

    Most patterns are a plain word or phrase. Those are indexed by their first word, so a text is
    tested only against the patterns whose first word it contains (a corpus has ~250 mechanics
    and ~60,000 rulings); the regular expression still decides. Other patterns always run.

    A word of the text is a run of letters, digits, apostrophes and hyphens, taken also without
    its quotes and its possessive ('s): "outlaw's" is the word outlaw. A word joined to another
    by a hyphen is not that word: "Smelt-Ward Minotaur" does not speak of ward, though
    ``\bward\b`` alone would match it. Nor does a card's name (``names``): "Storm Entity",
    "Smell Fear" and "Gideon, Champion of Justice" are cards, not storm, fear and champion. A
    name that is only the mechanic's word (the card Flash) is not told apart from it.

    A matcher of few first words (``QUICK_WORDS`` or fewer, and no pattern that always runs)
    first looks for any of them inside the text at all, in one regular expression: every word
    of a text is a part of the text, so a text without one of them has no candidate. The
    mining's matcher of the actions no source lists (35 first words) then makes the word sets
    of one Oracle text in five (0.23 s for the real corpus's 24,606 against 0.34 s); with
    many more words the alternation costs what it saves.
    """

    def __init__(
        self, patterns: Iterable[tuple[int, str | None]], names: Iterable[str] = ()
    ) -> None:
        self._by_first_word: dict[str, list[tuple[int, re.Pattern[str]]]] = {}
        self._always: list[tuple[int, re.Pattern[str]]] = []
        for mechanic_id, pattern in patterns:
            if not pattern:
                continue
            compiled = (mechanic_id, re.compile(pattern, re.IGNORECASE))
            first_words = _first_words(pattern)
            if not first_words:
                self._always.append(compiled)
            for first_word in first_words:
                self._by_first_word.setdefault(first_word, []).append(compiled)
        first = sorted(self._by_first_word, key=len, reverse=True)
        self._quick = (
            re.compile("|".join(map(re.escape, first)))
            if first and len(first) <= QUICK_WORDS and not self._always
            else None
        )
        # Only names that a pattern matches can hide a mechanic. One that is the mechanic's
        # word alone (the cards Fortify, Fear) is a name only capitalized inside a sentence.
        self._names_by_first_word: dict[str, list[str]] = {}
        bare_names: list[str] = []
        for name in sorted(set(names), key=len, reverse=True):
            found = [regex.search(name) for _, regex in self._candidates(_words(name))]
            if any(match and match.group(0) != name for match in found):
                first = _WORD.findall(name.lower())[0]
                self._names_by_first_word.setdefault(first, []).append(name)
            elif any(found) and name[:1].isupper():
                bare_names.append(re.escape(name))
        self._bare_names = (
            re.compile(r"(?<=[\w,] )(?:" + "|".join(bare_names) + r")\b") if bare_names else None
        )

    def matches(self, text: str) -> set[int]:
        if self._quick is not None and self._quick.search(text.lower()) is None:
            return set()
        words = _words(text)
        found = self._matches(text, words)
        if found:
            masked = _ASIDE.sub(" ", text)
            for word in words:
                for name in self._names_by_first_word.get(word, ()):
                    masked = masked.replace(name, "CARDNAME")
            if self._bare_names is not None:
                masked = self._bare_names.sub("CARDNAME", masked)
            if masked != text:
                found = self._matches(masked, _words(masked))
        return found

    def _candidates(self, words: set[str]) -> list[tuple[int, re.Pattern[str]]]:
        return [c for word in words for c in self._by_first_word.get(word, ())] + self._always

    def _matches(self, text: str, words: set[str]) -> set[int]:
        return {mechanic_id for mechanic_id, regex in self._candidates(words) if regex.search(text)}


def _words(text: str) -> set[str]:
    """The words of a text under which patterns and names are indexed."""
    found = set(_WORD.findall(text.lower()))
    words = set(found)
    for word in found:
        # "outlaw's", "outlaws'" and 'spree' in straight quotes must reach the patterns
        # indexed under "outlaw" and "spree", as the regular expressions would match them.
        if "'" in word or "-" in word:  # most words have neither: they stand as they are
            bare = word.strip("'-")
            words.update((bare, bare.removesuffix("'s")))
    # "outlaws" must reach the pattern indexed under "outlaw".
    words |= {word[:-1] for word in words if word.endswith("s")}
    return words


def _first_words(pattern: str) -> set[str]:
    """The words one of which a text that the pattern matches must contain (none: any text)."""
    if pattern in _SENSE_WORDS:
        return set(_SENSE_WORDS[pattern])
    if forms := _FORMS.fullmatch(pattern):
        return {form.replace("\\", "").lower() for form in forms.group(1).split("|")}
    plain = _PLAIN_PHRASE.fullmatch(pattern)
    phrase = plain.group(1).replace(r"\s+", " ").replace("\\", "") if plain else ""
    first_word = _WORD.match(phrase.lower())
    return {first_word.group(0)} if first_word else set()
