"""Where sites are served: builds into a mount point (a real tmpfs, mounted by the test), what a
reader of the folder sees while a build swaps a site in, and the links of a site of some
locales only."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urldefrag

import html5lib
import pytest
from click.testing import CliRunner
from realdata import DATA
from sqlalchemy import or_, update
from sqlalchemy.engine import Engine

from kb import schema
from kb.cli import cli
from kb.engine import make_engine
from kb.importing import run_import
from kb.locales import BY_CODE
from kb.site import OutputFolderError, other_pages, render, search
from kb.site import output as site_output
from kb.site.build import BuildOptions, BuildResult, WatchState, build
from kb.site.manifest import Manifest
from kb.site.output import CURRENT, MANIFEST, VERSION_PREFIX
from kb.site.serve import preview_server
from kb.site.watch import watch

GERMAN_PAGE = "de/cards/three-steps-ahead.html"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
PUBLISHED = "https://rulings.example.org/kb/"
SPREE_MODES = "You can%t choose the same mode more than once%"


@contextmanager
def _mounted(command: list[str], where: Path) -> Iterator[Path]:
    """Run a mount command (or skip the test, saying why it may not mount here), and unmount
    when done, whatever happens."""
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        pytest.skip(
            f"{' '.join(command)} failed ({result.stderr.strip() or result.returncode}): "
            "mounting needs root or CAP_SYS_ADMIN"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", "--lazy", str(where)], check=True)


@pytest.fixture
def mount_point(tmp_path: Path) -> Iterator[Path]:
    """An empty tmpfs, as a Docker volume is: another file system than its parent's."""
    where = tmp_path / "volume"
    where.mkdir()
    with _mounted(["mount", "-t", "tmpfs", "-o", "size=64m", "kb-test", str(where)], where):
        assert os.path.ismount(where)
        yield where


def _served(folder: Path) -> dict[str, bytes]:
    """The site as a web server serving ``folder`` finds it: every file by its address, links
    followed (the build's manifest and a linked folder's own entries aside)."""
    found = {}
    for root, folders, names in os.walk(folder, followlinks=True):
        if Path(root) == folder:
            folders[:] = [name for name in folders if not name.startswith((CURRENT, ".kb-site"))]
        for name in names:
            path = Path(root) / name
            address = path.relative_to(folder).as_posix()
            if address != MANIFEST:
                found[address] = path.read_bytes()
    return found


def _shapes(served: dict[str, bytes]) -> Counter[str]:
    """The addresses of a site, each with the content hashes in its name left out: the search
    index's files are named by their content, which an edit changes. A site whole is every
    address of the shapes of the one before, once (a mix of two sites holds a shape twice)."""
    return Counter(re.sub(r"(?<=_)[0-9a-f]{7,}(?=[._])", "#", address) for address in served)


def _versions(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith(VERSION_PREFIX))


def _edit_spree_modes(engine: Engine, text: str) -> None:
    with engine.begin() as connection:
        connection.execute(
            update(schema.rulings)
            .where(
                or_(schema.rulings.c.text.like(SPREE_MODES), schema.rulings.c.text.like("Edited:%"))
            )
            .values(text=f"Edited: {text}")
        )


