"""Rulings pages as readers copy them from a card's page, in any of the 11 locales.

Style A: the card's localized name, a blank line, one ruling a line as ``• DD.MM.YYYY<text>`` (the
date in the locale's own format, glued to the text), a blank line, and a localized footer.
Style B: the localized name, then one ruling a paragraph, no dates, no footer.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from babel import Locale as BabelLocale
from babel.dates import get_date_format

from kb.importers.limits import MAX_NAME_CHARS
from kb.locales import BY_CODE, LOCALE_CODES
from kb.records import CardRef, ParseError, RulingRecord
from kb.text import normalize

BULLET = "•"

# The footer that marks an official rulings page. The German text is the seed page's own; the
# others are the same sentence in each language, so that a page copied in any locale is recognised.
FOOTERS: dict[str, str] = {
    "en": "Official clarifications from Wizards of the Coast, English only.",
    "de": "Offizielle Klarstellungen von Wizards of the Coast, nur auf Englisch.",
    "fr": "Clarifications officielles de Wizards of the Coast, en anglais uniquement.",
    "it": "Chiarimenti ufficiali di Wizards of the Coast, solo in inglese.",
    "es": "Aclaraciones oficiales de Wizards of the Coast, solo en inglés.",
    "pt-BR": "Esclarecimentos oficiais da Wizards of the Coast, somente em inglês.",
    "ja": "Wizards of the Coastによる公式の解説（英語のみ）。",
    "ko": "Wizards of the Coast의 공식 설명, 영어로만 제공.",
    "ru": "Официальные разъяснения от Wizards of the Coast, только на английском.",
    "zh-Hans": "Wizards of the Coast官方说明，仅提供英文版。",
    "zh-Hant": "Wizards of the Coast官方說明，僅提供英文版。",
}
_FOOTER_LOCALE = {normalize(text).casefold(): code for code, text in FOOTERS.items()}

LocaleResolver = Callable[[str], str | None]
"""Given a page's title, the locale of the card name it is (the loader looks it up)."""


@dataclass(frozen=True)
class Paragraph:
    line: int
    text: str


def _paragraphs(lines: list[str], first: int) -> Iterator[Paragraph]:
    start, chunk = first, list[str]()
    for number, line in enumerate(lines[first - 1 :], start=first):
        if line.strip():
            if chunk and line.lstrip().startswith(BULLET):
                yield Paragraph(start, " ".join(chunk))
                chunk = []
            if not chunk:
                start = number
            chunk.append(line.strip())
        elif chunk:
            yield Paragraph(start, " ".join(chunk))
            chunk = []
    if chunk:
        yield Paragraph(start, " ".join(chunk))


def decode(data: bytes, path: str) -> str:
    if not data.strip():
        raise ParseError(path, "the file is empty", 1)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ParseError(path, f"not valid UTF-8 (byte 0x{data[error.start]:02x})", line) from None


# Lines that mark a text as some other document (markdown above all: a README beside the
# sources): a heading, a fenced block, a table row, a list item. No ruling starts so.
_NOT_A_RULING = re.compile(r"#|```|\||[-*+] ")


def not_a_page(text: str) -> tuple[int, str] | None:
    """Why ``text`` (a page's head, decoded) is no rulings page, with the line; None if it is one.

    A page is a title (a card's name: one short line, not markup) and, under it, rulings: dated
    bullets or paragraphs. A title with no rulings under it is still a page, whose error the
    parser tells.
    """
    lines = text.splitlines()
    title = lines[0].strip() if lines else ""
    if not title:
        return 1, "no title: the first line must be the card's name"
    if title.startswith("<") or _NOT_A_RULING.match(title):  # HTML, XML, or as any line
        return 1, f"{_start(title)} is markup, not a card's name: not a rulings page"
    if len(title) > MAX_NAME_CHARS:
        return 1, f"a first line of {len(title):,} characters is no card's name: not a rulings page"
    for number, line in enumerate(lines[1:], start=2):
        if _NOT_A_RULING.match(line.lstrip()):
            return number, f"{_start(line.strip())} is markup, not a ruling: not a rulings page"
    return None


def _start(line: str) -> str:
    return repr(line if len(line) <= 30 else line[:29] + "…")


def footer_locale(text: str) -> str | None:
    return _FOOTER_LOCALE.get(normalize(text).casefold())


