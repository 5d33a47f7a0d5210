"""Mechanic pages quote their rule, home pages list mechanics by kind (issue 20 §4), and a card's
page names its mechanics."""

from __future__ import annotations

from pathlib import Path

from realdata import DATA, realdata
from sqlalchemy import update
from sqlalchemy.engine import Engine

from kb import edits, schema
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


def test_a_mechanic_of_no_card_lists_none(engine: Engine, tmp_path: Path) -> None:
    """Plot has its rule in the excerpt and no card in the demo: no "0 cards" heading (on
    Cast's page, it said that no card casts anything)."""
    site = _site(engine, tmp_path)
    plot = (site / "de/mechanics/plot.html").read_text("utf-8")
    assert "702.170a" in plot and 'id="cards"' not in plot and "0 Karten" not in plot
    spree = (site / "de/mechanics/spree.html").read_text("utf-8")
    assert '<h2 id="cards">2 Karten</h2>' in spree


def test_the_home_page_lists_mechanics_by_kind(engine: Engine, tmp_path: Path) -> None:
    home = (_site(engine, tmp_path) / "de/index.html").read_text("utf-8")
    abilities = home.index("<h3>Schlüsselwortfähigkeiten</h3>")
    others = home.index("<h3>Weitere Begriffe</h3>")
    assert abilities < home.index("mechanics/spree.html") < others
    assert others < home.index("mechanics/outlaw.html")


def test_a_mechanics_rule_text_or_kind_edited_renders_its_pages_again(
    engine: Engine, tmp_path: Path
) -> None:
    """A mechanic's fingerprint is its view as templates receive it, whole: a rule text or a
    kind edited in the store (kb import of newer rules, an editor's SQL) reaches the mechanic's
    pages and the home pages in an incremental build, as a full build shows them. (The rule text
    and the kind were once left out of it, and their pages stayed as they were.)"""
    out = _site(engine, tmp_path)
    with engine.begin() as connection:
        connection.execute(
            update(schema.mechanics)
            .where(schema.mechanics.c.slug == "spree")
            .values(rule_text="702.172a Spree, as the rules now say it.")
        )
        connection.execute(
            update(schema.mechanics)
            .where(schema.mechanics.c.slug == "outlaw")
            .values(kind="keyword_action")
        )
    edited = build(engine, out)
    assert edited.written == 2 * 11  # spree's page and the home page in each locale
    assert "702.172a Spree, as the rules now say it." in (
        out / "ja/mechanics/spree.html"
    ).read_text("utf-8")
    full = build(engine, tmp_path / "full").out
    assert {path.relative_to(out): path.read_bytes() for path in out.rglob("*.html")} == {
        path.relative_to(full): path.read_bytes() for path in full.rglob("*.html")
    }


def test_a_card_page_names_its_mechanics_and_follows_a_tag(engine: Engine, tmp_path: Path) -> None:
    """The card's mechanics under its mana cost, each in the page's locale and linked to its
    page; an editor's tag reaches the card's pages and the mechanic's in an incremental build,
    as a full build shows them."""
    out = _site(engine, tmp_path)
    page = out / "de/cards/three-steps-ahead.html"
    assert (
        '<p class="card-mechanics">Mechaniken: '
        '<a class="tag" href="../../de/mechanics/spree.html">Exzess</a>\n</p>'
    ) in page.read_text("utf-8")
    edits.set_tag(engine, "ann", "plot", True, card="Three Steps Ahead")
    tagged = build(engine, out)
    assert tagged.written == 2 * 11  # the card's page and plot's, which now lists the card
    shown = page.read_text("utf-8")
    assert shown.index("mechanics/plot.html") < shown.index("mechanics/spree.html")
    full = build(engine, tmp_path / "full").out
    assert {path.relative_to(out): path.read_bytes() for path in out.rglob("*.html")} == {
        path.relative_to(full): path.read_bytes() for path in full.rglob("*.html")
    }
