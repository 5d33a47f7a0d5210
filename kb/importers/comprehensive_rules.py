"""Parser for the Magic Comprehensive Rules text: keyword actions, keyword abilities, terms.

Each keyword has a heading rule, "702.2. Deathtouch", followed by subrules "702.2a ...", the first
of which defines it (kept as the mechanic's rule text). Wizards
publish the file unindented; some copies indent rules by depth and start with a byte-order mark.
The table of contents names only the sections ("702. Keyword Abilities"), never a keyword's
"702.N." heading, so matching headings by their number skips it. Old editions end lines with a bare
carriage return: universal newlines read all three conventions.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import BinaryIO

from kb.importers.streams import read_errors_as_parse_errors
from kb.records import MechanicRecord
from kb.tagging import card_keyword, rule_pattern, slugify_mechanic

_KIND_BY_SECTION = {"701": "keyword_action", "702": "keyword_ability"}

# A keyword's heading is its name alone: "702.153. Casualty", "701.46. Venture into the Dungeon".
# The section's first rule ("702.1. Most abilities describe ...") is a sentence, with punctuation
# and more words than any keyword's name.
_KEYWORD_HEADING = re.compile(
    r"^\s*(?P<rule>(?P<section>70[12])\.\d+)\.\s+(?P<name>[A-Z][\w'’-]*(?: [\w'’-]+){0,4})\s*$"
)
# "700.12. The term outlaw refers to an object that has ..." (700.4 "The term dies means ..." is a
# definition of a verb's meaning, not a grouping term, and is left out).
_TERM_DEFINITION = re.compile(r"^\s*(?P<rule>700\.\d+)\.\s+The term (?P<name>[a-z]+) refers to ")
# "207.2c An ability word appears in italics ... The ability words are adamant, addendum, ...,
# and will of the council." Ability words have no rule of their own: that one is theirs.
_ABILITY_WORDS = re.compile(
    r"^\s*(?P<rule>207\.2c) .* The ability words are (?P<words>[^.]+)\.\s*$"
)
_LIST_SEPARATOR = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
# "702.33c Multikicker is a variant of the kicker ability.": a keyword of its own name, defined
# by its subrule. A variant named with a placeholder ("Connive N", "Devour [type]", "Hexproof
# from [quality]") is its keyword said with a parameter, not a name of its own.
_VARIANT = re.compile(
    r'^\s*(?P<rule>70[12]\.\d+[a-z]) "?(?P<name>[A-Z][\w\'’-]*(?: [a-z][\w\'’-]*){0,3})"? '
    r"is a variant of "
)
# '702.145b Daybound is found on the front faces ... "Daybound" means ...': a subrule that says
# what its own name means defines a keyword of that name, under a heading of another
# ("Daybound and Nightbound", which MTGJSON lists as two keywords).
_OWN_MEANING = re.compile(
    r"^\s*(?P<rule>70[12]\.\d+[a-z]) (?P<name>[A-Z][\w'’-]*(?: [a-z][\w'’-]*){0,3}) "
    r'.*?"(?P=name)(?: \[[^\]]+\]| N)?" means '
)


def parse(stream: BinaryIO, path: str) -> Iterator[MechanicRecord]:
    """The keyword actions (701.N), keyword abilities (702.N) and terms (700.N) in rule order.

    ``pattern`` is lower case, meant to be matched with re.IGNORECASE.
    """
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline=None)
    pending: MechanicRecord | None = None
    """A keyword whose heading was read: its defining subrule (702.29a) may follow."""
    headed: set[str] = set()
    """The slugs of the keywords headed so far: a subrule that names one defines no other."""
    with read_errors_as_parse_errors(path), _detached(text):
        for line_number, line in enumerate(text, start=1):
            if pending is not None and line.strip():
                defining = line.lstrip().startswith(f"{pending.rule}a ")
                if defining:
                    pending = replace(pending, rule_text=_limited(line.strip()))
                yield pending
                pending = None
                if defining:
                    continue
            if keyword := _KEYWORD_HEADING.match(line):
                name, kind = keyword["name"], _KIND_BY_SECTION[keyword["section"]]
                headed.add(slugify_mechanic(name))
                pending = MechanicRecord(
                    slug=slugify_mechanic(name),
                    kind=kind,
                    rule=keyword["rule"],
                    names={"en": name},
                    pattern=rule_pattern(kind, name),
                    line=line_number,
                )
            elif words := _ABILITY_WORDS.match(line):
                for word in _LIST_SEPARATOR.split(words["words"]):
                    name = word[:1].upper() + word[1:]
                    yield card_keyword(name, words["rule"], _limited(line.strip()), line_number)
            elif variant := _VARIANT.match(line) or _OWN_MEANING.match(line):
                if slugify_mechanic(variant["name"]) not in headed:
                    rule_text = _limited(line.strip())
                    yield card_keyword(variant["name"], variant["rule"], rule_text, line_number)
            elif term := _TERM_DEFINITION.match(line):
                name = term["name"]
                yield MechanicRecord(
                    slug=slugify_mechanic(name),
                    kind="term",
                    rule=term["rule"],
                    names={"en": name},
                    # Terms stand for a group of objects and are used in the plural: "outlaws".
                    pattern=rf"\b{re.escape(name.lower())}s?\b",
                    rule_text=_limited(line.strip()),
                    line=line_number,
                )
        if pending is not None:
            yield pending


def _limited(rule: str) -> str:
    """A rule's text, cut at RULE_TEXT_LIMIT characters (a rule runs to a few hundred)."""
    return rule if len(rule) <= RULE_TEXT_LIMIT else rule[: RULE_TEXT_LIMIT - 1] + "…"


RULE_TEXT_LIMIT = 2000


@contextlib.contextmanager
def _detached(text: io.TextIOWrapper) -> Iterator[None]:
    """Leaves the caller's binary stream open: a TextIOWrapper closes what it wraps when dropped."""
    try:
        yield
    finally:
        text.detach()
