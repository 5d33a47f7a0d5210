"""Import speed and memory, side by side in one run (this machine's speed drifts: targets are
ratios).

    .venv/bin/python -m benchmarks.bench_import [--cards 30000] [--rounds 3] [--work DIR] [--real]

For the synthetic corpus (benchmarks.synthetic, Scryfall formats) and, with ``--real``, the
MTGJSON corpus in ../shared/realdata/mtgjson-sets-2022-05/, each measured in a fresh process,
``--rounds`` times, the floor and kb taking turns to go first (medians reported):

- the floor: the same files stream-parsed (ijson) and the same rows inserted with raw sqlite3
  ``executemany`` into the same schema, no checks, in two processes where kb import uses two
  (benchmarks.floor);
- ``kb import`` into a fresh SQLite store: time and peak memory;
- the same import again: time and rows written (SQLite's total_changes); once as ``kb import``
  does it (files already imported are skipped by checksum) and once with ``--force`` (every
  record read and proven unchanged);
- peak memory of ``kb import`` for a corpus twice as large;
- for the real corpus, the peer: the conversion editors run today, the corpus in mtgsqlive's
  layout with json + executemany, indexed (benchmarks.mtgsqlive), into a fresh SQLite file.

Targets: import ≤ 3 × floor; re-import writes nothing in ≤ ½ the import's time (both the median
of the rounds' ratios); peak memory for the double corpus ≤ 1.2 × the single one; the real
corpus's import ≤ 1.5 × the peer's conversion.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import child
from benchmarks.installed import compile_kb

ROOT = Path(__file__).resolve().parents[1]
REAL_CORPUS = ROOT.parent / "shared" / "realdata" / "mtgjson-sets-2022-05"


def _measure(mode: str, database: Path, paths: Sequence[Path] = ()) -> dict[str, Any]:
    return child.run("benchmarks.bench_import", mode, database, paths)


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
    mining: list[float] = []
    started = time.perf_counter()
    if mode == "floor":
        from benchmarks.floor import insert_raw

        rows = insert_raw(database, paths)
    elif mode == "peer":
        from benchmarks import mtgsqlive

        peer = make_engine(f"sqlite:///{database}", poolclass=NullPool)
        mtgsqlive.build(peer, paths[0])
        mtgsqlive.analyze(peer)
        rows = 0
    else:
        from kb.importing import ImportOptions, run_import

        with _mining_timed(mining):
            summary = run_import(engine, paths, ImportOptions(force=mode == "import-force"))
        rows = sum(summary.counts[key] for key in summary.CHANGES)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    helpers_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "seconds": seconds,
        "rows": rows,
        "written": sum(written),
        "peak_mb": peak_kb / 1024,
        "helper_peak_mb": helpers_kb / 1024,
        "mining": sum(mining),
    }


@contextmanager
def _mining_timed(spent: list[float]) -> Iterator[None]:
    """The wall time of each mining inside the import, into ``spent`` (issue 20: at most a
    quarter of the import)."""
    from kb.loader.mined_names import MinedNames

    untimed = MinedNames.mine

    def mine(self: MinedNames) -> None:
        started = time.perf_counter()
        untimed(self)
        spent.append(time.perf_counter() - started)

    MinedNames.mine = mine  # type: ignore[method-assign]
    try:
        yield
    finally:
        MinedNames.mine = untimed  # type: ignore[method-assign]


def _fresh_store(work: Path, name: str) -> Path:
    database = work / f"{name}.sqlite"
    database.unlink(missing_ok=True)
    _measure("migrate", database)
    return database


SIDES = ("floor", "import")
REAL_SIDES = (*SIDES, "peer")
"""The real corpus is also converted to mtgsqlive's layout, as editors do today (issue 20)."""


def bench_corpus(
    label: str, paths: list[Path], work: Path, rounds: int, sides: tuple[str, ...] = SIDES
) -> dict[str, list[Any]]:
    """Each round: the floor and kb import (and the peer's conversion, if ``sides`` name it;
    who goes first turns), then kb's two re-imports of the store it just made."""
    result: dict[str, list[Any]] = {side: [] for side in sides}
    result.update(reimport=[], forced=[])
    for round_number in range(rounds):
        for side in child.turns(round_number, sides):
            if side == "peer":  # a new file in mtgsqlive's layout, not a kb store
                database = work / f"{label}-peer.sqlite"
                database.unlink(missing_ok=True)
            else:
                database = _fresh_store(work, f"{label}-{side}")
            result[side].append(_measure(side, database, paths))
            if side == "import":
                result["reimport"].append(_measure("import", database, paths))
                result["forced"].append(_measure("import-force", database, paths))
        floor, first = result["floor"][-1], result["import"][-1]
        progress(
            f"  round {round_number + 1}: floor {floor['seconds']:.2f} s, "
            f"kb import {first['seconds']:.2f} s"
        )
    return result


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _median(reports: list[dict[str, Any]], key: str) -> float:
    return statistics.median(report[key] for report in reports)


