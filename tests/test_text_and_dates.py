"""Ruling identity and locale dates: the rules the importer relies on."""

from __future__ import annotations

import datetime as dt

import pytest
from babel import Locale as BabelLocale
from babel.dates import format_date, get_date_format, parse_pattern

from kb.derived import ruling_keys
from kb.importers.seed_pages import parse_page
from kb.locales import BY_CODE, LOCALE_CODES, canonical_locale
from kb.records import CardRef, ParseError, RulingRecord
from kb.site.dates import CldrDates, medium_date
from kb.text import better_text, normalize, text_key


def test_typography_alone_does_not_make_another_ruling() -> None:
    curly = "You can’t choose the same mode more than once."
    straight = "You can't  choose the same mode\nmore than once. "
    assert text_key(curly) == text_key(straight)
    assert normalize("A \u201cquoted\u201d \u2014 dash") == 'A "quoted" - dash'
    assert text_key(curly) != text_key("You can choose the same mode more than once.")


def test_a_ruling_record_carries_its_texts_key_and_compares_without_it() -> None:
    card = CardRef(name="Lightning Bolt")
    record = RulingRecord(card, "You can’t  choose it.")
    assert record.key == text_key("You can't choose it.")
    assert record == RulingRecord(card, "You can’t  choose it.", key="given")
    assert RulingRecord(card, "Other.", key="given").key == "given"


def test_a_copy_that_lost_its_mana_symbols_shares_the_skeleton() -> None:
    mended = "If the copied permanent has {X} in its mana cost, X is 0."
    damaged = "If the copied permanent has in its mana cost, X is 0."
    assert text_key(mended) != text_key(damaged)
    assert ruling_keys(mended)["skeleton_key"] == ruling_keys(damaged)["skeleton_key"]
    assert better_text(damaged, mended) == mended
    assert better_text(mended, damaged) == mended


@pytest.mark.parametrize("locale", LOCALE_CODES)
@pytest.mark.parametrize("width", ["short", "medium", "long"])
def test_dated_pages_parse_in_every_locale_format(locale: str, width: str) -> None:
    day = dt.date(2024, 4, 12)
    shown = format_date(day, width, locale=BY_CODE[locale].babel)
    page = f"Title\n\n• {shown}You can't choose the same mode more than once.\n"
    (record,) = parse_page(page.encode(), "page.txt", locale=locale)
    assert record.published_on == day
    assert record.text == "You can't choose the same mode more than once."


@pytest.mark.parametrize("locale", LOCALE_CODES)
@pytest.mark.parametrize("width", ["short", "medium", "long"])
def test_a_day_that_does_not_exist_is_not_a_valid_date(locale: str, width: str) -> None:
    babel = BY_CODE[locale].babel
    valid = format_date(dt.date(2024, 4, 12), width, locale=babel)
    # 28 February in the locale's format, made the 31st (28 stands nowhere else in the date).
    shown = format_date(dt.date(2024, 2, 28), width, locale=babel)
    assert shown.count("28") == 1
    invalid = shown.replace("28", "31")
    page = f"Title\n\n• {valid}A ruling.\n• {invalid}You can't choose the same mode.\n"
    with pytest.raises(ParseError) as raised:
        list(parse_page(page.encode(), "page.txt", locale=locale))
    assert str(raised.value) == f"page.txt:4: {invalid!r} is not a valid date"


def test_a_month_that_does_not_exist_is_not_a_valid_date() -> None:
    page = "Drei Schritte voraus\n\n• 12.13.2024Text.\n".encode()
    with pytest.raises(ParseError, match=r"^page.txt:3: '12.13.2024' is not a valid date$"):
        list(parse_page(page, "page.txt", locale="de"))


@pytest.mark.parametrize(
    "spelling,code",
    [
        ("zhs", "zh-Hans"),
        ("Chinese Simplified", "zh-Hans"),
        ("pt", "pt-BR"),
        ("Portuguese (Brazil)", "pt-BR"),
        ("de-de", "de"),
        ("ZHT", "zh-Hant"),
        ("ph", None),
    ],
)
def test_source_spellings_map_onto_canonical_locales(spelling: str, code: str | None) -> None:
    assert canonical_locale(spelling) == code


@pytest.mark.parametrize("locale", LOCALE_CODES)
def test_site_dates_are_babels_in_every_locale(locale: str) -> None:
    """The site writes dates a field at a time (dates.CldrDates): the same text as Babel's
    for every day of 2000 to 2030, in the medium format and in patterns with other fields (the
    weekday: Babel's own path) and a literal percent sign."""
    babel_locale = BabelLocale.parse(BY_CODE[locale].babel)
    patterns = [
        get_date_format("medium", locale=babel_locale),
        get_date_format("full", locale=babel_locale),
        parse_pattern("d '%' MMMM yy"),
    ]
    days = [dt.date(2000, 1, 1) + dt.timedelta(days=offset) for offset in range(0, 11_323, 3)]
    for pattern in patterns:
        dates = CldrDates(babel_locale, pattern)
        assert [dates(day) for day in days] == [pattern.apply(day, babel_locale) for day in days]
    assert medium_date(BY_CODE[locale])(dt.date(2024, 4, 12)) == format_date(
        dt.date(2024, 4, 12), "medium", locale=babel_locale
    )
