"""benchmarks/same_pages.py: two revisions' demo sites and exports, compared byte for byte.

The script runs kb from git checkouts, so these tests need git and this checkout's history; it
builds SQLite stores of its own (what it compares are files, whichever engine made the store).
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from benchmarks import same_pages

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def head() -> str:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: same_pages checks revisions out with git")
    found = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "HEAD"], capture_output=True, text=True
    )
    if found.returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout: same_pages needs its history")
    return found.stdout.strip()


def _worktrees() -> set[str]:
    """The repository's worktrees by path (their commits move as others commit)."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "list", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line for line in listed.splitlines() if line.startswith("worktree ")}


def test_a_revision_is_the_same_as_itself(head: str, capsys: pytest.CaptureFixture[str]) -> None:
    worktrees = _worktrees()
    assert same_pages.main(["--before", "HEAD", "--after", "HEAD", "--sites", "demo"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"before: before ({head[:7]}), after: after ({head[:7]})"
    assert lines[1].startswith("demo site: same (") and lines[1].endswith(" files)")
    assert [line.split(" (")[0] for line in lines[2:]] == [
        "demo export mtgjson: same",
        "demo export scryfall-rulings: same",
        "demo export csv: same",
        "same: every site and export is byte-identical",
    ]
    assert _worktrees() == worktrees, "the temporary worktrees are removed"


def test_an_edited_template_is_named(
    head: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A checkout of HEAD with one edited file stands for a revision that changed a template.
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "HEAD"], capture_output=True, check=True
    ).stdout
    edited = tmp_path / "edited"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(edited, filter="data")
    card = edited / "templates" / "card.html"
    text = card.read_text(encoding="utf-8").replace("</article>\n", "</article>\n<!-- edited -->\n")
    card.write_text(text, encoding="utf-8")

    status = same_pages.main(["--before", "HEAD", "--after", str(edited), "--sites", "demo"])

    out = capsys.readouterr().out
    assert status == 1
    lines = out.splitlines()
    # Two cards in eleven locales: every card page, and nothing else.
    assert lines[1].startswith("demo site: DIFFERENT (22 of ")
    assert lines[1].endswith(" files differ, 0 only before, 0 only after)")
    assert "  differs: de/cards/caught-in-the-crossfire.html" in lines
    assert "    +<!-- edited -->" in lines
    assert "demo export mtgjson: same" in out  # the store is the same: so are its exports
    assert lines[-1] == "DIFFERENT"


def test_an_unknown_revision_is_an_error(head: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert same_pages.main(["--before", "no-such-revision", "--sites", "demo"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("same_pages: error: git rev-parse --verify no-such-revision^{commit}:")
    assert error.count("\n") == 1
