"""Mechanic pages quote their rule, and home pages list mechanics by kind (issue 20 §4)."""

from __future__ import annotations

from pathlib import Path

from realdata import DATA, realdata
from sqlalchemy.engine import Engine

from kb.importing import run_import
from kb.site.build import build


def _site(engine: Engine, tmp_path: Path) -> Path:
    run_import(engine, [DATA, realdata("MagicCompRules_2024_excerpt_outlaw_spree.txt")])
    return build(engine, tmp_path / "site").out


def test_a_mechanic_page_quotes_the_rule_in_english(engine: Engine, tmp_path: Path) -> None:
    page = (_site(engine, tmp_path) / "de/mechanics/spree.html").read_text("utf-8")
    assert "<p>Umfassende Regeln, Regel 702.172</p>" in page
    assert (
        '<blockquote class="rule" lang="en"><p>702.172a Spree is a static ability found on some '
        "modal spells (see rule 700.2)"
    ) in page


def test_the_home_page_lists_mechanics_by_kind(engine: Engine, tmp_path: Path) -> None:
    home = (_site(engine, tmp_path) / "de/index.html").read_text("utf-8")
    abilities = home.index("<h3>Schlüsselwortfähigkeiten</h3>")
    others = home.index("<h3>Weitere Begriffe</h3>")
    assert abilities < home.index("mechanics/spree.html") < others
    assert others < home.index("mechanics/outlaw.html")
