"""The loader is the one writer of imported records, and only that: what a ruling's text derives
(kb.derived) and how keys are batched (kb.batches) stand apart, so the editors' writer and the
exporter do not load it, and the loader's parts are each small."""

from __future__ import annotations

import subprocess
import sys

from realdata import ROOT

LOADER = ROOT / "kb" / "loader"


def modules_loaded_by(statement: str) -> set[str]:
    """The modules of kb that running ``statement`` in a fresh interpreter imports."""
    found = subprocess.run(
        [sys.executable, "-c", f"{statement}; import sys; print(*sorted(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.split()
    return {name for name in found if name == "kb" or name.startswith("kb.")}


def test_edits_and_exports_do_not_load_the_loader() -> None:
    loaded = modules_loaded_by("import kb.edits, kb.exporting")
    assert {"kb.derived", "kb.batches"} <= loaded
    assert not {name for name in loaded if name.startswith("kb.loader")}


def test_derived_data_and_batches_import_no_writer() -> None:
    assert modules_loaded_by("import kb.batches") == {"kb", "kb.batches"}
    loaded = modules_loaded_by("import kb.derived")
    assert {"kb.text", "kb.batches"} <= loaded
    assert not {name for name in loaded if name.startswith(("kb.loader", "kb.edits", "kb.import"))}


def test_the_loader_keeps_its_public_names() -> None:
    loaded = modules_loaded_by("from kb.loader import BATCH_SIZE, Loader, Summary")
    assert "kb.loader.run" in loaded and "kb.loader.summary" in loaded


def test_no_part_of_the_loader_is_over_400_lines() -> None:
    lengths = {path.name: len(path.read_text("utf-8").splitlines()) for path in LOADER.glob("*.py")}
    assert len(lengths) >= 8
    assert {name: n for name, n in lengths.items() if n > 400} == {}
