"""Site build benchmark: kb against Hugo and a bare Jinja2 loop, full scale, incremental.

    python -m benchmarks.bench_site [--work DIR] [--small 3000] [--large 30000] [--jobs 2]
                                    [--rounds 3]

Needs Hugo on the PATH (Debian: ``apt-get install -y hugo``); installs nothing itself. The
synthetic corpora (benchmarks.synthetic) are generated and imported into SQLite stores under
``--work`` once, then reused. This machine's speed drifts, so every target is a ratio of two
figures measured in the same run:

- kb's full build of the small corpus (cards × 11 locales) ≤ 1/4 of Hugo's build of the same
  card pages (a generated Hugo site in multilingual mode, with hreflang alternates): the two
  take turns ``--rounds`` times, the median ratio counts; in each round kb's small build also
  runs with ``KB_RENDER=plain`` (every page by Jinja2 alone), which shows what the fast path
  (kb.site.stencils) earns;
- kb's full build of the large corpus ≤ 11 × the small one, peak memory < 300 MB and
  ≤ 1.5 × the small build's;
- after the ruling on most cards is edited, an incremental build rewrites only the pages that
  show it, in ≤ 2% of the large full build's time: ``kb build --watch`` (from each edit's
  commit to the watcher's line that the pages are written; the ruling edited ``--rounds`` times,
  the median counts). A new ``kb build`` process is measured too, beside the least any new
  process takes: Python's start and the imports of the libraries kb's build reads and renders
  with (its ratio is over 2% on this machine, so no new process can meet the target here).

Every kb build here is ``--no-search``: these targets are the pages' own; the search index
made after them is benchmarks/bench_search.py's.

Each build runs in its own child process: its wall time is what a user waits for, its peak
memory is resource.getrusage's ru_maxrss for the process itself (main) and for its children
(the largest single worker).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import synthetic
from benchmarks.installed import compile_kb
from kb.site.render import PLAIN_RENDERING

ROOT = Path(__file__).resolve().parents[1]
BASE_URL = "https://rulings.example/"
"""Given to every kb build: without an address kb writes no sitemaps, which the runs before
issue 18 built and timed."""
HUGO_LAYOUT = """<!DOCTYPE html>
<html lang="{{ .Language.Lang }}">
<head>
<meta charset="utf-8">
<title>{{ .Title }}</title>
{{ range .AllTranslations -}}
<link rel="alternate" hreflang="{{ .Language.Lang }}" href="{{ .RelPermalink }}">
{{ end }}</head>
<body>
<main>
<h1>{{ .Title }}</h1>
<p lang="en">{{ .Params.english }}</p>
<p>{{ .Params.cost }}</p>
{{ with .Params.mechanics }}<p>Mechanics: {{ range . -}}
<a href="../../mechanics/{{ .slug }}/">{{ .name }}</a>
{{ end }}</p>{{ end }}
{{ with .Params.printed }}<section><h2>Printed</h2>{{ range . }}<p>{{ .type }}</p>
{{ range split .text "\\n" }}<p>{{ . }}</p>{{ end }}{{ end }}</section>{{ end }}
<section lang="en"><h2>Oracle</h2><p>{{ .Params.type }}</p>
{{ range split .Params.text "\\n" }}<p>{{ . }}</p>
{{ end }}</section>
<h2>{{ len .Params.rulings }} rulings</h2>
<ol>
{{ range .Params.rulings -}}
<li><time datetime="{{ .date }}">{{ time.Format ":date_medium" .date }}</time>
<p lang="en">{{ .text }}</p></li>
{{ end }}</ol>
</main>
<nav><ul>
{{ range .Translations -}}
<li><a href="{{ .RelPermalink }}" hreflang="{{ .Language.Lang }}">
{{- .Language.LanguageName }}</a></li>
{{ end }}</ul></nav>
</body>
</html>
"""
JINJA_TEMPLATE = """<!DOCTYPE html>
<html lang="{{ code }}">
<head>
<meta charset="utf-8">
<title>{{ title }}</title>
{% for other in codes -%}
<link rel="alternate" hreflang="{{ other }}" href="../../{{ other }}/cards/{{ slug }}.html">
{% endfor %}</head>
<body>
<h1>{{ title }}</h1>
<ol>
{% for date, text in rulings %}<li><time>{{ date }}</time><p lang="en">{{ text }}</p></li>
{% endfor %}</ol>
</body>
</html>
"""
CHILD_KB = """
import atexit, json, resource, sys
from kb.__main__ import main

