"""The static site: reads the store, renders Jinja2 templates per locale, writes files.

Its modules are imported by the commands that build or serve it, not by every kb command (the
renderer brings Jinja2, Babel and ICU)."""

WATCH_INTERVAL = 0.05
"""Seconds between two looks at the store's change log, for ``kb build --watch``."""


class OutputFolderError(Exception):
    """An output folder kb will not build into: it would replace files it did not write."""


class SearchIndexError(Exception):
    """Pagefind refused a page or could not write a search bundle (kb.site.search)."""
