"""Templates compiled once: for every locale's environment in a process, and for every later
process through Jinja2's own bytecode cache on disk.

Why: the locales' environments differ only in their globals (translations, locale), which
compiled code looks up when it runs, so one compilation serves all eleven. Compiling the
templates at all is a third of a build's serial start (about 60 ms of 1.9 s for a small site,
benchmarks/README.md "Site build"), before the workers fork and while the second core waits;
loading their code from disk takes a few milliseconds.

The disk cache is ``jinja2.FileSystemBytecodeCache`` in its default place: a folder of the
system's temporary directory that only this user may enter (Jinja2 checks its owner and mode).
Each entry is keyed by the template's name and file, and holds the template source's checksum
and a tag of Jinja2's bytecode format and Python's version: an edited template, another Jinja2
or another Python compiles again. Jinja2 writes an entry to a temporary file and renames it,
so a killed build leaves no half entry. An entry that cannot be read is compiled again; a
cache that cannot be made or written is no cache: the build goes on as without one.
tests/test_site_compiled.py builds with and without it and requires the same pages.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import suppress
from functools import cached_property
from types import CodeType
from typing import Final

from jinja2 import BytecodeCache, FileSystemBytecodeCache
from jinja2.bccache import Bucket

NO_DISK_CACHE: Final = "KB_TEMPLATE_CACHE"
"""``KB_TEMPLATE_CACHE=off``: compile the templates in each process, with no cache on disk."""


def disk_cache() -> BytecodeCache | None:
    """Jinja2's cache on disk, in its default folder; None where there is no such folder or
    ``KB_TEMPLATE_CACHE=off``."""
    if os.environ.get(NO_DISK_CACHE) == "off":
        return None
    try:
        return FileSystemBytecodeCache(pattern="kb-%s.cache")
    except (OSError, RuntimeError):  # no temporary directory that is safely this user's
        return None


class CompiledOnce(BytecodeCache):
    """Each template's code, compiled at most once per process, and kept on the disk that
    ``disk`` finds when the first template is loaded (not when kb is imported)."""

    def __init__(self, disk: Callable[[], BytecodeCache | None] = disk_cache) -> None:
        self._codes: dict[str, tuple[str, CodeType]] = {}
        self._find_disk = disk

    @cached_property
    def _disk(self) -> BytecodeCache | None:
        return self._find_disk()

    def load_bytecode(self, bucket: Bucket) -> None:
        found = self._codes.get(bucket.key)
        if found is not None and found[0] == bucket.checksum:
            bucket.code = found[1]
            return
        if self._disk is None:
            return
        try:
            self._disk.load_bytecode(bucket)
        except Exception:  # an entry damaged some other way than Jinja2 checks for
            bucket.reset()
        if bucket.code is not None:
            self._codes[bucket.key] = (bucket.checksum, bucket.code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        if bucket.code is None:
            return
        self._codes[bucket.key] = (bucket.checksum, bucket.code)
        if self._disk is not None:
            # A full or read-only disk: the next process compiles again.
            with suppress(OSError):
                self._disk.dump_bytecode(bucket)
