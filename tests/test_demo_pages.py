"""The German and Italian pages carry the seed pages' content, built from one store."""

from __future__ import annotations

from pathlib import Path

import pytest
from realdata import DATA
from sqlalchemy.engine import Engine

from kb.importing import run_import
from kb.site.build import build
from kb.site.output import MANIFEST


@pytest.fixture
def site(engine: Engine, tmp_path: Path) -> Path:
    run_import(engine, [DATA])
    return build(engine, tmp_path / "site").out


def page_text(site: Path, locale: str, slug: str) -> str:
    return (site / locale / "cards" / f"{slug}.html").read_text(encoding="utf-8")


def seed_rulings(name: str) -> list[str]:
    lines = (DATA / "pages" / name).read_text(encoding="utf-8").split("\n")
    return [line.lstrip("• ")[10:] if line.startswith("•") else line for line in lines[2:]]


def test_german_page_shows_name_rulings_and_german_dates(site: Path) -> None:
    html = page_text(site, "de", "three-steps-ahead")
    assert '<html lang="de">' in html
    assert "<title>Drei Schritte voraus</title>" in html
    assert html.count(">12.04.2024</time>") == 18
    for ruling in seed_rulings("de-three-steps-ahead.txt")[:18]:
        assert f'<p lang="en">{ruling}</p>' in html
    assert "Offizielle Klarstellungen veröffentlicht Wizards of the Coast nur auf Englisch." in html
    assert 'href="../../it/cards/three-steps-ahead.html"' in html


def test_italian_page_shows_name_and_the_fifteen_rulings(site: Path) -> None:
    html = page_text(site, "it", "caught-in-the-crossfire")
    assert "<h1>Preso nel Fuoco Incrociato</h1>" in html
    rulings = [r for r in seed_rulings("it-caught-in-the-crossfire.txt") if r]
    assert len(rulings) == 15
    for ruling in rulings:
        assert f'<p lang="en">{ruling}</p>' in html
    assert "15 chiarimenti" in html


def test_locale_without_a_name_falls_back_to_english_marked_as_such(site: Path) -> None:
    html = page_text(site, "ko", "three-steps-ahead")
    assert '<h1 lang="en">Three Steps Ahead</h1>' in html
    assert "판정 18개" in html


def test_same_store_gives_byte_identical_site(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, [DATA])
    first, second = build(engine, tmp_path / "a").out, build(engine, tmp_path / "b").out
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for relative in files:
        if relative.name != MANIFEST:  # the build's record notes its folders' times
            assert (first / relative).read_bytes() == (second / relative).read_bytes()
