"""The page-text catalogs: current with the templates, complete, placeholders intact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po
from realdata import ROOT

from kb.locales import BY_CODE, LOCALES
from kb.site.i18n import CATALOG_DIR, catalog_path, translations
from kb.site.render import home_page
from kb.site.views import CardEntry, SiteIndex

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _msgids(path: Path) -> set[object]:
    with path.open("rb") as po:
        return {message.id for message in read_po(po) if message.id}


def test_pot_is_current_with_the_templates(tmp_path: Path) -> None:
    fresh = tmp_path / "messages.pot"
    CommandLineInterface().run(
        ["pybabel", "-q", "extract", "-F", str(ROOT / "babel.cfg"), "-o", str(fresh), str(ROOT)]
    )
    assert _msgids(fresh) == _msgids(CATALOG_DIR / "messages.pot"), (
        "kb/locale/messages.pot is stale: run the pybabel extract and update commands in README"
    )


@pytest.mark.parametrize("locale", [locale.code for locale in LOCALES])
def test_catalog_is_complete_with_placeholders_intact(locale: str) -> None:
    with catalog_path(locale).open("rb") as po:
        catalog = read_po(po, locale=BY_CODE[locale].babel)
    assert {message.id for message in catalog if message.id} == _msgids(
        CATALOG_DIR / "messages.pot"
    )
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert "fuzzy" not in message.flags, f"{locale}: fuzzy {ids[0]!r}"
        assert len(strings) == (catalog.num_plurals if len(ids) > 1 else 1)
        expected = set(_PLACEHOLDER.findall(ids[0]))
        for string in strings:
            assert string, f"{locale}: no translation of {ids[0]!r}"
            assert set(_PLACEHOLDER.findall(string)) == expected, f"{locale}: {string!r}"


@pytest.mark.parametrize(
    ("locale", "counts"),
    [
        ("en", {1: "1 ruling", 5: "5 rulings"}),
        ("ru", {1: "1 разъяснение", 3: "3 разъяснения", 5: "5 разъяснений", 21: "21 разъяснение"}),
        ("ja", {1: "裁定 1 件", 5: "裁定 5 件"}),
        ("fr", {0: "0 clarification", 1: "1 clarification", 2: "2 clarifications"}),
    ],
)
def test_plural_forms_follow_cldr(locale: str, counts: dict[int, str]) -> None:
    for count, text in counts.items():
        assert (
            translations(locale).ngettext("%(number)s ruling", "%(number)s rulings", count)
            % {"number": count}
            == text
        )


def test_counts_are_written_as_the_locale_writes_numbers() -> None:
    """23.706 Karten, not 23706 Karten: the home page's counts through Babel."""
    cards: list[CardEntry] = [CardEntry(f"Card {n}", {}, n, f"card-{n}") for n in range(1234)]
    site = SiteIndex(cards, {}, 23706)
    german = home_page(site, BY_CODE["de"], (BY_CODE["en"], BY_CODE["de"])).text
    assert "1.234 Karten" in german and "23.706 " in german
    french = home_page(site, BY_CODE["fr"], (BY_CODE["fr"],)).text
    assert "1\u202f234 cartes" in french
