"""Measurements in fresh processes, for the import benchmarks (bench_import, bench_jsonl).

A benchmark module runs itself again as ``python -m MODULE --child MODE DATABASE PATH...`` for
each measurement, so that no import pays for another's warm caches, imported modules or heap;
the child prints one JSON report as its last line. This module holds both ends of that.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

Measure = Callable[[str, Path, list[Path]], dict[str, Any]]
"""The child's side: (mode, database, input paths) to a JSON-serialisable report."""


def add_option(parser: argparse.ArgumentParser) -> None:
    """The hidden ``--child`` option through which a benchmark runs one measurement."""
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)


def serve(arguments: Sequence[str], measure: Measure) -> None:
    """In the child: run the one measurement ``arguments`` name and print its report."""
    mode, database, *paths = arguments
    print(json.dumps(measure(mode, Path(database), [Path(path) for path in paths])))


def run(module: str, mode: str, database: Path, paths: Sequence[Path] = ()) -> dict[str, Any]:
    """In the parent: one measurement in a fresh process, its report plus ``wall`` seconds."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", module, "--child", mode, str(database), *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode != 0:
        sys.exit(f"{module} --child {mode} failed ({done.returncode}):\n{done.stderr.strip()}")
    report: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    report["wall"] = time.perf_counter() - started
    return report


def turns(round_number: int, sides: Sequence[str]) -> list[str]:
    """Who goes first alternates from round to round: this shared machine's speed drifts, and
    a drift then slows each side's first run alike."""
    return list(sides) if round_number % 2 == 0 else list(reversed(sides))


def median_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """The median of the rounds' ratios: each ratio compares two runs of one round."""
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))
