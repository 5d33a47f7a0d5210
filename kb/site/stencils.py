"""The site's one fast path: pages filled into stencils of their templates.

Why: a small site is 33,000 card pages, and Jinja2 renders one in about 190 µs; filled into a
stencil it takes about a tenth of that, which keeps a build within a quarter of Hugo's time
(benchmarks/README.md). Pages are still rendered by their Jinja2 templates: a stencil is a
template's own output, rendered once per *form* of its context with holes where the context's
values go; each page of that form is the stencil with its values filled into the holes, escaped
as autoescaping escapes them.

The contract a template keeps for its pages to be rendered so. Each rule's breach fails loudly
when a stencil is made, and tests/test_render_contract.py renders every page of the demo and of
a synthetic store both ways, by Jinja2 alone and through stencils, and requires the same bytes.

1. A context is made of views (dataclasses and named tuples), tuples, lists, dicts keyed by a
   locale code, and leaves. Its **form** is all that a template may branch on: None, booleans,
   the length of each tuple and list, whether a dict holds the page's locale, whether a string
   is empty, whether ``Items`` are empty, and each view's type. Every other leaf (a non-empty
   string, a number, a date) is a **hole**.
2. A template prints a hole (autoescaped), joins it to other text, formats it into a
   translation, or passes it to a filter made by ``hole_filter`` (a pure function of the value,
   such as a date's or a mana cost's form in the page's locale). Anything else done with a hole
   (comparing it, taking its length, calling a method, an ordinary filter, ``|safe``) raises
   ``StencilError``.
3. ``Items`` are rendered one by one with a macro: ``{{ each(page.rulings, fragments.ruling) }}``;
   each item is filled into a stencil of that macro by its own form. A page's form does not
   depend on how many items it has.
4. A view's ``id`` (the store's key) and the fields named in its ``NOT_SHOWN`` class attribute
   are not given to templates; the properties named in its ``SHOWN_PROPERTIES`` are, as fields.
5. A template reads nothing but its context and its environment's globals, which are the same for
   every page of a locale.

And one rule for the caller, which no stencil can check: a context's values and their items do
not change while the pages of that context are rendered one after the other (a card's page in
each locale): their forms are recorded for the pages that follow (kb.site.forms). Card views
are read from the store for each build and not changed after; the mechanic views that a
watching build keeps and updates come with new Items on each page, so no two of their pages
share a context.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache
from operator import itemgetter
from typing import Any

from jinja2 import Template, pass_context
from jinja2.runtime import Context, Macro
from markupsafe import Markup, escape

from kb.site.forms import LEAVES, PLAIN, Forms, Items, StencilError, view_fields

_OPEN, _CLOSE = "\ue000", "\ue001"
_MARK = re.compile("\ue000(&amp;|&)(\\d+)\ue001")
"""A hole's marker in a stencil: escaped (``&amp;``) where autoescaping printed it, raw where a
filter or ``each`` made markup of it. Private-use characters, which no template holds."""

ESCAPED, MARKUP, ITEMS = range(3)
"""How a slot is filled: the value escaped, the value as markup, the items by a macro."""


class _Slots:
    """What a stencil's holes stand for, as they are made: slot n is (value, how, function)."""

    def __init__(self) -> None:
        self.slots: list[tuple[int, int, Any]] = []

    def add(self, value: int, how: int, function: Any) -> str:
        self.slots.append((value, how, function))
        return f"{_OPEN}&{len(self.slots) - 1}{_CLOSE}"


def _refuse(name: str) -> Callable[..., Any]:
    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise StencilError(f"a template used {name} on one of its values (see kb.site.stencils)")

    return refused


class _Hole(str):
    """A value's stand-in while a stencil is made: its text is its marker; it can be printed,
    joined and formatted in, and nothing else (rule 2)."""

    slots: _Slots
    value: int
    function: Callable[[Any], Any] | None

    def __bool__(self) -> bool:
        return True  # an empty string is no hole (rule 1)

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        if spec:
            raise StencilError("a template formatted one of its values with a format spec")
        return str.__str__(self)

    def derive(self, function: Callable[[Any], Any], markup: bool) -> Any:
        """The hole of ``function`` of this value: markup where ``function`` makes markup."""
        inner = self.function
        both = function if inner is None else _composed(inner, function)
        marker = self.slots.add(self.value, MARKUP if markup else ESCAPED, both)
        return Markup(marker) if markup else _hole(self.slots, self.value, both, marker)


