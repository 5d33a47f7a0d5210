"""What kb's helper processes share: a child's error sent to its parent, and how a child that
died unasked ended, in words. The import's parser, the site build's workers and the mining's
child use them."""

from __future__ import annotations

import signal
from contextlib import suppress
from multiprocessing.connection import Connection


def send_error(parent: Connection, error: BaseException) -> None:
    """Send ``error`` to the parent: itself, or its words where it cannot be pickled. A parent
    gone hears nothing."""
    with suppress(OSError):
        try:
            parent.send(error)
        except Exception:  # an error that cannot be pickled
            parent.send(RuntimeError(f"{type(error).__name__}: {error}"))


def how_it_ended(exitcode: int) -> str:
    """``exit status 1``, or ``killed by SIGKILL`` for a process a signal ended (a negative
    exit code, as multiprocessing reports it)."""
    if exitcode >= 0:
        return f"exit status {exitcode}"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    return f"killed by {name}"
