"""kb.site.exchange: a full build's swap of its staging folder in one step, so that a build
killed at the swap leaves the old site or the new one, never no site (the two renames it was
before left none between them)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kb.site.exchange import exchange


@pytest.mark.skipif(sys.platform != "linux", reason="renameat2 is Linux's")
def test_two_folders_are_swapped_whole(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "old.html").write_text("old")
    (tmp_path / ".site.staging" / "de").mkdir(parents=True)
    (tmp_path / ".site.staging" / "de" / "new.html").write_text("new")
    assert exchange(tmp_path / ".site.staging", tmp_path / "site")
    assert (tmp_path / "site" / "de" / "new.html").read_text() == "new"
    assert [path.name for path in (tmp_path / ".site.staging").iterdir()] == ["old.html"]


def test_a_missing_folder_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "staging").mkdir()
    if sys.platform != "linux":
        assert not exchange(tmp_path / "staging", tmp_path / "site")
        return
    with pytest.raises(FileNotFoundError, match="site"):
        exchange(tmp_path / "staging", tmp_path / "site")
