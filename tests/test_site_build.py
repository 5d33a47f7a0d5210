"""The build: safe file names, and a build that is deterministic, incremental, atomic and
parallel, keeps what it did not write, and reports through kb build's command line."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from realdata import DATA
from site_helpers import _add_card, _files, _pages, _section
from sqlalchemy import delete, update
from sqlalchemy.engine import Engine

from kb import schema
from kb.cli import cli
from kb.engine import make_engine
from kb.importing import run_import
from kb.locales import BY_CODE
from kb.site import OutputFolderError, render, search, staging, workers
from kb.site.build import BuildOptions, build
from kb.site.manifest import Manifest
from kb.site.output import MANIFEST


def _mtimes(folder: Path) -> dict[str, int]:
    """Pages' mtimes (the build's manifest and the search bundles aside: a locale's bundle is
    made again whole when one of its pages changed, as BuildResult.indexed says)."""
    return {
        path.relative_to(folder).as_posix(): path.stat().st_mtime_ns
        for path in folder.rglob("*")
        if path.is_file() and path.name != MANIFEST and search.FOLDER not in path.parts
    }


def test_card_names_cannot_leave_the_output_folder(demo_store: Engine, tmp_path: Path) -> None:
    """Cards named as paths, split cards, reserved names and non-Latin scripts: every file the
    build writes is inside the output folder, with a URL-safe name, one page a card a locale."""
    hostile = {
        "../../outside": "../../draußen",
        "/etc/passwd": "/etc/Passwort",
        "..": "..",
        "Who // What // When // Where // Why": "Wer // Was // Wann // Wo // Warum",
        "What? Question: Answer": "Was? Frage: Antwort",
        "index": "Index",
        "三歩先": "三歩先",
        "a" * 300: "b" * 300,
    }
    for name, german in hostile.items():
        _add_card(demo_store, name, de=german)
    out = tmp_path / "built" / "site"  # its parent holds the build's staging folder
    build(demo_store, out)
    files = [path for path in out.parent.rglob("*") if path.is_file()]
    assert all(path.resolve().is_relative_to(out.resolve()) for path in files)
    card_pages = {
        path.relative_to(out).as_posix()
        for path in out.glob("*/cards/*")
        if path.is_file() and path.name != "index.html"  # the A–Z index of the cards
    }
    assert len(card_pages) == (2 + len(hostile)) * len(BY_CODE)
    for page in card_pages:
        assert re.fullmatch(r"[a-z-]+/cards/[a-z0-9]+(-[a-z0-9]+)*\.html", page), page
    assert "de/cards/outside.html" in card_pages
    assert any(re.fullmatch(r"de/cards/index-[0-9a-f]{8}\.html", page) for page in card_pages)
    german = (out / "de/cards/who-what-when-where-why.html").read_text("utf-8")
    assert "<title>Wer // Was // Wann // Wo // Warum" in german


def test_build_is_deterministic_on_each_engine(demo_store: Engine, tmp_path: Path) -> None:
    first = build(demo_store, tmp_path / "one")
    second = build(demo_store, tmp_path / "two", BuildOptions(jobs=2, full=True))
    assert _pages(first.out) == _pages(second.out)


def test_large_pages_are_encoded_in_slices(
    demo_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages longer than ENCODED_AT_ONCE are hashed and written a slice at a time: the same
    bytes and hashes, slices cutting through multi-byte characters (the Japanese pages)."""
    whole = build(demo_store, tmp_path / "whole").out
    monkeypatch.setattr(staging, "ENCODED_AT_ONCE", 7)
    sliced = build(demo_store, tmp_path / "sliced").out
    assert _pages(sliced) == _pages(whole)
    manifest = Manifest.read(sliced)
    assert manifest is not None
    assert manifest.pages == Manifest.read(whole).pages  # type: ignore[union-attr]
    for path, (_fingerprint, content) in manifest.pages.items():
        assert staging.page_hash((sliced / path).read_bytes()) == content, path


