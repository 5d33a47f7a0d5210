"""Where test inputs live: the project's data/, and the real third-party files in
../shared/realdata beside the project, never inside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
SHARED = ROOT.parent / "shared"
REALDATA = SHARED / "realdata"
REQUIRE_VARIABLE = "KB_REQUIRE_REALDATA"
"""Set to 1 (as .ci/run does), a test whose real files are absent fails instead of skipping."""


def _absent(reason: str) -> None:
    if os.environ.get(REQUIRE_VARIABLE) == "1":
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE}=1: every test must run)", pytrace=False)
    pytest.skip(reason)


def realdata(name: str = "") -> Path:
    """A file or folder of ../shared/realdata; skips the test when the folder is absent."""
    path = REALDATA / name
    if not path.exists():
        _absent("../shared/realdata is absent: real third-party files are not in this checkout")
    return path


def seed_page(name: str) -> Path:
    """One of the two seed pages in ../shared/seeds; skips the test when absent."""
    path = SHARED / "seeds" / name
    if not path.exists():
        _absent("../shared/seeds is absent: the seed pages are not in this checkout")
    return path
