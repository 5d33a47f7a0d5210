"""Rendering pages: one Jinja2 environment per locale (templates compiled once per process),
CLDR dates and collation, mana symbols. Pure: data in, page text out."""

from __future__ import annotations

import datetime as dt
import keyword
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from types import CodeType
from typing import Any, NamedTuple, TypeVar
from xml.sax.saxutils import escape as xml_escape

from babel import Locale as BabelLocale
from babel.dates import DateTimeFormat, DateTimePattern, get_date_format
from babel.lists import format_list
from jinja2 import (
    BytecodeCache,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    Template,
    select_autoescape,
)
from jinja2.bccache import Bucket
from markupsafe import Markup, escape

from kb.locales import BY_CODE, LOCALES, Locale
from kb.records import FACE_SEPARATOR
from kb.resources import resource_dir
from kb.site.collation import collated, label, sectioned
from kb.site.data import (
    CardEntry,
    CardView,
    LocalizedCard,
    MechanicView,
    RulingView,
    SiteIndex,
)
from kb.site.i18n import translations
from kb.site.paths import relative_href

ROOT_INDEX = "index.html"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"
_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_SITEMAP_NS = '"http://www.sitemaps.org/schemas/sitemap/0.9"'
NOT_FOUND = "404.html"
STYLESHEET = "static/style.css"
_MANA_SYMBOL = re.compile(r"\{([^{}]+)\}")
_COLOURS = frozenset("WUBRGC")


N = TypeVar("N", LocalizedCard, MechanicView)
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


@dataclass(frozen=True)
class Page:
    path: str
    text: str | bytes
    """Card pages come in UTF-8 (see CardPages)."""


_FACE_MARK = Markup('<span class="split" aria-hidden="true">//</span>')


def mana_symbols(cost: str, locale: Locale) -> Markup:
    """``{1}{U}`` as CSS-drawn symbols (a split card's faces apart), with the cost in the
    locale's words as the text alternative ("1 and blue", "1 und blau")."""
    faces = [
        Markup("").join(
            Markup('<span class="{}" aria-hidden="true">{}</span>').format(
                _symbol_classes(symbol), symbol
            )
            for symbol in symbols
        )
        for symbols in _symbols_by_face(cost)
    ]
    return Markup('<span class="mana-cost" role="img" aria-label="{}">{}</span>').format(
        mana_in_words(cost, locale), _FACE_MARK.join(faces)
    )


def _symbols_by_face(cost: str) -> list[list[str]]:
    """``{1}{R} // {U}`` as [["1", "R"], ["U"]]."""
    return [_MANA_SYMBOL.findall(face) for face in cost.split(FACE_SEPARATOR)]


def _symbol_classes(symbol: str) -> str:
    """A symbol's colour classes: its first half's colour, and a hybrid's second half's
    (``ms-then-u``), which the stylesheet draws as the symbol's other half; a generic half
    (``2/W``'s 2) keeps the generic colour. Half mana (``HW``) has its colour."""
    halves = [_colour_of(half) for half in symbol.upper().split("/") if half != "P"]
    first, then = [*halves, ""][:2]
    classes = ["ms"]
    if first:
        classes.append(f"ms-{first}")
    if then:
        classes.append(f"ms-then-{then}")
    if "/" in symbol:
        classes.append("ms-hybrid")
    return " ".join(classes)


def _colour_of(half: str) -> str:
    colour = half[1:] if half[:1] == "H" else half
    return colour.lower() if colour in _COLOURS else ""


def mana_in_words(cost: str, locale: Locale) -> str:
    """The mana cost as a screen reader should say it: each symbol in the locale's words, in
    the locale's list pattern; a hybrid symbol's halves joined by "or"; a split card's faces
    apart as in its name. A symbol without words (a number, X) stays as it is."""
    words, phyrexian = _mana_words(locale)
    babel = locale.babel

    def spoken(symbol: str) -> str:
        halves = symbol.split("/")
        if is_phyrexian := len(halves) > 1 and halves[-1] == "P":
            halves.pop()
        said = format_list([words.get(half, half) for half in halves], "or", babel)
        return phyrexian % {"mana": said} if is_phyrexian else said

    return FACE_SEPARATOR.join(
        format_list([spoken(symbol) for symbol in symbols], locale=babel)
        for symbols in _symbols_by_face(cost)
    )


