"""Cutting printed lines into what the miner compares: reminder text, costs, lists, tokens."""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable
from typing import Final

CJK_LOCALES: Final = frozenset({"ja", "zh-Hans", "zh-Hant"})
"""Locales written without spaces between words: their tokens are characters."""

_REMINDER: Final = re.compile(r"\([^()]*\)|（[^（）]*）")
# Where a keyword's name ends and its cost, number or object begins: a mana symbol, a digit, a
# dash (Ward—Pay 3 life), a colon (French "Équipement : {2}"), the full-width forms of these.
_COST: Final = re.compile(r"[{｛0-9０-９＋+—–―－~～:：]|\s-\s|\bX\b")
_LEADING: Final = " \t>»«\"'*・•-"
_TRAILING: Final = " \t.,;:、。．，；：·・!！"
_LIST_SEPARATOR: Final = re.compile(r"\s*[,;，；、]\s*")


def is_hiragana(character: str) -> bool:
    """Japanese particles and verb endings are written in hiragana; names are not."""
    return "\u3041" <= character <= "\u309f"


def without_reminder(line: str) -> str:
    """The line without its reminder text: parenthesized (ASCII or full-width), nested once."""
    if "(" not in line and "（" not in line:
        return line
    previous = None
    while previous != line:
        previous, line = line, _REMINDER.sub(" ", line)
    return " ".join(line.split())


def name_part(text: str) -> str:
    """What comes before a cost, a number or a dash: "Umwandlung {2}" is "Umwandlung"."""
    text = html.unescape(text).lstrip(_LEADING)
    match = _COST.search(text)
    if match is not None:
        text = text[: match.start()]
    return text.strip(_TRAILING)


def list_parts(line: str) -> list[str]:
    """A keyword list's parts: "Flying, vigilance", "飛行、警戒"."""
    return [part for part in _LIST_SEPARATOR.split(line) if part]


def tokens(text: str, locale: str) -> tuple[str, ...]:
    """Words; characters where the locale writes no spaces."""
    if locale in CJK_LOCALES:
        return tuple(character for character in text if not character.isspace())
    return tuple(text.split())


def joined(parts: tuple[str, ...], locale: str) -> str:
    return "".join(parts) if locale in CJK_LOCALES else " ".join(parts)


def display_form(forms: Iterable[str]) -> str:
    """The name as printed most often (the first in code point order of a tie), with its
    first letter capitalized as a line starts."""
    counts = Counter(forms)
    best = max(sorted(counts), key=counts.__getitem__)
    return best[:1].upper() + best[1:]
