"""CI runs every test: .ci/run stops where the real files are absent, and with the variable it
sets, a test that cannot find them fails instead of skipping."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import realdata
from realdata import REQUIRE_VARIABLE, ROOT

REQUIRE_SHARED = ROOT / ".ci" / "require-shared"


def test_ci_checks_for_the_shared_files_before_anything_else() -> None:
    lines = [
        line
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[:4] == [
        "set -euo pipefail",
        'cd "$(dirname "$0")/.."',
        "bash .ci/require-shared",
        f"export {REQUIRE_VARIABLE}=1",
    ]


def test_the_check_passes_beside_the_shared_files() -> None:
    realdata.realdata()
    realdata.seed_page("")
    done = subprocess.run(["bash", str(REQUIRE_SHARED)], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_check_fails_in_a_clone_without_them(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / ".ci").mkdir(parents=True)
    shutil.copy(REQUIRE_SHARED, clone / ".ci")
    done = subprocess.run(["bash", str(clone / ".ci" / "require-shared")], capture_output=True)
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == [
        f".ci/run: ../shared/{folder} is absent: CI runs every test, and some read it "
        "(put shared/ beside the clone)"
        for folder in ("realdata", "seeds")
    ]


@pytest.mark.parametrize("helper", [realdata.realdata, realdata.seed_page])
def test_absent_files_skip_or_fail(helper: object, monkeypatch: pytest.MonkeyPatch) -> None:
    assert callable(helper)
    monkeypatch.setattr(realdata, "REALDATA", ROOT / "no-such-folder")
    monkeypatch.setattr(realdata, "SHARED", ROOT / "no-such-folder")
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="is absent"):
        helper("x.json")
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{REQUIRE_VARIABLE}=1: every test must run"):
        helper("x.json")