@cache
def _mana_words(locale: Locale) -> tuple[dict[str, str], str]:
    """The locale's words for the coloured, colourless and snow mana symbols, and its pattern
    for a Phyrexian symbol."""
    catalog = translations(locale.code)

    def pgettext(context: str, message: str) -> str:
        return str(catalog.pgettext(context, message))

    words = {
        "W": pgettext("mana", "white"),
        "U": pgettext("mana", "blue"),
        "B": pgettext("mana", "black"),
        "R": pgettext("mana", "red"),
        "G": pgettext("mana", "green"),
        "C": pgettext("mana", "colorless"),
        "S": pgettext("mana", "snow"),
    }
    return words, pgettext("mana", "Phyrexian %(mana)s")


@cache
def _mana_cost(locale: Locale, cost: str) -> bytes:
    return str(mana_symbols(cost, locale)).encode()


class CldrDates:
    """Dates in one of a locale's CLDR patterns, as Babel writes them (babel.dates.format_date
    parses the pattern on every call): each field of the pattern is written by Babel once per
    value it depends on (the year, the month or the day), and a date is its fields joined. A
    build's workers each write most of a site's thousands of dates in 11 locales: 3.3 µs a
    date with Babel's apply, 1.7 µs so."""

    def __init__(self, babel_locale: BabelLocale, pattern: DateTimePattern) -> None:
        self._locale = babel_locale
        self._pattern = pattern
        # The pattern as a %-format string (Babel annotates it as a DateTimeFormat).
        format_string = str(pattern.format)
        self._pieces = [
            (field, text.replace("%%", "%")) for field, text in _DATE_PIECES.findall(format_string)
        ]
        """(field, "") for a field, ("", text) for the text between fields."""
        self._fields: dict[tuple[str, int], str] = {}
        self._simple = all(not field or field[0] in _DATE_PARTS for field, _text in self._pieces)
        """Whether every field depends on the year, the month or the day alone."""

    def __call__(self, day: dt.date) -> str:
        if not self._simple:
            return self._pattern.apply(day, self._locale)
        return "".join([text or self._field(field, day) for field, text in self._pieces])

    def _field(self, field: str, day: dt.date) -> str:
        key = (field, getattr(day, _DATE_PARTS[field[0]]))
        text = self._fields.get(key)
        if text is None:
            text = self._fields[key] = DateTimeFormat(day, self._locale)[field]
        return text


_DATE_PIECES = re.compile(r"%\((\w+)\)s|((?:[^%]|%%)+)")
"""A Babel pattern's format string: its fields, %(name)s, and the text between them."""
_DATE_PARTS = {"y": "year", "M": "month", "L": "month", "d": "day"}
"""Fields that depend on one part of a date alone: the calendar year (y; Y is the week's
year), the month, the day of the month."""


@cache
def medium_date(locale: Locale) -> CldrDates:
    """The locale's dates in CLDR's medium format."""
    babel_locale = BabelLocale.parse(locale.babel)
    return CldrDates(babel_locale, get_date_format("medium", locale=babel_locale))


@cache
def native_name(locale: Locale) -> str:
    """The language named in itself, by CLDR: "Deutsch", "português (Brasil)"."""
    return str(BabelLocale.parse(locale.babel).display_name)


def local_name(named: CardEntry | LocalizedCard | MechanicView, locale: Locale) -> str:
    return named.name_in(locale.code) or named.name


class _CompiledOnce(BytecodeCache):
    """Templates compiled once for every locale's environment: the environments differ only
    in their globals (translations, locale), which compiled code looks up when it runs."""

    def __init__(self) -> None:
        self._codes: dict[str, tuple[str, CodeType]] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        found = self._codes.get(bucket.key)
        if found is not None and found[0] == bucket.checksum:
            bucket.code = found[1]

    def dump_bytecode(self, bucket: Bucket) -> None:
        if bucket.code is not None:
            self._codes[bucket.key] = (bucket.checksum, bucket.code)


_COMPILED = _CompiledOnce()
TEMPLATES = (
    "page.html",
    "_card.html",
    "_mechanic.html",
    "_rulings.html",
    "cards.html",
    "home.html",
)
"""The templates of the locale folders' pages."""


def prepare(locales: Iterable[Locale], languages: Languages) -> None:
    """Load the locales' templates, page frames and CLDR data now: build workers forked
    afterwards inherit them, and a build that keeps running does not wait for them at the
    first change."""
    for locale in locales:
        for name in TEMPLATES:
            _template(locale, name)
        _card_frame(locale, languages)
        _mechanic_frame(locale, languages)
        _rulings_module(locale)
        medium_date(locale)


