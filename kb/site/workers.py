"""The worker processes that render card pages.

Workers are forked after the store's index is read. Each inherits the build's job as its
target's argument (fork copies it: it is never pickled), takes shares of the cards one after
the other, reads them on a connection of its own, and renders and stages their pages itself;
only the cards' records travel back to the parent, which gathers them on a thread of its own
while it renders the other pages."""

from __future__ import annotations

import multiprocessing
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.sharedctypes import Synchronized
from typing import NamedTuple, TypeVar

from sqlalchemy.engine import Engine

from kb.child_processes import send_error
from kb.locales import LOCALES
from kb.site import render
from kb.site.data import load_cards
from kb.site.fingerprints import Fingerprints
from kb.site.manifest import CardRecord, Manifest
from kb.site.reading import reading
from kb.site.render import Renderer
from kb.site.staging import Stager
from kb.site.views import SiteIndex

CARDS_PER_TASK = 500


@dataclass(frozen=True)
class CardJob:
    """What a build's workers need: inherited from the parent when a worker is forked, never
    pickled."""

    engine: Engine
    """Workers read their shares of the cards themselves, on connections of their own."""
    index: SiteIndex
    stager: Stager
    manifest: Manifest
    """The previous site's record (empty if none): fingerprints and hashes of its pages."""
    renderer: Renderer
    fingerprints: Fingerprints
    locales: tuple[int, ...]
    """Indexes in LOCALES of the locales built."""


class CardResult(NamedTuple):
    """A card after its share was rendered."""

    position: int
    """In the site index's cards."""
    record: CardRecord
    """The new manifest's record of the card (the previous one's, when it did not change)."""
    rendered: int
    """Pages rendered: those whose input changed or whose file is missing."""
    written: frozenset[int]
    """The locales (indexes in LOCALES) of the pages whose bytes changed, staged."""


def render_cards(job: CardJob, share: list[int]) -> list[CardResult]:
    """Read a share of the cards, fingerprint each, and render and stage the pages whose input
    changed."""
    with reading(job.engine) as connection:
        cards = load_cards(
            connection, [job.index.cards[position] for position in share], job.index.mechanics
        )
    every_locale = len(job.locales) == len(LOCALES)
    results = []
    # One set object for each distinct set of locales: a large site's 30,000 results, each
    # with a set of 11, would hold ~20 MB in the main process (a share's results are pickled
    # together, so shared objects stay shared there).
    same_locales: dict[frozenset[int], frozenset[int]] = {}
    for position, card in zip(share, cards, strict=True):
        names = job.fingerprints.names(card)
        fingerprint = job.fingerprints.card(card)
        record = job.manifest.cards.get(card.slug)
        stale: Sequence[int] = job.locales
        if record is None or record.fingerprint != fingerprint:
            if not every_locale:
                fingerprint = ""  # its pages in the locales not built are not of this fingerprint
        elif job.stager.previous is not None:
            stale = job.stager.previous.missing_pages(card, record.hashes, job.locales)
        hashes = job.manifest.card_hashes(card.slug)
        written = set()
        for locale in stale:
            page = job.renderer.card(card, LOCALES[locale])
            hashes[locale], changed = job.stager.stage(page, hashes[locale])
            if changed:
                written.add(locale)
        record = CardRecord(fingerprint, names, "".join(hashes))
        locales = frozenset(written)
        shared = same_locales.setdefault(locales, locales)
        results.append(CardResult(position, record, len(stale), shared))
    return results


