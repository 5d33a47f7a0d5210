"""A call in a forked child (kb.child_processes.Forked) gives what the call gives here; a child
that fails or dies is an error, never a result missing; a child not waited for is ended. A
spawned sender (kb.child_processes.spawned_sender) delivers what it sends in order, through a
widened pipe; its death is the pipe's end, at once."""

from __future__ import annotations

import os
import signal
import sys
import time
from multiprocessing.connection import Connection

import pytest

from kb.child_processes import PIPE_BYTES, Forked, SpawnedSender, spawned_sender

pytestmark = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="one core: the call runs in this process (nothing to fork)"
)


def squares() -> dict[int, set[int]]:
    return {n: {n * n, os.getpid()} for n in range(3)}


def test_a_forked_call_gives_its_result_from_another_process() -> None:
    with Forked(squares, "squares") as forked:
        result = forked.result()
    here = squares()
    (child_pid,) = set.union(*result.values()) - {0, 1, 4}
    assert child_pid != os.getpid()
    assert {n: values - {child_pid} for n, values in result.items()} == {
        n: values - {os.getpid()} for n, values in here.items()
    }
    assert forked.result() == result  # asked again: the same, the child gone


def fails() -> None:
    raise ValueError("no tags for you")


def test_a_call_that_fails_in_the_child_raises_its_error() -> None:
    with Forked(fails, "tagging") as forked, pytest.raises(ValueError, match="no tags for you"):
        forked.result()


def killed() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_child_that_dies_is_an_error() -> None:
    with Forked(killed, "tagging") as forked, pytest.raises(ChildProcessError) as raised:
        forked.result()
    assert str(raised.value) == ("the tagging process ended before it finished (killed by SIGKILL)")


def test_a_child_not_waited_for_is_ended() -> None:
    def sleeps() -> None:
        time.sleep(60)

    with Forked(sleeps, "sleeping") as forked:
        child = forked._child
        assert child is not None and child.is_alive()
        pid = child.pid
    assert pid is not None
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(pid, 0)


def sends(count: int, size: int, parent: Connection) -> None:
    for n in range(count):
        parent.send((n, bytes([n % 256]) * size))
    parent.close()


def test_a_spawned_sender_delivers_in_order_what_a_pipe_cannot_hold() -> None:
    # 40 messages of 100 KB: four times what the widened pipe holds, so the sender waits on
    # the reader, as the import's parser does on the loader.
    with spawned_sender(sends, (40, 100_000)) as (reader, child):
        assert child.pid != os.getpid()
        if sys.platform == "linux":
            import fcntl

            assert fcntl.fcntl(reader.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_BYTES
        received = [reader.recv() for _ in range(40)]
        with pytest.raises(EOFError):  # the sender closed its end: nothing more
            reader.recv()
    assert [n for n, _ in received] == list(range(40))
    assert all(data == bytes([n]) * 100_000 for n, data in received)


def sends_then_dies(parent: Connection) -> None:
    parent.send("first")
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_spawned_sender_that_dies_ends_the_pipe() -> None:
    with spawned_sender(sends_then_dies, ()) as (reader, child):
        assert reader.recv() == "first"
        with pytest.raises(EOFError):
            reader.recv()
        child.join()
        assert child.exitcode == -signal.SIGKILL


def test_a_spawned_sender_not_read_to_the_end_is_ended() -> None:
    with spawned_sender(sends, (10_000, 100_000)) as (reader, child):
        assert reader.recv()[0] == 0
        assert child.is_alive()  # blocked in a send, the pipe full
        pid = child.pid
    assert pid is not None
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(pid, 0)


def test_a_spawned_sender_started_before_its_work_does_it_when_given() -> None:
    with SpawnedSender(sends) as sender:
        time.sleep(0.1)  # started and waiting: its work comes later
        assert sender.child.is_alive()
        reader, child = sender.give(3, 10)
        assert child is sender.child
        assert [reader.recv() for _ in range(3)] == [(n, bytes([n]) * 10) for n in range(3)]
        with pytest.raises(EOFError):
            reader.recv()


def test_a_spawned_sender_never_given_work_is_ended() -> None:
    sender = SpawnedSender(sends)
    pid = sender.child.pid
    sender.close()
    sender.close()  # once is enough: again does nothing
    assert pid is not None
    with pytest.raises(ProcessLookupError):  # ended and reaped
        os.kill(pid, 0)


def test_a_spawned_sender_killed_before_its_work_ends_the_pipe() -> None:
    with SpawnedSender(sends) as sender:
        os.kill(sender.child.pid or 0, signal.SIGKILL)
        sender.child.join()
        reader, _ = sender.give(3, 10)  # no error here: the reader hears it
        with pytest.raises(EOFError):
            reader.recv()