def test_a_build_into_a_mount_point(demo_store: Engine, mount_point: Path, tmp_path: Path) -> None:
    """A mount point cannot be renamed, and its parent is another file system: the site lives
    in a version folder inside it, each entry a link through .kb-current. A reader finds the
    same files as in a plain folder; incremental and full builds, and failed ones, work."""
    plain = build(demo_store, tmp_path / "plain").out
    first = build(demo_store, mount_point)
    assert (first.pages, first.written, first.removed) == (115, 115, 0)
    assert _served(mount_point) == _served(plain)
    assert (mount_point / CURRENT).readlink() == Path(_versions(mount_point)[0])
    assert (mount_point / "de").readlink() == Path(f"{CURRENT}/de")
    assert Manifest.read(mount_point) is not None

    (mount_point / "CNAME").write_text("rulings.example.org\n", "utf-8")  # the operator's own
    _edit_spree_modes(demo_store, "in a volume.")
    again = build(demo_store, mount_point)
    # The two Spree cards' pages, the Spree page, the feed and recent changes page.
    assert again.written == 5 * 11
    assert "Edited: in a volume." in (mount_point / GERMAN_PAGE).read_text("utf-8")
    assert build(demo_store, plain).written == again.written
    assert _served(mount_point) == {**_served(plain), "CNAME": b"rulings.example.org\n"}
    assert len(_versions(mount_point)) == 1

    full = build(demo_store, mount_point, BuildOptions(full=True, base_url=PUBLISHED))
    assert full.written == full.pages == 118  # and a sitemap index, its two sitemaps
    assert len(_versions(mount_point)) == 1  # the previous one removed
    assert (mount_point / "sitemap.xml").readlink() == Path(f"{CURRENT}/sitemap.xml")
    before = _served(mount_point)

    _edit_spree_modes(demo_store, "never shown.")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render.Renderer, "mechanic", _broken)  # both builds render it
        for options in (BuildOptions(), BuildOptions(full=True)):
            with pytest.raises(RuntimeError, match="disk full"):
                build(demo_store, mount_point, options)
            assert _served(mount_point) == before
            assert len(_versions(mount_point)) == 1
    # Back to no base address: the sitemap's link goes with the sitemap.
    build(demo_store, mount_point, BuildOptions(full=True, base_url=""))
    assert not os.path.lexists(mount_point / "sitemap.xml")
    # A .kb-current that leads elsewhere is refused: no page is written through it.
    current = os.readlink(mount_point / CURRENT)
    (mount_point / CURRENT).unlink()
    (mount_point / CURRENT).symlink_to(f"../{mount_point.name}/{current}")
    with pytest.raises(OutputFolderError, match="not a kb version folder"):
        build(demo_store, mount_point)
    (mount_point / CURRENT).unlink()
    (mount_point / CURRENT).symlink_to(current)
    # The live version folder removed by hand: the next build makes the site again.
    shutil.rmtree(mount_point / os.readlink(mount_point / CURRENT))
    assert build(demo_store, mount_point).written == 115
    build(demo_store, plain)  # the edit the failed builds did not publish
    assert _served(mount_point) == {**_served(plain), "CNAME": b"rulings.example.org\n"}
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".")]  # none beside


def _outside_bundles(files: dict[str, bytes]) -> set[str]:
    return {path for path in files if f"/{search.FOLDER}/" not in path}


def _broken(*_args: object) -> render.Page:
    raise RuntimeError("disk full")


def test_a_plain_site_in_a_mount_point_becomes_linked(demo_store: Engine, tmp_path: Path) -> None:
    """A site built into a folder that is then bind-mounted onto itself (as a container sees
    the folder it was given): incremental builds work on it in place, a full build makes it
    linked, and it stays so once the folder is no longer mounted."""
    out = build(demo_store, tmp_path / "site").out
    (out / "CNAME").write_text("rulings.example.org\n", "utf-8")
    expected = _served(out)
    with _mounted(["mount", "--bind", str(out), str(out)], out):
        assert build(demo_store, out).written == 0
        _edit_spree_modes(demo_store, "in place.")
        assert build(demo_store, out).written == 5 * 11
        assert not os.path.lexists(out / CURRENT)
        full = build(demo_store, out, BuildOptions(full=True))
        assert full.removed == 0
        assert (out / "en").is_symlink() and (out / "CNAME").read_text() == "rulings.example.org\n"
        assert not (out / "CNAME").is_symlink()
        assert "Edited: in place." in (out / GERMAN_PAGE).read_text("utf-8")
    assert (out / "en").is_symlink()  # the bind mount wrote to the folder itself
    _edit_spree_modes(demo_store, "unmounted.")
    assert build(demo_store, out, BuildOptions(full=True)).written == 115
    served = _served(out)
    assert "Edited: unmounted." in served[GERMAN_PAGE].decode()
    # The same files; a search bundle's are named by their content, which the edit changed.
    assert _outside_bundles(served) == _outside_bundles(expected)
    assert len(_versions(out)) == 1


@pytest.mark.parametrize("mounted", [False, True], ids=["folder", "mount-point"])
def test_a_reader_sees_the_old_site_or_the_new_one(
    sqlite_url: str, tmp_path: Path, mounted: bool, request: pytest.FixtureRequest
) -> None:
    """While full builds swap sites in, a reader reading the same pages over and over always
    finds each one, whole, as one build or another wrote it (never missing, never a mix of
    two: the German page and the Italian one of a site name the same edit)."""
    engine = site_build_engine(sqlite_url)
    out = request.getfixturevalue("mount_point") if mounted else tmp_path / "site"
    build(engine, out)
    stop = threading.Event()
    problems: list[str] = []
    reads = 0

    def read() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                page = (out / GERMAN_PAGE).read_text("utf-8")
            except OSError as error:
                problems.append(f"{GERMAN_PAGE}: {error}")
                continue
            if not page.endswith("</html>\n"):
                problems.append(f"{GERMAN_PAGE}: cut short")
            reads += 1

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for number in range(4):
            _edit_spree_modes(engine, f"build {number}.")
            build(engine, out, BuildOptions(full=True))
    finally:
        stop.set()
        reader.join()
        engine.dispose()
    assert problems == []
    assert reads > 0
    assert "Edited: build 3." in (out / GERMAN_PAGE).read_text("utf-8")