def test_incremental_build_rewrites_only_changed_pages(demo_store: Engine, tmp_path: Path) -> None:
    out = tmp_path / "site"
    extra = _add_card(demo_store, "Fire // Ice", de="Feuer // Eis")
    first = build(demo_store, out)
    assert (first.written, first.removed) == (first.pages, 0)
    before = _mtimes(out)

    again = build(demo_store, out)
    assert (again.written, again.removed) == (0, 0)
    assert _mtimes(out) == before

    with demo_store.begin() as connection:
        connection.execute(
            update(schema.card_names)
            .where(schema.card_names.c.card_id == extra, schema.card_names.c.locale == "de")
            .values(name="Feuer // Eis!")
        )
    changed = build(demo_store, out)
    after = _mtimes(out)
    rewritten = {path for path in after if after[path] != before[path]}
    # the card's page and its A–Z section's (F): the A–Z page's letters are the same
    assert rewritten == {"de/cards/fire-ice.html", _section(out, "de", "F")}
    assert changed.written == 2
    assert [locale.code for locale in changed.indexed] == ["de"]

    (out / "it/cards/fire-ice.html").unlink()
    restored = build(demo_store, out)
    assert (restored.written, restored.rendered) == (1, 1)
    assert (out / "it/cards/fire-ice.html").is_file()

    with demo_store.begin() as connection:
        connection.execute(delete(schema.cards).where(schema.cards.c.id == extra))
    removed = build(demo_store, out)
    # its pages, and the F sections it was alone in
    assert removed.removed == 2 * 11 and not (out / "de/cards/fire-ice.html").exists()

    full = build(demo_store, out, BuildOptions(full=True))
    assert full.written == full.pages


