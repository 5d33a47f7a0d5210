"""Two folders swapped in one step, where the system can: Linux's ``renameat2`` with
``RENAME_EXCHANGE``. A build that swaps its staging folder in with two renames (the old site
away, the new one in) leaves no site at all if killed between them; an exchange leaves the old
site or the new one."""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Callable
from pathlib import Path

AT_FDCWD = -100
RENAME_EXCHANGE = 2
# What a kernel, libc or file system without the exchange answers: the caller renames instead.
UNSUPPORTED = {errno.ENOSYS, errno.EINVAL, errno.ENOTSUP}


def _renameat2() -> Callable[..., int] | None:
    try:
        function: Callable[..., int] | None = getattr(
            ctypes.CDLL(None, use_errno=True), "renameat2", None
        )
    except OSError:  # no C library to load by that name (Windows)
        return None
    return function


_RENAMEAT2 = _renameat2()


def exchange(first: Path, second: Path) -> bool:
    """Swap the two existing paths at once; False (nothing done) where the system cannot."""
    if _RENAMEAT2 is None:
        return False
    if (
        _RENAMEAT2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE)
        == 0
    ):
        return True
    error = ctypes.get_errno()
    if error in UNSUPPORTED:
        return False
    raise OSError(error, os.strerror(error), str(second))
