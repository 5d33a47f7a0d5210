"""Whole pages compared with expected files under tests/expected/.

After an intended change, refresh them and review the diff:
    KB_REFRESH_EXPECTED=1 .venv/bin/pytest tests/test_site_expected.py
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from realdata import DATA, ROOT

from kb.engine import make_engine
from kb.importing import run_import
from kb.site.build import build

EXPECTED = ROOT / "tests" / "expected"
PAGES = {f"{folder}-three-steps-ahead.html": f"{folder}/cards/three-steps-ahead.html"
         for folder in ("en", "de", "it", "ja")}  # fmt: skip
PAGES |= {f"{folder}-cards-a-z.html": f"{folder}/cards/index.html" for folder in ("de", "ja")}
PAGES |= {"de-a-z-d.html": "de/a-z/4.html", "ja-a-z-radical-1.html": "ja/a-z/38.html"}
"""The A–Z pages, and a section's page (German D; the Japanese radical 一, of 三歩先)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Path:
    store = tmp_path_factory.mktemp("store") / "kb.sqlite"
    shutil.copy(migrated_sqlite, store)
    engine = make_engine(f"sqlite:///{store}")
    run_import(engine, [DATA])
    out = build(engine, tmp_path_factory.mktemp("expected") / "site").out
    engine.dispose()
    return out


@pytest.mark.parametrize("expected_name", sorted(PAGES))
def test_page_matches_expected_file(site: Path, expected_name: str) -> None:
    actual = (site / PAGES[expected_name]).read_text("utf-8")
    expected = EXPECTED / expected_name
    if os.environ.get("KB_REFRESH_EXPECTED"):
        expected.parent.mkdir(exist_ok=True)
        expected.write_text(actual, encoding="utf-8")
    assert actual == expected.read_text("utf-8"), (
        f"{PAGES[expected_name]} differs from {expected}; if intended, refresh with "
        "KB_REFRESH_EXPECTED=1 .venv/bin/pytest tests/test_site_expected.py"
    )