def peak_memory():  # once kb is done: its main process, and its largest worker
    print(json.dumps({
        "main_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "workers_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }), file=sys.stderr)

atexit.register(peak_memory)
sys.argv[0] = "kb"
main()
"""
STACK_IMPORTS = "import babel.dates, click, jinja2, sqlalchemy"
CHILD_RUN = """
import json, resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
print(json.dumps({"peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def store(work: Path, cards: int) -> Path:
    """The synthetic corpus of ``cards`` cards imported into SQLite (made once, then reused,
    brought up to kb's latest migration)."""
    path = work / f"synthetic-{cards}.sqlite"
    kb = [sys.executable, "-m", "kb", "-q", "--db"]  # this checkout's kb (cwd=ROOT)
    if not path.exists():
        corpus = work / f"synthetic-{cards}"
        synthetic.generate(corpus, cards)
        partial = path.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        subprocess.run([*kb, f"sqlite:///{partial}", "import", str(corpus)], check=True, cwd=ROOT)
        partial.rename(path)
    subprocess.run([*kb, f"sqlite:///{path}", "db", "upgrade"], check=True, cwd=ROOT)
    return path


def timed(command: list[str]) -> tuple[float, dict[str, Any]]:
    """Run a child process; its wall time and the JSON it prints last."""
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    return time.perf_counter() - start, json.loads(done.stdout.strip().splitlines()[-1])


def kb_build(
    db: Path, out: Path, jobs: int, full: bool, plain: bool = False
) -> tuple[float, dict[str, Any]]:
    """``kb build`` in a child process, as a user runs it (Python's start, kb's imports and
    exit included): its wall time, pages, pages written and peak memory."""
    if full:
        shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD_KB, "--db", f"sqlite:///{db}", "build", "--no-search",
         "--out", str(out),
         "--jobs", str(jobs), "--base-url", BASE_URL, *(["--full"] if full else [])],
        check=True, capture_output=True, text=True, cwd=ROOT,
        env={**os.environ, PLAIN_RENDERING: "plain"} if plain else None,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    # "331448 pages in DIR: 1001 written, 330447 unchanged, 0 removed"
    summary = re.fullmatch(r"(\d+) pages in .*: (\d+) written, .*\n", done.stdout)
    assert summary is not None, done.stdout
    measured = json.loads(done.stderr.strip().splitlines()[-1])
    return seconds, {"pages": int(summary[1]), "written": int(summary[2]), **measured}


def new_process_floor(runs: int) -> float:
    """The median wall time of a new Python process that imports the libraries a build reads
    the store and renders with, and exits: the least a new ``kb build`` can take."""
    seconds = []
    for _run in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", STACK_IMPORTS], check=True, cwd=ROOT)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def every_card(db: Path) -> list[Any]:
    """Every card of the store whole, as kb's card pages show it."""
    from kb.engine import make_engine
    from kb.site.data import load_cards, load_index

    with make_engine(f"sqlite:///{db}").connect() as connection:
        index = load_index(connection)
        return load_cards(connection, index.cards, index.mechanics)


def hugo_site(db: Path, folder: Path) -> int:
    """A Hugo site of the store's card pages: one content file per card and locale, Hugo's
    multilingual mode with the 11 languages; the number of card pages."""
    from kb.locales import LOCALES

    shutil.rmtree(folder, ignore_errors=True)
    (folder / "layouts" / "_default").mkdir(parents=True)
    (folder / "layouts" / "_default" / "single.html").write_text(HUGO_LAYOUT, "utf-8")
    (folder / "layouts" / "_default" / "list.html").write_text("", "utf-8")
    (folder / "layouts" / "index.html").write_text("", "utf-8")
    languages = "".join(
        f'[languages.{locale.folder}]\nlanguageCode = "{locale.code}"\n'
        f'languageName = "{locale.native_name}"\nweight = {weight}\n'
        f'contentDir = "content/{locale.folder}"\n'
        for weight, locale in enumerate(LOCALES, start=1)
    )
    (folder / "config.toml").write_text(
        'baseURL = "http://127.0.0.1:8000/"\ndefaultContentLanguage = "en"\n'
        "defaultContentLanguageInSubdir = true\n"
        'disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]\n' + languages,
        "utf-8",
    )
    every = every_card(db)
    pages = 0
    for locale in LOCALES:
        cards = folder / "content" / locale.folder / "cards"
        cards.mkdir(parents=True)
        for card in every:
            front = {
                "title": card.name_in(locale.code) or card.name,
                "english": card.name,
                "cost": card.mana_cost or "",
                # The card's mechanics, named in the locale and linked, as on kb's pages.
                "mechanics": [
                    {"slug": tag.slug, "name": tag.names.get(locale.code) or tag.name}
                    for tag in card.mechanics
                ],
                # The card's texts, as kb's card pages show them (issue 20).
                "type": card.type_line or "",
                "text": card.oracle_text or "",
                "printed": [
                    {"type": face.type_line or "", "text": face.text or ""}
                    for face in card.printed.get(locale.code, ())
                ],
                "rulings": [
                    {"date": str(ruling.published_on or ""), "text": ruling.text}
                    for ruling in card.rulings
                ],
            }
            (cards / f"{card.slug}.md").write_text(json.dumps(front, ensure_ascii=False), "utf-8")
            pages += 1
    return pages


def jinja_loop(db: Path, out: Path) -> float:
    """A bare one-process Jinja2 loop over the same card pages with a minimal template."""
    from jinja2 import Environment

    from kb.locales import LOCALES

    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    every = every_card(db)
    template = Environment(autoescape=True).from_string(JINJA_TEMPLATE)
    codes = [locale.folder for locale in LOCALES]
    for locale in LOCALES:
        folder = out / locale.folder / "cards"
        folder.mkdir(parents=True)
        for card in every:
            text = template.render(
                code=locale.code,
                codes=codes,
                slug=card.slug,
                title=card.name_in(locale.code) or card.name,
                rulings=[(ruling.published_on, ruling.text) for ruling in card.rulings],
            )
            (folder / f"{card.slug}.html").write_text(text, "utf-8")
    return time.perf_counter() - start


def most_shared_ruling(db: Path) -> tuple[int, int]:
    """The ruling on most cards: (id, number of cards)."""
    with sqlite3.connect(db) as connection:
        row = connection.execute(
            "SELECT ruling_id, COUNT(*) FROM card_rulings GROUP BY ruling_id "
            "ORDER BY COUNT(*) DESC, ruling_id LIMIT 1"
        ).fetchone()
    return int(row[0]), int(row[1])


def edit_ruling(db: Path, ruling_id: int, suffix: str = " (edited)") -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE rulings SET text = text || ? WHERE id = ?", (suffix, ruling_id))


def watched_edits(
    db: Path, out: Path, jobs: int, ruling_id: int, edits: int
) -> tuple[list[float], list[int], float]:
    """``kb build --watch`` on the site, the ruling edited ``edits`` times: the seconds from each
    edit's commit to the watcher's line that its build is done, the pages each build wrote, and
    the watcher's peak memory (MB)."""
    watcher = subprocess.Popen(
        [sys.executable, "-m", "kb", "--db", f"sqlite:///{db}",
         "build", "--watch", "--no-search", "--out", str(out), "--jobs", str(jobs),
         "--base-url", BASE_URL],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    assert watcher.stdout is not None
    seconds, written = [], []
    try:
        for line in watcher.stdout:
            if line.startswith("watching"):
                break
        for number in range(edits):
            time.sleep(1)  # the watcher writes its manifest once the store is quiet
            edit_ruling(db, ruling_id, f" (watched edit {number})")
            start = time.perf_counter()
            line = watcher.stdout.readline()
            seconds.append(time.perf_counter() - start)
            written.append(int(line.split(": ")[1].split(" written")[0]))
        peak = Path(f"/proc/{watcher.pid}/status").read_text().split("VmHWM:")[1].split()[0]
    finally:
        watcher.terminate()  # SIGTERM: it writes its manifest and stops
        watcher.wait(timeout=60)
    return seconds, written, int(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/kb-bench-site"))
    parser.add_argument("--small", type=int, default=3_000)
    parser.add_argument("--large", type=int, default=30_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--rounds", type=int, default=3,
        help="Hugo's build and kb's small build, alternately, this many times (the median ratio)",
    )  # fmt: skip
    args = parser.parse_args()
    if shutil.which("hugo") is None:
        sys.exit("hugo is not installed (Debian: apt-get install -y hugo)")
    compile_kb()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    small, large = store(work, args.small), store(work, args.large)
    hugo_pages = hugo_site(small, work / "hugo")
    hugo_version = subprocess.run(["hugo", "version"], capture_output=True, text=True).stdout

    # This disk's cost of creating a file drifts tenfold within minutes: Hugo and kb take
    # turns, and each pair gives a ratio.
    rounds = []
    for _round in range(args.rounds):
        shutil.rmtree(work / "hugo" / "public", ignore_errors=True)
        os.sync()
        hugo_seconds, hugo = timed(
            [sys.executable, "-c", CHILD_RUN, "hugo", "--quiet", "--source", str(work / "hugo")]
        )
        os.sync()
        small_seconds, small_build = kb_build(small, work / "site-small", args.jobs, full=True)
        os.sync()
        plain_seconds, _plain = kb_build(small, work / "site-plain", args.jobs, True, plain=True)
        rounds.append((small_seconds / hugo_seconds, hugo_seconds, small_seconds, plain_seconds))
        print(
            f"round: Hugo {hugo_seconds:.2f} s, kb {small_seconds:.2f} s, "
            f"kb by Jinja2 alone {plain_seconds:.2f} s",
            file=sys.stderr,
        )
    hugo_ratio, hugo_seconds, small_seconds, plain_seconds = statistics.median_low(rounds)
    os.sync()
    jinja_seconds = jinja_loop(small, work / "jinja")
    os.sync()
    # The large site is built from a copy of the store, which is then edited: an incremental
    # build trusts the change log of the store the site was built from only (a copy of it,
    # edited apart, is another store), and the pristine store stays for the next run.
    edited = work / "edited.sqlite"
    shutil.copy(large, edited)
    large_seconds, large_build = kb_build(edited, work / "site-large", args.jobs, full=True)
    ruling_id, cards = most_shared_ruling(edited)
    edit_ruling(edited, ruling_id)
    os.sync()
    incremental_seconds, incremental = kb_build(edited, work / "site-large", args.jobs, full=False)
    floor_seconds = new_process_floor(max(args.rounds, 3))
    watched, watched_written, watcher_mb = watched_edits(
        edited, work / "site-large", args.jobs, ruling_id, args.rounds
    )
    watched_seconds = statistics.median(watched)
    edited.unlink()

    peak_small = max(small_build["main_mb"], small_build["workers_mb"])
    peak_large = max(large_build["main_mb"], large_build["workers_mb"])
    rows = [
        ("Hugo, small corpus", hugo_seconds, hugo_pages, f"{hugo['peak_mb']:.0f}", ""),
        ("bare Jinja2 loop, small", jinja_seconds, hugo_pages, "", ""),
        ("kb full build, small", small_seconds, small_build["pages"],
         f"{small_build['main_mb']:.0f} / {small_build['workers_mb']:.0f}", ""),
        ("kb full build, small, KB_RENDER=plain", plain_seconds, small_build["pages"], "", ""),
        ("kb full build, large", large_seconds, large_build["pages"],
         f"{large_build['main_mb']:.0f} / {large_build['workers_mb']:.0f}", ""),
        ("kb incremental, one ruling edited", incremental_seconds, incremental["pages"],
         f"{incremental['main_mb']:.0f} / {incremental['workers_mb']:.0f}",
         f"{incremental['written']} written"),
        ("new process: Python and the imports", floor_seconds, 0, "", STACK_IMPORTS),
        (f"kb build --watch, median of {args.rounds} edits", watched_seconds,
         incremental["pages"], f"{watcher_mb:.0f}",
         f"edit to pages written: {', '.join(f'{s:.3f}' for s in watched)} s; "
         f"{', '.join(map(str, watched_written))} written"),
    ]  # fmt: skip
    print(hugo_version.strip())
    print(f"{'build':36} {'seconds':>8} {'pages':>8}  peak MB (main / workers)")
    for name, seconds, pages, memory, note in rows:
        print(f"{name:36} {seconds:8.2f} {pages:8d}  {memory:16} {note}")
    print(f"\nthe edited ruling stands on {cards} cards ({cards * 11} card pages)")
    targets = [
        (f"kb small / Hugo (median of {args.rounds})", hugo_ratio, 0.25),
        ("Jinja2 loop / Hugo (reference)", jinja_seconds / hugo_seconds, None),
        ("kb small by Jinja2 alone / Hugo", plain_seconds / hugo_seconds, None),
        ("kb large / kb small", large_seconds / small_seconds, 11.0),
        ("peak memory large (MB)", peak_large, 300.0),
        ("peak memory large / small", peak_large / peak_small, 1.5),
        ("kb build --watch / large full", watched_seconds / large_seconds, 0.02),
        ("new kb build / large full", incremental_seconds / large_seconds, None),
        ("new process floor / large full", floor_seconds / large_seconds, None),
    ]
    print()
    for name, value, limit in targets:
        verdict = "" if limit is None else ("met" if value <= limit else "NOT MET")
        bound = "" if limit is None else f"(target ≤ {limit:g})"
        print(f"{name:32} {value:8.3f} {bound:16} {verdict}")


if __name__ == "__main__":
    main()
