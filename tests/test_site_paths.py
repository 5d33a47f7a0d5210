"""File names of pages: URL-safe, stable, unique, and always inside the output folder (the
build is checked in tests/test_site_build.py, test_card_names_cannot_leave_the_output_folder)."""

from __future__ import annotations

import re

from kb.site.paths import base_slug, relative_href, unique_slugs

NASTY = [
    "../../etc/passwd",
    "Who // What // When // Where // Why",
    "Fire // Ice",
    "Fire/Ice",
    "What?",
    "Question: Answer",
    "..",
    "/",
    "Æther Vial",
    "Éclair",
    "Eclair",
    "三歩先",
    "Drei Schritte voraus",
    "Index",
    "CON",
    "a" * 300,
]


def test_slugs_are_url_safe_unique_and_stable() -> None:
    slugs = unique_slugs(NASTY, reserved=frozenset({"index"}))
    assert len(set(slugs.values())) == len(NASTY)
    for name, slug in slugs.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug), (name, slug)
        assert len(slug) <= 90
    assert slugs["Æther Vial"] == "aether-vial"
    assert slugs["Who // What // When // Where // Why"] == "who-what-when-where-why"
    assert slugs["Index"] != "index"
    # "Fire // Ice" and "Fire/Ice" share a base slug: both get a hash, whatever the order.
    assert slugs["Fire // Ice"] != slugs["Fire/Ice"]
    assert unique_slugs(reversed(NASTY), reserved=frozenset({"index"})) == slugs
    # Names in other scripts get a slug from a hash of the name: the same on every machine.
    assert base_slug("三歩先") == "page-d01ac237"
    assert base_slug("早想三步") == "page-2d4a5171"


def test_relative_links() -> None:
    assert relative_href("de/cards/a.html", "static/style.css") == "../../static/style.css"
    assert relative_href("index.html", "de/index.html") == "de/index.html"