def site_build_engine(url: str) -> Engine:
    """A store of the demo data at ``url``, for a test that runs builds beside its own reads."""
    engine = make_engine(url)
    run_import(engine, [DATA])
    return engine


def test_watching_a_mount_point(demo_store: Engine, mount_point: Path) -> None:
    """kb build --watch into a mount point: each build moves pages into the live version
    folder, and the manifest written when the store is quiet is that folder's (the link to it
    stays a link)."""
    kept = WatchState()
    build(demo_store, mount_point, kept=kept)
    built: queue.Queue[BuildResult] = queue.Queue()
    failed: queue.Queue[Exception] = queue.Queue()
    stop = threading.Event()
    options = BuildOptions(full=False)
    thread = threading.Thread(
        target=watch,
        args=(demo_store, mount_point, options, kept, stop, lambda r, _s: built.put(r), failed.put),
    )
    thread.start()
    try:
        _edit_spree_modes(demo_store, "watched.")
        result = built.get(timeout=60)
    finally:
        stop.set()
        thread.join()
    assert failed.empty()
    assert result.written == 5 * 11
    assert "Edited: watched." in (mount_point / GERMAN_PAGE).read_text("utf-8")
    assert (mount_point / MANIFEST).is_symlink()
    assert Manifest.read(mount_point) == kept.manifest
    assert build(demo_store, mount_point).written == 0


def _links(site: Path, page: Path, base_url: str) -> Iterator[str]:
    """Every address a page of the site names, relative to the site's root."""
    address = page.relative_to(site).as_posix()
    if page.suffix == ".xml":
        root = ET.parse(page).getroot()
        for element in root.iter():
            link = element.text if element.tag in (f"{SITEMAP}loc",) else element.get("href")
            if link is not None:
                assert link.startswith(base_url), f"{address}: {link}"
                yield link.removeprefix(base_url)
        return
    if page.name == "robots.txt":
        for line in page.read_text("utf-8").splitlines():
            if line.startswith("Sitemap: "):
                yield line.removeprefix("Sitemap: ").removeprefix(base_url)
        return
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for element in parser.parse(page.read_bytes()).iter():
        for attribute in ("href", "src"):
            link = element.get(attribute)
            if link is None:
                continue
            target, _fragment = urldefrag(link)
            if not target:
                continue
            if page.name == "404.html":  # served at any address: absolute
                assert target.startswith(base_url), f"{address}: {link}"
                yield target.removeprefix(base_url)
            else:
                assert not re.match(r"[a-z]+:|/", target), f"{address}: {link}"
                resolved = os.path.normpath(os.path.join(os.path.dirname(address), target))
                yield resolved


def _broken_links(site: Path, base_url: str) -> list[str]:
    files = set(_served(site))
    return [
        f"{address}: {link}"
        for address in sorted(files)
        if address.endswith((".html", ".xml", ".txt"))
        for link in _links(site, site / address, base_url)
        if link not in files
    ]


