"""Site search benchmark: kb's indexing beside Pagefind's own command line, on the real site.

    python -m benchmarks.bench_search [--work DIR] [--jobs 2] [--queries 20] [--skip-cli]
                                      [--browse-only]

The real corpus (the 579 MTGJSON set files and the 2022 Comprehensive Rules of
``../shared/realdata``) is imported into ``--work``/real.sqlite once, then reused. In one run:

- the site's pages alone (``kb build --no-search``), 11 locales;
- kb's indexing of that site (kb.site.search.write_bundles, ``--jobs`` Pagefind processes)
  beside ``python -m pagefind --site`` over the same built site, each in a child process: wall
  time and peak memory (the process and its largest child). Target: kb ≤ the command line's
  time (aim: half), peak < 4 GB;
- in headless Chromium through ``kb serve``: for ``--queries`` queries (localized names on
  their locale's page, English names on other locales' pages, words of rulings), the bytes the
  first search of a fresh page downloads from the bundle, counted as a compressing server sends
  them (gzip; Pagefind's index files are compressed already) — target ≤ 300 KB — the bytes of a
  second query on the same page, and each query's latency from Enter to its results shown
  (target: median ≤ 300 ms; the box waits 120 ms after the last key before it searches);
- ``kb build --watch``: after each of three cards' German names edited, one after the other,
  the seconds until its pages are in place and until the German bundle has caught up.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from benchmarks.installed import compile_kb
from kb.site import serve

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / "shared" / "realdata"
CHILD_INDEX = """
import json, os, resource, sys, threading, time
from pathlib import Path
from kb.engine import make_engine
from kb.locales import LOCALES
from kb.site.data import load_index
from kb.site.reading import reading
from kb.site.search import write_bundles

def tree_mb():
    # The resident memory of this process and its children (the Pagefind processes), MB.
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()
            if name == str(os.getpid()) or int(fields[1]) == os.getpid():
                total += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    return total / 2**20

peak = [0.0]
def sample():
    while True:
        peak[0] = max(peak[0], tree_mb())
        time.sleep(0.2)

threading.Thread(target=sample, daemon=True).start()
engine = make_engine(sys.argv[1])
started = time.perf_counter()
with reading(engine) as connection:
    index = load_index(connection)
