"""A call in a forked child (kb.child_processes.Forked) gives what the call gives here; a child
that fails or dies is an error, never a result missing; a child not waited for is ended."""

from __future__ import annotations

import os
import signal
import time

import pytest

from kb.child_processes import Forked

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
