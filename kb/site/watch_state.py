"""What a build that keeps running (``kb build --watch``) keeps from one build to the next."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Connection

from kb.locales import LOCALES
from kb.site.data import update_index
from kb.site.feed import KeptEntries
from kb.site.kept_names import KeptNames
from kb.site.manifest import Manifest
from kb.site.output import MANIFEST, live_root
from kb.site.render import Languages, Renderer
from kb.site.views import CardEntry, SiteIndex


@dataclass(frozen=True)
class FinishedBuild:
    """What a build read and left, for the next one of a process that keeps them."""

    out: Path
    """The output folder."""
    index: SiteIndex
    manifest: Manifest
    """The manifest of the site it left."""
    in_file: bool
    """Whether that manifest is the manifest file's."""
    names: list[str] | None
    """After a build of every locale, the cards' names digests, by position in the index."""
    languages: Languages
    """The site's locales."""


class CodeChanged(Exception):
    """What a build that keeps running renders with is no longer what is on disk."""


@dataclass
class WatchState:
    """What a build that keeps running (``kb build --watch``) keeps for its next build, which
    then reads only what changed: the store's card index as of the change log's position of
    its manifest, that manifest, and the renderer of card pages.

    An incremental build leaves writing the manifest to ``write_manifest``, which the watcher
    calls once the store is quiet: the pages are in place first. A manifest left older than the
    pages (the process killed) costs the next build those pages rendered and written again,
    never a stale one, since its change log position is older too."""

    index: SiteIndex | None = None
    manifest: Manifest | None = None
    unwritten: bool = False
    """The kept manifest is newer than the file."""
    _manifest_file: tuple[int, int, int] | None = None
    """The identity of the manifest file the kept one was read from or written to."""
    _renderer: Renderer | None = None
    _sitemaps: tuple[list[CardEntry], str, dict[str, str]] | None = None
    _names: list[str] | None = None
    """The kept index's cards' names digests, by position, as the kept manifest records them
    (after a build of every locale, whose records are complete)."""
    _version: str = ""
    """The code version (Fingerprints.version) of the process's first build."""
    languages: Languages = LOCALES
    """The site's locales as of the last build (whose page frames the watcher prepares)."""
    _feed_entries: KeptEntries | None = None
    az_names: KeptNames = field(default_factory=KeptNames)
    """Each locale's A–Z fingerprint, with what tells whether an edit changed it."""

    @property
    def feed_entries(self) -> KeptEntries:
        """The feeds' and recent changes pages' entries as last rendered."""
        if self._feed_entries is None:
            self._feed_entries = KeptEntries()
        return self._feed_entries

    def same_code(self, version: str) -> None:
        """Refuse to build with templates and code that changed on disk since this process
        loaded them: it would render with the old ones and record the new version."""
        if self._version and version != self._version:
            raise CodeChanged(
                "kb's templates, catalogs or code (or the site's base address or locales) "
                "changed since this build started: start it again"
            )
        self._version = version

    def renderer(self, languages: Languages) -> Renderer:
        """The kept renderer, with the stencils it made, if the site's languages are the same."""
        if self._renderer is None or self._renderer.languages != languages:
            self._renderer = Renderer(languages)
        return self._renderer

    def updated_index(self, connection: Connection, changed: set[int] | None) -> SiteIndex | None:
        """The kept index brought up to date with the cards the change log names since the
        kept manifest (``changed``; None: any card), if they include none added, removed or
        renamed."""
        if self.index is None or changed is None:
            return None
        return update_index(connection, self.index, changed)

    def sitemaps(self, index: SiteIndex, mechanics: str) -> dict[str, str]:
        """The sitemaps' fingerprints, by path, kept while the cards and the mechanics (their
        fingerprint: ``mechanics``) are those of the kept index: a sitemap lists their pages."""
        kept = self._sitemaps
        if kept is None or kept[0] is not index.cards or kept[1] != mechanics:
            kept = self._sitemaps = index.cards, mechanics, {}
        return kept[2]

    def recorded(self, out: Path) -> Manifest | None:
        """The manifest of the site in ``out``: the kept one, unless another build wrote the
        file since (then the file's, kept from now on)."""
        found = file_identity(out / MANIFEST)
        if self.manifest is None or found != self._manifest_file:
            self.manifest = Manifest.read(out) if found is not None else None
            self._manifest_file = found
            self.unwritten = False
            self.index = None  # read as of the kept manifest's position, not of this one's
        return self.manifest

    def unchanged_names(self, index: SiteIndex, manifest: Manifest) -> list[str] | None:
        """The cards' names digests, if the kept ones are those of these cards as this
        manifest records them."""
        if self._names is None or self.index is None or self.index.cards is not index.cards:
            return None
        return self._names if self.manifest is manifest else None

    def keep(self, built: FinishedBuild) -> None:
        """Keep what a build read and left."""
        self.index = built.index
        self.az_names.finished()
        self.languages = built.languages
        self._names = built.names
        if built.in_file:
            self._manifest_file = file_identity(built.out / MANIFEST)
            self.unwritten = False
        elif built.manifest is not self.manifest:
            self.unwritten = True
        self.manifest = built.manifest

    def write_manifest(self, out: Path) -> None:
        """Write the kept manifest if it is newer than the file, unless another build wrote
        the file since (its record is then the site's: the next build reads it)."""
        if not self.unwritten or self.manifest is None:
            return
        root = live_root(out)
        if file_identity(root / MANIFEST) != self._manifest_file:
            self.manifest = None
        else:
            self.manifest.write(root)
            self._manifest_file = file_identity(root / MANIFEST)
        self.unwritten = False


def file_identity(path: Path) -> tuple[int, int, int] | None:
    """A file's inode, size and modification time, which a write changes; None when there is
    none."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns
