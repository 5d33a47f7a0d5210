"""Proof of sameness: the sites and exports two revisions of kb make from the same store.

    .venv/bin/python -m benchmarks.same_pages --before REV [--after REV|DIR] [--quick]
        [--sites demo,synthetic,real] [--cards 300] [--work DIR]

Each revision is checked out with ``git worktree add`` into a temporary folder (``--after``
defaults to this work tree as it is, uncommitted changes included; a folder is taken as a
checkout), and kb runs from there as ``python -m kb`` with ``PYTHONPATH`` set to the checkout and
this interpreter's libraries (a revision that needs other libraries needs another venv: run this
script with that venv's python). For each site:

- **demo**: ``kb demo`` (the before revision) makes the store from data/ and its site; the after
  revision builds a site from the same store; then both export that store in every format;
- **synthetic**: a seeded synthetic corpus (benchmarks.synthetic, ``--cards`` cards in 11
  languages) imported by the before revision, then built by each;
- **real**: ../shared/realdata's MTGJSON set files (May 2022), the 2022 Comprehensive Rules and a
  Scryfall rulings list, imported by the before revision, then built by each with
  ``--locale en,de`` (minutes: ``--quick`` skips it).

The store is imported once, by the before revision, and each revision builds from its own copy
of it (a build keeps its bookkeeping beside the store's identity), after ``kb db upgrade`` by
the after revision: a store holds the import's times, so two imports would differ in what they
record, not in what kb does; and a new migration in the after revision is applied, as a user's
``kb build`` after an upgrade would. The output trees are compared file by file, byte for byte,
except ``.kb-manifest`` (the build's own bookkeeping: fingerprints and the store's identity,
not a page). One verdict line per site and per export goes to standard output, with the first
differing files and a short diff; progress goes to standard error. Exit status 1 on any
difference, 2 when a step could not run (git, or a kb command that failed: its error is shown).
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / "shared" / "realdata"
REAL_INPUTS = (
    "mtgjson-sets-2022-05",
    "MagicCompRules_20220429.txt",
    "scryfall_rulings_list_derevi.json",
)
SITES = ("demo", "synthetic", "real")
EXPORT_FORMATS = ("mtgjson", "scryfall-rulings", "csv")
NOT_COMPARED = frozenset({".kb-manifest"})
SHOWN_FILES = 5
SHOWN_DIFF_LINES = 12


def progress(message: str) -> None:
    print(f"same_pages: {message}", file=sys.stderr, flush=True)


class Failed(Exception):
    """A step that could not run (git, or a kb command that failed): no verdict possible."""


@dataclass(frozen=True)
class Checkout:
    """One revision's source tree, and how to run its kb."""

    label: str
    path: Path

    def kb(self, store: Path, *args: str, cwd: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(self.path))
        env.pop("KB_DATABASE_URL", None)
        command = [sys.executable, "-m", "kb", "-q", "--db", f"sqlite:///{store}", *args]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise Failed(
                f"{self.label}: kb {' '.join(args)} failed ({done.returncode}):\n"
                f"{done.stderr.strip()[-2000:]}"
            )
        step = " ".join(args[:2] if args[0] == "db" else args[:1])
        progress(f"  {self.label}: kb {step} done in {time.perf_counter() - started:.1f} s")

    def check_imports_its_own_kb(self) -> None:
        """PYTHONPATH must win over the venv's editable install, or both sides run one kb."""
        env = dict(os.environ, PYTHONPATH=str(self.path))
        found = subprocess.run(
            [sys.executable, "-c", "import kb; print(kb.__file__)"],
            cwd=tempfile.gettempdir(),
            env=env,
            capture_output=True,
            text=True,
        ).stdout.strip()
        if Path(found).resolve() != (self.path / "kb" / "__init__.py").resolve():
            raise Failed(f"{self.label}: python -m kb runs {found or 'nothing'}, not {self.path}")


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise Failed("git is not installed") from None
    if done.returncode != 0:
        raise Failed(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


@contextmanager
def checkout(label: str, revision: str | None, work: Path) -> Iterator[Checkout]:
    """``revision`` in a temporary worktree, removed afterwards; None: this work tree; a
    folder holding a kb/ package: that folder, as it is."""
    if revision is None:
        yield Checkout(f"{label} (work tree)", ROOT)
        return
    if (Path(revision) / "kb").is_dir():  # a checkout, not a revision named like a folder
        yield Checkout(f"{label} ({revision})", Path(revision).resolve())
        return
    commit = _git("rev-parse", "--verify", f"{revision}^{{commit}}")
    path = work / f"checkout-{label}"
    _git("worktree", "add", "--detach", "--quiet", str(path), commit)
    try:
        yield Checkout(f"{label} ({commit[:7]})", path)
    finally:
        _git("worktree", "remove", "--force", str(path))


@dataclass
class Comparison:
    files: int
    differing: list[str]
    only_before: list[str]
    only_after: list[str]

    @property
    def same(self) -> bool:
        return not (self.differing or self.only_before or self.only_after)


def _tree(root: Path) -> dict[str, Path]:
    return {
        path.relative_to(root).as_posix(): path
        for path in root.rglob("*")
        if path.is_file() and path.name not in NOT_COMPARED
    }


def compare_trees(before: Path, after: Path) -> Comparison:
    old, new = _tree(before), _tree(after)
    differing = sorted(
        name for name in old.keys() & new.keys() if old[name].read_bytes() != new[name].read_bytes()
    )
    return Comparison(
        len(old.keys() | new.keys()), differing, sorted(old - new.keys()), sorted(new - old.keys())
    )


def short_diff(before: Path, after: Path) -> list[str]:
    old, new = before.read_bytes(), after.read_bytes()
    try:
        old_lines = old.decode("utf-8").splitlines()
        new_lines = new.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return [f"    binary files differ ({len(old)} and {len(new)} bytes)"]
    diff = list(difflib.unified_diff(old_lines, new_lines, "before", "after", n=1, lineterm=""))
    shown = [f"    {line[:160]}" for line in diff[:SHOWN_DIFF_LINES]]
    if len(diff) > SHOWN_DIFF_LINES:
        shown.append(f"    ... {len(diff) - SHOWN_DIFF_LINES} more diff lines")
    return shown


def report(name: str, before: Path, after: Path) -> bool:
    """Print the verdict on two trees (or two files); True when they are the same."""
    if before.is_file():
        same = before.read_bytes() == after.read_bytes()
        print(f"{name}: {'same' if same else 'DIFFERENT'} ({before.stat().st_size} bytes before)")
        if not same:
            print("\n".join(short_diff(before, after)))
        return same
    result = compare_trees(before, after)
    if result.same:
        print(f"{name}: same ({result.files} files)")
        return True
    print(
        f"{name}: DIFFERENT ({len(result.differing)} of {result.files} files differ, "
        f"{len(result.only_before)} only before, {len(result.only_after)} only after)"
    )
    for file in result.only_before[:SHOWN_FILES]:
        print(f"  only before: {file}")
    for file in result.only_after[:SHOWN_FILES]:
        print(f"  only after: {file}")
    for file in result.differing[:SHOWN_FILES]:
        print(f"  differs: {file}")
        print("\n".join(short_diff(before / file, after / file)))
    return False


def _copy_for_after(after: Checkout, store: Path, folder: Path) -> Path:
    """The after revision's own copy of ``store``, brought to its latest migration."""
    copy = folder / "store-after.sqlite"
    shutil.copyfile(store, copy)
    after.kb(copy, "db", "upgrade", cwd=folder)
    return copy


def _build_both(sides: tuple[Checkout, Checkout], store: Path, folder: Path, *options: str) -> bool:
    """Each side builds its own copy of ``store`` into its own output folder."""
    before, after = sides
    copy = folder / "store-before.sqlite"
    shutil.copyfile(store, copy)
    before.kb(copy, "build", "--out", str(folder / "site-before"), *options, cwd=folder)
    copy = _copy_for_after(after, store, folder)
    after.kb(copy, "build", "--out", str(folder / "site-after"), *options, cwd=folder)
    return report(f"{folder.name} site", folder / "site-before", folder / "site-after")


def demo(sides: tuple[Checkout, Checkout], work: Path) -> bool:
    """kb demo's site (before) against the after revision's build of kb demo's store, then
    both revisions' exports of that store."""
    before, after = sides
    folder = work / "demo"
    folder.mkdir()
    # kb demo reads data/ and writes site/ in its working directory: data/ is the before
    # revision's, and site/ lands here rather than in a checkout.
    (folder / "data").symlink_to(before.path / "data")
    store = folder / "demo.sqlite"
    progress("demo: kb demo (before), kb build (after)")
    before.kb(store, "demo", cwd=folder)
    copy = _copy_for_after(after, store, folder)
    after.kb(copy, "build", "--out", str(folder / "site-after"), cwd=folder)
    same = report("demo site", folder / "site", folder / "site-after")
    for format_name in EXPORT_FORMATS:
        exports = []
        for label, side, side_store in (("before", before, store), ("after", after, copy)):
            out = folder / f"export-{label}.{format_name}"
            side.kb(side_store, "export", "--format", format_name, "--out", str(out), cwd=folder)
            exports.append(out)
        same = report(f"demo export {format_name}", *exports) and same
    return same


def synthetic(sides: tuple[Checkout, Checkout], work: Path, cards: int) -> bool:
    from benchmarks.synthetic import generate

    folder = work / "synthetic"
    progress(f"synthetic: {cards} cards, imported by before, built by each")
    paths = generate(folder / "corpus", cards)
    store = folder / "synthetic.sqlite"
    sides[0].kb(store, "import", *map(str, paths), cwd=folder)
    return _build_both(sides, store, folder)


def real(sides: tuple[Checkout, Checkout], work: Path) -> bool:
    inputs = [REALDATA / name for name in REAL_INPUTS]
    missing = [str(path) for path in inputs if not path.exists()]
    if missing:
        raise Failed(f"the real corpus is absent ({', '.join(missing)}); --quick skips it")
    folder = work / "real"
    folder.mkdir()
    progress("real: the MTGJSON corpus imported by before, built by each (minutes)")
    store = folder / "real.sqlite"
    sides[0].kb(store, "import", *map(str, inputs), cwd=folder)
    return _build_both(sides, store, folder, "--locale", "en,de")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="a git revision")
    parser.add_argument("--after", help="a git revision or a checkout (default: this work tree)")
    parser.add_argument("--sites", default=",".join(SITES), help="which of demo,synthetic,real")
    parser.add_argument("--quick", action="store_true", help="skip the real corpus")
    parser.add_argument("--cards", type=int, default=300, help="the synthetic corpus' size")
    parser.add_argument("--work", type=Path, help="keep the checkouts' outputs here")
    args = parser.parse_args(argv)
    sites = [site for site in args.sites.split(",") if site and not (args.quick and site == "real")]
    unknown = sorted(set(sites) - set(SITES))
    if unknown:
        parser.error(f"--sites: unknown {', '.join(unknown)} (known: {', '.join(SITES)})")
    if args.work and args.work.exists() and any(args.work.iterdir()):
        parser.error(f"--work {args.work}: not empty (an earlier run's outputs would mix in)")
    with tempfile.TemporaryDirectory(prefix="same-pages-") as temporary:
        work = args.work.resolve() if args.work else Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        try:
            with (
                checkout("before", args.before, work) as before,
                checkout("after", args.after, work) as after,
            ):
                sides = (before, after)
                for side in sides:
                    side.check_imports_its_own_kb()
                print(f"before: {before.label}, after: {after.label}")
                same = True
                for site in sites:
                    started = time.perf_counter()
                    if site == "demo":
                        same = demo(sides, work) and same
                    elif site == "synthetic":
                        same = synthetic(sides, work, args.cards) and same
                    else:
                        same = real(sides, work) and same
                    progress(f"{site}: {time.perf_counter() - started:.0f} s")
        except Failed as error:
            print(f"same_pages: error: {error}", file=sys.stderr)
            return 2
    print("same: every site and export is byte-identical" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
