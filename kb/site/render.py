"""Rendering pages: one Jinja2 environment per locale (templates compiled once per process),
CLDR dates and collation, mana symbols. Pure: data in, page text out."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from babel import Locale as BabelLocale
from babel.dates import format_date
from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, select_autoescape
from markupsafe import Markup
from pyuca import Collator

from kb.locales import BY_CODE, LOCALES, Locale
from kb.resources import resource_dir
from kb.site.data import CardView, MechanicView, SiteData
from kb.site.i18n import translations
from kb.site.paths import relative_href

ROOT_INDEX = "index.html"
NOT_FOUND = "404.html"
STYLESHEET = "static/style.css"
_MANA_SYMBOL = re.compile(r"\{([^{}]+)\}")
_COLOURS = frozenset("WUBRGC")
_HANGUL_INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
"""The 19 leading consonants (U+1100 to U+1112) as the letters Korean indexes show."""


class Urls:
    """Where each page lives, relative to the site's root, with forward slashes."""

    @staticmethod
    def home(locale: Locale) -> str:
        return f"{locale.folder}/index.html"

    @staticmethod
    def cards(locale: Locale) -> str:
        return f"{locale.folder}/cards/index.html"

    @staticmethod
    def card(locale: Locale, card: CardView) -> str:
        return f"{locale.folder}/cards/{card.slug}.html"

    @staticmethod
    def mechanic(locale: Locale, mechanic: MechanicView) -> str:
        return f"{locale.folder}/mechanics/{mechanic.slug}.html"


@dataclass(frozen=True)
class Page:
    path: str
    text: str


def mana_symbols(cost: str) -> Markup:
    """``{1}{U}`` as CSS-drawn symbols, with the cost as the text alternative."""
    symbols = []
    for symbol in _MANA_SYMBOL.findall(cost):
        colours = sorted(set(symbol.upper()) & _COLOURS, key="WUBRGC".index)
        classes = ["ms"] + [f"ms-{colour.lower()}" for colour in colours[:1]]
        if "/" in symbol:
            classes.append("ms-hybrid")
        symbols.append(
            Markup('<span class="{}" aria-hidden="true">{}</span>').format(
                " ".join(classes), symbol
            )
        )
    return Markup('<span class="mana-cost" role="img" aria-label="{}">{}</span>').format(
        cost, Markup("").join(symbols)
    )


@cache
def _collator() -> Collator:
    return Collator()


def sort_key(name: str) -> tuple[int, ...]:
    """The Unicode Collation Algorithm's key (DUCET): "Éclair" sorts with E, kana in gojūon
    order, Hangul in its alphabetical order."""
    return tuple(_collator().sort_key(name))


def initial(name: str) -> str:
    """The letter a name is listed under: the base letter without accents (É → E), the initial
    consonant of a Hangul syllable, else the first character itself."""
    first = unicodedata.normalize("NFKD", name.lstrip()[:1] or "#")[:1]
    if first.isalpha() and unicodedata.category(first) != "Lo":
        return first.upper()
    if "\u1100" <= first <= "\u1112":  # a Hangul syllable decomposes to its leading consonant
        return _HANGUL_INITIALS[ord(first) - 0x1100]
    return first if first.isalpha() else "#"


@cache
def native_name(locale: Locale) -> str:
    """The language named in itself, by CLDR: "Deutsch", "português (Brasil)"."""
    return str(BabelLocale.parse(locale.babel).display_name)


def local_name(named: CardView | MechanicView, locale: Locale) -> str:
    return named.name_in(locale.code) or named.name