pages = write_bundles(engine, index, Path(sys.argv[2]), LOCALES, int(sys.argv[3]))
print(json.dumps({
    "seconds": time.perf_counter() - started, "pages": pages,
    "main_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "child_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    "sum_mb": peak[0],
}))
"""
CHILD_RUN = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(json.dumps({"seconds": time.perf_counter() - started,
                  "child_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""
MEASURE = """
const [query, focused, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const form = document.querySelector("form.site-search");
const input = form.querySelector("input");
let started = 0;
function ask() {
  if (focused && form.dataset.ready !== "true") return setTimeout(ask, 2);
  input.value = query;
  started = performance.now();
  form.requestSubmit();
  wait();
}
if (focused) input.focus();  // the library loads as the reader starts typing
ask();
function wait() {
  if (form.dataset.done === query) {
    done({ms: performance.now() - started,
          results: document.querySelectorAll(".search-results li").length});
  } else setTimeout(wait, 2);
}
"""


def kb(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb", *args]


def real_store(work: Path) -> Path:
    path = work / "real.sqlite"
    if not path.exists():
        partial = work / "real.partial.sqlite"
        partial.unlink(missing_ok=True)
        inputs = [REALDATA / "mtgjson-sets-2022-05", REALDATA / "MagicCompRules_20220429.txt"]
        subprocess.run([*kb("-q", "--db", f"sqlite:///{partial}", "import"), *map(str, inputs)],
                       check=True, cwd=ROOT)  # fmt: skip
        partial.rename(path)
    subprocess.run(kb("-q", "--db", f"sqlite:///{path}", "db", "upgrade"), check=True, cwd=ROOT)
    return path


def child(script: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", script, *args], check=True, cwd=ROOT,
                          capture_output=True, text=True)  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def compressed_size(path: Path) -> int:
    """What a server that compresses sends for the file (the smaller of gzip's and raw)."""
    data = path.read_bytes()
    return min(len(data), len(gzip.compress(data, 6)))


def queries(db: Path, count: int) -> list[tuple[str, str]]:
    """(locale folder, query): a localized name on its page, an English name on another
    locale's page, words of a ruling; cards chosen with a fixed seed."""
    chosen = random.Random(21)
    store = sqlite3.connect(db)
    names = store.execute(
        "SELECT lower(n.locale), n.name, c.name FROM card_names n JOIN cards c ON c.id = "
        "n.card_id WHERE n.locale != 'en' ORDER BY n.card_id, n.locale"
    ).fetchall()
    rulings = [row[0] for row in store.execute("SELECT text FROM rulings ORDER BY id")]
    store.close()
    found: list[tuple[str, str]] = []
    while len(found) < count:
        kind = len(found) % 3
        locale, local, english = chosen.choice(names)
        if kind == 0:
            found.append((locale, local))
        elif kind == 1:
            found.append((chosen.choice(["ja", "de", "ru", "zh-hans", "ko"]), english))
        else:
            words = re.findall(r"[A-Za-z]{5,}", chosen.choice(rulings))
            if len(words) >= 3:
                found.append(("en", " ".join(words[:3])))
    return found


def browse(site: Path, db: Path, count: int) -> dict[str, Any]:
    from selenium import webdriver

    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import CHROMEDRIVER, CHROMIUM, FLAGS

    # kb serve's own server, in this process, noting each path asked for, from the page or
    # from any worker (whose requests the page's resource timings would not list).
    asked: list[str] = []

    class Recording(serve._SiteHandler):
        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            asked.append(urllib.parse.unquote(self.path.split("?")[0]))

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Recording, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"http://127.0.0.1:{server.server_address[1]}/"
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={site.parent / 'profile'}"):
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=str(CHROMEDRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})

    def size(paths: list[str]) -> int:
        return sum(compressed_size(site / path[1:]) for path in paths if "/pagefind/" in path)

    def kinds(paths: list[str]) -> dict[str, float]:
        """KB by the kind of bundle file: library, meta, index chunks, fragments."""
        found: dict[str, float] = {}
        for path in paths:
            if "/pagefind/" in path:
                kind = path.split("/pagefind/")[1].split("/")[0].split(".")[0]
                kind = kind if kind in ("index", "fragment") else "library and meta"
                found[kind] = found.get(kind, 0) + compressed_size(site / path[1:]) / 1024
        return {kind: round(kb, 1) for kind, kb in sorted(found.items())}

    figures: dict[str, list[float]] = {}
    each: list[dict[str, Any]] = []
    cold: dict[str, float] = {}
    empty = 0

    def note(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    try:
        for locale, query in queries(db, count):
            for focused in (False, True):  # the page's first query: cold, or after a focus
                # Cold: nothing kept from an earlier page (the disabled cache still let
                # Chromium reuse the library a worker fetched for an earlier query).
                driver.execute_cdp_cmd("Network.clearBrowserCache", {})
                driver.get(f"{address}{locale}/index.html")
                del asked[:]
                first = driver.execute_async_script(MEASURE, query, focused)
                how = "focused" if focused else "cold"
                note(f"first_kb_{how}", size(asked) / 1024)
                note(f"first_ms_{how}", first["ms"])
                cold = cold if focused else kinds(asked)
            empty += first["results"] == 0
            del asked[:]
            later = driver.execute_async_script(MEASURE, query.split()[0][:4], False)
            note("later_kb", size(asked) / 1024)
            note("later_ms", later["ms"])
            each.append({"locale": locale, "query": query, "first_kb": cold,
                         "later_kb": round(size(asked) / 1024, 1)})  # fmt: skip
    finally:
        driver.quit()
        server.shutdown()
    report: dict[str, Any] = {"queries": count, "without_results": empty, "each": each}
    for name, values in figures.items():
        report[f"{name}_median"] = statistics.median(values)
        report[f"{name}_max"] = max(values)
    return report


RENAMED = (0, 997, 1994)
"""Which cards are renamed in German under the watcher: by their place among the cards with a
German name, in id order (the first, then two further on)."""


def watched_edit(db: Path, site: Path, jobs: int) -> dict[str, Any]:
    """Cards' German names edited under ``kb build --watch``, one after the other: seconds
    from each edit's commit to the pages' line and to the search catch-up the watcher reports
    (the next edit waits for it: an index run under way would slow its pages); the medians
    count."""
    watcher = subprocess.Popen(
        kb("--db", f"sqlite:///{db}", "build", "--watch", "--out", str(site), "--jobs", str(jobs)),
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert watcher.stdout is not None
    lines: list[tuple[float, str]] = []
    ready = threading.Event()

    def read() -> None:
        assert watcher.stdout is not None
        for line in watcher.stdout:
            lines.append((time.perf_counter(), line))
            if line.startswith("watching"):
                ready.set()

    def after(edited: float, seen: int, text: str) -> tuple[float, float]:
        """When the first line with ``text`` came after the edit, and the seconds it says."""
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and not any(text in line for _, line in lines[seen:]):
            time.sleep(0.02)
        at, line = next((at, line) for at, line in lines[seen:] if text in line)
        return at - edited, float(re.findall(r"\(([0-9.]+) s\)", line)[-1])

    threading.Thread(target=read, daemon=True).start()
    ready.wait(600)
    figures: dict[str, list[float]] = {"pages_s": [], "build_line_s": [], "caught_up_s": []}
    for offset in RENAMED:
        store = sqlite3.connect(db)
        english, name = store.execute(
            "SELECT c.name, n.name FROM card_names n JOIN cards c ON c.id = n.card_id "
            "WHERE n.locale = 'de' ORDER BY n.card_id LIMIT 1 OFFSET ?",
            (offset,),
        ).fetchone()
        store.close()
        seen = len(lines)
        edit = ("edit", "card-name", "--editor", "bench", english, "de", f"{name} (bench)")
        subprocess.run(kb("--db", f"sqlite:///{db}", "-q", *edit), check=True, cwd=ROOT)
        edited = time.perf_counter()
        pages_s, build_line_s = after(edited, seen, " pages in ")
        caught_up_s, _indexing = after(edited, seen, "caught up")
        figures["pages_s"].append(pages_s)
        figures["build_line_s"].append(build_line_s)
        figures["caught_up_s"].append(caught_up_s)
    watcher.terminate()
    watcher.wait()
    return {
        **figures,
        **{f"{name}_median": statistics.median(values) for name, values in figures.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/kb-bench-search"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--skip-cli", action="store_true", help="kb's indexing alone")
    parser.add_argument(
        "--browse-only", action="store_true", help="the browser's figures, on the last run's site"
    )
    parser.add_argument(
        "--watch-only", action="store_true", help="the watcher's figures, on the last run's site"
    )
    args = parser.parse_args()
    compile_kb()
    args.work.mkdir(parents=True, exist_ok=True)
    db = real_store(args.work)
    site, cli_bundle = args.work / "site", args.work / "cli-bundle"
    if args.browse_only:
        print(json.dumps(browse(site, db, args.queries), indent=2))
        return
    if args.watch_only:
        print(json.dumps(watched_edit(db, site, args.jobs), indent=2))
        return
    shutil.rmtree(site, ignore_errors=True)
    shutil.rmtree(cli_bundle, ignore_errors=True)
    report: dict[str, Any] = {"jobs": args.jobs}
    pages = child(CHILD_RUN, *kb("-q", "--db", f"sqlite:///{db}", "build", "--no-search",
                                 "--out", str(site), "--jobs", str(args.jobs)))  # fmt: skip
    report["pages_alone"] = pages
    print("pages alone", pages, flush=True)
    report["kb_index"] = child(CHILD_INDEX, f"sqlite:///{db}", str(site), str(args.jobs))
    print("kb index", report["kb_index"], flush=True)
    if not args.skip_cli:
        report["pagefind_cli"] = child(CHILD_RUN, sys.executable, "-m", "pagefind", "--site",
                                       str(site), "--output-path", str(cli_bundle))  # fmt: skip
        print("pagefind cli", report["pagefind_cli"], flush=True)
        report["kb_over_cli"] = report["kb_index"]["seconds"] / report["pagefind_cli"]["seconds"]
    report["bundle_mb"] = (
        sum(f.stat().st_size for f in site.glob("*/pagefind/**/*") if f.is_file()) / 2**20
    )
    report["bundle_files"] = sum(1 for f in site.glob("*/pagefind/**/*") if f.is_file())
    report["browser"] = browse(site, db, args.queries)
    print("browser", report["browser"], flush=True)
    report["watch"] = watched_edit(db, site, args.jobs)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
