"""kb.site.mana.rules_text keeps each text's locale-free parts and each cost's symbols: what it
gives is what the text made afresh gives, for any text and for every real Oracle text."""

from __future__ import annotations

import gzip
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup, escape

from kb.locales import LOCALES, Locale
from kb.site import mana
from tests.realdata import realdata

_SYMBOL_RUN = re.compile(r"(?:\{[^{}]+\})+")
_REMINDER = re.compile(r"\([^()]*\)")


def afresh(text: str, locale: Locale, among_english: bool = False) -> Markup:
    """The plain way, line by line with nothing kept (rules_text before it kept parts)."""

    def symbols(found: re.Match[str]) -> str:
        return str(mana.mana_symbols(found[0], locale, among_english))

    paragraphs = []
    for line in text.split("\n"):
        escaped = str(escape(line))
        escaped = _REMINDER.sub(lambda found: f"<i>{found[0]}</i>", escaped)
        escaped = _SYMBOL_RUN.sub(symbols, escaped)
        paragraphs.append(f"<p>{escaped}</p>")
    return Markup("\n".join(paragraphs))


# Texts made of the pieces that matter: symbols, braces that open across a line, reminders,
# characters that are escaped.
PIECES = st.sampled_from(
    ["{T}", "{1}{G}", "{W/U}", "{2/B}", "{G/P}", "{CHAOS}", "{", "}", "(", ")", "\n", "<", "&"]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, locale=st.sampled_from(LOCALES), among_english=st.booleans())
def test_rules_text_is_the_text_made_afresh(text: str, locale: Locale, among_english: bool) -> None:
    made = mana.rules_text(text, locale, among_english)
    assert made == afresh(text, locale, among_english)
    assert mana.rules_text(text, locale, among_english) == made  # again, from what was kept


def test_symbols_among_english_text_say_their_language() -> None:
    german, english = LOCALES[1], LOCALES[0]
    assert (german.code, english.code) == ("de", "en")
    assert mana.mana_symbols("{G}", german, among_english=True) == Markup(
        '<span class="mana-cost" lang="de" role="img" aria-label="grün">'
        '<span class="ms ms-g" aria-hidden="true">G</span></span>'
    )
    assert 'lang="de"' not in mana.mana_symbols("{G}", german)  # in the page's own text
    assert "lang=" not in mana.mana_symbols("{G}", english, among_english=True)  # English already


def test_every_real_oracle_text_in_every_locale_is_the_text_made_afresh() -> None:
    texts = set()
    for path in sorted(realdata("mtgjson-sets-2022-05").glob("[A-M]*.json.gz"))[:60]:
        with gzip.open(path) as stream:
            texts.update(card.get("text", "") for card in json.load(stream)["data"]["cards"])
    assert len(texts) > 2000
    for locale in LOCALES:
        for text in sorted(texts):
            for among in (False, True):
                made = mana.rules_text(text, locale, among)
                assert made == afresh(text, locale, among), (locale.code, among, text)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, locale=st.sampled_from(LOCALES))
def test_a_ruling_is_its_text_escaped_with_its_symbols_said_in_the_pages_language(
    text: str, locale: Locale
) -> None:
    """The plain way: escaped, each run of symbols as mana_symbols among English text; no
    paragraph, and the ruling's own parentheses are not reminder text."""

    def symbols(found: re.Match[str]) -> str:
        return str(mana.mana_symbols(found[0], locale, among_english=True))

    made = mana.ruling_text(text, locale)
    assert made == Markup(_SYMBOL_RUN.sub(symbols, str(escape(text))))
    assert "<i>" not in made and "<p>" not in made


def test_a_real_ruling_shows_its_symbols() -> None:
    german = LOCALES[1]
    ruling = "You can find only a card with mana cost {0} or {1} (not {X})."
    assert mana.ruling_text(ruling, german) == Markup(
        "You can find only a card with mana cost "
        '<span class="mana-cost" lang="de" role="img" aria-label="0">'
        '<span class="ms" aria-hidden="true">0</span></span> or '
        '<span class="mana-cost" lang="de" role="img" aria-label="1">'
        '<span class="ms" aria-hidden="true">1</span></span> (not '
        '<span class="mana-cost" lang="de" role="img" aria-label="X">'
        '<span class="ms" aria-hidden="true">X</span></span>).'
    )
    assert mana.ruling_text("No symbol: <b> & 'quotes'", german) == escape(
        "No symbol: <b> & 'quotes'"
    )