@cache
def environment(code: str) -> Environment:
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
    env.globals.update(
        locale=locale,
        locales=LOCALES,
        urls=Urls,
        name_in=local_name,
        native_name=native_name,
    )
    return env


def _template(locale: Locale, name: str) -> Template:
    return environment(locale.code).get_template(name)


def _render(
    locale: Locale,
    template: str,
    path: str,
    versions: Sequence[tuple[Locale, str]],
    base: str | None = None,
    **context: object,
) -> str:
    """The text of the page at ``path`` with its language versions (locale, path); links made
    relative, or absolute under ``base`` for a page served at any address (404)."""
    root = relative_href(path, "") if base is None else base
    alternates = [
        (other, root + other_path if base else relative_href(path, other_path), other_path == path)
        for other, other_path in versions
    ]
    # English where the site has it, else its first locale (``versions`` are in LOCALES' order).
    default = next((href for other, href, _ in alternates if other.code == "en"), alternates[0][1])
    return _template(locale, template).render(
        root=root, here=path, alternates=alternates, x_default=default, **context
    )


def _versions(
    languages: Languages, path_of: Callable[..., str], *args: object
) -> list[tuple[Locale, str]]:
    """The page in every locale of the site: (locale, path) pairs."""
    return [(other, path_of(other, *args)) for other in languages]


_SLOT = re.compile("\ue000(\\w+)\ue001")


def _slot(name: str) -> Markup:
    """A placeholder that survives rendering and escaping unchanged (private-use characters)."""
    return Markup(f"\ue000{name}\ue001")


class _Slots:
    """Rendered text with slots, filled by a function made for it that joins the text's
    constant parts and the values in one call: ~130,000 fills run in a small site's build,
    and a loop over the parts took 3.6 µs a card page's frame (str.format, which parses the
    whole text again on every call, 10 µs)."""

    __slots__ = ("fill",)

    def __init__(self, rendered: str) -> None:
        parts = _SLOT.split(rendered)
        self.fill: Callable[..., str] = _joiner(parts[0::2], parts[1::2], "")
        """Keyword arguments: a value for each slot name; values for slots the text lacks
        are ignored."""


class _EncodedSlots:
    """_Slots filled with UTF-8 values into UTF-8 bytes: a card page's frame and body are
    encoded once, not with each of the 33,000 pages of a small site (3 to 5 µs a page)."""

    __slots__ = ("fill",)

    def __init__(self, rendered: str) -> None:
        parts = _SLOT.split(rendered)
        constants = [constant.encode() for constant in parts[0::2]]
        self.fill: Callable[..., bytes] = _joiner(constants, parts[1::2], b"")


def _joiner(
    constants: Sequence[str | bytes], slots: list[str], empty: str | bytes
) -> Callable[..., Any]:
    """``empty.join((constants[0], slots[0], constants[1], ...))`` as a function of the slots'
    values, compiled once (as dataclasses compiles its __init__): every piece is a local or
    closure variable."""
    parameters = sorted(set(slots))
    assert all(name.isidentifier() and not keyword.iskeyword(name) for name in parameters)
    pieces = []
    for number, constant in enumerate(constants):
        if constant:
            pieces.append(f"_{number}")
        if number < len(slots):
            pieces.append(slots[number])
    source = (
        f"def make(_join, {''.join(f'_{number}, ' for number in range(len(constants)))}):\n"
        f" def fill(*, {''.join(f'{name}, ' for name in parameters)}**_ignored):\n"
        f"  return _join(({''.join(f'{piece}, ' for piece in pieces)}))\n"
        " return fill\n"
    )
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # the names are identifiers (checked above), the text is data
    fill: Callable[..., Any] = namespace["make"](empty.join, *constants)
    return fill


@dataclass(frozen=True)
class _CardShape:
    """A stand-in for every card of one shape in a card body rendered once: slots where each
    card's own values go."""

    name: Markup
    local: Markup | None
    faces: tuple[Markup, ...]

    def name_in(self, _locale: str) -> Markup | None:
        return self.local


@cache
def _mechanic_frame(locale: Locale, languages: Languages) -> _Slots:
    return _Slots(_frame_text(locale, "mechanics", languages))


@cache
def _card_frame(locale: Locale, languages: Languages) -> _EncodedSlots:
    return _EncodedSlots(_frame_text(locale, "cards", languages))


