"""Standard output closed by its reader (``kb export | head``): a normal way to stop reading.

kb then stops at once, says nothing and exits with status 141, as git does (git dies of SIGPIPE,
which a shell reports as 128 + 13): the output was cut short, which a script with
``set -o pipefail`` should see, but nothing went wrong. Python ignores SIGPIPE, so kb sees the
closed pipe as BrokenPipeError on a write or on the last flush; letting SIGPIPE kill kb instead
would also kill ``kb serve`` whenever a browser drops a connection.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Final, NoReturn

CLOSED_PIPE_STATUS: Final = 141


def exit_quietly() -> NoReturn:
    """Stop with CLOSED_PIPE_STATUS, what is left of the output going nowhere."""
    # Python flushes standard output once more at exit: into the closed pipe, it would print
    # "Exception ignored ... BrokenPipeError".
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    sys.exit(CLOSED_PIPE_STATUS)


@contextmanager
def closed_pipe_ends_quietly() -> Iterator[None]:
    """Run a command; a closed standard output, while it writes or when its output is flushed
    at the end, exits quietly."""
    try:
        try:
            yield
        finally:
            if sys.stdout is not None:  # None where kb started without one (kb ... >&-)
                sys.stdout.flush()
    except BrokenPipeError:
        exit_quietly()
