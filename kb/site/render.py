"""Rendering pages: one Jinja2 environment per locale and site (templates compiled once per
process), CLDR dates and collation, mana symbols. Pure: data in, page text out.

A page is its template rendered with its context, and nothing else: the context is what the
page shows (``card``, ``mechanic``...), the environment's globals what every page of a locale
shares (``locale``, ``languages``, ``urls``). Card, mechanic and A–Z pages are filled into
stencils of their templates (kb.site.stencils, the one fast path); ``Renderer(plain=True)``
renders them by Jinja2 alone, which tests/test_render_contract.py compares."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any, TypeVar

from babel import Locale as BabelLocale
from babel.numbers import format_decimal, format_percent
from jinja2 import (
    Environment,
    FileSystemLoader,
    StrictUndefined,
    Template,
    select_autoescape,
)

from kb.locales import BY_CODE, Locale
from kb.resources import resource_dir
from kb.site.collation import collated, sectioned
from kb.site.compiled import CompiledOnce
from kb.site.dates import medium_date
from kb.site.forms import Items
from kb.site.i18n import translations
from kb.site.mana import mana_symbols, rules_text, ruling_text
from kb.site.stencils import Stencils, each, hole_filter, hole_ngettext
from kb.site.views import (
    CardEntry,
    CardView,
    LetterView,
    LocalizedCard,
    MechanicView,
    SiteIndex,
)
from kb.translations.coverage import Coverage

ROOT_INDEX = "index.html"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"
_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_SITEMAP_NS = '"http://www.sitemaps.org/schemas/sitemap/0.9"'
NOT_FOUND = "404.html"
STYLESHEET = "static/style.css"
SEARCH_SCRIPT = "static/search.js"


N = TypeVar("N", LocalizedCard, MechanicView)
SectionContext = dict[str, Any]
"""What an A–Z section's page receives (kb.site.az.context): ``letter``, ``split``,
``section`` (its SectionLink), ``cards`` (Items), ``count``, ``previous`` and ``following``
(SectionLinks or None)."""
Languages = tuple[Locale, ...]
"""The locales of the finished site, in LOCALES' order: a page links to its versions in
those (language switcher, hreflang alternates, sitemaps), and to no other."""


class Urls:
    """Where each page lives, relative to the site's root, with forward slashes."""

    @staticmethod
    def home(locale: Locale) -> str:
        return f"{locale.folder}/index.html"

    @staticmethod
    def cards(locale: Locale) -> str:
        return f"{locale.folder}/cards/index.html"

    @staticmethod
    def card(locale: Locale, card: CardEntry | LocalizedCard) -> str:
        return f"{locale.folder}/cards/{card.slug}.html"

    @staticmethod
    def mechanic(locale: Locale, mechanic: MechanicView) -> str:
        return f"{locale.folder}/mechanics/{mechanic.slug}.html"

    @staticmethod
    def search(locale: Locale) -> str:
        """The locale's search library (kb.site.search writes its bundle)."""
        return f"{locale.folder}/pagefind/pagefind.js"

    @staticmethod
    def changes(locale: Locale) -> str:
        return f"{locale.folder}/changes.html"

    @staticmethod
    def feed(locale: Locale) -> str:
        return f"{locale.folder}/feed.atom"


@dataclass(frozen=True)
class Page:
    path: str
    text: str | bytes
    """Pages rendered by templates come in UTF-8, the form they are hashed and written in."""


@cache
def native_name(locale: Locale) -> str:
    """The language named in itself, by CLDR: "Deutsch", "português (Brasil)"."""
    return str(BabelLocale.parse(locale.babel).display_name)


def local_name(named: CardEntry | LocalizedCard | MechanicView, locale: Locale) -> str:
    return named.name_in(locale.code) or named.name


_COMPILED = CompiledOnce()
TEMPLATES = (
    "card.html",
    "mechanic.html",
    "cards.html",
    "section.html",
    "home.html",
    "changes.html",
    "feed.xml",
    "_feed.xml",
    "_changes.html",
    "_fragments.html",
)
"""The templates of the locale folders' pages."""


def prepare(locales: Iterable[Locale], languages: Languages) -> None:
    """Load the locales' templates and CLDR data now: build workers forked afterwards inherit
    them, and a build that keeps running does not wait for them at the first change."""
    for locale in locales:
        for name in TEMPLATES:
            _template(locale, languages, name)
        medium_date(locale)


