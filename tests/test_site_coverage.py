"""Each locale's home page states its translations' coverage (issue 22 §3), as kb translations
status counts it; an incremental build renders a home page again only when its coverage or its
counts change, and gives the bytes a new build gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from kb import edits
from kb.site.build import build
from kb.site.render import percent


def _home(out: Path, folder: str) -> str:
    return (out / folder / "index.html").read_text("utf-8")


def _pages(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*.html"))
    }


def test_a_home_page_states_its_locales_coverage(demo_store: Engine, tmp_path: Path) -> None:
    out = build(demo_store, tmp_path / "site").out
    assert (
        '<p class="coverage">Inoffizielle Übersetzungen der Community: 0,0\u00a0% der '
        "Klarstellungen übersetzt, 0,0\u00a0% geprüft.</p>"
    ) in _home(out, "de")
    assert 'class="coverage"' not in _home(out, "en")  # the rulings are English
    before = _pages(out)
    # Ruling 2 stands on both demo cards: 1 of 21 rulings, reviewed.
    edits.set_translation(demo_store, "ann", 2, "de", "Kein Modus zweimal.")
    edits.set_translation(demo_store, "ann", 2, "de", status="reviewed")
    edits.set_translation(demo_store, "ann", 4, "de", "Der Spielstein kopiert ...")
    result = build(demo_store, out)
    assert (
        "Inoffizielle Übersetzungen der Community: 9,5\u00a0% der Klarstellungen übersetzt, "
        "4,8\u00a0% geprüft."
    ) in _home(out, "de")
    after = _pages(out)
    # The German pages that show the reviewed translation (both cards, Spree's general
    # rulings) and the German home; no other locale's home.
    assert sorted(path for path in after if after[path] != before[path]) == [
        "de/cards/caught-in-the-crossfire.html",
        "de/cards/three-steps-ahead.html",
        "de/index.html",
        "de/mechanics/spree.html",
    ]
    assert result.written == 4
    assert _pages(out) == _pages(build(demo_store, tmp_path / "fresh").out)
    # A draft reworded: no page shows it, the shares stay, and the home is not rendered again.
    edits.set_translation(demo_store, "ann", 4, "de", "Der Spielstein kopiert genau ...")
    assert build(demo_store, out).rendered == 0


@pytest.mark.parametrize(
    ("share", "locale", "shown"),
    [
        (0.0952, "en", "9.5%"),
        (0.0952, "de", "9,5\u00a0%"),
        (0.0, "fr", "0,0\u00a0%"),
        (1.0, "ja", "100.0%"),
        (0.00004, "it", "0,0%"),
    ],
)
def test_a_share_is_written_as_the_locale_writes_percentages(
    share: float, locale: str, shown: str
) -> None:
    assert percent(share, locale) == shown
