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


def afresh(text: str, locale: Locale) -> Markup:
    """The plain way, line by line with nothing kept (rules_text before it kept parts)."""
    paragraphs = []
    for line in text.split("\n"):
        escaped = str(escape(line))
        escaped = _REMINDER.sub(lambda found: f"<i>{found[0]}</i>", escaped)
        escaped = _SYMBOL_RUN.sub(lambda found: str(mana.mana_symbols(found[0], locale)), escaped)
        paragraphs.append(f"<p>{escaped}</p>")
    return Markup("\n".join(paragraphs))


# Texts made of the pieces that matter: symbols, braces that open across a line, reminders,
# characters that are escaped.
PIECES = st.sampled_from(
    ["{T}", "{1}{G}", "{W/U}", "{2/B}", "{G/P}", "{CHAOS}", "{", "}", "(", ")", "\n", "<", "&"]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, locale=st.sampled_from(LOCALES))
def test_rules_text_is_the_text_made_afresh(text: str, locale: Locale) -> None:
    assert mana.rules_text(text, locale) == afresh(text, locale)
    assert mana.rules_text(text, locale) == afresh(text, locale)  # again, from what was kept


def test_every_real_oracle_text_in_every_locale_is_the_text_made_afresh() -> None:
    texts = set()
    for path in sorted(realdata("mtgjson-sets-2022-05").glob("[A-M]*.json.gz"))[:60]:
        with gzip.open(path) as stream:
            texts.update(card.get("text", "") for card in json.load(stream)["data"]["cards"])
    assert len(texts) > 2000
    for locale in LOCALES:
        for text in sorted(texts):
            assert mana.rules_text(text, locale) == afresh(text, locale), (locale.code, text)