def share_bounds(count: int, jobs: int) -> Iterator[tuple[int, int]]:
    """The shares of ``count`` cards for ``jobs`` workers, as (start, end): CARDS_PER_TASK
    cards, then smaller towards the end, each about half of what is left per worker (a fifth
    of CARDS_PER_TASK at least), so that the workers finish together rather than one waiting
    for the other's last large share (a small site's last share took 0.2 s, one core idle).
    CARDS_PER_TASK cards or fewer are one share, which the main process renders itself."""
    smallest = max(1, CARDS_PER_TASK // 5)
    start = 0
    while start < count:
        left = count - start
        size = left if count <= CARDS_PER_TASK else min(CARDS_PER_TASK, left // (2 * jobs))
        end = min(count, start + max(smallest, size))
        yield start, end
        start = end


Elsewhere = TypeVar("Elsewhere")
"""What the parent does while the workers render the cards."""


def render_shares(
    job: CardJob,
    shares: list[list[int]],
    jobs: int,
    progress: Callable[[int], None],
    meanwhile: Callable[[], Elsewhere],
) -> tuple[list[CardResult], Elsewhere]:
    """Render the cards' shares (in ``jobs`` worker processes when there are several shares)
    while the parent does ``meanwhile``; the cards in the shares' order."""
    pages_per_card = len(job.locales)
    cards_done: list[CardResult] = []
    if jobs <= 1 or len(shares) <= 1:
        for share in shares:
            cards_done += render_cards(job, share)
            progress(len(share) * pages_per_card)
        return cards_done, meanwhile()
    # For the workers to inherit.
    render.prepare((LOCALES[locale] for locale in job.locales), job.renderer.languages)
    context = multiprocessing.get_context("fork")
    taken = context.Value("q", 0)  # shares handed out: each worker takes the next one
    readers: list[Connection] = []
    workers = []
    arrived: queue.SimpleQueue[tuple[int, list[CardResult]] | BaseException] = queue.SimpleQueue()
    # Read as they come, or the workers would wait on full pipes while the parent is busy.
    gatherer = threading.Thread(target=_gather, args=(readers, arrived), daemon=True)
    try:
        for _worker in range(jobs):
            reader, writer = context.Pipe(duplex=False)
            worker = context.Process(target=_work, args=(job, shares, taken, writer), daemon=True)
            worker.start()
            writer.close()  # the worker's alone: its end closes when the worker exits
            readers.append(reader)
            workers.append(worker)
        gatherer.start()
        result = meanwhile()
        received: dict[int, list[CardResult]] = {}
        reported = 0
        while reported < len(shares):
            item = arrived.get()
            if isinstance(item, BaseException):
                raise item
            received[item[0]] = item[1]
            # In the shares' order, as the parent always heard of them.
            while reported in received:
                cards_done += received.pop(reported)
                progress(len(shares[reported]) * pages_per_card)
                reported += 1
    except BaseException:
        for worker in workers:
            worker.terminate()
        raise
    finally:
        for worker in workers:
            worker.join()
            worker.close()
        if gatherer.is_alive():
            gatherer.join()  # it ends once every worker's pipe has: they are gone
        for reader in readers:
            reader.close()  # a build that keeps running forks workers for each build
    return cards_done, result


def _work(
    job: CardJob, shares: list[list[int]], taken: Synchronized[int], results: Connection
) -> None:
    """A worker: take the next share until none is left, and send each share's cards, then
    None (done), or the error that stopped it."""
    start_worker(job)
    try:
        while True:
            with taken.get_lock():
                number = taken.value
                taken.value = number + 1
            if number >= len(shares):
                break
            results.send((number, render_cards(job, shares[number])))
        results.send(None)
    except BaseException as error:
        send_error(results, error)
    finally:
        results.close()


def _gather(
    readers: list[Connection],
    arrived: queue.SimpleQueue[tuple[int, list[CardResult]] | BaseException],
) -> None:
    """Hand the parent each share's cards as the workers send them, and any worker's error; a
    worker gone before it said it was done (killed) is one."""
    live = list(readers)
    while live:
        for reader in wait(live):
            assert isinstance(reader, Connection)
            try:
                message = reader.recv()
            except EOFError:
                message = BrokenProcessPool(
                    "A process in the process pool was terminated abruptly while the future "
                    "was running or pending."
                )
            if message is None or isinstance(message, BaseException):
                live.remove(reader)
            if message is not None:
                arrived.put(message)


def start_worker(job: CardJob) -> None:
    """In a forked worker: never use the parent's connections (SQLAlchemy's advice). The cycle
    collector stays paused, as in the parent (kb.site.build's ``build``)."""
    job.engine.dispose(close=False)
