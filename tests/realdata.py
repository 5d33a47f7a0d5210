"""Where test inputs live: the project's data/, and the real third-party files in
../shared/realdata beside the project, never inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
SHARED = ROOT.parent / "shared"
REALDATA = SHARED / "realdata"


def realdata(name: str = "") -> Path:
    """A file or folder of ../shared/realdata; skips the test when the folder is absent."""
    path = REALDATA / name
    if not path.exists():
        pytest.skip("../shared/realdata is absent: real third-party files are not in this checkout")
    return path


def seed_page(name: str) -> Path:
    """One of the two seed pages in ../shared/seeds; skips the test when absent."""
    path = SHARED / "seeds" / name
    if not path.exists():
        pytest.skip("../shared/seeds is absent: the seed pages are not in this checkout")
    return path