def test_failed_build_leaves_the_previous_site(
    demo_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = build(demo_store, tmp_path / "site").out
    before = _files(out)
    with demo_store.begin() as connection:
        connection.execute(
            update(schema.card_names).values(name=schema.card_names.c.name + " (neu)")
        )

    def broken(*_args: object) -> list[render.Page]:
        raise RuntimeError("disk full")

    monkeypatch.setattr(render.Renderer, "cards", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        build(demo_store, out)
    assert _files(out) == before
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]


def test_build_refuses_a_folder_it_did_not_make(demo_store: Engine, tmp_path: Path) -> None:
    out = tmp_path / "area" / "mine"
    out.mkdir(parents=True)
    (out / "notes.txt").write_text("my notes", "utf-8")
    with pytest.raises(OutputFolderError, match="has files and no kb site in it"):
        build(demo_store, out)
    assert _files(out) == {"notes.txt": b"my notes"}
    assert [path.name for path in out.parent.iterdir()] == ["mine"]  # nothing staged beside it


def test_build_refuses_the_folder_of_its_store(sqlite_url: str, tmp_path: Path) -> None:
    store = tmp_path / "kb.sqlite"
    url = f"sqlite:///{store}"
    assert url == sqlite_url
    engine = make_engine(url)
    run_import(engine, [DATA])
    engine.dispose()
    before = store.read_bytes()
    result = CliRunner().invoke(cli, ["--db", url, "build", "--out", str(tmp_path), "-j", "1"])
    assert result.exit_code == 1
    assert result.output == f"kb: error: {tmp_path}: holds the store {store}; build elsewhere\n"
    assert store.read_bytes() == before


def test_build_keeps_what_it_did_not_write(demo_store: Engine, tmp_path: Path) -> None:
    out = build(demo_store, tmp_path / "site").out
    ours = {path.name for path in out.iterdir()}
    (out / "CNAME").write_text("rulings.example.org\n", "utf-8")
    (out / ".git" / "objects").mkdir(parents=True)
    (out / ".git" / "objects" / "ab").write_bytes(b"\0object")
    (out / "latest").symlink_to("en")
    (out / "sitemap-9.xml").write_text("a sitemap part of an earlier, larger site", "utf-8")
    theirs = {
        "CNAME": b"rulings.example.org\n",
        ".git/objects/ab": b"\0object",
    }
    for options in (BuildOptions(full=True), BuildOptions(locales=(BY_CODE["de"],), full=True)):
        build(demo_store, out, options)
        assert {path.name for path in out.iterdir()} == ours | {"CNAME", ".git", "latest"}
        assert {path: _files(out)[path] for path in theirs} == theirs
        assert (out / "latest").readlink() == Path("en")
    _add_card(demo_store, "Zzyzx", de="Zzyzx de")
    # Its pages, A–Z pages, homes, new Z sections, and the 9 sections next to a new Z (in
    # zh-Hans, a Chinese name's pinyin puts a card under Z already).
    assert build(demo_store, out).written == 4 * 11 + 9
    assert {path: _files(out)[path] for path in theirs} == theirs


def test_locale_subset_keeps_the_other_locales(demo_store: Engine, tmp_path: Path) -> None:
    out = build(demo_store, tmp_path / "site").out
    before = _files(out)
    _add_card(demo_store, "Zzyzx", de="Zzyzx de")
    result = build(demo_store, out, BuildOptions(locales=(BY_CODE["de"], BY_CODE["it"])))
    after = _files(out)
    assert "de/cards/zzyzx.html" in after and "fr/cards/zzyzx.html" not in after
    assert {path for path in before if path.startswith("fr/")} <= set(after)
    # 3 cards, home, A–Z page, changes, feed, 2 mechanics, 3 A–Z sections (D, I, Z); 5 root
    # files
    assert result.pages == 2 * (3 + 6 + 3) + 5


def test_parallel_build_splits_cards_across_workers(
    demo_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number in range(5):
        _add_card(demo_store, f"Card {number}")
    serial = build(demo_store, tmp_path / "serial")
    monkeypatch.setattr(workers, "CARDS_PER_TASK", 2)
    parallel = build(demo_store, tmp_path / "parallel", BuildOptions(jobs=2))
    assert _pages(serial.out) == _pages(parallel.out)
    sections = len(list(serial.out.glob("*/a-z/*.html")))
    assert sections >= 2 * 11
    assert parallel.pages == serial.pages == 11 * (7 + 6) + sections + 5


def _open_files() -> list[str]:
    """What the process's file descriptors are open on."""
    found = []
    for descriptor in os.listdir("/proc/self/fd"):
        with suppress(FileNotFoundError):  # listdir's own, closed since
            found.append(os.readlink(f"/proc/self/fd/{descriptor}"))
    return sorted(found)


def _parallel_build_whose_worker(
    demo_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: Callable[[], None]
) -> tuple[Path, dict[str, bytes]]:
    """A site, then a parallel build over it (shares of 2 of 8 cards: 4 shares, 2 workers)
    whose workers call ``fails`` before they read a share: the site and what it held."""
    out = build(demo_store, tmp_path / "site").out
    before = _files(out)
    for number in range(5):
        _add_card(demo_store, f"Card {number}")
    parent = os.getpid()
    read = workers.load_cards

    def failing(*args: Any) -> Any:
        if os.getpid() != parent:
            fails()
        return read(*args)

    monkeypatch.setattr(workers, "CARDS_PER_TASK", 2)
    monkeypatch.setattr(workers, "load_cards", failing)
    return out, before


def test_a_workers_error_fails_the_build_and_leaves_the_previous_site(
    demo_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full() -> None:
        raise OSError(28, "No space left on device")

    out, before = _parallel_build_whose_worker(demo_store, tmp_path, monkeypatch, disk_full)
    with pytest.raises(OSError, match="No space left on device"):
        build(demo_store, out, BuildOptions(jobs=2))
    assert _files(out) == before
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]
    assert not multiprocessing.active_children()  # the workers stopped, none left behind
    held = _open_files()
    with pytest.raises(OSError, match="No space left on device"):
        build(demo_store, out, BuildOptions(jobs=2))
    assert _open_files() == held  # nor their pipes: kb build --watch forks workers for each build


def test_a_killed_worker_fails_the_build_and_leaves_the_previous_site(
    demo_store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    out, before = _parallel_build_whose_worker(demo_store, tmp_path, monkeypatch, killed)
    with pytest.raises(BrokenProcessPool, match="terminated abruptly"):
        build(demo_store, out, BuildOptions(jobs=2))
    assert _files(out) == before
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]
    assert not multiprocessing.active_children()
    monkeypatch.undo()  # the next build's workers live: it gives the whole new site
    build(demo_store, out, BuildOptions(jobs=2))
    assert _pages(out) == _pages(build(demo_store, tmp_path / "fresh").out)


def test_shares_shrink_towards_the_end_so_workers_finish_together() -> None:
    for count in (0, 1, 90, 500, 501, 3_000, 30_000):
        bounds = list(workers.share_bounds(count, 2))
        ends = [end for _start, end in bounds]
        assert bounds == list(zip([0, *ends], ends, strict=False))  # one after the other
        assert ends[-1:] == ([count] if count else [])
        assert all(0 < end - start <= workers.CARDS_PER_TASK for start, end in bounds)
    assert [len(list(workers.share_bounds(count, 2))) for count in (0, 90, 500)] == [0, 1, 1]
    sizes = [end - start for start, end in workers.share_bounds(30_000, 2)]
    assert sizes[:50] == [500] * 50  # a large build reads full shares by ranges of ids
    assert sizes[-4:] == [100, 100, 100, 57]  # and ends with small ones
    assert sizes == sorted(sizes, reverse=True)


def test_build_command(sqlite_url: str, tmp_path: Path) -> None:
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    engine.dispose()
    runner = CliRunner()
    out = tmp_path / "site"
    args = ["--db", sqlite_url, "build", "--out", str(out), "--jobs", "1"]
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert first.output == f"115 pages in {out}: 115 written, 0 unchanged, 0 removed\n"
    second = runner.invoke(cli, [*args, "--locale", "de,it"])
    assert second.output == f"25 pages in {out}: 0 written, 25 unchanged, 0 removed\n"
    any_case = runner.invoke(cli, [*args, "--locale", "pt-br,ZH-HANT"])  # as the folders are named
    assert any_case.output == f"25 pages in {out}: 0 written, 25 unchanged, 0 removed\n"
    repeated = runner.invoke(cli, [*args, "--locale", "de", "--locale", "it,ja", "--locale", "de"])
    assert repeated.output == f"35 pages in {out}: 0 written, 35 unchanged, 0 removed\n"
    assert runner.invoke(cli, ["-q", *args, "--full"]).output == ""
    bad = runner.invoke(cli, [*args, "--locale", "de,xx"])
    assert bad.exit_code == 2
    assert "xx: not one of en, de, fr" in bad.output
    none = runner.invoke(cli, [*args, "--locale", ","])
    assert none.exit_code == 2 and "Invalid value for '--locale': no locale given" in none.output
    unwritable = runner.invoke(cli, [*args[:2], "build", "--out", "/proc/site"])
    assert unwritable.exit_code == 1
    assert unwritable.output == (
        "kb: error: /proc: cannot make the build's staging folder here (No such file or "
        "directory)\n"
    )
    for address in (
        "rulings.example.org",
        "javascript:alert(1)",
        "ftp://example.org/",
        "http://a\tb/",
    ):
        wrong = runner.invoke(cli, [*args, "--base-url", address])
        assert wrong.exit_code == 2, address
        assert f"{address!r}: not an absolute http(s) address" in wrong.output
    published = runner.invoke(cli, [*args, "--base-url", "https://rulings.example.org/kb"])
    assert published.exit_code == 0, published.output
    assert published.output == (  # the sitemaps, robots.txt, 404.html, the feeds' addresses
        f"118 pages in {out}: 16 written, 102 unchanged, 0 removed; "
        "base URL https://rulings.example.org/kb/ (was none)\n"
    )
    robots = (out / "robots.txt").read_text("utf-8")
    assert "Sitemap: https://rulings.example.org/kb/sitemap.xml" in robots
    # A plain build keeps the site's address; a new one says so; '' forgets it.
    plain = runner.invoke(cli, args)
    assert plain.output == f"118 pages in {out}: 0 written, 118 unchanged, 0 removed\n"
    assert (out / "robots.txt").read_text("utf-8") == robots
    moved = runner.invoke(cli, [*args, "--base-url", "https://example.net/"])
    assert moved.output == (
        f"118 pages in {out}: 16 written, 102 unchanged, 0 removed; "
        "base URL https://example.net/ (was https://rulings.example.org/kb/)\n"
    )
    assert runner.invoke(cli, [*args, "--locale", "de"]).output == (
        f"18 pages in {out}: 0 written, 18 unchanged, 0 removed\n"
    )
    assert "https://example.net/sitemap.xml" in (out / "robots.txt").read_text("utf-8")
    forgotten = runner.invoke(cli, [*args, "--base-url", ""])
    assert forgotten.output == (
        f"115 pages in {out}: 13 written, 102 unchanged, 3 removed; "
        "base URL none (was https://example.net/)\n"
    )
    assert not (out / "sitemap.xml").exists()