def _frame_text(locale: Locale, section: str, languages: Languages) -> str:
    """The page.html frame of the locale's pages in ``section`` (cards, mechanics), with slots
    slug, title and body: the pages of a section differ only by those."""
    slug = _slot("slug")
    versions = [(other, f"{other.folder}/{section}/{slug}.html") for other in languages]
    return _render(
        locale,
        "page.html",
        f"{locale.folder}/{section}/{slug}.html",
        versions,
        title=_slot("title"),
        body=_slot("body"),
    )


class RulingItems:
    """Ruling items at scale: an item differs between rulings of one shape (dated or not,
    tagged or not, translated or not) only by text, date and tags, so it is rendered once per
    locale and shape and filled in with the values escaped as the templates escape them; a
    mechanic's tag is rendered once per locale. Items come as UTF-8, as card pages are
    assembled (see CardPages)."""

    def __init__(self, mechanics: dict[str, MechanicView]) -> None:
        self.mechanics = mechanics
        self._items: dict[tuple[str, bool, bool, bool], _EncodedSlots] = {}
        self._tags: dict[tuple[str, str], bytes] = {}
        self._dates: dict[tuple[str, dt.date], tuple[bytes, bytes]] = {}

    def item(self, locale: Locale, ruling: RulingView, text: bytes | None = None) -> bytes:
        """The ruling's item on a page two folders deep, and a line break; ``text``: its text
        escaped and encoded, if at hand."""
        code = locale.code
        day = ruling.published_on
        translation = ruling.translations.get(code)
        key = (code, day is not None, bool(ruling.mechanics), translation is not None)
        item = self._items.get(key)
        if item is None:
            shape = RulingView(
                0,
                _slot("text"),
                None,
                (),
                {} if translation is None else {code: _slot("translation")},
            )
            item = self._items[key] = _EncodedSlots(
                _rulings_module(locale).ruling_item(
                    shape,
                    _slot("tags") if ruling.mechanics else "",
                    None if day is None else (_slot("iso"), _slot("day")),
                )
                + "\n"
            )
        iso, formatted = (b"", b"") if day is None else self._date(locale, day)
        return item.fill(
            text=_encoded(ruling.text) if text is None else text,
            tags=b"".join([self._tag(locale, mechanic) for mechanic in ruling.mechanics]),
            iso=iso,
            day=formatted,
            translation=b"" if translation is None else _encoded(translation),
        )

    def items(
        self, locale: Locale, rulings: Sequence[RulingView], texts: Sequence[bytes] | None = None
    ) -> bytes:
        """The rulings' items, one after the other; ``texts``: theirs escaped and encoded, if
        at hand."""
        encoded: Sequence[bytes | None] = texts or [None] * len(rulings)
        return b"".join(
            [self.item(locale, ruling, text) for ruling, text in zip(rulings, encoded, strict=True)]
        )

    def _date(self, locale: Locale, day: dt.date) -> tuple[bytes, bytes]:
        """The date as (ISO, CLDR's medium format), escaped: few distinct dates stand on a
        site's many rulings. Keyed by the locale's code (a locale's own hash is computed afresh
        on every lookup)."""
        found = self._dates.get((locale.code, day))
        if found is None:
            found = self._dates[locale.code, day] = (
                day.isoformat().encode(),  # digits and hyphens: nothing to escape
                _encoded(medium_date(locale)(day)),
            )
        return found

    def _tag(self, locale: Locale, mechanic: str) -> bytes:
        tag = self._tags.get((locale.code, mechanic))
        if tag is None:
            tag = self._tags[locale.code, mechanic] = str(
                _rulings_module(locale).tag(self.mechanics[mechanic])
            ).encode()
        return tag


def _encoded(text: str) -> bytes:
    """The text escaped as the templates escape it, in UTF-8."""
    return str(escape(text)).encode()


