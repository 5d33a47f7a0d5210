"""How a child process ended, in words: what kb says when a helper process dies unasked."""

from __future__ import annotations

import signal


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
