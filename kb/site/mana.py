"""Mana costs as symbols, with their text alternative in the page's language; a card's rules
text with its symbols so and its reminder text set apart."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache

from babel.lists import format_list
from markupsafe import Markup, escape

from kb.locales import Locale
from kb.records import FACE_SEPARATOR
from kb.site.i18n import translations

_MANA_SYMBOL = re.compile(r"\{([^{}]+)\}")
_COLOURS = frozenset("WUBRGC")
_FACE_MARK = Markup('<span class="split" aria-hidden="true">//</span>')


def mana_symbols(cost: str, locale: Locale, among_english: bool = False) -> Markup:
    """``{1}{U}`` as CSS-drawn symbols (a split card's faces apart), with the cost in the
    locale's words as the text alternative ("1 and blue", "1 und blau"). ``among_english``:
    the symbols stand in English text (the Oracle text, ``lang="en"``), so the alternative
    says its own language, or a screen reader would read "blau" with an English voice."""
    faces = [
        Markup("").join(
            Markup('<span class="{}" aria-hidden="true">{}</span>').format(
                _symbol_classes(symbol), symbol
            )
            for symbol in symbols
        )
        for symbols in _symbols_by_face(cost)
    ]
    lang = Markup(' lang="{}"').format(locale.code) if among_english and locale.code != "en" else ""
    return Markup('<span class="mana-cost"{} role="img" aria-label="{}">{}</span>').format(
        lang, mana_in_words(cost, locale), _FACE_MARK.join(faces)
    )


def _symbols_by_face(cost: str) -> list[list[str]]:
    """``{1}{R} // {U}`` as [["1", "R"], ["U"]]."""
    return [_MANA_SYMBOL.findall(face) for face in cost.split(FACE_SEPARATOR)]


def _symbol_classes(symbol: str) -> str:
    """A symbol's colour classes: its first half's colour, and a hybrid's second half's
    (``ms-then-u``), which the stylesheet draws as the symbol's other half; a generic half
    (``2/W``'s 2) keeps the generic colour. Half mana (``HW``) has its colour."""
    halves = [_colour_of(half) for half in symbol.upper().split("/") if half != "P"]
    first, then = [*halves, "", ""][:2]  # {P} alone (a rules text's Phyrexian symbol) has none
    classes = ["ms"]
    if first:
        classes.append(f"ms-{first}")
    if then:
        classes.append(f"ms-then-{then}")
    if "/" in symbol:
        classes.append("ms-hybrid")
    return " ".join(classes)


def _colour_of(half: str) -> str:
    colour = half[1:] if half[:1] == "H" else half
    return colour.lower() if colour in _COLOURS else ""


def mana_in_words(cost: str, locale: Locale) -> str:
    """The mana cost as a screen reader should say it: each symbol in the locale's words, in
    the locale's list pattern; a hybrid symbol's halves joined by "or"; a split card's faces
    apart as in its name. A symbol without words (a number, X) stays as it is."""
    words, phyrexian = _mana_words(locale)
    babel = locale.babel

    def spoken(symbol: str) -> str:
        halves = symbol.split("/")
        if is_phyrexian := len(halves) > 1 and halves[-1] == "P":
            halves.pop()
        said = format_list([words.get(half, half) for half in halves], "or", babel)
        return phyrexian % {"mana": said} if is_phyrexian else said

    return FACE_SEPARATOR.join(
        format_list([spoken(symbol) for symbol in symbols], locale=babel)
        for symbols in _symbols_by_face(cost)
    )


@cache
def _mana_words(locale: Locale) -> tuple[dict[str, str], str]:
    """The locale's words for the coloured, colourless and snow mana symbols, and its pattern
    for a Phyrexian symbol."""
    catalog = translations(locale.code)

    def pgettext(context: str, message: str) -> str:
        return str(catalog.pgettext(context, message))

    words = {
        "W": pgettext("mana", "white"),
        "U": pgettext("mana", "blue"),
        "B": pgettext("mana", "black"),
        "R": pgettext("mana", "red"),
        "G": pgettext("mana", "green"),
        "C": pgettext("mana", "colorless"),
        "S": pgettext("mana", "snow"),
        "T": pgettext("mana", "tap"),
        "Q": pgettext("mana", "untap"),
    }
    return words, pgettext("mana", "Phyrexian %(mana)s")


_SYMBOL_RUN = re.compile(r"((?:\{[^{}]+\})+)")
"""A run of symbols, captured: ``split`` gives the text between runs and the runs in turn."""
_REMINDER = re.compile(r"[(（](?:[^()（）]|[(（][^()（）]*[)）])*[)）]")
"""Reminder text: in parentheses, ASCII or full-width (Japanese and Chinese cards print
（…）, and MTGJSON's texts sometimes pair one form with the other), with one level of
parentheses inside ("« ciblé(e) »", "エンチャント（クリーチャー）"): the whole reminder is
set apart, not the inner pair alone."""
_JAPANESE_NOUN_END = re.compile(r"[\u30a0-\u30ff\u4e00-\u9fff々]")
"""Katakana (with ー and ・) or a kanji: how a Japanese noun ends."""


def _set_apart(line: str, japanese: bool) -> str:
    """The line's reminder text in italics. Japanese cards also print a keyword's object in
    full-width parentheses, right after the keyword and with no sentence inside:
    "エンチャント（クリーチャー）" (enchant creature), "プロテクション（赤）",
    "親和（アーティファクト）".
    On the 2022 corpus's Japanese printed texts, this sets apart the parentheses that their
    printing's English line has as reminder text, all 4,473, and 48 of the 964 others (most
    of them old cards' reminders that their English printing lacks)."""

    def italic(found: re.Match[str]) -> str:
        text, start = found[0], found.start()
        keyword_object = (
            japanese
            and text[0] == "（"
            and "。" not in text
            and "．" not in text
            and start > 0
            and _JAPANESE_NOUN_END.match(line, start - 1) is not None
        )
        return text if keyword_object else f"<i>{text}</i>"

    return _REMINDER.sub(italic, line)


def rules_text(text: str, locale: Locale, among_english: bool = False) -> Markup:
    """A card's rules text as its page shows it: a paragraph per line, reminder text
    (``_REMINDER``) in italics as cards print it, mana and tap symbols as symbols said in the
    locale's words (mana_symbols; ``among_english`` as there). Escaped first: the text is
    data.

    A card's page is rendered in every locale in turn with the same Oracle text, and a few
    costs ({T}, {1}) recur on most cards: the text's locale-free parts and each cost's symbols
    per locale are kept (``_parts``, ``_symbols``), which makes the real Oracle texts about
    six times as quick to show. tests/test_mana.py proves it equal to the text made afresh."""
    # Only a Japanese text in full-width parentheses reads them otherwise: any other text (the
    # Oracle text on every page) keeps one entry of _parts for all eleven locales.
    japanese = locale.code == "ja" and "（" in text
    return _drawn(_parts(text, japanese), locale, among_english)


def ruling_text(text: str, locale: Locale) -> Markup:
    """A ruling's text, escaped, with its mana and tap symbols as symbols ("{T}: Add {C}")
    said in the locale's words. A ruling is English text (``lang="en"``), so its symbols say
    their own language (``mana_symbols``' ``among_english``). One paragraph, and parentheses
    are a ruling's own, not reminder text. Most rulings hold no symbol: escaped, as any text."""
    if "{" not in text:
        return escape(text)
    return _drawn(_SYMBOL_RUN.split(str(escape(text))), locale, True)  # braces: not escaped


def _drawn(parts: Sequence[str], locale: Locale, among_english: bool) -> Markup:
    """HTML with its symbol runs apart (HTML, a run, HTML, ..., HTML), each run drawn."""
    if len(parts) == 1:
        return Markup(parts[0])
    pieces = list(parts)
    for position in range(1, len(pieces), 2):
        pieces[position] = _symbols(pieces[position], locale, among_english)
    return Markup("".join(pieces))


@lru_cache(maxsize=1024)
def _parts(text: str, japanese: bool) -> tuple[str, ...]:
    """The text as HTML with its symbol runs apart: HTML, a run, HTML, ..., HTML."""
    parts = [""]
    for number, line in enumerate(text.split("\n")):
        escaped = str(escape(line))  # braces and parentheses are not escaped: matched after
        escaped = _set_apart(escaped, japanese)
        first, *runs = _SYMBOL_RUN.split(escaped)
        parts[-1] += ("<p>" if number == 0 else "</p>\n<p>") + first
        parts.extend(runs)
    parts[-1] += "</p>"
    return tuple(parts)


@lru_cache(maxsize=4096)
def _symbols(run: str, locale: Locale, among_english: bool) -> str:
    return str(mana_symbols(run, locale, among_english))