class CardPages:
    """Card pages at scale: rendered from templates once per shape, filled per card.

    The frame (head, alternates, header, language switcher, footer) differs between the cards
    of a locale only by slug, title and body, so it is rendered once per locale with slots. A
    body differs between cards of one shape (whether the name is localized and differs from
    the English one, whether there is a mana cost, how many faces) only by their values,
    filled in escaped as the templates escape them; its rulings are RulingItems. Pages are
    assembled in UTF-8, the form they are hashed and written in, from parts encoded once."""

    def __init__(self, mechanics: dict[str, MechanicView], languages: Languages) -> None:
        self.languages = languages
        self.rulings = RulingItems(mechanics)
        self._bodies: dict[tuple[str, int, bool, int], _EncodedSlots] = {}
        self._last: tuple[CardView, _CardValues] | None = None

    def _body(self, locale: Locale, naming: int, cost: bool, faces: int) -> _EncodedSlots:
        """A body with slots title, english, cost, face0..., count and rulings; ``naming``:
        NO_LOCAL_NAME, SAME_NAME or OWN_NAME."""
        key = (locale.code, naming, cost, faces)
        body = self._bodies.get(key)
        if body is None:
            local = None if naming == NO_LOCAL_NAME else _slot("title")
            shape = _CardShape(
                _slot("title") if naming == SAME_NAME else _slot("english"),
                local,
                tuple(_slot(f"face{number}") for number in range(faces)),
            )
            body = self._bodies[key] = _EncodedSlots(
                _template(locale, "_card.html").render(
                    root=CARD_ROOT,
                    show=_rulings_module(locale),
                    card=shape,
                    cost=_slot("cost") if cost else None,
                    ruling_count=_slot("count"),
                    rulings=_slot("rulings"),
                )
            )
        return body

    def render(self, card: CardView, locale: Locale) -> Page:
        values = self._values(card)
        local = card.name_in(locale.code)
        naming = NO_LOCAL_NAME if not local else SAME_NAME if local == card.name else OWN_NAME
        title = _encoded(local) if local else values.english
        body = self._body(locale, naming, bool(card.mana_cost), len(card.faces)).fill(
            title=title,
            english=values.english,
            cost=_mana_cost(locale, card.mana_cost) if card.mana_cost else b"",
            **values.faces,
            count=_ruling_count(locale, len(card.rulings)),
            rulings=self.rulings.items(locale, card.rulings, values.rulings),
        )
        page = _card_frame(locale, self.languages).fill(slug=values.slug, title=title, body=body)
        return Page(Urls.card(locale, card), page)

    def _values(self, card: CardView) -> _CardValues:
        """The card's values escaped, once for all its pages (rendered one after the other)."""
        if self._last is None or self._last[0] is not card:
            values = _CardValues(
                card.slug.encode(),
                _encoded(card.name),
                {f"face{number}": _encoded(face) for number, face in enumerate(card.faces)},
                [_encoded(ruling.text) for ruling in card.rulings],
            )
            self._last = (card, values)
        return self._last[1]


class _CardValues(NamedTuple):
    """A card's values escaped as the templates escape them, in UTF-8."""

    slug: bytes
    english: bytes
    faces: dict[str, bytes]
    rulings: list[bytes]


NO_LOCAL_NAME, SAME_NAME, OWN_NAME = range(3)
"""How a card is named in a locale: only in English, the same as in English, its own name."""


@cache
def _ruling_count(locale: Locale, count: int) -> bytes:
    """ "3 rulings" in the locale's plural form, in UTF-8: a card page's heading, one per
    count."""
    text = translations(locale.code).ngettext("%(count)s ruling", "%(count)s rulings", count)
    return str(text % {"count": count}).encode()


CARD_ROOT = "../../"
"""From a card page (``de/cards/x.html``) to the site's root."""


@cache
def _rulings_module(locale: Locale) -> Any:
    """The macros of _rulings.html, bound to a page two folders deep (card and mechanic
    pages)."""
    return _template(locale, "_rulings.html").make_module({"root": CARD_ROOT})


def by_local_name(named: Iterable[N], locale: Locale) -> list[N]:
    return collated(named, lambda item: local_name(item, locale), locale.code)


def home_page(site: SiteIndex, locale: Locale, languages: Languages) -> Page:
    """A locale's home: counts, language picker, mechanics."""
    path = Urls.home(locale)
    text = _render(
        locale,
        "home.html",
        path,
        _versions(languages, Urls.home),
        card_count=len(site.cards),
        ruling_count=site.ruling_count,
        mechanic_list=by_local_name(site.mechanics.values(), locale),
    )
    return Page(path, text)


