"""The pages beside the card pages (home, A–Z index, recent changes and feed, mechanics, root
pages, sitemaps): how to render each, and how to fingerprint it once the cards' names are
digested."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, partial

from sqlalchemy.engine import Engine

from kb.locales import Locale
from kb.site import feed, render
from kb.site.changes import recent_changes
from kb.site.data import localized_cards
from kb.site.fingerprints import Fingerprints, digest, encoded
from kb.site.manifest import Manifest
from kb.site.reading import reading
from kb.site.render import (
    ROOT_PAGES,
    CardList,
    Languages,
    Page,
    Renderer,
    SitemapPage,
    Urls,
    home_page,
    robots,
    root_pages,
    search_script,
    sitemap,
    sitemap_index,
    sitemap_pages,
    sitemap_path,
    stylesheet,
)
from kb.site.staging import Stager
from kb.site.views import CardEntry, LocalizedCard, MechanicView, RecentChanges, SiteIndex
from kb.translations.coverage import Coverage

SITEMAP_GROUPS = 300
"""Pages (each in 11 languages) per sitemap file: 3,300 addresses (about 4 MB with their
alternates, rendered in memory), under the protocol's 50,000 and 50 MB.
A larger site's sitemap.xml is an index of sitemap-1.xml, sitemap-2.xml, ..."""

OtherDone = list[tuple[str, str, bool]]
"""Per other page rendered: (path, hash, written)."""


@dataclass
class OtherPagesPlan:
    """The pages beside the card pages: how to render each, and how to fingerprint it once
    the cards' names are digested (the fingerprints need them; rendering does not)."""

    renderers: list[tuple[str, Callable[[], Page]]] = field(default_factory=list)
    _fingerprints: dict[str, Callable[[], str]] = field(default_factory=dict)
    _releases: list[Callable[[], None]] = field(default_factory=list)
    """How to let go of what the renderers share, once the pages are staged."""

    def add(self, path: str, fingerprint: Callable[[], str], renderer: Callable[[], Page]) -> None:
        self._fingerprints[path] = fingerprint
        self.renderers.append((path, renderer))

    def fingerprints(self) -> dict[str, str]:
        return {path: fingerprint() for path, fingerprint in self._fingerprints.items()}

    def after_staging(self, release: Callable[[], None]) -> None:
        self._releases.append(release)

    def staged(self) -> None:
        for release in self._releases:
            release()


class LocalizedCards:
    """The cards with their names in one locale, for the pages that list them. A full build
    renders those pages locale by locale: only the last locale's whole list is kept. An
    incremental one renders a mechanic's pages one after the other: its cards' names in every
    locale built are read at once, and kept until the next mechanic's."""

    def __init__(self, engine: Engine, index: SiteIndex, locales: Sequence[Locale]) -> None:
        self.engine = engine
        self.index = index
        self.locales = locales
        self._every: CardList | None = None
        self._some: tuple[Sequence[int], dict[str, list[LocalizedCard]]] | None = None

    def every(self, locale: Locale) -> CardList:
        """Every card."""
        if self._every is None or self._every.locale != locale:
            self._every = None  # let the previous locale's go before reading the next
            cards = self._read(self.index.cards, [locale.code])
            self._every = CardList(cards[locale.code], locale)
        return self._every

    def forget(self) -> None:
        """Let the lists go (a large site's whole list is about 15 MB)."""
        self._every = None
        self._some = None

    def some(self, locale: Locale, ids: Sequence[int]) -> CardList:
        """At least these cards: read alone unless the locale's whole list is at hand (an
        incremental build renders a mechanic's page without the A–Z index)."""
        if self._every is not None and self._every.locale == locale:
            return self._every
        if self._some is None or self._some[0] is not ids:
            self._some = None
            positions = sorted(self.index.positions[card_id] for card_id in ids)
            cards = [self.index.cards[position] for position in positions]
            self._some = ids, self._read(cards, [built.code for built in self.locales])
        return CardList(self._some[1][locale.code], locale)

    def _read(self, cards: Sequence[CardEntry], codes: list[str]) -> dict[str, list[LocalizedCard]]:
        with reading(self.engine) as connection:
            return localized_cards(connection, cards, codes)


