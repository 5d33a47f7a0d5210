"""Mutation scores of the places where a wrong answer is silent (docs/testing.md).

Usage, from the repository root (PostgreSQL for the tests that need it, as for pytest)::

    .venv/bin/python tools/mutants.py [--report] [TARGET...]

Every setting is in pyproject.toml: ``[tool.mutmut]`` names the files mutmut mutates and the
tests it runs; ``[tool.kb.mutation]`` names each target's functions (mutmut's mutant names,
globs) and the surviving mutants that are equivalent (they change no behaviour), each with why.
The script runs mutmut on the targets asked (all by default), one mutant at a time (the machine
is shared), then prints killed / survived / equivalent per target and names each survivor.
``--report`` prints the scores of the last runs without running mutmut.
"""

from __future__ import annotations

import fnmatch
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTMUT = str(Path(sys.executable).with_name("mutmut"))


def main(arguments: list[str]) -> int:
    report_only = "--report" in arguments
    asked = [name for name in arguments if name != "--report"]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["kb"]["mutation"]
    targets: dict[str, list[str]] = config["targets"]
    equivalent: dict[str, str] = config.get("equivalent", {})
    unknown = [name for name in asked if name not in targets]
    if unknown:
        print(f"mutants: error: no target {', '.join(unknown)}; targets: {', '.join(targets)}")
        return 1
    chosen = asked or list(targets)
    globs = [glob for name in chosen for glob in targets[name]]
    if not report_only:
        run = subprocess.run([MUTMUT, "run", "--max-children", "1", *globs], cwd=ROOT)
        if run.returncode != 0:
            return run.returncode
    listing = subprocess.run(
        [MUTMUT, "results", "--all", "true"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    status = dict(
        (name.strip(), verdict.strip())
        for name, _, verdict in (line.rpartition(":") for line in listing.splitlines())
        if name
    )
    failed = False
    for name in chosen:
        mine = sorted(m for m in status if any(fnmatch.fnmatch(m, g) for g in targets[name]))
        # A timeout is a test that noticed (the mutant loops); "not checked": not run yet.
        killed = [m for m in mine if status[m] in ("killed", "timeout")]
        unrun = [m for m in mine if status[m] == "not checked"]
        rest = [m for m in mine if m not in killed and m not in unrun]
        same = [m for m in rest if m in equivalent]
        survived = [m for m in rest if m not in equivalent]
        print(
            f"{name}: {len(mine)} mutants, {len(killed)} killed, {len(survived)} survived, "
            f"{len(same)} equivalent" + (f", {len(unrun)} not run" if unrun else "")
        )
        for mutant in survived:
            print(f"  survived ({status[mutant]}): {mutant}")
        failed = failed or bool(survived) or bool(unrun)
    stale = sorted(m for m in equivalent if m not in status)
    for mutant in stale:
        print(f"  equivalent but no longer generated (update pyproject.toml): {mutant}")
    return 1 if failed or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