def test_a_site_of_some_locales_links_only_to_its_pages(demo_store: Engine, tmp_path: Path) -> None:
    """A de,ja build into a new folder: its switchers, hreflang alternates, root picker, 404
    page and sitemaps name German and Japanese pages only (x-default the German one); a later
    fr build into it links the three; the same store gives the same bytes."""
    de_ja = BuildOptions(locales=(BY_CODE["ja"], BY_CODE["de"]), base_url=PUBLISHED)
    site = build(demo_store, tmp_path / "site", de_ja).out
    assert sorted(name for name in os.listdir(site) if "." not in name) == ["de", "ja", "static"]
    assert _broken_links(site, PUBLISHED) == []
    german = (site / GERMAN_PAGE).read_text("utf-8")
    assert re.findall(r'hreflang="([^"]+)"', german) == ["de", "ja", "x-default", "ja"]
    assert 'hreflang="x-default" href="../../de/cards/three-steps-ahead.html"' in german
    root = (site / "index.html").read_text("utf-8")
    assert set(re.findall(r'href="([^"]+)"', root)) == {
        "static/style.css", "de/index.html", "ja/index.html", "de/cards/index.html",
        "de/feed.atom",
    }  # fmt: skip
    assert '<html lang="de">' in root  # the site's first language, English where it has it
    sitemap = ET.parse(site / "sitemap-1.xml").getroot()
    locs = [loc.text or "" for loc in sitemap.iter(f"{SITEMAP}loc")]
    assert len(locs) == 2 * 7 and not [loc for loc in locs if "/en/" in loc]
    sections = ET.parse(site / "sitemap-a-z.xml").getroot()
    locs = [loc.text or "" for loc in sections.iter(f"{SITEMAP}loc")]
    assert len(locs) == 2 * 2 and all(re.search(r"/(de|ja)/a-z/\d+\.html$", loc) for loc in locs)
    assert _served(build(demo_store, tmp_path / "again", de_ja).out) == _served(site)

    build(demo_store, site, BuildOptions(locales=(BY_CODE["fr"],)))  # the address kept
    assert _broken_links(site, PUBLISHED) == []
    french = (site / "fr/cards/three-steps-ahead.html").read_text("utf-8")
    assert re.findall(r'hreflang="([^"]+)"', french) == ["de", "fr", "ja", "x-default", "de", "ja"]
    assert len(list(ET.parse(site / "sitemap-1.xml").getroot().iter(f"{SITEMAP}loc"))) == 3 * 7
    # the A–Z sections of the locales built before, as recorded, and the French ones
    sections = ET.parse(site / "sitemap-a-z.xml").getroot()
    locs = [loc.text or "" for loc in sections.iter(f"{SITEMAP}loc")]
    folders = sorted(re.sub(r"^.*/kb/|/a-z/.*$", "", loc) for loc in locs)
    assert folders == ["de", "de", "fr", "fr", "ja", "ja"]
    # Pages of the earlier build are carried over as they were: they name their own two.
    assert 'hreflang="fr"' not in (site / GERMAN_PAGE).read_text("utf-8")
    # A full build of every locale links them all, English the x-default again.
    build(demo_store, site, BuildOptions(full=True))
    assert _broken_links(site, PUBLISHED) == []
    assert 'hreflang="x-default" href="../../en/cards/three-steps-ahead.html"' in (
        site / GERMAN_PAGE
    ).read_text("utf-8")


def test_a_site_of_some_locales_without_an_address(demo_store: Engine, tmp_path: Path) -> None:
    """No base address: 404.html links from the server's root, to the site's locales only."""
    site = build(demo_store, tmp_path / "site", BuildOptions(locales=(BY_CODE["it"],))).out
    assert _broken_links(site, "/") == []
    assert not (site / "sitemap.xml").exists()
    not_found = (site / "404.html").read_text("utf-8")
    assert set(re.findall(r'href="([^"]+)"', not_found)) == {
        "/static/style.css", "/it/index.html", "/it/cards/index.html", "/it/feed.atom",
    }  # fmt: skip


def test_a_build_killed_in_a_mount_point_leaves_a_whole_site(
    sqlite_url: str, mount_point: Path
) -> None:
    """kb build --full killed (SIGKILL) at moments spread over its run: the volume serves one
    whole site each time (every page, each showing the same edit), the next build works, and
    the builds' leftovers are gone after it."""
    engine = site_build_engine(sqlite_url)
    command = [sys.executable, "-m", "kb", "--db", sqlite_url, "-q", "build", "--full"]
    command += ["--out", str(mount_point), "-j", "1"]
    assert subprocess.run(command, check=False).returncode == 0
    addresses = _shapes(_served(mount_point))
    killed = 0
    for number, delay in enumerate((0.1, 0.2, 0.3, 0.4, 0.6, 0.9)):
        _edit_spree_modes(engine, f"kill {number}.")
        process = subprocess.Popen(command)
        try:
            process.wait(delay)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            killed += 1
        served = _served(mount_point)
        assert _shapes(served) == addresses
        shown = {
            match
            for data in served.values()
            for match in re.findall(rb"Edited: kill [0-9]+\.", data)
        }
        assert len(shown) <= 1, shown  # one build's site, or the first (no edit yet)
    engine.dispose()
    result = CliRunner().invoke(cli, command[3:])
    assert (result.exit_code, result.output) == (0, "")
    assert "Edited: kill 5." in (mount_point / GERMAN_PAGE).read_text("utf-8")
    assert len(_versions(mount_point)) == 1
    leftovers = [name for name in os.listdir(mount_point) if name.startswith((".kb-l", ".kb-o"))]
    assert leftovers == []
    assert killed > 0