def plan_other_pages(
    engine: Engine,
    index: SiteIndex,
    locales: Sequence[Locale],
    languages: Languages,
    base_url: str,
    fingerprints: Fingerprints,
    mechanic_list: str,
    names: list[str],
    renderer: Renderer,
    sitemap_fingerprints: dict[str, str],
    full: bool,
    coverage: Mapping[str, Coverage],
) -> OtherPagesPlan:
    """The pages beside the card pages of the locales built (``full``: of a build that renders
    them all) of the site of these languages and base address ("" none).
    ``mechanic_list`` is the mechanics' fingerprint;
    ``names`` will hold each card's names digest by the time the fingerprints are taken;
    ``renderer`` renders the pages it can (from stencils); ``sitemap_fingerprints`` holds the
    sitemaps' fingerprints, by path, once taken (a build that keeps running keeps them);
    ``coverage``: each translation locale's, which its home page states."""
    plan = OtherPagesPlan()
    localized = LocalizedCards(engine, index, locales)
    plan.after_staging(localized.forget)
    all_names = cache(lambda: digest("\n".join(names)))
    counts = fingerprints.of(len(index.cards), index.ruling_count, mechanic_list)

    @cache
    def mechanic_fingerprint(key: str) -> str:
        """What the mechanic's page shows in any locale."""
        mechanic = index.mechanics[key]
        positions = index.positions
        return fingerprints.of(
            mechanic_list,
            mechanic.key,
            mechanic.rule,
            encoded(mechanic.general_rulings),
            [names[positions[card_id]] for card_id in mechanic.card_ids],
        )

    def add_mechanic_page(locale: Locale, mechanic: MechanicView) -> None:
        plan.add(
            Urls.mechanic(locale, mechanic),
            lambda: mechanic_fingerprint(mechanic.key),
            lambda: renderer.mechanic(mechanic, localized.some(locale, mechanic.card_ids)),
        )

    def az_page(locale: Locale) -> Page:
        return renderer.cards(localized.every(locale))

    @cache
    def recent() -> RecentChanges:
        with reading(engine) as connection:
            return recent_changes(connection, index)

    # What the feeds and recent changes pages receive, whole: the same in every locale.
    changes = cache(lambda: fingerprints.of(encoded(recent())))

    def changes_page(locale: Locale) -> Page:
        return feed.changes_page(recent(), locale, languages)

    def feed_page(locale: Locale) -> Page:
        return feed.feed(recent(), locale, languages, base_url)

    for locale in locales:
        shown = coverage.get(locale.code)
        plan.add(
            Urls.home(locale),
            partial(fingerprints.of, counts, encoded(shown)),
            partial(home_page, index, locale, languages, shown),
        )
        plan.add(Urls.cards(locale), lambda: fingerprints.of(all_names()), partial(az_page, locale))
        plan.add(Urls.changes(locale), changes, partial(changes_page, locale))
        plan.add(Urls.feed(locale), changes, partial(feed_page, locale))
        if full:  # after the locale's A–Z page, from the same list of its cards
            for mechanic in index.mechanics.values():
                add_mechanic_page(locale, mechanic)
    if not full:  # a mechanic's pages one after the other, from its cards' names read at once
        for mechanic in index.mechanics.values():
            for locale in locales:
                add_mechanic_page(locale, mechanic)
    fixed = fingerprints.of()
    rendered_root_pages = cache(lambda: root_pages(base_url or "/", languages))

    def root_page(number: int) -> Page:
        return rendered_root_pages()[number]

    for number, path in enumerate(ROOT_PAGES):
        plan.add(path, lambda: fixed, partial(root_page, number))
    for static in (stylesheet(), search_script()):
        plan.add(static.path, lambda: fixed, partial(lambda page: page, static))
    robots_page = robots(base_url)
    plan.add(robots_page.path, lambda: fixed, lambda: robots_page)
    if not base_url:  # a sitemap's addresses are absolute
        return plan
    pages = sitemap_pages(index)
    parts = [
        pages[start : start + SITEMAP_GROUPS] for start in range(0, len(pages), SITEMAP_GROUPS)
    ]
    if len(parts) == 1:
        paths = [render.SITEMAP]
    else:
        sitemaps = sitemap_index(base_url, len(parts))
        plan.add(sitemaps.path, lambda: fingerprints.of(len(parts)), lambda: sitemaps)
        paths = [render.sitemap_part_path(number) for number in range(1, len(parts) + 1)]

    def sitemap_fingerprint(path: str, part: list[SitemapPage]) -> str:
        if path not in sitemap_fingerprints:
            first = languages[0]
            listed = [sitemap_path(page, first) for page in part]
            sitemap_fingerprints[path] = fingerprints.of(listed)
        return sitemap_fingerprints[path]

    for path, part in zip(paths, parts, strict=True):
        plan.add(
            path,
            partial(sitemap_fingerprint, path, part),
            partial(sitemap, base_url, path, part, languages),
        )
    return plan


def stage_other_pages(
    plan: OtherPagesPlan,
    fingerprints: dict[str, str] | None,
    manifest: Manifest,
    stager: Stager,
) -> OtherDone:
    """Render and stage the other pages: all of them (``fingerprints`` None), or those whose
    fingerprint differs from the ``manifest``'s (the previous site's) or whose file is
    missing."""
    previous = stager.previous
    done = []
    for path, renderer in plan.renderers:
        recorded, old_hash = manifest.pages.get(path, ("", ""))
        if (
            fingerprints is not None
            and previous is not None
            and recorded == fingerprints[path]
            and previous.present(path)
        ):
            continue
        done.append((path, *stager.stage(renderer(), old_hash)))
    plan.staged()
    return done
