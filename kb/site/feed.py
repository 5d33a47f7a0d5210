"""Each locale's recent changes page and its Atom feed (RFC 4287), of the changes
kb.site.changes reads: the same entries, each linking the cards' pages in the locale.

Entry ids are ``urn:uuid:`` names (UUID 5) of the locale and the change (the ruling with the
source that linked it, or the revision, each with its time): stable from build to build, and
unchanged when the site moves to another address, as RFC 4287 asks of an id. Times are the
data's (imports, revisions), never the clock's, so the same store gives the same bytes.
Links are absolute under the site's base URL; without one, relative to the feed (RFC 4287
allows IRI references, resolved against the feed's own address)."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup

from kb.locales import Locale
from kb.site.changes import CardNames
from kb.site.collation import collated
from kb.site.fingerprints import encoded
from kb.site.render import Languages, Page, Urls, environment
from kb.site.views import ChangeView, LocalizedCard, RecentChanges

CARDS_LISTED = 20
"""Cards an entry names (a ruling edited may stand on a hundred); the others are counted."""
_IDS = uuid.UUID("0b7d6f5e-3c8a-5d1e-9f42-6a1b2c3d4e5f")
"""The namespace of kb's feed and entry ids (a fixed random UUID: never change it)."""
_NO_TIME = "1970-01-01T00:00:00Z"
"""A feed's ``updated`` where the store has no import yet (Atom requires one)."""


Href = Callable[[LocalizedCard], str]
"""A card's page's address, as the page or feed that links to it writes it."""


@dataclass(frozen=True)
class Entry:
    """A change as a locale's page and feed show it."""

    change: ChangeView
    id: str
    updated: str
    """RFC 3339, UTC."""
    day: dt.date
    links: list[tuple[LocalizedCard, str]]
    """Up to CARDS_LISTED cards, in the locale's order, each with its page's address from the
    page or feed that shows the entry (made here: a call from a template costs ten times as
    much)."""
    count: int
    """All the change's cards."""


def atom_time(moment: dt.datetime) -> str:
    """A time of the store (UTC, without a zone) as RFC 3339 writes it."""
    return moment.replace(microsecond=0).isoformat() + "Z"


def _localized(change: ChangeView, locale: Locale) -> list[LocalizedCard]:
    code = locale.code
    cards = [
        LocalizedCard(
            card.name,
            card.names.get(code) or (card.name if code == "en" else None),
            card.id,
            card.slug,
        )
        for card in change.cards
    ]
    return collated(cards, lambda card: card.local or card.name, code)


def entry(change: ChangeView, locale: Locale, href: Href) -> Entry:
    """The change as a locale's page and feed show it; ``href`` makes a card's address."""
    return Entry(
        change,
        _urn(f"{locale.code} {change.key}"),
        atom_time(change.at),
        change.at.date(),
        [(card, href(card)) for card in _localized(change, locale)[:CARDS_LISTED]],
        len(change.cards),
    )


def _urn(name: str) -> str:
    return f"urn:uuid:{uuid.uuid5(_IDS, name)}"


class KeptEntries:
    """Each page's entries as a build that keeps running (``kb build --watch``) last rendered
    them, by what each shows: its next build renders only the entries that are new or changed
    (a hundred entries in 22 pages take Jinja2 ~0.15 s). A single build keeps none: its 22
    pages' entries held to its end were a large site's ~9 MB."""

    def __init__(self) -> None:
        self._pages: dict[tuple[str, Languages, str], dict[bytes, Markup]] = {}
        self._encoded: tuple[RecentChanges, list[bytes]] | None = None
        self.card_names: CardNames = {}
        """The names of the changes' cards as the last build read them (kb.site.changes)."""

    def forget_names(self, changed: set[int] | None) -> None:
        """Forget the names of the cards changed since the last build (``changed``, from the
        change log; None: any card may have changed)."""
        if changed is None:
            self.card_names.clear()
        for card_id in changed or ():
            self.card_names.pop(card_id, None)

    def encodings(self, recent: RecentChanges) -> list[bytes]:
        """The changes' encodings, made once for the 22 pages that show them."""
        if self._encoded is None or self._encoded[0] is not recent:
            self._encoded = recent, [encoded(change) for change in recent.changes]
        return self._encoded[1]

    def entries(
        self,
        key: tuple[str, Languages, str],
        recent: RecentChanges,
        render: Callable[[ChangeView], Markup],
    ) -> list[Markup]:
        """The page's entries, each as it was before when it shows the same."""
        before = self._pages.get(key, {})
        now: dict[bytes, Markup] = {}
        encodings = self.encodings(recent)
        for change, encoding in zip(recent.changes, encodings, strict=True):
            if encoding not in now:
                now[encoding] = before.get(encoding) or render(change)
        self._pages[key] = now
        return [now[encoding] for encoding in encodings]


def _entries(
    path: str, recent: RecentChanges, locale: Locale, languages: Languages, base_url: str,
    macro: str, href: Href, kept: KeptEntries | None,
) -> list[Markup]:  # fmt: skip
    """The page's entries, each rendered by ``macro`` of its template's macros (or as it was
    before, ``kept``)."""
    env = environment(locale.code, languages)
    render_entry: Callable[[Entry], Markup]
    render_entry = getattr(env.get_template(_MACROS[macro]).module, macro)

    def render(change: ChangeView) -> Markup:
        return render_entry(entry(change, locale, href))

    if kept is None:
        return [render(change) for change in recent.changes]
    return kept.entries((path, languages, base_url), recent, render)


_MACROS = {"page_entry": "_changes.html", "feed_entry": "_feed.xml"}
"""The template of each macro that renders an entry."""


def changes_page(
    recent: RecentChanges, locale: Locale, languages: Languages, kept: KeptEntries | None = None
) -> Page:
    """The locale's recent changes page; ``kept``: the entries a build that keeps running
    rendered before."""
    path = Urls.changes(locale)

    def href(card: LocalizedCard) -> str:
        return _in_folder(Urls.card(locale, card))

    rendered = _entries(path, recent, locale, languages, "", "page_entry", href, kept)
    template = environment(locale.code, languages).get_template("changes.html")
    return Page(path, template.render(entries=rendered))


def feed(
    recent: RecentChanges,
    locale: Locale,
    languages: Languages,
    base_url: str,
    kept: KeptEntries | None = None,
) -> Page:
    """The locale's Atom feed; ``base_url``: the site's address ("" none: links relative to
    the feed's folder, the locale's, where the recent changes page is too); ``kept``: as for
    ``changes_page``."""
    path = Urls.feed(locale)
    folder = f"{base_url}{locale.folder}/" if base_url else ""

    def href(card: LocalizedCard) -> str:
        return folder + _in_folder(Urls.card(locale, card))

    changed = [change.at for change in recent.changes]
    if recent.origin_at is not None:
        changed.append(recent.origin_at)
    text = (
        environment(locale.code, languages)
        .get_template("feed.xml")
        .render(
            id=_urn(f"{locale.code} feed of {recent.origin}"),
            updated=atom_time(max(changed)) if changed else _NO_TIME,
            self_href=folder + _in_folder(path),
            page_href=folder + _in_folder(Urls.changes(locale)),
            entries=_entries(path, recent, locale, languages, base_url, "feed_entry", href, kept),
        )
    )
    return Page(path, text)


def _in_folder(path: str) -> str:
    """A path of a locale folder's page, from that folder."""
    return path.partition("/")[2]
