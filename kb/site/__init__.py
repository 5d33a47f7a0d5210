"""The static site: reads the store, renders Jinja2 templates per locale, writes files.

Its modules are imported by the commands that build or serve it, not by every kb command (the
renderer brings Jinja2, Babel and ICU)."""

WATCH_INTERVAL = {"sqlite": 0.02, "postgresql": 0.05}
"""Seconds between two looks at the store for ``kb build --watch``, by engine. On SQLite a look
is two ``stat`` calls of the store's files (an idle watcher costs ~1 % of a core): a short
interval takes some 35 ms off the time from an edit to its pages (benchmarks/README.md). On
PostgreSQL every look is a query of the change log."""


class OutputFolderError(Exception):
    """An output folder kb will not build into: it would replace files it did not write."""


class SearchIndexError(Exception):
    """Pagefind refused a page or could not write a search bundle (kb.site.search)."""