def parse_page(
    data: bytes,
    path: str,
    locale: str | None = None,
    resolve_locale: LocaleResolver | None = None,
    card_name: str | None = None,
) -> Iterator[RulingRecord]:
    """Yield the page's rulings, in page order, for the card named by its title.

    ``locale`` (from ``--locale``) wins over the footer, which wins over the title's locale as
    ``resolve_locale`` finds it. ``card_name`` (from ``--card``) names the English card when the
    title is not known yet.
    """
    if locale is not None and locale not in BY_CODE:
        raise ParseError(path, f"unknown locale {locale!r} (one of {', '.join(LOCALE_CODES)})")
    lines = decode(data, path).splitlines()
    title = lines[0].strip()
    if not title:
        raise ParseError(path, "no title: the first line must be the card's name", 1)
    paragraphs = list(_paragraphs(lines, 2))
    if paragraphs and not paragraphs[-1].text.startswith(BULLET):
        found = footer_locale(paragraphs[-1].text)
        dated = any(p.text.startswith(BULLET) for p in paragraphs)
        if found is not None or dated:
            paragraphs.pop()
            locale = locale or found
    if not paragraphs:
        raise ParseError(path, "no rulings under the title", len(lines))
    if locale is None and resolve_locale is not None:
        locale = resolve_locale(title)
    if locale is None:
        raise ParseError(
            path, f"unknown locale: no --locale, no known footer, and {title!r} is not a known name"
        )
    card = CardRef(name=card_name, localized_name=title, locale=locale)
    for position, paragraph in enumerate(paragraphs):
        if paragraph.text.startswith(BULLET):
            published_on, text = _split_date(paragraph, locale, path)
        else:
            published_on, text = None, paragraph.text
        if not text:
            raise ParseError(path, "a ruling without text", paragraph.line)
        yield RulingRecord(card, text, published_on, position, line=paragraph.line)


def _split_date(paragraph: Paragraph, locale: str, path: str) -> tuple[dt.date, str]:
    body = paragraph.text[len(BULLET) :].lstrip()
    for pattern in _date_patterns(locale):
        match = pattern.match(body)
        if match is None:
            continue
        try:
            return _date_from(match, locale), body[match.end() :].strip()
        except ValueError:
            # Written in the locale's format, but no such day (31.02.2024, month 13).
            shown = match.group(0).strip()
            raise ParseError(path, f"{shown!r} is not a valid date", paragraph.line) from None
    shown = body[:24].split(" ")[0]
    raise ParseError(
        path, f"{shown!r} does not start with a date in {locale} format", paragraph.line
    )


_FIELD = re.compile(r"'[^']*'|([yMLd])\1*|[^'yMLd]+")


@cache
def _date_patterns(locale: str) -> tuple[re.Pattern[str], ...]:
    """Regular expressions for the locale's CLDR date patterns, plus ISO 8601."""
    babel_locale = BabelLocale.parse(BY_CODE[locale].babel)
    patterns = []
    for width in ("medium", "short", "long"):
        cldr = get_date_format(width, locale=babel_locale).pattern
        patterns.append(re.compile(_regex_for(cldr, babel_locale), re.IGNORECASE))
    patterns.append(re.compile(r"(?P<y>\d{4})-(?P<M>\d{2})-(?P<d>\d{2})"))
    return tuple(patterns)


def _regex_for(cldr: str, babel_locale: BabelLocale) -> str:
    parts = []
    for match in _FIELD.finditer(cldr):
        token, letter = match.group(0), match.group(1)
        if letter is None:
            literal = token[1:-1] if token.startswith("'") else token
            # Spacing in copied pages is unreliable (U+202F, missing spaces): any run matches.
            pieces = [re.escape(piece) for piece in literal.split()]
            parts.append(r"\s*" + r"\s*".join(pieces) + r"\s*")
        elif letter == "y":
            parts.append(r"(?P<y>\d{4}|\d{2})")
        elif letter == "d":
            parts.append(r"(?P<d>\d{1,2})")
        elif len(token) <= 2:
            parts.append(r"(?P<M>\d{1,2})")
        else:
            width = "abbreviated" if len(token) == 3 else "wide"
            names = sorted(babel_locale.months["format"][width].values(), key=len, reverse=True)
            parts.append("(?P<Mname>" + "|".join(re.escape(name) for name in names) + ")")
    return "".join(parts)


def _date_from(match: re.Match[str], locale: str) -> dt.date:
    fields = match.groupdict()
    year = int(fields["y"])
    if len(fields["y"]) <= 2:  # a short year is of this century; a long one is as written
        year += 2000
    if fields.get("Mname"):
        months = BabelLocale.parse(BY_CODE[locale].babel).months["format"]
        lowered = fields["Mname"].casefold()
        month = next(
            number
            for width in ("abbreviated", "wide")
            for number, name in months[width].items()
            if name.casefold() == lowered
        )
    else:
        month = int(fields["M"])
    return dt.date(year, month, int(fields["d"]))
