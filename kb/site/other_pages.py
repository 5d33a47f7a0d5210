"""The pages beside the card pages (home, A–Z pages, recent changes and feed, mechanics,
root pages, sitemaps): how to render each, and how to fingerprint it once the cards' names are
digested."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, partial

from sqlalchemy.engine import Engine

from kb.locales import Locale
from kb.site import az, feed, render
from kb.site.changes import recent_changes
from kb.site.data import localized_cards
from kb.site.fingerprints import Fingerprints, digest, encoded
from kb.site.kept_names import KeptNames
from kb.site.manifest import Manifest
from kb.site.reading import reading
from kb.site.render import (
    ROOT_PAGES,
    SECTIONS_SITEMAP,
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
    sections_sitemap,
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
Planned = tuple[str, str, Callable[[], Page]]
"""A page of a family: its path, its fingerprint and how to render it."""


@dataclass(frozen=True)
class Release:
    """A point of the plan where what the pages before it shared is let go, once they are
    staged: the pages after it then take memory the build already has, not more."""

    let_go: Callable[[], None]


@dataclass
class Family:
    """Pages planned as one, which are known only once what they show is read: a locale's A–Z
    page and its sections' pages (kb.site.az). One fingerprint, recorded as the first page's
    (``head``), says whether any of them may have changed; then each page's own says whether
    it is rendered. While it stays the same, the previous site's pages stay as recorded, and
    what they show is not even read."""

    head: str
    folder: str
    """Where the other pages are, from the site's root, with a final slash."""
    fingerprint: Callable[[], str]
    resolve: Callable[[], list[Planned]]
    """Every page, the head first (its fingerprint is ``fingerprint``'s, taken once the cards'
    names are digested: a full build renders the pages before)."""
    shortcut: Callable[[], str]
    """A digest of more than the pages show, cheap to take (every card's names in every
    locale, digested per card already): while it is the recorded one, so is the fingerprint,
    which is then not taken (taking it reads every card's name in the locale). The head's
    recorded fingerprint is the two: "shortcut fingerprint"."""
    taken_anyway: bool = False
    """The fingerprint is taken even while the shortcut is the recorded one: a build that
    keeps running takes each locale's once, to keep it (kb.site.kept_names)."""
    pages: list[Planned] | None = None
    carried: dict[str, str] | None = None
    """The pages and fingerprints the previous site records, where the head's is unchanged."""

    def resolved(self) -> list[Planned]:
        if self.pages is None:
            self.pages = self.resolve()
        return self.pages

    def fingerprints(self, recorded: dict[str, tuple[str, str]]) -> dict[str, str]:
        """Each page's fingerprint: as ``recorded`` (the previous site's) if the head's is."""
        shortcut = self.shortcut()
        old_shortcut, _, old = recorded.get(self.head, ("", ""))[0].partition(" ")
        same = old_shortcut == shortcut and not self.taken_anyway
        fingerprint = old if same else self.fingerprint()
        head = f"{shortcut} {fingerprint}"
        if self.pages is None and old == fingerprint:
            self.carried = {
                path: entry[0] for path, entry in recorded.items() if path.startswith(self.folder)
            }
            self.carried[self.head] = head  # its shortcut may be new, never its page
            return self.carried
        found = {
            path: head if path == self.head else own for path, own, _renderer in self.resolved()
        }
        # Only the stale pages' renderers are kept: each holds its cards, and every locale's
        # family is fingerprinted before any is staged.
        self.pages = [
            (path, own, _released if recorded.get(path, ("", ""))[0] == found[path] else renderer)
            for path, own, renderer in self.resolved()
        ]
        return found

    def paths(self) -> list[str]:
        """The pages besides the head, resolved or carried over."""
        found = self.carried if self.pages is None and self.carried is not None else None
        listed = list(found) if found is not None else [page[0] for page in self.resolved()]
        return sorted(path for path in listed if path != self.head)


