"""Mining on two cores: half the locales in a forked process, half in this one.

Why: mining was more than a quarter of a real import's time, the most issue 20 allows, and by
the time it runs the import's second core is idle (its parser process has ended). Every vote is
per locale, so a child is forked to mine some locales while this process mines the others. This
process reads the rows and passes the child's on through a pipe, a batch at a time, as plain
tuples (they pickle fast; samples would not, and holding them all for a child to inherit cost
100 MB). Which keywords are actions is the one thing decided across locales: each process
says, per card and keyword, where its first sample stood and whether its English lines start
with the keyword (``Contrast.firsts``); this process takes the earliest, and tells the child.

The child never touches the parent's database connection (SQLAlchemy's advice for forked
processes), and a child that dies is an error, never a silent gap in the names.
``mine_on_two_cores`` gives what ``kb.mining.mine.mine`` gives: tests/test_mining_real.py
compares them on the real corpus.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection
from typing import Final, Generic, TypeVar

from kb.child_processes import helper_can_fork, received, send_error
from kb.mining.actions import actions, earliest
from kb.mining.mine import MIN_CARDS, Mined, Miners, merged, mine
from kb.mining.samples import Sample

Row = TypeVar("Row")
SamplesOf = Callable[[Iterable[Row]], Iterable[Sample]]
ROWS_PER_MESSAGE: Final = 2000


def mine_on_two_cores(
    rows: Iterable[Row],
    samples_of: SamplesOf[Row],
    locale_of: Callable[[Row], str],
    minimum: int = MIN_CARDS,
    also_actions: frozenset[str] = frozenset(),
) -> Mined:
    """``mine(samples_of(rows), minimum, also_actions)``, with every other locale (in the order
    they first come) mined in a forked child where there are two cores and the platform forks;
    in this process alone elsewhere.

    ``samples_of`` makes at most one sample of each row, lazily (a sample is where its row is
    among the rows); it is inherited by the child, never pickled. ``rows`` must pickle."""
    if not helper_can_fork():
        return mine(samples_of(rows), minimum, also_actions)
    context = multiprocessing.get_context("fork")
    to_child, child_reads = context.Pipe(duplex=True)
    child = context.Process(
        target=_child, args=(child_reads, samples_of, minimum, to_child), daemon=True
    )
    child.start()
    child_reads.close()  # the child's end: it closes when the child exits
    try:
        miners = Miners()
        own_rows = _Router(rows, locale_of, to_child)
        for sample in samples_of(own_rows):
            miners.add(sample, own_rows.position)
        own_rows.finish()
        firsts = earliest(miners.contrast.firsts, received(to_child, child, "mining"))
        taken = actions(firsts, also_actions)
        to_child.send(taken)
        founds = [miners.found(taken, minimum), received(to_child, child, "mining")]
    except ConnectionError:  # the child stopped reading (gone): what it sent says why
        try:
            received(to_child, child, "mining")
        finally:
            child.terminate()
        raise
    except BaseException:
        child.terminate()
        raise
    finally:
        child.join()
        child.close()
        to_child.close()
    return merged(founds, taken)


class _Router(Generic[Row]):
    """The rows of this process's locales, each numbered; the child's go to it in batches."""

    def __init__(
        self, rows: Iterable[Row], locale_of: Callable[[Row], str], child: Connection
    ) -> None:
        self.position = -1
        """Where the row last given stands among all the rows."""
        self._rows, self._locale_of, self._child = rows, locale_of, child
        self._to_child: dict[str, bool] = {}
        """Per locale: whether the child mines it (every other one, as they first come)."""
        self._batch: list[tuple[int, Row]] = []

    def __iter__(self) -> Iterator[Row]:
        for position, row in enumerate(self._rows):
            locale = self._locale_of(row)
            to_child = self._to_child.get(locale)
            if to_child is None:
                to_child = self._to_child[locale] = len(self._to_child) % 2 == 0
            if not to_child:
                self.position = position
                yield row
                continue
            self._batch.append((position, row))
            if len(self._batch) == ROWS_PER_MESSAGE:
                self._child.send(self._batch)
                self._batch = []

    def finish(self) -> None:
        """The last batch, then None: no more rows."""
        self._child.send(self._batch)
        self._child.send(None)


def _child(
    parent: Connection, samples_of: SamplesOf[Row], minimum: int, parents_end: Connection
) -> None:
    """The child: its locales' first samples, then what it found, or the error that stopped
    it."""
    parents_end.close()  # or a parent gone would leave this one waiting for rows
    try:
        miners = Miners()
        rows: _Received[Row] = _Received(parent)
        for sample in samples_of(rows):
            miners.add(sample, rows.position)
        parent.send(miners.contrast.firsts)
        parent.send(miners.found(parent.recv(), minimum))
    except BaseException as error:
        send_error(parent, error)
    finally:
        parent.close()


class _Received(Generic[Row]):
    """The rows the parent sends, each with where it stands among all the rows."""

    def __init__(self, parent: Connection) -> None:
        self.position = -1
        self._parent = parent

    def __iter__(self) -> Iterator[Row]:
        while (batch := self._parent.recv()) is not None:
            for self.position, row in batch:
                yield row
