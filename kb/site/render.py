"""Rendering pages: one Jinja2 environment per locale (templates compiled once per process),
CLDR dates and collation, mana symbols. Pure: data in, page text out."""

from __future__ import annotations

import datetime as dt
import re
import struct
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any, TypeVar
from xml.sax.saxutils import escape as xml_escape

from babel import Locale as BabelLocale
from babel.dates import format_date
from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, select_autoescape
from markupsafe import Markup, escape
from pyuca import Collator

from kb.locales import BY_CODE, LOCALES, Locale
from kb.resources import resource_dir
from kb.site.data import CardView, MechanicView, RulingView, SiteData
from kb.site.i18n import translations
from kb.site.paths import relative_href

ROOT_INDEX = "index.html"
SITEMAP = "sitemap.xml"
_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_SITEMAP_NS = '"http://www.sitemaps.org/schemas/sitemap/0.9"'
NOT_FOUND = "404.html"
STYLESHEET = "static/style.css"
_MANA_SYMBOL = re.compile(r"\{([^{}]+)\}")
_COLOURS = frozenset("WUBRGC")
_HANGUL_INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
"""The 19 leading consonants (U+1100 to U+1112) as the letters Korean indexes show."""


N = TypeVar("N", CardView, MechanicView)


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
def _cached_mana_symbols(cost: str) -> Markup:
    return mana_symbols(cost)


@cache
def _published(day: dt.date | None, locale: Locale) -> tuple[str, str] | None:
    """A ruling's date as (ISO, CLDR's medium format); few distinct dates stand on a site's
    many rulings."""
    if day is None:
        return None
    return day.isoformat(), format_date(day, "medium", locale=locale.babel)


@cache
def _collator() -> Collator:
    return Collator()


_LEVELS = 4
"""pyuca's sort key: the weights of each of four levels in turn, levels separated by 0."""


@cache
def _character(character: str) -> tuple[tuple[tuple[int, ...], ...], frozenset[int]]:
    """One character's non-zero weights per level, and the characters that would continue a
    contraction it starts (DUCET's multi-character entries)."""
    collator = _collator()
    node = collator.table.root.children.get(ord(character))
    elements = node.value if node is not None and node.value else None
    if elements is None:
        elements = collator.implicit_weight(ord(character))
    weights = tuple(
        tuple(element[level] for element in elements if len(element) > level and element[level])
        for level in range(_LEVELS)
    )
    return weights, frozenset(node.children or ()) if node is not None else frozenset()


def sort_key(name: str) -> bytes:
    """The Unicode Collation Algorithm's key (DUCET): "Éclair" sorts with E, kana in gojūon
    order, Hangul in its alphabetical order.

    pyuca's key, computed from cached per-character weights unless a contraction may be
    involved (a character followed by one that continues a contraction it starts, or by a
    combining mark): a whole site sorts hundreds of thousands of names. Packed as bytes (each
    weight big-endian in two bytes, so bytes compare as the weights do): a tenth of the memory
    of a tuple of ints when a locale's 30,000 names are sorted."""
    decomposed = unicodedata.normalize("NFD", name)
    characters = [_character(character) for character in decomposed]
    for (_weights, continuations), following in zip(characters, decomposed[1:], strict=False):
        if continuations and (ord(following) in continuations or unicodedata.combining(following)):
            return pack_weights(_collator().sort_key(name))
    key: list[int] = []
    for level in range(_LEVELS):
        if level:
            key.append(0)
        for weights, _continuations in characters:
            key.extend(weights[level])
    return pack_weights(key)


