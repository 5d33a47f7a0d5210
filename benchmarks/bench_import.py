"""Import speed and memory, side by side in one run (this machine's speed drifts: targets are
ratios).

    .venv/bin/python -m benchmarks.bench_import [--cards 30000] [--work DIR] [--real]

For the synthetic corpus (benchmarks.synthetic, Scryfall formats) and, with ``--real``, the
MTGJSON corpus in ../shared/realdata/mtgjson-sets-2022-05/, each measured in a fresh process:

- the floor: the same files stream-parsed (ijson) and the same rows inserted with raw sqlite3
  ``executemany`` into the same schema, no checks;
- ``kb import`` into a fresh SQLite store: time and peak memory;
- the same import again: time and rows written (SQLite's total_changes); once as ``kb import``
  does it (files already imported are skipped by checksum) and once with ``--force`` (every
  record read and proven unchanged);
- peak memory of ``kb import`` for a corpus twice as large.

Targets: import ≤ 3 × floor; re-import writes nothing in ≤ ½ the import's time; peak memory for
the double corpus ≤ 1.2 × the single one.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REAL_CORPUS = ROOT.parent / "shared" / "realdata" / "mtgjson-sets-2022-05"


def _measure(*args: str) -> dict[str, Any]:
    """Run this module's ``--child`` mode in a fresh process: its JSON report plus peak RSS."""
    started = time.perf_counter()
    output = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_import", "--child", *args],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    report: dict[str, Any] = json.loads(output.splitlines()[-1])
    report["wall"] = time.perf_counter() - started
    return report


def _child(mode: str, database: Path, paths: list[Path]) -> dict[str, Any]:
    """One measurement, inside the fresh process."""
    from sqlalchemy import event
    from sqlalchemy.pool import NullPool

    from kb import migrate
    from kb.engine import make_engine

    engine = make_engine(f"sqlite:///{database}", poolclass=NullPool)
    if mode == "migrate":
        migrate.upgrade(engine)
        return {}
    written: list[int] = []
    event.listen(
        engine,
        "commit",
        lambda connection: written.append(connection.connection.driver_connection.total_changes),
    )
    started = time.perf_counter()
    if mode == "floor":
        from benchmarks.floor import insert_raw

        rows = insert_raw(database, paths)
    else:
        from kb.importing import ImportOptions, run_import

        summary = run_import(engine, paths, ImportOptions(force=mode == "import-force"))
        rows = sum(summary.counts[key] for key in summary.CHANGES)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "rows": rows, "written": sum(written), "peak_mb": peak_kb / 1024}


def _fresh_store(work: Path, name: str) -> Path:
    database = work / f"{name}.sqlite"
    database.unlink(missing_ok=True)
    _measure("migrate", str(database))
    return database


def bench_corpus(label: str, paths: list[Path], work: Path) -> dict[str, Any]:
    floor = _measure("floor", str(_fresh_store(work, f"{label}-floor")), *map(str, paths))
    database = _fresh_store(work, label)
    first = _measure("import", str(database), *map(str, paths))
    again = _measure("import", str(database), *map(str, paths))
    forced = _measure("import-force", str(database), *map(str, paths))
    return {"floor": floor, "import": first, "reimport": again, "forced": forced}


def _report(label: str, result: dict[str, Any]) -> None:
    floor, first = result["floor"], result["import"]
    print(f"\n{label}")
    print(f"  floor (raw executemany)  {floor['seconds']:7.2f} s  {floor['peak_mb']:6.0f} MB")
    print(
        f"  kb import                {first['seconds']:7.2f} s  {first['peak_mb']:6.0f} MB"
        f"  = {first['seconds'] / floor['seconds']:.2f} × floor (target ≤ 3)"
    )
    for key, label in (("reimport", "again"), ("forced", "again --force")):
        again = result[key]
        print(
            f"  kb import {label:<14} {again['seconds']:7.2f} s  {again['peak_mb']:6.0f} MB"
            f"  = {again['seconds'] / first['seconds']:.2f} × import (target ≤ 0.5),"
            f" rows written: {again['written']} (target 0)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=30_000)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--real", action="store_true", help="also the real MTGJSON corpus")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, database, *paths = args.child
        print(json.dumps(_child(mode, Path(database), [Path(p) for p in paths])))
        return

    from benchmarks.synthetic import generate

    args.work.mkdir(parents=True, exist_ok=True)
    single = args.work / f"synthetic-{args.cards}"
    double = args.work / f"synthetic-{2 * args.cards}"
    for folder, count in ((single, args.cards), (double, 2 * args.cards)):
        if not (folder / "rulings.json").exists():
            generate(folder, count)
    result = bench_corpus(f"synthetic-{args.cards}", [single], args.work)
    _report(f"Synthetic corpus: {args.cards:,} cards × 11 languages (Scryfall formats)", result)
    doubled = _measure("import", str(_fresh_store(args.work, "double")), str(double))
    ratio = doubled["peak_mb"] / result["import"]["peak_mb"]
    print(
        f"  kb import, corpus × 2    {doubled['seconds']:7.2f} s  {doubled['peak_mb']:6.0f} MB"
        f"  = {ratio:.2f} × single corpus peak memory (target ≤ 1.2)"
    )
    if args.real:
        if not REAL_CORPUS.is_dir():
            sys.exit(f"{REAL_CORPUS} is absent: the real corpus lives in ../shared/realdata")
        real = bench_corpus("real", [REAL_CORPUS], args.work)
        _report("Real corpus: MTGJSON, 579 set files (May 2022)", real)


if __name__ == "__main__":
    main()