def _seconds(reports: list[dict[str, Any]]) -> list[float]:
    return [report["seconds"] for report in reports]


def _report(label: str, result: dict[str, list[Any]]) -> None:
    floor, first = result["floor"], result["import"]
    rounds = len(floor)
    print(f"\n{label} (median of {rounds} round{'s' if rounds > 1 else ''})")
    print(
        f"  floor (raw executemany)  {_median(floor, 'seconds'):7.2f} s"
        f"  {_median(floor, 'peak_mb'):6.0f} MB"
    )
    ratio = child.median_ratio(_seconds(first), _seconds(floor))
    print(
        f"  kb import                {_median(first, 'seconds'):7.2f} s"
        f"  {_median(first, 'peak_mb'):6.0f} MB  = {ratio:.3f} × floor (target ≤ 3)"
    )
    if _median(first, "mining"):  # the synthetic corpus has no printed texts to mine
        mining = child.median_ratio([report["mining"] for report in first], _seconds(first))
        print(
            f"  mining inside it         {_median(first, 'mining'):7.2f} s"
            f"  {_median(first, 'helper_peak_mb'):6.0f} MB (its largest helper process)"
            f"  = {mining:.3f} × import (target ≤ 0.25)"
        )
    # The 0.5 bound is the plain re-import's: --force proves every record unchanged.
    for key, name, bound in (
        ("reimport", "again", " (target ≤ 0.5)"),
        ("forced", "again --force", ""),
    ):
        again = result[key]
        ratio = child.median_ratio(_seconds(again), _seconds(first))
        print(
            f"  kb import {name:<14} {_median(again, 'seconds'):7.2f} s"
            f"  {_median(again, 'peak_mb'):6.0f} MB  = {ratio:.3f} × import{bound},"
            f" rows written: {max(report['written'] for report in again)} (target 0)"
        )
    if peer := result.get("peer"):
        ratio = child.median_ratio(_seconds(first), _seconds(peer))
        print(
            f"  mtgsqlive conversion     {_median(peer, 'seconds'):7.2f} s"
            f"  {_median(peer, 'peak_mb'):6.0f} MB: kb import = {ratio:.3f} × it (target ≤ 1.5)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out")
    parser.add_argument("--real", action="store_true", help="also the real MTGJSON corpus")
    child.add_option(parser)
    args = parser.parse_args()
    if args.child:
        child.serve(args.child, _child)
        return

    from benchmarks.synthetic import generate

    compile_kb()
    args.work.mkdir(parents=True, exist_ok=True)
    single = args.work / f"synthetic-{args.cards}"
    double = args.work / f"synthetic-{2 * args.cards}"
    for folder, count in ((single, args.cards), (double, 2 * args.cards)):
        if not (folder / "rulings.json").exists():
            generate(folder, count)
    result = bench_corpus(f"synthetic-{args.cards}", [single], args.work, args.rounds)
    _report(f"Synthetic corpus: {args.cards:,} cards × 11 languages (Scryfall formats)", result)
    doubled = _measure("import", _fresh_store(args.work, "double"), [double])
    ratio = doubled["peak_mb"] / _median(result["import"], "peak_mb")
    print(
        f"  kb import, corpus × 2    {doubled['seconds']:7.2f} s  {doubled['peak_mb']:6.0f} MB"
        f"  = {ratio:.2f} × single corpus peak memory (target ≤ 1.2)"
    )
    if args.real:
        if not REAL_CORPUS.is_dir():
            sys.exit(f"{REAL_CORPUS} is absent: the real corpus lives in ../shared/realdata")
        real = bench_corpus("real", [REAL_CORPUS], args.work, args.rounds, REAL_SIDES)
        _report("Real corpus: MTGJSON, 579 set files (May 2022)", real)


if __name__ == "__main__":
    main()