class CardList:
    """Cards with their names in one locale, for the pages that list them: sorted once, each
    list item rendered once (a card is listed on the A–Z page and on every mechanic it has)."""

    def __init__(self, cards: Iterable[LocalizedCard], locale: Locale) -> None:
        self.locale = locale
        listed = sectioned(cards, lambda card: local_name(card, locale), locale.code)
        self.cards = [card for _section, card in listed]
        self.sections = [section for section, _card in listed]
        """Each card's section of the locale's index (collation.label), in the same order."""
        self._rank = {card.id: rank for rank, card in enumerate(self.cards)}
        self._items: dict[int, str] = {}
        self._shapes: dict[bool, _Slots] = {}

    def items(self, ids: Iterable[int]) -> Markup:
        """These cards as list items, in the locale's order."""
        ranks = sorted(self._rank[card_id] for card_id in ids)
        return Markup("".join([self.item(self.cards[rank]) for rank in ranks]))

    def item(self, card: LocalizedCard) -> str:
        """The card as the ``card_item`` macro renders it on a page two folders deep."""
        found = self._items.get(card.id)
        if found is None:
            local = card.name_in(self.locale.code)
            shape = self._shapes.get(local is None)
            if shape is None:
                stand_in = LocalizedCard(
                    _slot("name"), None if local is None else _slot("name"), 0, _slot("slug")
                )
                shape = self._shapes[local is None] = _Slots(
                    _rulings_module(self.locale).card_item(stand_in)
                )
            found = self._items[card.id] = shape.fill(
                name=escape(local or card.name), slug=card.slug
            )
        return found


def cards_page(cards: CardList, languages: Languages) -> Page:
    """A locale's cards A–Z, in sections by the locale's index letters. The page is rendered
    with a slot for each letter's items, then joined with the items themselves: a large site's
    list is megabytes, which joining each letter's items first would hold a second time."""
    locale = cards.locale
    groups: dict[int, list[str]] = {}
    for section, card in zip(cards.sections, cards.cards, strict=True):
        groups.setdefault(section, []).append(cards.item(card))
    items = list(groups.values())
    path = Urls.cards(locale)
    shape = _render(
        locale,
        "cards.html",
        path,
        _versions(languages, Urls.cards),
        groups=[
            (label(section, locale.code), _slot(f"letter{slot}"))
            for slot, section in enumerate(groups)
        ],
    )
    parts = _SLOT.split(shape)
    pieces = [parts[0]]
    for slot, text in zip(parts[1::2], parts[2::2], strict=True):
        pieces += items[int(slot.removeprefix("letter"))]
        pieces.append(text)
    return Page(path, "".join(pieces))


def mechanic_page(
    mechanic: MechanicView, cards: CardList, rulings: RulingItems, languages: Languages
) -> Page:
    """A mechanic: its general rulings and its cards (a body in the section's frame)."""
    locale = cards.locale
    body = _template(locale, "_mechanic.html").render(
        root=CARD_ROOT,
        show=_rulings_module(locale),
        mechanic=mechanic,
        rulings=Markup(rulings.items(locale, mechanic.general_rulings).decode()),
        items=cards.items(mechanic.card_ids),
        count=len(mechanic.card_ids),
    )
    title = escape(local_name(mechanic, locale))
    page = _mechanic_frame(locale, languages).fill(slug=mechanic.slug, title=title, body=body)
    return Page(Urls.mechanic(locale, mechanic), page)


ROOT_PAGES = (ROOT_INDEX, NOT_FOUND)


def root_pages(base_url: str, languages: Languages) -> list[Page]:
    """The pages outside the locale folders (ROOT_PAGES): the root language picker, and the
    404 page, which says "page not found" in every language of the site. A server shows it for
    any missing address, however deep, so its links are absolute under ``base_url`` (or from
    the server's root, "/")."""
    first = languages[0]  # their language: English where the site has it (LOCALES' first)
    homes = _versions(languages, Urls.home)
    not_found = {
        other.code: translations(other.code).gettext("Page not found") for other in languages
    }
    return [
        Page(ROOT_INDEX, _render(first, "root.html", ROOT_INDEX, homes)),
        Page(
            NOT_FOUND,
            _render(first, "404.html", NOT_FOUND, homes, base=base_url, not_found=not_found),
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
    pages: list[SitemapPage] = [Urls.home, Urls.cards]
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


def sitemap_index(base_url: str, parts: int) -> Page:
    """The sitemap index: one sitemap per part, since a sitemap holds at most 50,000 addresses."""
    entries = "".join(
        f"<sitemap><loc>{xml_escape(base_url + sitemap_part_path(number))}</loc></sitemap>\n"
        for number in range(1, parts + 1)
    )
    return Page(
        SITEMAP, f"{_XML_DECLARATION}<sitemapindex xmlns={_SITEMAP_NS}>\n{entries}</sitemapindex>\n"
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
