"""The output folder: where a build stages its pages, how a full build swaps them in, and mount
points.

A folder kb builds into has one of two layouts (docs/site.md says what a web server sees):

- **plain**: the folder holds the site's files. A full build stages beside it, in its parent,
  and exchanges the two folders in one step (``renameat2(RENAME_EXCHANGE)``; where the kernel or
  file system lacks it, two renames, between which the folder is briefly absent).
- **linked**, for a mount point (a Docker volume, a bind-mounted web root), which can be neither
  renamed nor replaced, and whose parent may be another file system: the pages live in a
  version folder inside it, ``.kb-site-XXXXXXXX``, which the link ``.kb-current`` names, and each
  of kb's top-level entries is a link through it (``en -> .kb-current/en``). A full build stages
  a new version folder beside the current one and switches ``.kb-current`` to it with the
  rename of one link: a reader sees the whole old site or the whole new one. A folder once
  linked stays linked, mounted or not.

Incremental builds stage in the same file system as the live pages and move each page into
place (kb.site.staging)."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from kb.locales import LOCALES, Locale
from kb.site import OutputFolderError
from kb.site.render import ROBOTS, ROOT_PAGES, SITEMAP, STYLESHEET

MANIFEST = ".kb-manifest"
"""The output folder's record of its pages (kb.site.manifest.Manifest)."""
CURRENT = ".kb-current"
"""In a linked folder: the link to the version folder of the live site."""
VERSION_PREFIX = ".kb-site-"
"""The start of a linked folder's version folders' names (the rest is mkdtemp's)."""
_SITEMAP_PART = re.compile(r"sitemap-[0-9]+\.xml")
_OWN_FILES = frozenset(
    {*ROOT_PAGES, ROBOTS, SITEMAP, STYLESHEET.split("/")[0], MANIFEST, f"{MANIFEST}.tmp"}
)
"""The entries of an output folder that kb writes beside the locale folders (and the sitemap
parts): a build replaces those and keeps every other entry."""
_LOCALE_FOLDERS = frozenset(locale.folder for locale in LOCALES)
_NOT_CONTENT = frozenset({"lost+found"})
"""Entries a new file system's root holds (ext4's), which do not make a folder someone's."""
_TEMPORARY = (".kb-link-", ".kb-old-")
"""The starts of the names of entries a linked folder holds while one is replaced."""
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def own_entry(name: str) -> bool:
    """Whether a top-level entry ``name`` is one kb writes beside the locale folders, or a
    linked folder's own."""
    return (
        name in _OWN_FILES
        or _SITEMAP_PART.fullmatch(name) is not None
        or name == CURRENT
        or name.startswith(VERSION_PREFIX)
    )


def _is_linked(out: Path) -> bool:
    return os.path.islink(out / CURRENT)


def live_root(out: Path) -> Path:
    """The folder that holds the pages of the site in ``out``: ``out`` itself, or its current
    version folder."""
    if not _is_linked(out):
        return out
    version = os.readlink(out / CURRENT)
    if not version.startswith(VERSION_PREFIX) or "/" in version or version in (".", ".."):
        # kb makes it name a folder beside it; pages never follow one anywhere else.
        raise OutputFolderError(f"{out / CURRENT}: leads to {version}, not a kb version folder")
    return out / version


def check_folder(out: Path) -> None:
    """Refuse a path that is not a folder, or a folder of files kb did not write (no manifest):
    a build would replace them."""
    if out.exists() and not out.is_dir():
        raise OutputFolderError(f"{out}: not a folder")
    if (
        out.is_dir()
        and not (out / MANIFEST).is_file()
        and not _is_linked(out)  # kb's, even with its version folder gone
        and any(name not in _NOT_CONTENT for name in os.listdir(out))
    ):
        raise OutputFolderError(
            f"{out}: has files and no kb site in it (no {MANIFEST}); kb builds into a new or "
            "empty folder, or a site it built"
        )


