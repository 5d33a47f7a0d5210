"""kb.site.stencils on its own: a template filled into stencils gives what Jinja2 gives, and
each breach of the contract fails loudly when the stencil is made."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import DictLoader, Environment, StrictUndefined
from markupsafe import Markup, escape

from kb.site.forms import Items, StencilError
from kb.site.stencils import (
    Stencils,
    _escaped_plainly,
    each,
    escaped,
    hole_filter,
    hole_ngettext,
)


@dataclass(frozen=True)
class Line:
    NOT_SHOWN: ClassVar[tuple[str, ...]] = ("secret",)
    id: int
    text: str
    day: dt.date | None
    notes: dict[str, str]
    secret: str = "never shown"


class Entry(NamedTuple):
    id: int
    title: str
    flag: bool
    words: tuple[str, ...]
    lines: Items


TEMPLATES = {
    "page.html": (
        "{% import 'parts.html' as parts %}"
        '<h1 title="{{ entry.title }}">{{ entry.title }}</h1>'
        "{% if entry.flag %}<b>on</b>{% endif %}"
        "{% for word in entry.words %}<i>{{ word }}</i>{% endfor %}"
        "{% trans count=entry.lines|length %}{{ count }} line{% pluralize %}{{ count }} lines"
        "{% endtrans %}"
        "{% if entry.lines %}<ol>{{ each(entry.lines, parts.line) }}</ol>{% endif %}"
    ),
    "parts.html": (
        "{% macro line(line) %}<li>{{ line.text }}"
        "{% if line.day %} <time>{{ line.day|iso }}</time>{% endif %}"
        "{% if code in line.notes %} ({{ line.notes[code] }}){% endif %}</li>{% endmacro %}"
    ),
}


def _environment(templates: dict[str, str]) -> Environment:
    env = Environment(
        loader=DictLoader(templates),
        autoescape=True,
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    env.globals["ngettext"] = hole_ngettext(env.globals["ngettext"])  # type: ignore[arg-type]
    env.globals.update(each=each, code="de")
    env.filters.update(length=hole_filter(len), iso=hole_filter(dt.date.isoformat))
    return env


ENV = _environment(TEMPLATES)
text = st.text(alphabet=st.sampled_from("a<>&\"' é\ue000x"), max_size=6)
lines = st.builds(
    Line,
    id=st.integers(),
    text=text,
    day=st.none() | st.dates(),
    notes=st.dictionaries(st.sampled_from(["de", "fr"]), text, max_size=2),
)
entries = st.builds(
    Entry,
    id=st.integers(),
    title=text,
    flag=st.booleans(),
    words=st.lists(text, max_size=3).map(tuple),
    lines=st.lists(lines, max_size=4).map(Items),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(entries, min_size=1, max_size=6))
def test_pages_filled_into_stencils_are_the_pages_jinja2_renders(found: list[Entry]) -> None:
    stencils = Stencils()  # one for all: later pages reuse the stencils of earlier ones
    template = ENV.get_template("page.html")
    for entry in found:
        assert stencils.render(template, "de", entry=entry) == template.render(entry=entry).encode()


LOCALE_ENVS = {code: _environment(TEMPLATES) for code in ("de", "fr", "en")}
for _code, _env in LOCALE_ENVS.items():
    _env.globals["code"] = _code


@settings(max_examples=200, deadline=None)
@given(st.lists(entries, min_size=1, max_size=4), st.lists(st.sampled_from("dfe"), max_size=5))
def test_a_context_rendered_in_locales_in_turn_is_what_jinja2_renders(
    found: list[Entry], order: list[str]
) -> None:
    """A context's pages one after the other in several locales: its forms (and its lines')
    are walked for the first two pages, recorded at the third and replayed for the others
    (kb.site.forms); an entry whose line is another entry's is rendered again after."""
    stencils = Stencils()
    codes = [{"d": "de", "f": "fr", "e": "en"}[letter] for letter in ["d", "f", "d", *order]]
    if len(found) > 1:
        found.append(found[0]._replace(lines=found[1].lines))
    for entry in found:
        for code in codes:
            template = LOCALE_ENVS[code].get_template("page.html")
            expected = template.render(entry=entry).encode()
            assert stencils.render(template, code, entry=entry) == expected


