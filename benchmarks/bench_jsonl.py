"""JSON Lines against JSON arrays: the same synthetic corpus imported in both forms, in one run.

    .venv/bin/python -m benchmarks.bench_jsonl [--cards 30000] [--rounds 3] [--work DIR]

The synthetic corpus (benchmarks.synthetic, Scryfall formats) is written once as JSON arrays
(``cards.json``, ``rulings.json``: Scryfall's older bulk files) and once as JSON Lines
(``cards.jsonl``, ``rulings.jsonl``: its bulk files since 2026-07-20), the same objects in the
same order. Each round measures, each in a fresh process, both forms in turn (the form that goes
first alternates, as this machine's speed drifts):

- **parse**: the Scryfall parsers alone over both files, every record built, no store;
- **import**: ``kb import`` of both files into a fresh SQLite store (large inputs are parsed in
  a second process while the first loads, so parsing only counts where it is the slower side).

Target: importing JSON Lines takes at most the time of the arrays (median ratio ≤ 1).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks import child
from benchmarks.installed import compile_kb

ROOT = Path(__file__).resolve().parents[1]
FORMS = ("arrays", "jsonl")


def _child(mode: str, database: Path, paths: list[Path]) -> dict[str, Any]:
    """One measurement, inside the fresh process."""
    from sqlalchemy.pool import NullPool

    from kb import migrate
    from kb.engine import make_engine

    if mode == "parse":
        from kb.importers import scryfall, streams

        started = time.perf_counter()
        records = 0
        for path, parse in zip(paths, (scryfall.parse_cards, scryfall.parse_rulings), strict=True):
            with streams.open_input(path) as stream:
                records += sum(1 for _ in parse(stream, str(path)))
        return {"seconds": time.perf_counter() - started, "records": records}
    from kb.importing import run_import

    engine = make_engine(f"sqlite:///{database}", poolclass=NullPool)
    migrate.upgrade(engine)
    started = time.perf_counter()
    summary = run_import(engine, paths)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "cards": summary.counts["cards new"]}


def _measure(mode: str, database: Path, paths: tuple[Path, Path]) -> dict[str, Any]:
    database.unlink(missing_ok=True)
    return child.run("benchmarks.bench_jsonl", mode, database, paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out")
    child.add_option(parser)
    args = parser.parse_args()
    if args.child:
        child.serve(args.child, _child)
        return

    from benchmarks.synthetic import generate

    compile_kb()
    args.work.mkdir(parents=True, exist_ok=True)
    corpora: dict[str, tuple[Path, Path]] = {}
    for form in FORMS:
        folder = args.work / f"synthetic-{args.cards}-{form}"
        jsonl = form == "jsonl"
        expected = folder / ("rulings.jsonl" if jsonl else "rulings.json")
        corpora[form] = (
            generate(folder, args.cards, jsonl=jsonl)
            if not expected.exists()
            else (folder / expected.name.replace("rulings", "cards"), expected)
        )
    sizes = {form: sum(p.stat().st_size for p in paths) for form, paths in corpora.items()}
    print(
        f"Synthetic corpus: {args.cards:,} cards × 11 languages, "
        + ", ".join(f"{form} {size / 1e6:.0f} MB" for form, size in sizes.items())
    )
    seconds: dict[tuple[str, str], list[float]] = {}
    for round_number in range(args.rounds):
        for mode in ("parse", "import"):
            for form in child.turns(round_number, FORMS):
                database = args.work / f"bench-jsonl-{form}.sqlite"
                report = _measure(mode, database, corpora[form])
                seconds.setdefault((mode, form), []).append(report["seconds"])
                print(
                    f"  round {round_number + 1}  {mode:<6}  {form:<6}  {report['seconds']:6.2f} s"
                )
    print()
    for mode in ("parse", "import"):
        arrays = statistics.median(seconds[(mode, "arrays")])
        lines = statistics.median(seconds[(mode, "jsonl")])
        ratio = child.median_ratio(seconds[(mode, "jsonl")], seconds[(mode, "arrays")])
        target = " (target ≤ 1)" if mode == "import" else ""
        print(
            f"{mode:<6}  arrays {arrays:6.2f} s  JSON Lines {lines:6.2f} s  "
            f"median ratio per round {ratio:.2f}{target}"
        )


if __name__ == "__main__":
    main()