class Output:
    """One build's view of its output folder: where the live pages are (``root``), and the
    staging folder it renders into, which it swaps in (a full build) or discards."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.root = live_root(out)
        """Where the live site's pages are."""
        mounted = out.is_dir() and _mounted(out)
        self.linked = _is_linked(out) or mounted
        """Whether a full build leaves the linked layout."""
        self._inside = self.linked
        """Whether staging folders go inside the output folder (a mount point's parent may be
        another file system, where the pages could not be renamed into place)."""
        self.staging: Path | None = None
        self._lock: int | None = None

    def stage(self) -> Path:
        """Make the staging folder (mode 0700 until swapped in)."""
        if self._inside:
            where, prefix = self.out, VERSION_PREFIX
        else:
            where, prefix = self.out.parent, f".{self.out.name}."
            where.mkdir(parents=True, exist_ok=True)
        try:
            self.staging = Path(tempfile.mkdtemp(prefix=prefix, dir=where))
        except OSError as error:  # it names the random folder; the one to fix is where it goes
            reason = f"cannot make the build's staging folder here ({error.strerror})"
            raise OSError(error.errno, reason, str(where)) from error
        if self._inside:
            # Held while the build runs: another build tidies only version folders nobody holds
            # (those a killed build left).
            self._lock = os.open(self.staging, os.O_RDONLY | os.O_DIRECTORY)
            fcntl.flock(self._lock, fcntl.LOCK_EX)
        return self.staging

    def discard(self) -> None:
        """Remove the staging folder, if it was not swapped in."""
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def locales(self) -> list[Locale]:
        """The locales the live site has pages of (a home page)."""
        root = self.root
        return [locale for locale in LOCALES if (root / locale.folder / "index.html").is_file()]

    def carry_over(self, locales: Iterable[Locale]) -> None:
        """Keep the live site's pages of the locales this build leaves out, and (in a plain
        folder) every entry kb did not write (a CNAME, a .git folder): all hard-linked where
        they can be, so that a build that fails leaves them as they were. A linked folder's
        other entries stay where they are, beside the links."""
        assert self.staging is not None
        if not self.root.is_dir():
            return
        built = {locale.folder for locale in locales}
        for entry in sorted(self.root.iterdir()):
            target = self.staging / entry.name
            if entry.name in built or own_entry(entry.name) or os.path.lexists(target):
                continue
            if self.linked and entry.name not in _LOCALE_FOLDERS:
                continue
            if entry.is_symlink():
                os.symlink(os.readlink(entry), target)
            elif entry.is_dir():
                shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
            else:
                _link_or_copy(entry, target)

    def live_files(self) -> set[str]:
        """The live site's files (a linked folder's: kb's own), relative to the site's root."""
        if not self.root.is_dir():
            return set()
        linked = self.linked and self.root == self.out  # a plain site that becomes linked
        return {
            path
            for path in files(self.root)
            if not linked or (_ours(top := path.partition("/")[0]) and not _linking(top))
        }

    def swap_in(self) -> None:
        """Make the staging folder the live site."""
        staging = self.staging
        assert staging is not None
        staging.chmod(0o755)
        try:
            if self.linked:
                self._switch(staging)
            else:
                _replace_folder(staging, self.out)
        finally:
            # What is left at the staging folder's path: nothing, the previous site (plain),
            # or the new site if the switch failed before it was made live.
            self.discard()
        if self.linked:
            tidy(self.out)

    def settle(self) -> None:
        """After pages were moved into a linked folder's live site: a link for each new
        top-level entry (a locale built for the first time, a new sitemap part), none left for
        an entry gone."""
        if _is_linked(self.out):
            _replace_entries(self.out, _link_entries(self.out, sorted(os.listdir(self.root))))
            tidy(self.out)

    def _switch(self, staging: Path) -> None:
        """Point ``.kb-current`` at the new version folder, with a link for each entry."""
        names = sorted(os.listdir(staging))
        # Links for new entries first: until the switch they lead nowhere, as on the old site.
        replaced = _link_entries(self.out, names)
        _replace_link(self.out / CURRENT, staging.name)
        self.staging = None  # live: discard() must leave it
        _replace_entries(self.out, replaced)


def tidy(out: Path) -> None:
    """In a linked folder: remove the links that lead to no entry of the live site, kb's
    entries that are not links (a plain site's, replaced), and the version folders that are
    neither live nor held by a running build (the previous site, a killed build's)."""
    current = os.readlink(out / CURRENT)
    live = set(os.listdir(out / current))
    for name in sorted(os.listdir(out)):
        path = out / name
        if name == CURRENT or name in live:
            continue
        if os.path.islink(path):
            if os.readlink(path).startswith(f"{CURRENT}/"):
                path.unlink()
        elif name.startswith(VERSION_PREFIX):
            if name != current:
                _remove_unheld(path)
        elif _ours(name) or name.startswith(_TEMPORARY):  # the latter a killed build's
            _remove(path)


