"""Templates compiled once (kb.site.compiled): a later process loads their code from Jinja2's
cache on disk; an edited template, or a damaged entry, is compiled again; a build with the cache
gives the same pages as one without."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader
from jinja2.bccache import bc_magic
from realdata import DATA

from kb.engine import make_engine
from kb.importing import run_import
from kb.site.compiled import NO_DISK_CACHE, CompiledOnce


def environment(templates: Path, cache: Path) -> Environment:
    """A template's environment in a new process, as it were: a new cache in memory."""
    disk = FileSystemBytecodeCache(str(cache), "kb-%s.cache")
    return Environment(
        loader=FileSystemLoader(templates), bytecode_cache=CompiledOnce(lambda: disk)
    )


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    templates, cache = tmp_path / "templates", tmp_path / "cache"
    templates.mkdir()
    cache.mkdir()
    (templates / "page.html").write_text("<p>{{ name }}</p>\n")
    return templates, cache


def test_a_later_process_loads_the_code_from_disk(folders: tuple[Path, Path]) -> None:
    templates, cache = folders
    first = environment(templates, cache).get_template("page.html")
    assert first.render(name="Blitzschlag") == "<p>Blitzschlag</p>"
    (entry,) = cache.iterdir()
    written = entry.stat().st_mtime_ns
    # The entry is read, not written again: it was not compiled.
    second = environment(templates, cache).get_template("page.html")
    assert second.render(name="Blitzschlag") == "<p>Blitzschlag</p>"
    assert entry.stat().st_mtime_ns == written
    # One environment per locale in a process: the code is loaded once.
    assert environment(templates, cache).get_template("page.html") is not second


def test_an_edited_template_is_compiled_again(folders: tuple[Path, Path]) -> None:
    templates, cache = folders
    environment(templates, cache).get_template("page.html").render(name="x")
    (templates / "page.html").write_text("<h1>{{ name }}</h1>\n")
    assert environment(templates, cache).get_template("page.html").render(name="x") == "<h1>x</h1>"


@pytest.mark.parametrize(
    "damage",
    # Jinja2 tells the first three (no tag of its format); a tag then a truncated checksum,
    # or nothing after the tag, raise in Jinja2's reading: kb compiles again.
    [b"", b"j2 not what Jinja2 wrote", os.urandom(300), bc_magic + b"\x80\x04\x95", bc_magic],
)
def test_a_damaged_entry_is_compiled_again(folders: tuple[Path, Path], damage: bytes) -> None:
    templates, cache = folders
    environment(templates, cache).get_template("page.html").render(name="x")
    (entry,) = cache.iterdir()
    entry.write_bytes(damage)
    assert environment(templates, cache).get_template("page.html").render(name="y") == "<p>y</p>"
    assert entry.read_bytes() != damage  # written again, whole


def test_a_cache_that_cannot_be_written_is_no_cache(folders: tuple[Path, Path]) -> None:
    templates, cache = folders
    cache.rmdir()  # gone: writing an entry fails
    rendered = environment(templates, cache).get_template("page.html").render(name="x")
    assert rendered == "<p>x</p>" and not cache.exists()


def test_a_build_with_the_cache_gives_the_same_pages(tmp_path: Path, sqlite_url: str) -> None:
    """The demo store's site built by new processes, without the cache, then with it (filled
    by the second build and read by the third): the same bytes."""
    engine = make_engine(sqlite_url)
    run_import(engine, [DATA])
    engine.dispose()
    sites = []
    for run, setting in enumerate(("off", "on", "on")):
        site = tmp_path / f"site{run}"
        environ = {**os.environ, "TMPDIR": str(tmp_path), NO_DISK_CACHE: setting}
        subprocess.run(
            [sys.executable, "-m", "kb", "-q", "--db", sqlite_url, "build", "--out", str(site)],
            env=environ, check=True, capture_output=True,
        )  # fmt: skip
        sites.append(
            {
                path.relative_to(site): path.read_bytes()
                for path in sorted(site.rglob("*"))
                if path.is_file() and path.name != ".kb-manifest"
            }
        )
    assert any(tmp_path.glob(f"_jinja2-cache-{os.getuid()}/kb-*.cache"))
    assert len(sites[0]) > 50
    assert sites[0] == sites[1] == sites[2]
