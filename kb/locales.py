"""The eleven print languages of Magic and every source's spelling of them.

kb keeps one canonical code per locale (BCP 47: ``pt-BR``, ``zh-Hans``); each source spells them
its own way (Scryfall ``zhs``, MTGJSON "Chinese Simplified", Gatherer ``zh-cn``). This module is
the one place that maps a spelling onto the canonical code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Locale:
    code: str
    english_name: str
    native_name: str
    babel: str
    """Babel/CLDR identifier (``pt_BR``); also the catalog folder under kb/locale/."""

    @cached_property
    def folder(self) -> str:
        """Output folder of the site: lower case, URL-safe (``pt-br``, ``zh-hans``)."""
        return self.code.lower()

    def __hash__(self) -> int:
        """The code's (a string's hash is cached): the renderer's caches are keyed by locale,
        and a dataclass hashes all its fields on every lookup."""
        return hash(self.code)


LOCALES: tuple[Locale, ...] = (
    Locale("en", "English", "English", "en"),
    Locale("de", "German", "Deutsch", "de"),
    Locale("fr", "French", "français", "fr"),
    Locale("it", "Italian", "italiano", "it"),
    Locale("es", "Spanish", "español", "es"),
    Locale("pt-BR", "Portuguese (Brazil)", "português (Brasil)", "pt_BR"),
    Locale("ja", "Japanese", "日本語", "ja"),
    Locale("ko", "Korean", "한국어", "ko"),
    Locale("ru", "Russian", "русский", "ru"),
    Locale("zh-Hans", "Chinese Simplified", "简体中文", "zh_Hans"),
    Locale("zh-Hant", "Chinese Traditional", "繁體中文", "zh_Hant"),
)
LOCALE_CODES: tuple[str, ...] = tuple(locale.code for locale in LOCALES)
BY_CODE: dict[str, Locale] = {locale.code: locale for locale in LOCALES}
LATIN_SCRIPT: frozenset[str] = frozenset({"en", "de", "fr", "it", "es", "pt-BR"})
"""The locales written in Latin letters, as English is; Japanese, Korean, Russian and Chinese
are not: there a name or text in Latin letters is English left untranslated."""
_PAST_LATIN = 0x250
"""The first code point past the Latin alphabets (Basic Latin to Latin Extended-B)."""


def in_latin_letters(text: str) -> bool:
    """Whether the text has letters, all of them Latin (a Japanese one stops at its first): in
    a locale not in LATIN_SCRIPT, English left untranslated."""
    letters = False
    for char in text:
        if char.isalpha():
            if ord(char) >= _PAST_LATIN:
                return False
            letters = True
    return letters


# Spellings seen in the sources, compared case-insensitively. Scryfall `lang` codes, MTGJSON
# `foreignData.language` names, Gatherer URL locales and POSIX/Babel identifiers.
_ALIASES: dict[str, str] = {
    "english": "en",
    "en-us": "en",
    "en_us": "en",
    "german": "de",
    "de-de": "de",
    "de_de": "de",
    "french": "fr",
    "fr-fr": "fr",
    "fr_fr": "fr",
    "italian": "it",
    "it-it": "it",
    "it_it": "it",
    "spanish": "es",
    "es-es": "es",
    "es_es": "es",
    "portuguese (brazil)": "pt-BR",
    "portuguese": "pt-BR",
    "pt": "pt-BR",
    "pt_br": "pt-BR",
    "japanese": "ja",
    "ja-jp": "ja",
    "ja_jp": "ja",
    "korean": "ko",
    "ko-kr": "ko",
    "ko_kr": "ko",
    "russian": "ru",
    "ru-ru": "ru",
    "ru_ru": "ru",
    "chinese simplified": "zh-Hans",
    "zhs": "zh-Hans",
    "zh-cn": "zh-Hans",
    "zh_cn": "zh-Hans",
    "zh_hans": "zh-Hans",
    "chinese traditional": "zh-Hant",
    "zht": "zh-Hant",
    "zh-tw": "zh-Hant",
    "zh_tw": "zh-Hant",
    "zh_hant": "zh-Hant",
}
_CANONICAL: dict[str, str] = (
    {code: code for code in LOCALE_CODES} | {code.lower(): code for code in LOCALE_CODES} | _ALIASES
)


def canonical_locale(spelling: str) -> str | None:
    """The canonical code for a source's spelling of a print language, None if not one of 11."""
    try:
        return _CANONICAL[spelling]
    except KeyError:
        return _CANONICAL.get(spelling.strip().lower())
