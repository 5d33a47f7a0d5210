"""What kb's helper processes share: a child's error sent to its parent, how a child that died
unasked ended, in words, a call run in a forked child (``Forked``), and a spawned child that
sends its results through a wide pipe (``SpawnedSender``, started before it is given its work).
The import's parser, the site build's workers, the mining's child and the import's ruling tags
use them."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")

PIPE_BYTES = 1 << 20
"""What a sender's pipe holds unread, where the system lets kb widen it (Linux's default
``pipe-max-size``): two or three of the import's batches of the real corpus (some 450 KB
pickled). Measured both ways on 2026-12-08: a pipe of 256 KB or of 16 MB (as root) made a real
import 1.5-4 s slower."""


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


def helper_can_fork() -> bool:
    """Whether a forked helper can run beside this process: a second core, and a platform
    that forks. Elsewhere the work runs in this process, with the same result."""
    return (os.cpu_count() or 1) >= 2 and "fork" in multiprocessing.get_all_start_methods()


def received(
    connection: Connection,
    child: BaseProcess,
    what: str,
    ended: Callable[[str], str] | None = None,
) -> Any:
    """The child's next message; the error it sent, raised; or an error for a child that ended
    without a word (killed: by the kernel for want of memory, say), in ``ended``'s words of
    how it ended where given."""
    try:
        message = connection.recv()
    except (EOFError, ConnectionError):
        child.join()
        how = how_it_ended(child.exitcode or 0)
        raise ChildProcessError(
            ended(how) if ended else f"the {what} process ended before it finished ({how})"
        ) from None
    if isinstance(message, BaseException):
        raise message
    return message


class Forked(Generic[T]):
    """``call()`` run in a forked child while this process goes on; ``result()`` waits for it.
    In this process, at once, where there is one core or the platform does not fork.

    Why: the end of an import runs steps that each keep one process busy while the other core
    waits (ruling tags beside the mining). ``call`` is inherited by the child, never pickled;
    its result comes back pickled, so it should be small. The child must never touch the
    parent's database connection (SQLAlchemy's advice for forked processes). A child that dies
    is an error, never a silent gap; leaving the ``with`` block ends a child not waited for."""

    def __init__(self, call: Callable[[], T], what: str) -> None:
        self._what = what
        self._child: BaseProcess | None = None
        if not helper_can_fork():
            self._value = call()
            return
        context = multiprocessing.get_context("fork")
        self._reader, writer = context.Pipe(duplex=False)
        self._child = context.Process(target=_run, args=(call, writer, self._reader), daemon=True)
        self._child.start()
        writer.close()  # the child's end: the reader sees EOF once the child is gone

    def result(self) -> T:
        child = self._child
        if child is None:
            return self._value
        try:
            self._value = cast(T, received(self._reader, child, self._what))
        finally:
            self._end()
        return self._value

    def _end(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.terminate()  # done, or not waited for
            child.join()
            child.close()
            self._reader.close()

    def __enter__(self) -> Forked[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._end()


def _run(call: Callable[[], Any], parent: Connection, parents_end: Connection) -> None:
    """The child: the call's result, or the error that stopped it."""
    parents_end.close()
    try:
        parent.send(call())
    except BaseException as error:
        send_error(parent, error)
    finally:
        parent.close()


class SpawnedSender:
    """A spawned child, started at once, that runs ``target(*args, writer)`` once ``give(*args)``
    hands it its work, and sends what it makes through a wide pipe that ``give`` returns the
    reading end of. ``close`` (or leaving the ``with`` block) ends a child not done; a child
    never given work ends without a word.

    Why start before the work is known: spawning a child and loading its modules takes a few
    tenths of a second, which an import spends recognising its files meanwhile (``kb.parsing``).

    Why not a ``multiprocessing.Queue``: its feeder thread pickles each message beside the
    child's own thread and waits for the GIL, up to the switch interval (5 ms), before each;
    the reader waited on it about a second in an import of the real corpus. Here the child
    pickles and writes in its own thread, and the pipe, widened, holds a few messages before a
    send blocks: that is the bound on what waits unread. The writer's only copy is the child's,
    so a child that dies closes the pipe and the reader hears EOFError at once."""

    def __init__(self, target: Callable[..., None]) -> None:
        context = multiprocessing.get_context("spawn")
        self.reader, writer = context.Pipe(duplex=False)
        _widen(writer)
        inbox, self._work = context.Pipe(duplex=False)
        self.child = context.Process(target=_sender, args=(target, inbox, writer), daemon=True)
        self.child.start()
        writer.close()
        inbox.close()

    def give(self, *args: Any) -> tuple[Connection, BaseProcess]:
        """Start the child's work: the reading end of its pipe, and the child."""
        # A child already gone (killed while it waited) cannot take it: its pipe's end then
        # tells the reader so (EOFError), as for a child that dies at work.
        with suppress(OSError):
            self._work.send(args)
        self._work.close()
        return self.reader, self.child

    def close(self) -> None:
        if self.reader.closed:  # closed already
            return
        self._work.close()  # a child still waiting for work: it ends
        self.child.terminate()
        self.child.join()
        self.child.close()
        self.reader.close()

    def __enter__(self) -> SpawnedSender:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _sender(target: Callable[..., None], inbox: Connection, writer: Connection) -> None:
    """The spawned child: waits for its work, then does it; its inbox closed without work, it
    ends."""
    try:
        args = inbox.recv()
    except EOFError:  # closed without work
        writer.close()
        return
    inbox.close()
    target(*args, writer)


@contextmanager
def spawned_sender(
    target: Callable[..., None], args: tuple[Any, ...]
) -> Iterator[tuple[Connection, BaseProcess]]:
    """``target(*args, writer)`` in a spawned child (``SpawnedSender``), and the reading end of
    ``writer``. Leaving the ``with`` block ends a child not done."""
    with SpawnedSender(target) as sender:
        yield sender.give(*args)


def _widen(connection: Connection) -> None:
    """Make the pipe under ``connection`` hold PIPE_BYTES where the system allows it; elsewhere
    it keeps its own size (64 KiB on Linux), which only makes the two processes wait more."""
    with suppress(ImportError, AttributeError, OSError):
        import fcntl

        fcntl.fcntl(connection.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
