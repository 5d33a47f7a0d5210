"""The rendering contract (kb.site.stencils): every page of a site is the same bytes filled into
stencils of its templates as rendered by Jinja2 alone (``KB_RENDER=plain``), on the demo, on a
seeded synthetic store, and on real MTGJSON sets with split, adventure and double-faced cards."""

from __future__ import annotations

from pathlib import Path

import pytest
from realdata import DATA, realdata
from sqlalchemy.engine import Engine

from benchmarks import synthetic
from kb.engine import make_engine
from kb.importing import run_import
from kb.site import search
from kb.site.build import BuildOptions, build
from kb.site.output import MANIFEST
from kb.site.render import PLAIN_RENDERING

REAL_SETS = ("ELD.json.gz", "KHM.json.gz", "ISD.json.gz")
"""Adventures (Eldraine), modal double-faced cards (Kaldheim), transforming ones (Innistrad),
with their printings' names in every language."""


def _pages(site: Path) -> dict[str, bytes]:
    return {
        path.relative_to(site).as_posix(): path.read_bytes()
        for path in sorted(site.rglob("*"))
        if path.is_file() and path.name != MANIFEST
    }


def _both_ways(engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Build the store's site both ways (two workers each), search bundles and all; the number
    of pages compared (the bundles' files are compared too, not counted)."""
    options = BuildOptions(jobs=2, base_url="https://rulings.example.org/")
    fast = _pages(build(engine, tmp_path / "fast", options).out)
    monkeypatch.setenv(PLAIN_RENDERING, "plain")
    plain = _pages(build(engine, tmp_path / "plain", options).out)
    assert fast.keys() == plain.keys()
    differ = [path for path in fast if fast[path] != plain[path]]
    assert differ == [], f"{len(differ)} pages differ, the first: {differ[:5]}"
    return sum(1 for path in fast if f"/{search.FOLDER}/" not in path)


def _store(url: str, *inputs: Path) -> Engine:
    engine = make_engine(url)
    run_import(engine, list(inputs))
    return engine


def test_the_demo_site_is_the_same_both_ways(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = _both_ways(_store(sqlite_url, DATA), tmp_path, monkeypatch)
    # 2 cards, home, A–Z, changes, feed, 2 mechanics, two A–Z sections; root pages, stylesheet,
    # search.js, robots, the sitemap index and two sitemaps
    assert pages == 11 * (8 + 2) + 2 + 6


def test_a_synthetic_site_is_the_same_both_ways(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    synthetic.generate(corpus, 150, seed=7)
    pages = _both_ways(_store(sqlite_url, corpus), tmp_path, monkeypatch)
    assert pages > 150 * 11


def test_real_sets_are_the_same_both_ways(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sets = [realdata(f"mtgjson-sets-2022-05/{name}") for name in REAL_SETS]
    rules = realdata("MagicCompRules_20220429.txt")
    pages = _both_ways(_store(sqlite_url, *sets, rules), tmp_path, monkeypatch)
    assert pages > 800 * 11
