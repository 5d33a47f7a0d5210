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


def afresh(text: str, locale: Locale, among_english: bool = False) -> Markup:
    """The plain way, line by line with nothing kept (rules_text before it kept parts)."""

    def symbols(found: re.Match[str]) -> str:
        return str(mana.mana_symbols(found[0], locale, among_english))

    paragraphs = []
    for line in text.split("\n"):
        escaped = str(escape(line))
        escaped = mana._set_apart(escaped, locale.code == "ja")  # which parentheses: tested below
        escaped = _SYMBOL_RUN.sub(symbols, escaped)
        paragraphs.append(f"<p>{escaped}</p>")
    return Markup("\n".join(paragraphs))


# Texts made of the pieces that matter: symbols, braces that open across a line, reminders,
# characters that are escaped.
PIECES = st.sampled_from(
    [
        *("{T}", "{1}{G}", "{W/U}", "{2/B}", "{G/P}", "{CHAOS}", "{", "}"),
        *("(", ")", "（", "）", "ト", "。", "\n", "<", "&"),
    ]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, locale=st.sampled_from(LOCALES), among_english=st.booleans())
def test_rules_text_is_the_text_made_afresh(text: str, locale: Locale, among_english: bool) -> None:
    made = mana.rules_text(text, locale, among_english)
    assert made == afresh(text, locale, among_english)
    assert mana.rules_text(text, locale, among_english) == made  # again, from what was kept


def test_reminder_text_is_set_apart_whole_in_either_form_of_parentheses() -> None:
    """Japanese and Chinese cards print reminder text in full-width parentheses; a reminder
    may hold a pair of its own; MTGJSON pairs one form with the other in a few texts. (Real
    lines of the 2022 corpus: M14's Japanese Angelic Wall, THS's Japanese bestow, Return to
    Ravnica's French overload, Kaladesh's Chinese energy, Fate Reforged's Chinese Dragonscale
    Boon.)"""
    japanese, french = LOCALES[6], LOCALES[2]
    assert (japanese.code, french.code) == ("ja", "fr")
    shown = {
        "防衛（このクリーチャーでは攻撃できない。）飛行": (
            "<p>防衛<i>（このクリーチャーでは攻撃できない。）</i>飛行</p>"
        ),
        "授与（これはエンチャント（クリーチャー）を持つ。）": (
            "<p>授与<i>（これはエンチャント（クリーチャー）を持つ。）</i></p>"
        ),
        "Surcharge (remplaçant « ciblé(e) » par « chaque ».)": (
            "<p>Surcharge <i>(remplaçant « ciblé(e) » par « chaque ».)</i></p>"
        ),
        "（傷害與註明「消滅」的效應不會將它消滅。)": (
            "<p><i>（傷害與註明「消滅」的效應不會將它消滅。)</i></p>"
        ),
    }
    for text, expected in shown.items():
        assert mana.rules_text(text, japanese) == Markup(expected)
    # A Japanese keyword's object, in full-width parentheses right after it, is no reminder
    # (THS's Japanese Auras, 5DN's affinity); the same parentheses in Chinese are.
    chinese = LOCALES[9]
    assert chinese.code == "zh-Hans"
    assert mana.rules_text("神器共鸣（你每操控一个神器）", chinese) == Markup(
        "<p>神器共鸣<i>（你每操控一个神器）</i></p>"
    )
    aura = "エンチャント（クリーチャー）\n親和（アーティファクト）（コストは{1}少なくなる。）"
    assert mana.rules_text(aura, japanese) == Markup(
        "<p>エンチャント（クリーチャー）</p>\n"
        "<p>親和（アーティファクト）<i>（コストは"
        + str(mana.mana_symbols("{1}", japanese))
        + "少なくなる。）</i></p>"
    )
    assert mana.rules_text("Vol (un (deux) trois) quatre)", french) == Markup(
        "<p>Vol <i>(un (deux) trois)</i> quatre)</p>"
    )


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
