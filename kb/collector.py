"""The cyclic garbage collector paused while a process builds many objects that live long.

Why: each of the collector's full passes walks every object the process holds. An import's
loader keeps its keys and ids, its parser process a set file's parsed JSON, a site build its
index and manifest; they make next to no reference cycles (a whole real import leaves some
7,000 cyclic objects, 2 MB: SQLAlchemy's statements), yet the collector passed over them 35
times in an import's main process (4 s of its 35) and 32 times in its parser (3 s of 20).
Python's documentation advises as much for a parent that forks workers. Reference counting
frees everything else as usual; the cycles left wait for the collector's next pass."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside; the collector as it was after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def set_aside() -> Iterator[None]:
    """No cyclic collection inside, then every object the process holds set aside as permanent
    (``gc.freeze``): for a block that makes objects that live as long as the process, such as
    importing modules (some 100,000 objects for kb.cli and SQLAlchemy), which the collector
    would otherwise pass over again and again while they load, and in every full pass after."""
    with paused():
        yield
        gc.freeze()