def pack_weights(weights: Sequence[int]) -> bytes:
    """Collation weights (16-bit in DUCET) as bytes that compare as the weights do."""
    return struct.pack(f">{len(weights)}H", *weights)


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
    env.filters["mana"] = _cached_mana_symbols
    env.globals.update(
        locale=locale,
        locales=LOCALES,
        urls=Urls,
        name_in=local_name,
        native_name=native_name,
        published=lambda day: _published(day, locale),
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


_SLOT = re.compile("\ue000(\\w+)\ue001")


def _slot(name: str) -> Markup:
    """A placeholder that survives rendering and escaping unchanged (private-use characters)."""
    return Markup(f"\ue000{name}\ue001")


def _format_string(rendered: str) -> str:
    """Rendered text with slots as a ``str.format`` string: filled in C, not in Python."""
    parts = _SLOT.split(rendered.replace("{", "{{").replace("}", "}}"))
    return "".join(f"{{{part}}}" if index % 2 else part for index, part in enumerate(parts))


class CardPages:
    """Card pages at scale: most of a card page is the same on every card of a locale, and most
    rulings stand on many cards.

    The frame (head, alternates, header, language switcher, footer) differs between the cards
    of a locale only by slug, title and body, so it is rendered once per locale with
    placeholders and filled per card; a ruling is rendered once per locale (until
    ``forget_rulings``) and its date filled in. Only the body is rendered per page. One instance
    per build: its caches hold the build's rulings."""

    def __init__(self, mechanics: dict[str, MechanicView]) -> None:
        self.mechanics = mechanics
        self._frames: dict[str, str] = {}
        self._rulings: dict[tuple[str, int, bool], str] = {}

    def _frame(self, locale: Locale) -> str:
        """The page as a format string with slots slug, title and body."""
        frame = self._frames.get(locale.code)
        if frame is None:
            slug = _slot("slug")
            versions = [(other, f"{other.folder}/cards/{slug}.html") for other in LOCALES]
            page = _render(
                locale,
                "card.html",
                f"{locale.folder}/cards/{slug}.html",
                versions,
                title=_slot("title"),
                body=_slot("body"),
            )
            frame = self._frames[locale.code] = _format_string(page.text)
        return frame

    def forget_rulings(self) -> None:
        self._rulings.clear()

    def _ruling(self, locale: Locale, ruling: RulingView, show: Any) -> Markup:
        """A ruling as the card page shows it: rendered once per locale, its date filled in."""
        dated = ruling.published_on is not None
        key = (locale.code, ruling.id, dated)
        item = self._rulings.get(key)
        if item is None:
            published = (_slot("iso"), _slot("day")) if dated else None
            item = self._rulings[key] = _format_string(
                show.ruling_item(ruling, self.mechanics, published)
            )
        if not dated:
            return Markup(item.format())
        iso, day = _published(ruling.published_on, locale) or ("", "")
        return Markup(item.format(iso=iso, day=day))

    def render(self, card: CardView, locale: Locale) -> Page:
        path = Urls.card(locale, card)
        body_template = _template(locale, "_card.html")
        show = _rulings_module(locale)
        body = body_template.render(
            root=CARD_ROOT,
            show=show,
            card=card,
            ruling_count=_ruling_count(locale, len(card.rulings)),
            rulings=[self._ruling(locale, ruling, show) for ruling in card.rulings],
        )
        title = escape(local_name(card, locale))
        return Page(path, self._frame(locale).format(slug=card.slug, title=title, body=body))


@cache
def _ruling_count(locale: Locale, count: int) -> str:
    """ "3 rulings" in the locale's plural form: a card page's heading, one per count."""
    return translations(locale.code).ngettext("%(count)s ruling", "%(count)s rulings", count) % {
        "count": count
    }


CARD_ROOT = "../../"
"""From a card page (``de/cards/x.html``) to the site's root."""


@cache
def _rulings_module(locale: Locale) -> Any:
    """The macros of _rulings.html, bound to a card page's context."""
    return _template(locale, "_rulings.html").make_module({"root": CARD_ROOT})


def by_local_name(named: Iterable[N], locale: Locale) -> list[N]:
    return sorted(named, key=lambda item: sort_key(local_name(item, locale)))


def home_page(site: SiteData, locale: Locale) -> Page:
    """A locale's home: counts, language picker, mechanics."""
    return _render(
        locale,
        "home.html",
        Urls.home(locale),
        _versions(Urls.home),
        card_count=len(site.cards),
        ruling_count=site.ruling_count,
        mechanic_list=by_local_name(site.mechanics.values(), locale),
    )


def cards_page(site: SiteData, locale: Locale) -> Page:
    """A locale's cards A–Z, grouped by initial letter."""
    groups: dict[str, list[CardView]] = {}
    for card in by_local_name(site.cards, locale):
        groups.setdefault(initial(local_name(card, locale)), []).append(card)
    return _render(
        locale, "cards.html", Urls.cards(locale), _versions(Urls.cards), groups=list(groups.items())
    )


def mechanic_page(
    site: SiteData, locale: Locale, mechanic: MechanicView, cards_by_id: dict[int, CardView]
) -> Page:
    """A mechanic: its general rulings and its cards."""
    return _render(
        locale,
        "mechanic.html",
        Urls.mechanic(locale, mechanic),
        _versions(Urls.mechanic, mechanic),
        mechanic=mechanic,
        cards=by_local_name((cards_by_id[card_id] for card_id in mechanic.card_ids), locale),
        mechanics=site.mechanics,
    )


def root_pages() -> list[Page]:
    """The pages outside the locale folders: the root language picker and 404."""
    english = BY_CODE["en"]
    homes = _versions(Urls.home)
    return [
        _render(english, "root.html", ROOT_INDEX, homes),
        _render(english, "404.html", NOT_FOUND, homes),
    ]


def robots(base_url: str) -> Page:
    return Page("robots.txt", f"User-agent: *\nAllow: /\n\nSitemap: {base_url}{SITEMAP}\n")


PathOf = Callable[[Locale], str]
"""A page of the site in any locale: its path in that locale."""


def sitemap_pages(site: SiteData) -> list[PathOf]:
    """Every page that has a version per locale (paths made only when a sitemap is written)."""
    pages: list[PathOf] = [Urls.home, Urls.cards]
    pages += [partial(Urls.card, card=card) for card in site.cards]
    pages += [partial(Urls.mechanic, mechanic=mechanic) for mechanic in site.mechanics.values()]
    return pages


def sitemap_part_path(number: int) -> str:
    return f"sitemap-{number}.xml"


def sitemap_index(base_url: str, parts: int) -> Page:
    """The sitemap index: one sitemap per part, since a sitemap holds at most 50,000 addresses."""
    entries = "".join(
        f"<sitemap><loc>{xml_escape(base_url + sitemap_part_path(number))}</loc></sitemap>\n"
        for number in range(1, parts + 1)
    )
    return Page(
        SITEMAP, f"{_XML_DECLARATION}<sitemapindex xmlns={_SITEMAP_NS}>\n{entries}</sitemapindex>\n"
    )


def sitemap(base_url: str, path: str, pages: Sequence[PathOf]) -> Page:
    """A sitemap of ``pages``: each language version with every alternate and
    the English page as ``x-default``."""
    lines = [
        f"{_XML_DECLARATION}<urlset xmlns={_SITEMAP_NS} "
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
    ]
    for path_of in pages:
        urls = [xml_escape(base_url + path_of(other)) for other in LOCALES]
        alternates = (
            "".join(
                f'<xhtml:link rel="alternate" hreflang="{other.code}" href="{url}"/>\n'
                for other, url in zip(LOCALES, urls, strict=True)
            )
            + f'<xhtml:link rel="alternate" hreflang="x-default" href="{urls[0]}"/>\n'
        )
        lines.extend(f"<url>\n<loc>{url}</loc>\n{alternates}</url>\n" for url in urls)
    lines.append("</urlset>\n")
    return Page(path, "".join(lines))


def stylesheet() -> Page:
    return Page(STYLESHEET, (resource_dir("templates") / "static" / "style.css").read_text("utf-8"))
