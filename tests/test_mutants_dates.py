"""Date parsing: the day a ruling was published, from Scryfall's and MTGJSON's ISO dates and from
the locale formats of rulings pages. A wrong day imports without a word, so each test names it."""

from __future__ import annotations

import datetime as dt
import io
import json

import pytest
from babel.dates import format_date

from kb.importers import scryfall, seed_pages
from kb.importers.seed_pages import parse_page
from kb.locales import BY_CODE, LOCALE_CODES
from kb.records import ParseError


@pytest.fixture(autouse=True)
def _patterns_built_afresh() -> None:
    """Each test builds the locales' date patterns itself. Cached, they are built by whichever
    test of the run asks first, and mutmut, which runs a mutant against the tests it saw call
    the function, would try a mutant of the pattern builder on that test alone."""
    seed_pages._date_patterns.cache_clear()


def _scryfall_dates(*values: object) -> list[dt.date | None]:
    items = [
        {"object": "ruling", "oracle_id": "a", "source": "wotc", "comment": f"Ruling {n}."}
        | ({} if value is ... else {"published_at": value})
        for n, value in enumerate(values)
    ]
    stream = io.BytesIO(json.dumps(items).encode())
    return [record.published_on for record in scryfall.parse_rulings(stream, "rulings.json")]


def test_an_iso_date_is_that_day_and_null_or_absent_is_none() -> None:
    assert _scryfall_dates("2024-04-12", None, ..., "1993-08-05") == [
        dt.date(2024, 4, 12),
        None,
        None,
        dt.date(1993, 8, 5),
    ]


@pytest.mark.parametrize(
    "value",
    ["2024-4-12", "2024-04-12T00:00:00", " 2024-04-12", "2024-02-30", "20240412", 20240412, ""],
)
def test_anything_but_a_day_written_yyyy_mm_dd_is_refused(value: object) -> None:
    with pytest.raises(ParseError) as raised:
        _scryfall_dates("2024-04-12", value)
    shown = repr(value) if isinstance(value, str) else str(value)
    assert str(raised.value) == (
        f"rulings.json: item 2: published_at {shown} is not a date YYYY-MM-DD"
    )


def _page_dates(locale: str, *bullets: str) -> list[tuple[dt.date | None, str]]:
    page = "Title\n\n" + "\n".join(f"• {bullet}" for bullet in bullets) + "\n"
    records = parse_page(page.encode(), "page.txt", locale=locale)
    return [(record.published_on, record.text) for record in records]


def test_a_page_date_is_read_in_its_locales_formats_and_in_iso() -> None:
    day = dt.date(2024, 4, 12)
    assert _page_dates(
        "de", "12.04.24 Kurz.", "12.04.2024Mittel.", "12. April 2024 Lang.", "2024-04-12 ISO."
    ) == [(day, "Kurz."), (day, "Mittel."), (day, "Lang."), (day, "ISO.")]
    assert _page_dates("en", "Apr 12, 2024 Medium.", "April 12, 2024 Long.") == [
        (day, "Medium."),
        (day, "Long."),
    ]


def test_a_two_digit_year_is_of_this_century() -> None:
    assert _page_dates("de", "05.08.99 Text.") == [(dt.date(2099, 8, 5), "Text.")]
    assert _page_dates("de", "05.08.00 Text.") == [(dt.date(2000, 8, 5), "Text.")]


def test_a_four_digit_year_is_as_written() -> None:
    """0099 was taken for 99 and put in this century."""
    assert _page_dates("de", "05.08.0099 Text.") == [(dt.date(99, 8, 5), "Text.")]


def test_month_names_are_read_in_any_case_and_width() -> None:
    assert _page_dates("en", "APRIL 12, 2024 Wide.", "sep 3, 2024 Abbreviated.") == [
        (dt.date(2024, 4, 12), "Wide."),
        (dt.date(2024, 9, 3), "Abbreviated."),
    ]
    assert _page_dates("fr", "12 avril 2024 Texte.", "3 sept. 2024 Texte.") == [
        (dt.date(2024, 4, 12), "Texte."),
        (dt.date(2024, 9, 3), "Texte."),
    ]
    # "May" is both the abbreviated and the wide name.
    assert _page_dates("en", "May 2, 2024 Text.") == [(dt.date(2024, 5, 2), "Text.")]


def test_spacing_in_a_copied_date_does_not_matter() -> None:
    assert _page_dates("de", "12.\u202fApril\u00a02024 Text.", "12.April 2024Text.") == [
        (dt.date(2024, 4, 12), "Text."),
        (dt.date(2024, 4, 12), "Text."),
    ]


def test_a_bullet_without_a_date_names_the_locale_format() -> None:
    with pytest.raises(ParseError) as raised:
        _page_dates("de", "12.04.2024 Gut.", "Irgendwann einmal geschrieben.")
    assert str(raised.value) == "page.txt:4: 'Irgendwann' does not start with a date in de format"
    with pytest.raises(ParseError) as raised:
        _page_dates("de", "Zwölfter April " + "x" * 30)
    assert str(raised.value) == "page.txt:3: 'Zwölfter' does not start with a date in de format"
    with pytest.raises(ParseError) as raised:
        _page_dates("de", "x" * 40)
    assert str(raised.value) == f"page.txt:3: {'x' * 24!r} does not start with a date in de format"


def test_every_month_reads_back_in_every_locale_and_width() -> None:
    """Every month's name (abbreviated and wide) and every quoted literal of the locales' CLDR
    patterns (Portuguese 'de', Russian 'г.'), in one page per locale and width."""
    days = [dt.date(2024, month, 1 + month * 2) for month in range(1, 13)]
    for locale in LOCALE_CODES:
        for width in ("short", "medium", "long"):
            shown = [format_date(day, width, locale=BY_CODE[locale].babel) for day in days]
            read = _page_dates(locale, *(f"{text} Ruling." for text in shown))
            assert read == [(day, "Ruling.") for day in days], (locale, width)


def test_the_word_shown_ends_at_a_space() -> None:
    """A tab is part of the word shown."""
    with pytest.raises(ParseError) as raised:
        _page_dates("de", "Irgend\twann einmal.")
    assert (
        str(raised.value) == "page.txt:3: 'Irgend\\twann' does not start with a date in de format"
    )


def test_a_four_digit_year_is_taken_as_written() -> None:
    assert _page_dates("de", "05.08.0100 Text.") == [(dt.date(100, 8, 5), "Text.")]