@cache
def environment(code: str, languages: Languages) -> Environment:
    """The environment of a locale's pages in a site of these languages."""
    locale = BY_CODE[code]
    env = Environment(
        loader=FileSystemLoader(resource_dir("templates")),
        bytecode_cache=_COMPILED,
        autoescape=select_autoescape(default=True, default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    env.install_gettext_translations(translations(code), newstyle=True)  # type: ignore[attr-defined]
    env.globals["ngettext"] = hole_ngettext(env.globals["ngettext"])  # type: ignore[arg-type]
    env.globals.update(
        locale=locale, languages=languages, urls=Urls, native_name=native_name, each=each
    )
    env.filters.update(
        length=hole_filter(len),
        number=hole_filter(cache(partial(format_decimal, locale=locale.babel))),
        percent=hole_filter(cache(partial(percent, locale=locale.babel))),
        iso_date=hole_filter(cache(dt.date.isoformat)),
        medium_date=hole_filter(cache(medium_date(locale))),
        mana=hole_filter(cache(partial(mana_symbols, locale=locale)), markup=True),
        rules_text=hole_filter(partial(rules_text, locale=locale), markup=True),
        # The same inside English text (the Oracle text): the symbols say their language.
        mana_among_english=hole_filter(
            cache(partial(mana_symbols, locale=locale, among_english=True)), markup=True
        ),
        rules_text_among_english=hole_filter(
            partial(rules_text, locale=locale, among_english=True), markup=True
        ),
        ruling_text=hole_filter(partial(ruling_text, locale=locale), markup=True),
    )
    return env


def percent(share: float, locale: str) -> str:
    """A share as the locale writes a percentage, to a tenth: "9,5 %" (de), "9.5%" (en): the
    tenth keeps a few translations of 23,000 rulings from showing as none."""
    pattern = BabelLocale.parse(locale).percent_formats[None].pattern
    return format_percent(share, pattern.replace("#,##0", "#,##0.0", 1), locale=locale)


def _template(locale: Locale, languages: Languages, name: str) -> Template:
    return environment(locale.code, languages).get_template(name)


PLAIN_RENDERING = "KB_RENDER"
"""``KB_RENDER=plain kb build`` renders every page by Jinja2 alone: the contract test's other
way, and a way to rule the fast path out when a page looks wrong."""


class Renderer:
    """The pages of a site of these languages: filled into stencils of their templates, or
    (``plain``; by default as PLAIN_RENDERING says) rendered by Jinja2 alone."""

    def __init__(self, languages: Languages, plain: bool | None = None) -> None:
        self.languages = languages
        self.plain = os.environ.get(PLAIN_RENDERING) == "plain" if plain is None else plain
        self._stencils = Stencils()
        self._templates: dict[tuple[str, str], Template] = {}

    def _page(self, locale: Locale, name: str, **context: Any) -> bytes:
        template = self._templates.get((locale.code, name))
        if template is None:
            template = self._templates[locale.code, name] = _template(locale, self.languages, name)
        if self.plain:
            return template.render(**context).encode()
        return self._stencils.render(template, locale.code, **context)

    def card(self, card: CardView, locale: Locale) -> Page:
        return Page(Urls.card(locale, card), self._page(locale, "card.html", card=card))

    def mechanic(self, mechanic: MechanicView, cards: CardList) -> Page:
        """A mechanic: its general rulings and its cards."""
        locale = cards.locale
        text = self._page(
            locale,
            "mechanic.html",
            mechanic=mechanic,
            rulings=Items(mechanic.general_rulings),
            cards=cards.items(mechanic.card_ids),
        )
        return Page(Urls.mechanic(locale, mechanic), text)

    def cards(self, locale: Locale, letters: list[LetterView]) -> Page:
        """A locale's A–Z page: its index letters, each linked to its pages (kb.site.az)."""
        return Page(Urls.cards(locale), self._page(locale, "cards.html", letters=letters))

    def section(self, locale: Locale, context: SectionContext) -> Page:
        """One page of a locale's A–Z: a section's cards, and links to its neighbours."""
        return Page(context["section"].path, self._page(locale, "section.html", **context))


def by_local_name(named: Iterable[N], locale: Locale) -> list[N]:
    return collated(named, lambda item: local_name(item, locale), locale.code)


def home_page(
    site: SiteIndex, locale: Locale, languages: Languages, coverage: Coverage | None = None
) -> Page:
    """A locale's home: counts, the translations' coverage (None: English, whose rulings are
    the originals), language picker, mechanics."""
    text = _template(locale, languages, "home.html").render(
        card_count=len(site.cards),
        ruling_count=site.ruling_count,
        coverage=coverage,
        mechanic_list=by_local_name(site.mechanics.values(), locale),
    )
    return Page(Urls.home(locale), text)


class CardList:
    """Cards with their names in one locale, for the pages that list them, sorted once (a card
    is listed on the A–Z page and on every mechanic it has)."""

    def __init__(self, cards: Iterable[LocalizedCard], locale: Locale) -> None:
        self.locale = locale
        listed = sectioned(cards, lambda card: local_name(card, locale), locale.code)
        self.cards = [card for _section, card in listed]
        self.sections = [section for section, _card in listed]
        """Each card's section of the locale's index (collation.label), in the same order."""
        self._rank = {card.id: rank for rank, card in enumerate(self.cards)}

    def items(self, ids: Iterable[int]) -> Items:
        """These cards, in the locale's order."""
        return Items([self.cards[rank] for rank in sorted(self._rank[card_id] for card_id in ids)])


ROOT_PAGES = (ROOT_INDEX, NOT_FOUND)


def root_pages(base_url: str, languages: Languages) -> list[Page]:
    """The pages outside the locale folders (ROOT_PAGES): the root language picker, and the
    404 page, which says "page not found" in every language of the site. A server shows it for
    any missing address, however deep, so its links are absolute under ``base_url`` (or from
    the server's root, "/")."""
    first = languages[0]  # their language: English where the site has it (LOCALES' first)
    not_found = {
        other.code: translations(other.code).gettext("Page not found") for other in languages
    }
    return [
        Page(ROOT_INDEX, _template(first, languages, "root.html").render(root="")),
        Page(
            NOT_FOUND,
            _template(first, languages, "404.html").render(root=base_url, not_found=not_found),
        ),
    ]


def robots(base_url: str) -> Page:
    """robots.txt; it names the sitemap where the site's address is known (``base_url``)."""
    sitemap_line = f"\nSitemap: {base_url}{SITEMAP}\n" if base_url else ""
    return Page(ROBOTS, f"User-agent: *\nAllow: /\n{sitemap_line}")


SitemapPage = Callable[[Locale], str] | CardEntry | MechanicView
"""A page of the site in every locale: a card's, a mechanic's, or another's path in a locale."""


def sitemap_pages(site: SiteIndex) -> list[SitemapPage]:
    """Every page that has a version per locale (the site's own cards and mechanics: a
    site-wide list holds no more than references)."""
    pages: list[SitemapPage] = [Urls.home, Urls.cards, Urls.changes]
    pages += site.cards
    pages += site.mechanics.values()
    return pages


def sitemap_path(page: SitemapPage, locale: Locale) -> str:
    if isinstance(page, CardEntry):
        return Urls.card(locale, page)
    if isinstance(page, MechanicView):
        return Urls.mechanic(locale, page)
    return page(locale)


def sitemap_part_path(number: int) -> str:
    return f"sitemap-{number}.xml"


SECTIONS_SITEMAP = "sitemap-a-z.xml"
"""The A–Z sections' pages: each locale has its own, with no version in another."""


def xml_escape(text: str) -> str:
    """``text`` with ``&``, ``<`` and ``>`` escaped, as ``xml.sax.saxutils.escape`` does it:
    importing that module imports urllib.request and http.client with it, some 30 ms of each
    ``kb build``'s start."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def sitemap_index(base_url: str, paths: Sequence[str]) -> Page:
    """The sitemap index of these sitemaps: a sitemap holds at most 50,000 addresses, and the
    A–Z sections' pages are listed in one of their own."""
    entries = "".join(
        f"<sitemap><loc>{xml_escape(base_url + path)}</loc></sitemap>\n" for path in paths
    )
    return Page(
        SITEMAP, f"{_XML_DECLARATION}<sitemapindex xmlns={_SITEMAP_NS}>\n{entries}</sitemapindex>\n"
    )


def sections_sitemap(base_url: str, paths: Sequence[str]) -> Page:
    """The sitemap of the A–Z sections' pages (``paths``): pages without alternates."""
    entries = "".join(f"<url><loc>{xml_escape(base_url + path)}</loc></url>\n" for path in paths)
    return Page(
        SECTIONS_SITEMAP, f"{_XML_DECLARATION}<urlset xmlns={_SITEMAP_NS}>\n{entries}</urlset>\n"
    )


def sitemap(base_url: str, path: str, pages: Sequence[SitemapPage], languages: Languages) -> Page:
    """A sitemap of ``pages``: each version in the site's languages with every alternate, and
    the first (English where the site has it) as ``x-default``."""
    lines = [
        f"{_XML_DECLARATION}<urlset xmlns={_SITEMAP_NS} "
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
    ]
    for page in pages:
        urls = [xml_escape(base_url + sitemap_path(page, other)) for other in languages]
        alternates = (
            "".join(
                f'<xhtml:link rel="alternate" hreflang="{other.code}" href="{url}"/>\n'
                for other, url in zip(languages, urls, strict=True)
            )
            + f'<xhtml:link rel="alternate" hreflang="x-default" href="{urls[0]}"/>\n'
        )
        # Pieces, not a string per address: the 11 addresses of a page share its alternates.
        for url in urls:
            lines += ("<url>\n<loc>", url, "</loc>\n", alternates, "</url>\n")
    lines.append("</urlset>\n")
    return Page(path, "".join(lines))


def stylesheet() -> Page:
    return Page(STYLESHEET, (resource_dir("templates") / "static" / "style.css").read_text("utf-8"))


def search_script() -> Page:
    return Page(SEARCH_SCRIPT, (resource_dir("templates") / SEARCH_SCRIPT).read_text("utf-8"))
