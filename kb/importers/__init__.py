"""The parsers: each reads one input format and yields records (kb.records)."""

from typing import Final

PARSER_REVISION: Final = 1
"""The revision of what the parsers make of a file. An import records it with each file it
reads (``sources.parser_revision``), and reads again a file that an older revision read, though
its bytes did not change: so a repair of the parsers reaches a store the next time its files are
imported (docs/importing.md). Raise it with any change to what the parsers yield;
tests/test_parser_revision.py fails until it is raised."""
