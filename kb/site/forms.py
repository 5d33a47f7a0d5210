"""The form of a page's context (kb.site.stencils' rule 1): what its template may branch on,
with the values its holes stand for; and forms recorded for the pages of one context.

Why the recording: a card's page is rendered in 11 locales one after the other, from the same
card, and each of its rulings is an item of every one of them. Only the dicts keyed by locale
make one locale's form differ from another's, so a value's form is taken by walking it for its
first two pages, recorded at its third (what every locale shares, and the dicts between), and
replayed for the others: the card pages' render takes 3–8 % less CPU (benchmarks/README.md).
Nothing is kept for a context's first page, which most of the main process's pages' are.
``Forms`` keeps the recordings while the pages' contexts hold the same objects, which must not
change in between (the caller's rule in kb.site.stencils). tests/test_stencils.py renders
random contexts in several locales in turn, and tests/test_render_contract.py every page, both
ways: by Jinja2 alone, and through stencils.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from operator import attrgetter
from typing import Any, Final

from markupsafe import Markup


class StencilError(RuntimeError):
    """A template did something with a hole that a stencil cannot repeat: it broke a rule of
    the contract in kb.site.stencils (the rules numbered here are its)."""


class Items(tuple[Any, ...]):
    """A sequence that templates render item by item with ``each`` (rule 3)."""

    __slots__ = ()


_Fields = tuple[type, Callable[[Any], tuple[Any, ...]], tuple[str, ...]]
_FIELDS: dict[type, _Fields] = {}


def view_fields(kind: type) -> _Fields:
    """A view type's shown fields (rule 4), and a function that reads them."""
    found = _FIELDS.get(kind)
    if found is None:
        if dataclasses.is_dataclass(kind):
            names = [field.name for field in dataclasses.fields(kind)]
        elif issubclass(kind, tuple) and hasattr(kind, "_fields"):
            names = list(kind._fields)
        else:
            raise StencilError(f"a page's context holds a {kind.__name__}, which is no view")
        hidden = {"id", *getattr(kind, "NOT_SHOWN", ())}
        shown = (
            *(name for name in names if name not in hidden),
            *getattr(kind, "SHOWN_PROPERTIES", ()),
        )
        read = attrgetter(*shown) if len(shown) > 1 else lambda view: (getattr(view, shown[0]),)
        found = _FIELDS[kind] = (kind, read, shown)
    return found


def shown(view: Any) -> tuple[Any, ...]:
    """A view's fields as templates receive them (rule 4), in order."""
    return tuple(view_fields(type(view))[1](view))


PLAIN = frozenset({type(None), bool})
LEAVES = frozenset({int, float, dt.date, Markup})


def form(value: Any, code: str, values: list[Any], shape: list[Any]) -> None:
    """The form of a context (rule 1) for a page in the locale ``code``, appended to ``shape``
    flat (each view's type and each list's length say how many elements follow); its holes'
    values are appended to ``values`` in the order ``stand_in`` makes their holes."""
    kind = type(value)
    if kind is str:
        if value:
            values.append(value)
            shape.append(_HOLE)
        else:
            shape.append("")
    elif kind in PLAIN:
        shape.append(value)
    elif kind in LEAVES:
        values.append(value)
        shape.append(_HOLE)
    elif kind is Items:
        values.append(value)
        shape.append(_FULL if value else _EMPTY)
    elif kind is dict:
        if code in value:
            shape.append(_PRESENT)
            form(value[code], code, values, shape)
        else:
            shape.append(_ABSENT)
    elif kind is tuple or kind is list:
        shape.append(len(value))
        for item in value:
            form(item, code, values, shape)
    else:
        _form_of_view(value, code, values, shape)