@dataclass
class OtherPagesPlan:
    """The pages beside the card pages: how to render each, and how to fingerprint it once
    the cards' names are digested (the fingerprints need them; rendering does not).
    ``recorded``: the previous site's other pages, path → (fingerprint, hash)."""

    recorded: dict[str, tuple[str, str]] = field(default_factory=dict)
    entries: list[tuple[str, Callable[[], Page]] | Family | Release] = field(default_factory=list)
    """In the order they are rendered."""
    families: list[Family] = field(default_factory=list)
    _fingerprints: dict[str, Callable[[], str]] = field(default_factory=dict)

    def add(self, path: str, fingerprint: Callable[[], str], renderer: Callable[[], Page]) -> None:
        self._fingerprints[path] = fingerprint
        self.entries.append((path, renderer))

    def add_family(self, family: Family) -> None:
        self.families.append(family)
        self.entries.append(family)

    def fingerprints(self) -> dict[str, str]:
        """Every page's: the families' first (a sitemap lists their pages)."""
        found: dict[str, str] = {}
        for family in self.families:
            found.update(family.fingerprints(self.recorded))
        found.update((path, fingerprint()) for path, fingerprint in self._fingerprints.items())
        return found

    @property
    def page_count(self) -> int:
        """The pages planned (a family's once fingerprinted or rendered)."""
        fixed = len(self._fingerprints)
        return fixed + sum(len(family.paths()) + 1 for family in self.families)

    def release(self, let_go: Callable[[], None]) -> None:
        """Let go of what the pages planned so far share once they are staged (what is let go
        is read again if a page after needs it)."""
        self.entries.append(Release(let_go))


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
        self._unsorted: tuple[Locale, list[LocalizedCard]] | None = None
        self._some: tuple[Sequence[int], dict[str, list[LocalizedCard]]] | None = None

    def unsorted(self, locale: Locale) -> list[LocalizedCard]:
        """Every card, in the index's order (what the locale's A–Z pages are fingerprinted by:
        sorting them is the larger part of making those pages)."""
        if self._unsorted is None or self._unsorted[0] != locale:
            self._every = self._unsorted = None  # the previous locale's go before the next
            self._unsorted = locale, self._read(self.index.cards, [locale.code])[locale.code]
        return self._unsorted[1]

    def every(self, locale: Locale) -> CardList:
        """Every card."""
        if self._every is None or self._every.locale != locale:
            cards = self.unsorted(locale)
            self._every = CardList(cards, locale)
        return self._every

    def forget(self) -> None:
        """Let the lists go (a large site's whole list is about 15 MB)."""
        self._every = None
        self._unsorted = None
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
            self._some = ids, self.in_every_locale(cards)
        return CardList(self._some[1][locale.code], locale)

    def in_every_locale(self, cards: Sequence[CardEntry]) -> dict[str, list[LocalizedCard]]:
        """These cards in every locale built."""
        return self._read(cards, [locale.code for locale in self.locales])

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
    recorded: dict[str, tuple[str, str]],
    kept_entries: feed.KeptEntries | None = None,
    kept_names: KeptNames | None = None,
) -> OtherPagesPlan:
    """The pages beside the card pages of the locales built (``full``: of a build that renders
    them all) of the site of these languages and base address ("" none).
    ``mechanic_list`` is the mechanics' fingerprint;
    ``names`` will hold each card's names digest by the time the fingerprints are taken;
    ``renderer`` renders the pages it can (from stencils); ``sitemap_fingerprints`` holds the
    sitemaps' fingerprints, by path, once taken (a build that keeps running keeps them);
    ``coverage``: each translation locale's, which its home page states; ``recorded``: the
    previous site's other pages, path → (fingerprint, hash); ``kept_entries``: the feeds'
    and recent changes pages' entries, ``kept_names`` the A–Z pages' fingerprints, kept by a
    build that keeps running."""
    plan = OtherPagesPlan(recorded)
    localized = LocalizedCards(engine, index, locales)
    counts = fingerprints.of(len(index.cards), index.ruling_count, mechanic_list)

    @cache
    def mechanic_fingerprint(key: str) -> str:
        """What the mechanic's page shows in any locale: the mechanic, its general rulings and
        its cards, then its cards' names (apart: see ``mechanic_page_fingerprint``)."""
        mechanic = index.mechanics[key]
        positions = index.positions
        shown = fingerprints.of(
            mechanic_list,  # the mechanic's own view among the others'
            mechanic.key,
            encoded(mechanic.general_rulings),
            mechanic.card_ids,
        )
        cards = fingerprints.of([names[positions[card_id]] for card_id in mechanic.card_ids])
        return f"{shown} {cards}"

    def mechanic_page_fingerprint(path: str, locale: Locale, mechanic: MechanicView) -> str:
        """The page's fingerprint; or, in a build that keeps running, the recorded one where
        only the cards' names changed, and none in this locale (a card with flying renamed in
        German: 11 pages of 3,000 cards each to sort and render, for one that changed)."""
        found = mechanic_fingerprint(mechanic.key)
        recorded_here = recorded.get(path, ("", ""))[0]
        if (
            kept_names is not None
            and recorded_here != found
            and recorded_here.partition(" ")[0] == found.partition(" ")[0]
            and kept_names.none_renamed(locale, mechanic.card_ids, localized.in_every_locale)
        ):
            return recorded_here
        return found

    def add_mechanic_page(locale: Locale, mechanic: MechanicView) -> None:
        path = Urls.mechanic(locale, mechanic)
        plan.add(
            path,
            partial(mechanic_page_fingerprint, path, locale, mechanic),
            lambda: renderer.mechanic(mechanic, localized.some(locale, mechanic.card_ids)),
        )

    # Every card's names in every locale (one digest per card, taken anyway): the A–Z pages'
    # shortcut, the same for every locale.
    every_name = cache(lambda: fingerprints.of("names", digest("\n".join(names))))
    az_fingerprints: dict[str, str] = {}

    def az_fingerprint(locale: Locale) -> str:
        """What the locale's A–Z pages show, whole: every card's names in that locale (an edit
        of a name in another locale leaves these pages, and their sorting, alone). Taken once,
        while the locale's names are read (a full build renders the pages before)."""
        found = az_fingerprints.get(locale.code)
        if found is None and kept_names is not None:
            found = kept_names.unchanged(locale, localized.in_every_locale)
        if found is None:
            cards = localized.unsorted(locale)
            found = fingerprints.of(locale.code, digest(encoded(cards)))
            if kept_names is not None:
                kept_names.taken(locale, found, cards)
        az_fingerprints[locale.code] = found
        return found

    def az_pages(locale: Locale) -> list[Planned]:
        """The locale's A–Z page, then its sections' pages, each fingerprinted by what its
        template receives."""
        az_fingerprint(locale)  # from the list the pages are made of
        cards = localized.every(locale)
        found = az.sections(cards.cards, cards.sections, locale)
        letters = az.letters(found)
        pages: list[Planned] = [(Urls.cards(locale), "", partial(renderer.cards, locale, letters))]
        pages += [
            (
                context["section"].path,
                fingerprints.page(context),
                partial(renderer.section, locale, context),
            )
            for context in az.contexts(found)
        ]
        return pages

    @cache
    def recent() -> RecentChanges:
        with reading(engine) as connection:
            known = kept_entries.card_names if kept_entries is not None else None
            return recent_changes(connection, index, known=known)

    # What the feeds and recent changes pages receive, whole: the same in every locale.
    changes = cache(lambda: fingerprints.page(recent()))

    def forget_changes() -> None:
        """Let the changes go once their pages are staged (a large site's ~5 MB: a ruling
        edited may stand on hundreds of cards, each with its names), their fingerprint
        taken first: a full build takes the fingerprints after staging."""
        if recent.cache_info().currsize:
            changes()
            recent.cache_clear()

    def changes_page(locale: Locale) -> Page:
        return feed.changes_page(recent(), locale, languages, kept_entries)

    def feed_page(locale: Locale) -> Page:
        return feed.feed(recent(), locale, languages, base_url, kept_entries)

    # Each kind of page in every locale, then what they share let go: the changes (a large
    # site's ~5 MB) before the cards' lists are read, those lists (~15 MB) before the sitemaps.
    for locale in locales:
        shown = coverage.get(locale.code)
        plan.add(
            Urls.home(locale),
            partial(fingerprints.of, counts, encoded(shown)),
            partial(home_page, index, locale, languages, shown),
        )
        plan.add(Urls.changes(locale), changes, partial(changes_page, locale))
        plan.add(Urls.feed(locale), changes, partial(feed_page, locale))
    plan.release(forget_changes)
    for locale in locales:
        folder = f"{locale.folder}/{az.FOLDER}/"
        plan.add_family(
            Family(
                Urls.cards(locale),
                folder,
                partial(az_fingerprint, locale),
                partial(az_pages, locale),
                every_name,
                kept_names is not None and kept_names.missing(locale),
            )
        )
        if full:  # after the locale's A–Z page, from the same list of its cards
            for mechanic in index.mechanics.values():
                add_mechanic_page(locale, mechanic)
    if not full:  # a mechanic's pages one after the other, from its cards' names read at once
        for mechanic in index.mechanics.values():
            for locale in locales:
                add_mechanic_page(locale, mechanic)
    plan.release(localized.forget)
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
    if len(parts) == 1 and not index.cards:
        paths = [render.SITEMAP]
    else:  # an index of the parts and of the A–Z sections' sitemap
        paths = [render.sitemap_part_path(number) for number in range(1, len(parts) + 1)]
        listed = [*paths, SECTIONS_SITEMAP] if index.cards else paths
        sitemaps = sitemap_index(base_url, listed)
        plan.add(sitemaps.path, lambda: fingerprints.of(listed), lambda: sitemaps)
    if index.cards:
        built = {locale.folder for locale in locales}

        def section_paths() -> list[str]:
            """Every locale's A–Z sections: those built, and the others' as recorded."""
            found = [path for family in plan.families for path in family.paths()]
            found += [
                path
                for path in recorded
                if path.split("/")[1:2] == [az.FOLDER] and path.split("/")[0] not in built
            ]
            return sorted(found)

        plan.add(
            SECTIONS_SITEMAP,
            lambda: fingerprints.of(section_paths()),
            lambda: sections_sitemap(base_url, section_paths()),
        )

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
    done: OtherDone = []

    def stale(path: str) -> bool:
        recorded, _old_hash = manifest.pages.get(path, ("", ""))
        return (
            fingerprints is None
            or previous is None
            or recorded != fingerprints.get(path)
            or not previous.present(path)
        )

    def stage(path: str, renderer: Callable[[], Page]) -> None:
        done.append((path, *stager.stage(renderer(), manifest.pages.get(path, ("", ""))[1])))

    for entry in plan.entries:
        if isinstance(entry, Release):
            entry.let_go()
            continue
        if not isinstance(entry, Family):
            if stale(entry[0]):
                stage(*entry)
            continue
        if (
            entry.pages is None
            and entry.carried is not None
            and previous is not None
            and all(map(previous.present, entry.carried))
        ):
            continue  # the previous site's pages, all in place (the head's shortcut aside)
        pages = entry.resolved()
        if any(renderer is _released and stale(path) for path, _own, renderer in pages):
            pages = entry.pages = entry.resolve()  # a page recorded unchanged, its file gone
        for path, _fingerprint, renderer in pages:
            if stale(path):
                stage(path, renderer)
        entry.pages = [(path, own, _released) for path, own, _renderer in entry.resolved()]
    return done


def _released() -> Page:
    raise RuntimeError("a page of a family was rendered that was not to be")
