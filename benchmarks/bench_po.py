"""PO files of the real corpus's rulings out and back, beside the corpus import, in one run.

    .venv/bin/python -m benchmarks.bench_po [--rounds 1] [--work DIR] [--locale de]

Each round, each step in a fresh process (benchmarks.child), on a fresh SQLite store:

- ``kb import`` of the 579 MTGJSON set files of ../shared/realdata/mtgjson-sets-2022-05/;
- ``kb translations export --locale de`` of every ruling (no translation yet);
- the file translated, every entry (untimed: what translators do), and
  ``kb translations import`` of it: a draft and a revision for every ruling, one transaction;
- the export again, now with every translation, and its import again (nothing changes).

Target (issue 22): exporting one locale's PO file of every ruling and importing it back each
take at most a tenth of the corpus import's time (the median of the rounds' ratios).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import child

ROOT = Path(__file__).resolve().parents[1]
REAL_CORPUS = ROOT.parent / "shared" / "realdata" / "mtgjson-sets-2022-05"
MODULE = "benchmarks.bench_po"
TARGET = 0.1
STEPS = ("export", "po-import", "export-full", "po-import-again")


def _child(mode: str, database: Path, paths: list[Path]) -> dict[str, Any]:
    """One step, inside the fresh process."""
    from sqlalchemy.pool import NullPool

    from kb import migrate
    from kb.engine import make_engine

    engine = make_engine(f"sqlite:///{database}", poolclass=NullPool)
    if mode == "migrate":
        migrate.upgrade(engine)
        return {}
    started = time.perf_counter()
    report: dict[str, Any] = {}
    if mode == "import":
        from kb.importing import run_import

        run_import(engine, paths)
    elif mode.startswith("export"):
        from kb.translations.po_export import Selection, export_to_file

        locale, out = paths[0].name, paths[1]
        with engine.connect() as connection:
            report["rulings"] = export_to_file(connection, locale, Selection(), out)
    else:
        from kb.translations.po_import import import_po

        result = import_po(engine, "bench", paths[0])
        report["revisions"] = len(result.revisions)
        report["unchanged"] = result.unchanged
    report["seconds"] = time.perf_counter() - started
    return report


def translated(po: Path, out: Path) -> None:
    """Every entry of ``po`` translated, as a translator's editor would save it."""
    from babel.messages.pofile import read_po, write_po

    catalog = read_po(io.BytesIO(po.read_bytes()))
    for message in catalog:
        if message.id:
            message.string = f"[{catalog.locale_identifier}] {message.id}"
    with out.open("wb") as file:
        write_po(file, catalog, width=76, no_location=True)  # wrapped, as editors save


def bench_round(work: Path, locale: str) -> dict[str, dict[str, Any]]:
    database = work / "po-real.sqlite"
    database.unlink(missing_ok=True)
    child.run(MODULE, "migrate", database)
    steps = {"import": child.run(MODULE, "import", database, [REAL_CORPUS])}
    locale_path = Path(locale)  # the locale travels as a path's name, as child.run takes paths
    empty, full, filled = work / "empty.po", work / "full.po", work / "translated.po"
    steps["export"] = child.run(MODULE, "export", database, [locale_path, empty])
    translated(empty, filled)
    steps["po-import"] = child.run(MODULE, "po-import", database, [filled])
    steps["export-full"] = child.run(MODULE, "export-full", database, [locale_path, full])
    steps["po-import-again"] = child.run(MODULE, "po-import", database, [full])
    return steps


LABELS = {
    "export": "export, every ruling, untranslated",
    "po-import": "import, every ruling translated",
    "export-full": "export, every ruling translated",
    "po-import-again": "import of that file again",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--locale", default="de")
    child.add_option(parser)
    args = parser.parse_args()
    if args.child:
        child.serve(args.child, _child)
        return
    if not REAL_CORPUS.is_dir():
        sys.exit(f"{REAL_CORPUS} is absent: the real corpus lives in ../shared/realdata")
    args.work.mkdir(parents=True, exist_ok=True)
    rounds = []
    for number in range(args.rounds):
        rounds.append(bench_round(args.work, args.locale))
        steps = ", ".join(f"{name} {step['seconds']:.2f} s" for name, step in rounds[-1].items())
        print(f"  round {number + 1}: {steps}", file=sys.stderr, flush=True)
    imports = [steps["import"]["seconds"] for steps in rounds]
    print(f"Real corpus, {args.locale}, {args.rounds} round(s), medians:")
    print(f"  kb import of the corpus          {statistics.median(imports):8.2f} s")
    last = rounds[-1]
    for step in STEPS:
        seconds = [steps[step]["seconds"] for steps in rounds]
        ratio = child.median_ratio(seconds, imports)
        verdict = "met" if ratio <= TARGET else "MISSED"
        details = {
            key: value for key, value in last[step].items() if key not in ("seconds", "wall")
        }
        print(
            f"  {LABELS[step]:33} {statistics.median(seconds):8.2f} s  = {ratio:.3f} × import"
            f" (target ≤ {TARGET}: {verdict})  {details}"
        )


if __name__ == "__main__":
    main()