def _mounted(folder: Path) -> bool:
    """Whether a folder is a mount point: on another device than its parent (os.path.ismount),
    or listed as one by the kernel (a bind mount of a folder of the same file system)."""
    if os.path.ismount(folder):
        return True
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
            # The fifth field is the mount point, with space, tab, newline, backslash in octal.
            points = {_unescaped(line.split(" ")[4]) for line in table if line.count(" ") >= 4}
    except OSError:  # not Linux
        return False
    return str(folder) in points


def _unescaped(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match[1], 8)), field)


def _ours(name: str) -> bool:
    return name in _LOCALE_FOLDERS or own_entry(name)


def _linking(name: str) -> bool:
    """Whether a top-level entry is one of the linked layout's (not a page's)."""
    return name == CURRENT or name.startswith((VERSION_PREFIX, *_TEMPORARY))


def _link_entries(out: Path, names: Iterable[str]) -> list[str]:
    """Make the link ``name -> .kb-current/name`` for each name that has no entry; the names
    whose entry is something else (to be replaced once the site is switched)."""
    replaced = []
    for name in names:
        link = out / name
        target = f"{CURRENT}/{name}"
        if not os.path.lexists(link):
            os.symlink(target, link)
        elif not os.path.islink(link) or os.readlink(link) != target:
            replaced.append(name)
    return replaced


def _replace_entries(out: Path, names: Iterable[str]) -> None:
    """Replace these entries (a plain site's becoming linked, or foreign ones of kb's names)
    by links through ``.kb-current``: each exchanged with its link in one step where the system
    can, else with two renames."""
    for name in names:
        temporary = _temporary_name(out, ".kb-link-")
        os.symlink(f"{CURRENT}/{name}", temporary)
        if _exchange(temporary, out / name):
            _remove(temporary)
        else:
            aside = _temporary_name(out, ".kb-old-")
            os.rename(out / name, aside)
            os.rename(temporary, out / name)
            _remove(aside)


def _replace_link(link: Path, target: str) -> None:
    """Make ``link`` lead to ``target`` in one step: a new link renamed over it."""
    temporary = _temporary_name(link.parent, ".kb-link-")
    os.symlink(target, temporary)
    os.replace(temporary, link)


def _temporary_name(folder: Path, prefix: str) -> Path:
    """A name for an entry made at once (os.symlink fails rather than follow one in the way)."""
    return folder / f"{prefix}{os.getpid()}-{secrets.token_hex(4)}"


def _replace_folder(staging: Path, out: Path) -> None:
    """Replace the folder ``out`` by ``staging``: exchanged in one step where the system can,
    else with two renames."""
    if not out.exists():
        staging.rename(out)
        return
    if _exchange(staging, out):
        shutil.rmtree(staging)  # now the previous site
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    retired.rmdir()
    out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two entries in one step (Linux's renameat2 with RENAME_EXCHANGE); False where the C
    library, the kernel or the file system has no such call."""
    function = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if function is None:
        return False
    path, number = ctypes.c_char_p, ctypes.c_int
    function.argtypes = [number, path, number, path, ctypes.c_uint]
    function.restype = ctypes.c_int
    if function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE):
        failure = ctypes.get_errno()
        if failure in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            return False
        raise OSError(failure, os.strerror(failure), str(second))
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _remove_unheld(folder: Path) -> None:
    """Remove a version folder unless a running build holds it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return
    finally:
        os.close(descriptor)
    shutil.rmtree(folder, ignore_errors=True)


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links: a copy that keeps the mtime
        shutil.copy2(source, target)


def files(folder: Path) -> set[str]:
    """The files under ``folder``, relative to it, with forward slashes."""
    start = len(os.path.join(folder, ""))  # os.walk's roots begin with the folder as given
    return {
        os.path.join(root, name)[start:].replace(os.sep, "/")
        for root, _folders, names in os.walk(folder)
        for name in names
    }  # slicing, not os.path.relpath: 16 µs a file, half a second of a small site's build