def _form_of_view(view: Any, code: str, values: list[Any], shape: list[Any]) -> None:
    kind, read, _shown = view_fields(type(view))
    shape.append(kind)
    for field in read(view):  # the commonest fields here: a call less for each
        field_kind = type(field)
        if field_kind is str:
            if field:
                values.append(field)
                shape.append(_HOLE)
            else:
                shape.append("")
        elif field_kind in PLAIN:
            shape.append(field)
        elif field_kind is dict:
            local = field.get(code, _ABSENT)
            if local is _ABSENT:
                shape.append(_ABSENT)
            elif type(local) is str and local:
                values.append(local)
                shape.append(_PRESENT)
                shape.append(_HOLE)
            else:
                shape.append(_PRESENT)
                form(local, code, values, shape)
        elif field_kind in LEAVES:
            values.append(field)
            shape.append(_HOLE)
        elif field_kind is Items:
            values.append(field)
            shape.append(_FULL if field else _EMPTY)
        else:
            form(field, code, values, shape)


class _Mark:
    """A mark in a form: it compares and hashes as itself."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_PRESENT, _ABSENT = _Mark("present"), _Mark("absent")
"""Whether a dict holds the page's locale."""
_HOLE = _Mark("hole")
_FULL, _EMPTY = _Mark("items"), _Mark("no items")


def _record(value: Any, shape: list[Any], values: list[Any], ops: list[Any]) -> None:
    """``form`` with the locale's choices left open: what it appends in every locale, and each
    dict keyed by locale as an op of its own (the shape and values before it go first)."""
    kind = type(value)
    if kind is dict:
        ops.append((shape.copy(), values.copy()))
        shape.clear()
        values.clear()
        ops.append(value)
    elif kind is tuple or kind is list:
        shape.append(len(value))
        for item in value:
            _record(item, shape, values, ops)
    elif kind is str or kind in PLAIN or kind in LEAVES or kind is Items:
        form(value, "", values, shape)  # a leaf's form is the same in every locale
    else:
        kind, read, _shown = view_fields(kind)
        shape.append(kind)
        for field in read(value):
            _record(field, shape, values, ops)


def recorded(value: Any) -> list[Any]:
    """A value's form for every locale at once: ``replay`` gives one locale's."""
    shape: list[Any] = []
    values: list[Any] = []
    ops: list[Any] = []
    _record(value, shape, values, ops)
    ops.append((shape, values))
    return ops


def replay(ops: list[Any], code: str, values: list[Any], shape: list[Any]) -> None:
    """What ``form(value, code, values, shape)`` appends, from ``recorded(value)``."""
    for op in ops:
        if type(op) is dict:
            if code in op:
                shape.append(_PRESENT)
                form(op[code], code, values, shape)
            else:
                shape.append(_ABSENT)
        else:
            shape += op[0]
            values += op[1]


_UNSEEN: Final[Any] = object()


class Forms:
    """The forms of the values of consecutive pages' contexts: a value's form is walked for
    the first two pages of a context, recorded at the third, replayed for the others, as long
    as the pages' contexts hold the same objects (``begin``)."""

    def __init__(self) -> None:
        self._context: tuple[Any, ...] = ()
        """The context the recordings are of: held, so that no other object takes their ids."""
        self._again = False
        """Whether the page begun has the context of the page before."""
        self._recorded: dict[int, list[Any] | None] = {}
        """By the id of a value of that context (or an item of its Items): its recording, or
        None where its form was taken once."""

    def begin(self, context: tuple[Any, ...]) -> None:
        """A page's context: the recordings of another context are let go."""
        self._again = len(context) == len(self._context) and all(
            value is before for value, before in zip(context, self._context, strict=True)
        )
        if not self._again:
            self._context = context
            self._recorded.clear()

    def add(self, value: Any, code: str, values: list[Any], shape: list[Any]) -> None:
        """``form(value, code, values, shape)``, for a value of the context begun. Nothing is
        kept for a context's first page: most contexts of the main process's pages (an A–Z
        section, a mechanic with thousands of cards) have no other."""
        if not self._again:
            form(value, code, values, shape)
            return
        key = id(value)
        ops = self._recorded.get(key, _UNSEEN)
        if ops is _UNSEEN:
            self._recorded[key] = None
            form(value, code, values, shape)
            return
        if ops is None:
            ops = self._recorded[key] = recorded(value)
        replay(ops, code, values, shape)