@cache
def environment(code: str) -> Environment:
    locale = BY_CODE[code]
    env = Environment(
        loader=FileSystemLoader(resource_dir("templates")),
        autoescape=select_autoescape(default=True, default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    env.install_gettext_translations(translations(code), newstyle=True)  # type: ignore[attr-defined]
    env.filters["date"] = lambda day: format_date(day, "medium", locale=locale.babel)
    env.filters["mana"] = mana_symbols
    env.globals.update(
        locale=locale, locales=LOCALES, urls=Urls, name_in=local_name, native_name=native_name
    )
    return env


def _template(locale: Locale, name: str) -> Template:
    return environment(locale.code).get_template(name)


def _render(
    locale: Locale,
    template: str,
    path: str,
    versions: Sequence[tuple[Locale, str]],
    **context: object,
) -> Page:
    """A page at ``path`` with its language versions (locale, path); links made relative."""
    root = relative_href(path, "")
    alternates = [
        (other, relative_href(path, other_path), other_path == path)
        for other, other_path in versions
    ]
    default = next(href for other, href, _current in alternates if other.code == "en")
    text = _template(locale, template).render(
        root=root, here=path, alternates=alternates, x_default=default, **context
    )
    return Page(path, text)


def _versions(path_of: Callable[..., str], *args: object) -> list[tuple[Locale, str]]:
    """The page in every locale: (locale, path) pairs."""
    return [(other, path_of(other, *args)) for other in LOCALES]


def card_pages(
    card: CardView, mechanics: dict[str, MechanicView], locales: Iterable[Locale]
) -> list[Page]:
    versions = _versions(Urls.card, card)
    return [
        _render(
            locale, "card.html", Urls.card(locale, card), versions, card=card, mechanics=mechanics
        )
        for locale in locales
    ]


def locale_pages(site: SiteData, locale: Locale) -> list[Page]:
    """A locale's home, card index and mechanic pages."""
    cards_by_id = {card.id: card for card in site.cards}
    by_name = sorted(site.cards, key=lambda card: sort_key(local_name(card, locale)))
    groups: dict[str, list[CardView]] = {}
    for card in by_name:
        groups.setdefault(initial(local_name(card, locale)), []).append(card)
    mechanics = sorted(site.mechanics.values(), key=lambda m: sort_key(local_name(m, locale)))
    pages = [
        _render(
            locale,
            "home.html",
            Urls.home(locale),
            _versions(Urls.home),
            card_count=len(site.cards),
            ruling_count=site.ruling_count,
            mechanic_list=mechanics,
        ),
        _render(
            locale,
            "cards.html",
            Urls.cards(locale),
            _versions(Urls.cards),
            groups=list(groups.items()),
        ),
    ]
    for mechanic in mechanics:
        cards = sorted(
            (cards_by_id[card_id] for card_id in mechanic.card_ids),
            key=lambda card: sort_key(local_name(card, locale)),
        )
        pages.append(
            _render(
                locale,
                "mechanic.html",
                Urls.mechanic(locale, mechanic),
                _versions(Urls.mechanic, mechanic),
                mechanic=mechanic,
                cards=cards,
                mechanics=site.mechanics,
            )
        )
    return pages


def site_pages(site: SiteData, base_url: str) -> list[Page]:
    """The pages outside the locale folders: the root language picker, 404, robots, sitemap."""
    english = BY_CODE["en"]
    homes = _versions(Urls.home)
    pages = [
        _render(english, "root.html", ROOT_INDEX, homes),
        _render(english, "404.html", NOT_FOUND, homes),
    ]
    groups = [homes, _versions(Urls.cards)]
    groups += [_versions(Urls.card, card) for card in site.cards]
    groups += [_versions(Urls.mechanic, mechanic) for mechanic in site.mechanics.values()]
    sitemap = _template(english, "sitemap.xml").render(base=base_url, groups=groups)
    robots = f"User-agent: *\nAllow: /\n\nSitemap: {base_url}sitemap.xml\n"
    return [*pages, Page("sitemap.xml", sitemap), Page("robots.txt", robots)]


def stylesheet() -> Page:
    return Page(STYLESHEET, (resource_dir("templates") / "static" / "style.css").read_text("utf-8"))
