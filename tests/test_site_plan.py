"""The order of the other pages' plan: what the pages of a kind share is let go before the
next kind is read (a large site's changes, then its cards' lists, are MBs of the build's
main process)."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from kb.locales import LOCALES
from kb.site.data import load_index
from kb.site.fingerprints import Fingerprints, code_version
from kb.site.other_pages import Family, Release, plan_other_pages
from kb.site.reading import reading
from kb.site.render import Renderer


@pytest.mark.parametrize("full", [True, False])
def test_what_pages_share_is_let_go_before_the_next_kind(demo_engine: Engine, full: bool) -> None:
    with reading(demo_engine) as connection:
        index = load_index(connection)
    fingerprints = Fingerprints(code_version("https://example.org/", LOCALES))
    plan = plan_other_pages(
        demo_engine, index, LOCALES, LOCALES, "https://example.org/", fingerprints,
        fingerprints.mechanics(index.mechanics.values()), [""] * len(index.cards),
        Renderer(LOCALES), {}, full, {}, {},
    )  # fmt: skip
    kinds = []
    for entry in plan.entries:
        if isinstance(entry, Release):
            kinds.append("release")
        elif isinstance(entry, Family):
            kinds.append("cards")  # an A–Z index, from the locale's list of its cards
        else:
            path = entry[0]
            if path.endswith(("/changes.html", "/feed.atom")):
                kinds.append("changes")
            elif "/mechanics/" in path:
                kinds.append("cards")  # a mechanic's page lists its cards
            elif path.endswith("/index.html") and "/" in path:
                kinds.append("home")
            else:
                kinds.append("root")  # the root pages, the style sheet, sitemaps
    assert max(n for n, kind in enumerate(kinds) if kind == "home") < kinds.index("release")
    others = [kind for kind in kinds if kind != "home"]
    runs = [kind for number, kind in enumerate(others) if others[number - 1 : number] != [kind]]
    assert runs == ["changes", "release", "cards", "release", "root"]
    assert kinds.count("changes") == 2 * len(LOCALES)
    assert "sitemap.xml" in [entry[0] for entry in plan.entries if isinstance(entry, tuple)]