def test_a_new_context_never_gets_the_forms_of_one_gone() -> None:
    """Contexts made and let go one after the other, as a build's cards are: a new object may
    take a gone one's id, and must not get its recorded form."""
    stencils = Stencils()
    for number in range(200):
        entry = Entry(
            number,
            f"t{number}",
            number % 2 == 0,
            ("w",) * (number % 3),
            Items([Line(number, f"l{number}", None, {"fr": f"n{number}"})] * (number % 2)),
        )
        for code in ("de", "fr", "de", "fr"):
            template = LOCALE_ENVS[code].get_template("page.html")
            expected = template.render(entry=entry).encode()
            assert stencils.render(template, code, entry=entry) == expected
        del entry


def test_a_stencil_is_made_once_per_form() -> None:
    stencils = Stencils()
    template = ENV.get_template("page.html")
    for title in ("a", "b<", "c&d"):
        entry = Entry(1, title, True, ("x",), Items([Line(2, title, None, {})]))
        assert stencils.render(template, "de", entry=entry) == template.render(entry=entry).encode()
    assert len(stencils._made) == 2  # the page's form, and its one line's


def test_markup_is_printed_as_it_is_and_not_kept() -> None:
    """Markup (a feed's entries, rendered whole by a macro) is printed unescaped, as Jinja2
    prints it, and is not kept among the escaped texts: a large site's entries are MBs."""
    stencils = Stencils()
    template = ENV.get_template("page.html")
    for number in range(3):
        entry = Entry(1, Markup(f"<em>{number}</em>&amp;"), True, ("x",), Items([]))
        assert stencils.render(template, "de", entry=entry) == template.render(entry=entry).encode()
    assert "x" in stencils._escaped
    assert not [text for text in stencils._escaped if isinstance(text, Markup)]


def _render(source: str, **context: Any) -> bytes:
    env = _environment({**TEMPLATES, "t.html": source})
    return Stencils().render(env.get_template("t.html"), "de", **context)


ENTRY = Entry(1, "Title", True, ("a", "b"), Items([Line(2, "text", None, {"de": "Text"})]))


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("{% if entry.title == 'Title' %}x{% endif %}", "eq"),
        ("{{ entry.title|upper }}", "upper"),
        ("{{ entry.title[0] }}", "getitem"),
        ("{{ entry.title|truncate(3) }}", "len"),
        ("{{ entry.title|safe }}", "unescaped"),
        ("{% for line in entry.lines %}{{ line.text }}{% endfor %}", "iter"),
        ("{{ each(entry.title, parts.line) }}", "not Items"),
        ("{{ entry.title ~ 'x' if 'T' in entry.title }}", "contains"),
    ],
)
def test_what_a_stencil_cannot_repeat_fails_when_it_is_made(source: str, reason: str) -> None:
    with pytest.raises(StencilError, match=reason):
        _render("{% import 'parts.html' as parts %}" + source, entry=ENTRY)


def test_a_field_not_shown_is_not_given_to_templates() -> None:
    line = Line(1, "t", None, {})
    with pytest.raises(Exception, match="secret"):
        _render("{{ line.secret }}", line=line)
    with pytest.raises(Exception, match="'id'"):
        _render("{{ line.id }}", line=line)


def test_a_context_of_something_not_a_view_is_refused() -> None:
    with pytest.raises(StencilError, match="no view"):
        _render("{{ thing }}", thing=object())


@settings(max_examples=300)
@given(
    st.one_of(
        st.text(),
        st.text(alphabet="&<>'\"aä€\ue000 "),
        st.integers(),
        st.dates(),
        st.builds(Markup, st.text(alphabet="&<b>'\"a")),
    )
)
def test_the_fast_escape_is_markupsafes(value: Any) -> None:
    # The fast path's escape, and its fallback where MarkupSafe has no C speedups.
    assert escaped(value) == escape(value).encode()
    if type(value) is str:
        assert _escaped_plainly(value) == str(escape(value))