def test_some_locales_into_a_new_file_system(demo_store: Engine, mount_point: Path) -> None:
    """A new file system's root holds lost+found (ext4's), which does not make it someone's
    folder; builds of some locales carry the others over from the live version folder, and
    the preview server serves the linked site."""
    (mount_point / "lost+found").mkdir()
    de_ja = BuildOptions(locales=(BY_CODE["de"], BY_CODE["ja"]), base_url=PUBLISHED)
    build(demo_store, mount_point, de_ja)
    build(demo_store, mount_point, BuildOptions(locales=(BY_CODE["fr"],), full=True))
    assert sorted(name for name in os.listdir(mount_point) if "." not in name) == [
        "de", "fr", "ja", "lost+found", "static",
    ]  # fmt: skip
    assert (mount_point / "lost+found").is_dir() and not (mount_point / "lost+found").is_symlink()
    assert _broken_links(mount_point, PUBLISHED) == []
    assert len(_versions(mount_point)) == 1
    server = preview_server(mount_point, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        with urllib.request.urlopen(base + GERMAN_PAGE) as response:
            assert "Drei Schritte voraus" in response.read().decode("utf-8")
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "en/index.html")
        assert missing.value.code == 404 and b"Seite nicht gefunden" in missing.value.read()
    finally:
        server.shutdown()
        server.server_close()


def _refused(*_args: object) -> None:
    raise OSError(28, "No space left on device")


@pytest.mark.parametrize("mounted", [False, True], ids=["folder", "mount-point"])
def test_a_swap_that_fails_leaves_the_previous_site(
    demo_store: Engine,
    tmp_path: Path,
    mounted: bool,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = request.getfixturevalue("mount_point") if mounted else tmp_path / "site"
    build(demo_store, out)
    before = _served(out)
    _edit_spree_modes(demo_store, "never live.")
    step = "_replace_link" if mounted else "_replace_folder"
    monkeypatch.setattr(site_output, step, _refused)
    with pytest.raises(OSError, match="No space left"):
        build(demo_store, out, BuildOptions(full=True))
    assert _served(out) == before
    assert len(_versions(out)) == (1 if mounted else 0)
    assert [name for name in os.listdir(tmp_path) if name.startswith(".")] == []
    monkeypatch.undo()
    assert build(demo_store, out).written == 5 * 11


def test_without_an_exchange_call_two_renames_do(demo_store: Engine, tmp_path: Path) -> None:
    """Where renameat2 is missing or the file system refuses RENAME_EXCHANGE, a plain folder is
    replaced by two renames and a plain site becoming linked has each entry renamed aside."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(site_output, "_exchange", lambda _first, _second: False)
        out = build(demo_store, tmp_path / "site").out
        expected = _served(out)
        assert build(demo_store, out, BuildOptions(full=True)).written == 115
        assert _served(out) == expected
        with _mounted(["mount", "--bind", str(out), str(out)], out):
            build(demo_store, out, BuildOptions(full=True))
            assert (out / "en").is_symlink() and _served(out) == expected
    assert [name for name in os.listdir(tmp_path) if name.startswith(".")] == []
    assert [name for name in os.listdir(out) if name.startswith((".kb-l", ".kb-o"))] == []


def test_sitemap_parts_come_and_go_in_a_mount_point(
    demo_store: Engine, mount_point: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site large enough for a sitemap index (made so with 2 pages a part): every part is
    linked at the top, and resolves; when the site needs fewer, an incremental build removes
    the parts and their links."""
    monkeypatch.setattr(other_pages, "SITEMAP_GROUPS", 2)
    options = BuildOptions(locales=(BY_CODE["de"], BY_CODE["ja"]), base_url=PUBLISHED)
    build(demo_store, mount_point, options)
    parts = sorted(name for name in os.listdir(mount_point) if name.startswith("sitemap-"))
    # 7 pages, 2 a part, and the A–Z sections'
    assert parts == [*(f"sitemap-{number}.xml" for number in range(1, 5)), "sitemap-a-z.xml"]
    assert _broken_links(mount_point, PUBLISHED) == []
    monkeypatch.setattr(other_pages, "SITEMAP_GROUPS", 300)
    assert build(demo_store, mount_point, options).removed == 3
    parts = sorted(name for name in os.listdir(mount_point) if name.startswith("sitemap-"))
    assert parts == ["sitemap-1.xml", "sitemap-a-z.xml"]
    assert _broken_links(mount_point, PUBLISHED) == []