def _composed(inner: Callable[[Any], Any], outer: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: outer(inner(value))


for _name in (
    *(name for name in vars(str) if not name.startswith("__")),
    "__len__", "__iter__", "__getitem__", "__contains__", "__eq__", "__ne__", "__lt__",
    "__le__", "__gt__", "__ge__", "__hash__", "__mod__", "__rmod__", "__mul__", "__rmul__",
):  # fmt: skip
    setattr(_Hole, _name, _refuse(_name.strip("_")))


def _hole(slots: _Slots, value: int, function: Any, marker: str) -> _Hole:
    hole = _Hole(marker)
    hole.slots, hole.value, hole.function = slots, value, function
    return hole


class _ItemsHole(_Hole):
    """``Items``' stand-in: ``each`` fills it with its items, each by its own stencil."""

    empty: bool

    def __bool__(self) -> bool:
        return not self.empty


def hole_filter(function: Callable[[Any], Any], markup: bool = False) -> Callable[[Any], Any]:
    """A Jinja2 filter that applies ``function`` (pure: the same value gives the same text) to
    a value, or to a hole when its stencil is filled (rule 2); ``markup``: it returns Markup."""

    def apply(value: Any) -> Any:
        if isinstance(value, _Hole):
            return value.derive(function, markup)
        return function(value)

    return apply


def each(items: Iterable[Any], macro: Macro) -> Markup:
    """Items rendered one after the other with ``macro`` (a template global: rule 3)."""
    if isinstance(items, _ItemsHole):
        return Markup(items.slots.add(items.value, ITEMS, macro))
    if isinstance(items, _Hole):
        raise StencilError("each() was given a value that is not Items")
    return Markup("").join([macro(item) for item in items])


def hole_ngettext(plain: Callable[..., str]) -> Callable[..., str]:
    """Jinja2's newstyle ``ngettext`` (``{% trans count=... %}``) for a count that may be a hole:
    the plural form is chosen when the stencil is filled. The message's variables may be holes
    of the same value as the count (the count as the locale writes numbers, say)."""

    @pass_context
    def ngettext(
        context: Context, singular: str, plural: str, number: Any, /, **variables: Any
    ) -> Any:
        if not isinstance(number, _Hole):
            return plain(context, singular, plural, number, **variables)
        holes = {name: value for name, value in variables.items() if isinstance(value, _Hole)}
        if any(hole.value != number.value for hole in holes.values()):
            raise StencilError("a plural message formats a value other than its count")
        others = {name: value for name, value in variables.items() if name not in holes}
        functions = {name: hole.function or _itself for name, hole in holes.items()}
        count = number.function or _itself

        @cache
        def message(n: Any, values: tuple[tuple[str, Any], ...]) -> Any:
            return plain(context, singular, plural, n, **others, **dict(values))

        def filled(value: Any) -> Any:  # a site's pages have few distinct counts: memoized
            return message(count(value), tuple((name, fn(value)) for name, fn in functions.items()))

        return Markup(number.slots.add(number.value, MARKUP, filled))

    return ngettext


def _itself(value: Any) -> Any:
    return value


class _View:
    """A view's stand-in: its shown fields, holes where its leaves are."""

    def __init__(self, fields: dict[str, Any]) -> None:
        self.__dict__.update(fields)


def stand_in(value: Any, code: str, slots: _Slots, count: list[int]) -> Any:
    """The context with holes for its leaves, in the order ``form`` takes their values;
    ``count``: the number of holes made so far, one element."""
    kind = type(value)
    if (kind is str and not value) or kind in PLAIN:
        return value
    if kind is str or kind in LEAVES or kind is Items:
        number = count[0]
        count[0] += 1
        marker = slots.add(number, ESCAPED, None)
        if kind is not Items:
            return _hole(slots, number, None, marker)
        hole = _ItemsHole(marker)
        hole.slots, hole.value, hole.function, hole.empty = slots, number, None, not value
        return hole
    if kind is tuple or kind is list:
        return kind(stand_in(item, code, slots, count) for item in value)
    if kind is dict:
        return {code: stand_in(value[code], code, slots, count)} if code in value else {}
    _view, read, shown = view_fields(kind)
    return _View(
        {
            name: stand_in(field, code, slots, count)
            for name, field in zip(shown, read(value), strict=True)
        }
    )


def _taker(indexes: list[int]) -> Callable[[list[Any]], Iterable[Any]]:
    """The values at these indexes, taken at once (itemgetter takes one as itself)."""
    if len(indexes) > 1:
        return itemgetter(*indexes)
    if indexes:
        index = indexes[0]
        return lambda values: (values[index],)
    return lambda values: ()


class Stencil:
    """A template's output with holes: its constant parts, and between each two a slot.

    Parts and filled values are UTF-8 bytes: a page is then joined from them and written as it
    is. Joined as text, a page holding one character beyond Latin-1 (the language names in its
    footer) is widened whole, then encoded whole: 10 % of a card page's render."""

    __slots__ = ("derived", "gather", "pieces", "printed", "take")

    def __init__(self, text: str, slots: _Slots) -> None:
        split = _MARK.split(text)
        parts = split[0::3]
        if any(_OPEN in part or _CLOSE in part for part in parts):
            raise StencilError("a template changed the text of one of its values")
        used = []
        for escaped, number in zip(split[1::3], split[2::3], strict=True):
            slot = slots.slots[int(number)]
            if (slot[1] == ESCAPED) != (escaped == "&amp;"):
                raise StencilError("a template printed one of its values unescaped (|safe?)")
            used.append(slot)
        self.printed = sorted({value for value, how, function in used if function is None})
        """The values printed as they are: each escaped once, however often it is printed."""
        self.take: Callable[[list[Any]], Iterable[Any]] = _taker(self.printed)
        self.derived = list(dict.fromkeys(slot for slot in used if slot[2] is not None))
        """The slots of the values printed through a function, or items through a macro."""
        finals = {(value, ESCAPED, None): number for number, value in enumerate(self.printed)}
        finals.update((slot, len(self.printed) + n) for n, slot in enumerate(self.derived))
        order = [finals[slot] for slot in used]
        self.gather = _taker(order)
        """The slots' texts, in order, from the printed values' and then the derived ones'."""
        self.pieces: list[bytes | None] = [None] * (2 * len(parts) - 1)
        self.pieces[0::2] = [part.encode() for part in parts]


_ESCAPED_KEPT = 2_000


def escaped(value: Any) -> bytes:
    """``escape(value)`` in UTF-8. A string is escaped by MarkupSafe's own C function, without
    the Markup that ``escape`` makes around it: a third of the time, and a stencil's values
    are mostly strings (escaping was 6 % of a small build's CPU). Any other value (a number,
    a date, Markup) goes through ``escape``; tests/test_stencils.py proves the two equal."""
    if type(value) is str:
        return _escaped_str(value).encode()
    return escape(value).encode()


def _escaped_plainly(text: str) -> str:
    return str(escape(text))


try:
    from markupsafe._speedups import _escape_inner as _escaped_str
except ImportError:  # MarkupSafe without its C speedups: the plain way
    _escaped_str = _escaped_plainly


def _escape(kept: dict[Any, bytes], text: Any) -> bytes:
    if isinstance(text, Markup):
        # Markup (an entry a macro rendered, whole) is printed as it is: nothing to escape,
        # and kept it would hold a large site's feed entries, a few MB, in the main process.
        return text.encode()
    found = kept[text] = escaped(text)
    return found


class Stencils:
    """Stencils by template (or macro) and form, made when first needed; pages filled."""

    def __init__(self) -> None:
        self._made: dict[tuple[Any, ...], Stencil] = {}
        self._forms = Forms()
        self._escaped: dict[Any, bytes] = {}
        """Values escaped lately: a card's pages in 11 locales print the same texts (kept few: a
        large site's A–Z pages would fill it with 30,000 names, ~10 MB of the main process)."""

    def render(self, template: Template, code: str, **context: Any) -> bytes:
        """``template.render(**context)`` for a page in the locale ``code``, in UTF-8."""
        values: list[Any] = []
        names = tuple(context)
        shape: list[Any] = [template, names]
        current = tuple(context.values())
        self._forms.begin(current)
        for value in current:
            self._forms.add(value, code, values, shape)
        key = tuple(shape)
        stencil = self._made.get(key)
        if stencil is None:
            stencil = self._made[key] = self._make(
                lambda stand: template.render(dict(zip(names, stand, strict=True))),
                current,
                code,
            )
        return self._fill(stencil, values, code)

    def _make(self, render: Callable[[Any], str], context: Any, code: str) -> Stencil:
        slots = _Slots()
        return Stencil(render(stand_in(context, code, slots, [0])), slots)

    def _items(self, items: Items, macro: Macro, code: str) -> bytes:
        pieces = []
        for item in items:
            values: list[Any] = []
            shape: list[Any] = [macro]
            self._forms.add(item, code, values, shape)  # an item of the context begun
            key = tuple(shape)
            stencil = self._made.get(key)
            if stencil is None:
                stencil = self._made[key] = self._make(lambda stand: str(macro(stand)), item, code)
            pieces.append(self._fill(stencil, values, code))
        return b"".join(pieces)

    def _fill(self, stencil: Stencil, values: list[Any], code: str) -> bytes:
        kept = self._escaped
        if len(kept) > _ESCAPED_KEPT:
            kept.clear()
        known = kept.get  # holes are of non-empty text, so an escaped one is never falsy
        finals = [known(text) or _escape(kept, text) for text in stencil.take(values)]
        for value, how, function in stencil.derived:
            if how == ITEMS:
                finals.append(self._items(values[value], function, code))
            else:
                filled = function(values[value])
                finals.append(escaped(filled) if how == ESCAPED else str(filled).encode())
        pieces = stencil.pieces.copy()
        pieces[1::2] = stencil.gather(finals)
        return b"".join(pieces)  # type: ignore[arg-type]  # every None is replaced
