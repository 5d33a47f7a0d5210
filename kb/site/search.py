"""Site search: one Pagefind bundle per locale, in ``<locale>/pagefind/``, made from the store.

Pagefind is given a lean page per card and per mechanic page of each locale, written here from
the same views the pages are rendered from (never by parsing kb's HTML): the localized name as
the heading with the highest weight, the English name next, then the printed type lines and
texts, the Oracle text, the rulings (and their reviewed translations in the locale) and the
mechanics' names. Each lean page has the ``lang`` of the page it stands for, so Chinese and
Japanese are segmented by the extended build. The lean pages go to ``pagefind --service``
(the binary of the ``pagefind[extended]`` package) over its pipe, all sent before any answer
is awaited: Pagefind's Python API waits 0.1 s before reading each answer, which made a site of
260,000 pages unindexable (docs/site.md, "Search", has the figures). Locales are spread over
``jobs`` service processes, which index in parallel.

Pagefind cannot update a bundle, so a locale whose pages changed is indexed again whole; the
other locales' bundles stay as they are. Each bundle's fragments are renamed to short names
before it is written (``kb.site.fragment_names``): a first search downloads less.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NoReturn

from markupsafe import escape
from sqlalchemy.engine import Engine

from kb.locales import Locale
from kb.site import SearchIndexError, fragment_names
from kb.site.data import load_cards
from kb.site.reading import reading
from kb.site.render import Urls
from kb.site.views import CardView, MechanicView, SiteIndex

FOLDER = "pagefind"
"""Each locale's bundle, in its folder: ``de/pagefind/pagefind.js``."""
ENTRY = "pagefind-entry.json"
"""The file a complete bundle has (Pagefind writes it last)."""
CARDS_AT_ONCE = 2000
"""Cards read from the store at a time (their names, texts and rulings for every locale)."""
NAME_WEIGHT = "10"
"""Pagefind's weight of the localized name (1 is plain text, 10 its highest): an exact name
comes before a mention in a ruling."""
ENGLISH_WEIGHT = "7"
FACE_WEIGHT = "5"


Progress = Callable[[int], Callable[[int], None]]
"""Told how many pages will be indexed; gives what is told of each share indexed."""
PROGRESS_STEP = 1000


def no_progress(_pages: int) -> Callable[[int], None]:
    return lambda _done: None


def bundle(root: Path, locale: Locale) -> Path:
    return root / locale.folder / FOLDER


def stale_locales(root: Path, locales: Iterable[Locale], written: set[str]) -> list[Locale]:
    """The locales whose bundle must be made again: those with a page written (``written``
    holds their folders) or without a complete bundle in the live site at ``root``."""
    return [
        locale
        for locale in locales
        if locale.folder in written or not (bundle(root, locale) / ENTRY).is_file()
    ]


def card_page(card: CardView, locale: Locale) -> str:
    """The lean page Pagefind indexes for a card's page in ``locale``."""
    code = locale.code
    local = card.name_in(code) or card.name
    parts = [
        f'<html lang="{code}"><body>',
        _heading(local, NAME_WEIGHT, "title"),
        _paragraph(card.name, ENGLISH_WEIGHT, "english"),
    ]
    printed = card.printed.get(code, ())
    faces = [face.face_name for face in printed if face.face_name] + list(card.faces)
    if faces:
        parts.append(_paragraph(" / ".join(faces), FACE_WEIGHT))
    for face in printed:
        parts += [_paragraph(face.type_line), _paragraph(face.text)]
    parts += [_paragraph(card.type_line), _paragraph(card.oracle_text)]
    for ruling in card.rulings:
        parts.append(_paragraph(ruling.text))
        parts.append(_paragraph(ruling.translations.get(code)))
    parts += [_paragraph(tag.names.get(code) or tag.name) for tag in card.mechanics]
    parts.append("</body></html>")
    return "".join(parts)


def mechanic_page(mechanic: MechanicView, locale: Locale) -> str:
    """The lean page Pagefind indexes for a mechanic's page in ``locale``."""
    code = locale.code
    return "".join(
        (
            f'<html lang="{code}"><body>',
            _heading(mechanic.name_in(code) or mechanic.name, NAME_WEIGHT, "title"),
            _paragraph(mechanic.name, ENGLISH_WEIGHT, "english"),
            "</body></html>",
        )
    )


def _heading(text: str, weight: str, meta: str) -> str:
    return f'<h1 data-pagefind-weight="{weight}" data-pagefind-meta="{meta}">{escape(text)}</h1>'


def _paragraph(text: str | None, weight: str = "", meta: str = "") -> str:
    if not text:
        return ""
    attributes = f' data-pagefind-weight="{weight}"' if weight else ""
    attributes += f' data-pagefind-meta="{meta}"' if meta else ""
    return f"<p{attributes}>{escape(text)}</p>"


def lean_pages(
    engine: Engine, index: SiteIndex, locales: Sequence[Locale]
) -> Iterator[tuple[Locale, str, str]]:
    """(locale, page's URL from the site's root, lean page) for every card and mechanic page
    of ``locales``; cards read a share of adjacent ids at a time."""
    by_id = sorted(index.cards, key=lambda card: card.id)
    with reading(engine) as connection:
        for start in range(0, len(by_id), CARDS_AT_ONCE):
            for card in load_cards(
                connection, by_id[start : start + CARDS_AT_ONCE], index.mechanics
            ):
                for locale in locales:
                    yield locale, Urls.card(locale, card), card_page(card, locale)
    for mechanic in index.mechanics.values():
        for locale in locales:
            yield locale, Urls.mechanic(locale, mechanic), mechanic_page(mechanic, locale)


def write_bundles(
    engine: Engine,
    index: SiteIndex,
    root: Path,
    locales: Sequence[Locale],
    jobs: int = 1,
    progress: Progress = no_progress,
) -> int:
    """Index ``locales``' pages into a bundle each under ``root`` (a staging folder); the
    number of pages indexed.

    The store is read once, for every locale at a time; each locale's pages wait in a queue of
    its own for one of ``jobs`` threads, each of which runs one Pagefind process per locale
    in turn (a process holds one locale's index, up to 1.8 GB for 24,000 real cards, and frees
    it when it exits), so ``jobs`` locales are indexed at once."""
    if not locales:
        return 0
    advance = progress((len(index.cards) + len(index.mechanics)) * len(locales))
    pages: dict[Locale, queue.SimpleQueue[tuple[str, str] | None]] = {
        locale: queue.SimpleQueue() for locale in locales
    }
    todo: queue.SimpleQueue[Locale] = queue.SimpleQueue()
    for locale in locales:
        todo.put(locale)
    run = _Run(threading.Event(), [], threading.Lock(), advance)
    slots = [
        threading.Thread(target=_slot, args=(todo, pages, root, run), daemon=True)
        for _slot_number in range(max(1, min(jobs, len(locales))))
    ]
    for thread in slots:
        thread.start()
    count = 0
    try:
        for locale, url, page in lean_pages(engine, index, locales):
            if run.stop.is_set():
                break
            # From the locale's folder: Pagefind's script puts its bundle's folder before it.
            pages[locale].put((url[len(locale.folder) :], page))
            count += 1
    except BaseException:
        run.stop.set()
        raise
    finally:
        for waiting in pages.values():
            waiting.put(None)
        for thread in slots:
            thread.join()
    if run.failed:
        raise run.failed[0]
    advance(run.sent % PROGRESS_STEP)
    return count


@dataclass
class _Run:
    """What the threads of one ``write_bundles`` share."""

    stop: threading.Event
    failed: list[BaseException]
    lock: threading.Lock
    advance: Callable[[int], None]
    sent: int = 0


def _slot(
    todo: queue.SimpleQueue[Locale],
    pages: dict[Locale, queue.SimpleQueue[tuple[str, str] | None]],
    root: Path,
    run: _Run,
) -> None:
    """Index the locales left in ``todo`` one after the other, each in a new process."""
    try:
        while not run.stop.is_set():
            try:
                locale = todo.get_nowait()
            except queue.Empty:
                return
            service = _Service()
            try:
                number = service.new_index()
                while (page := pages[locale].get()) is not None and not run.stop.is_set():
                    service.add_file(number, *page)
                    with run.lock:
                        run.sent += 1
                        if run.sent % PROGRESS_STEP == 0:
                            run.advance(PROGRESS_STEP)
                if run.stop.is_set():
                    return
                # The bundle's files are asked for and written here: Pagefind's WriteFiles
                # answers before its writes are done, and the service exits as its input closes.
                files = service.files(service.ask_files(number))
                _write_bundle(bundle(root, locale), fragment_names.shorten(files))
            finally:
                service.close()
    except BaseException as error:
        run.failed.append(error)
        run.stop.set()


_NOT_WRITTEN = ("-ui.js", "-ui.css", "pagefind-highlight.js", "pagefind-worker.js")
"""Pagefind's ready-made interfaces (kb's search box uses the library alone: some 400 KB a
locale) and its worker, which the box does without (``noWorker``)."""


def _write_bundle(folder: Path, files: list[dict[str, str]]) -> None:
    made: set[str] = set()
    for file in files:
        path = file["path"]
        if path.endswith(_NOT_WRITTEN) or path.startswith("/") or ".." in path.split("/"):
            continue
        parent = os.path.dirname(path)
        if parent not in made:
            (folder / parent).mkdir(parents=True, exist_ok=True)
            made.add(parent)
        descriptor = os.open(folder / path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(descriptor, base64.b64decode(file["content"]))
        finally:
            os.close(descriptor)
    if not (folder / ENTRY).is_file():
        raise SearchIndexError(f"search index: pagefind wrote no {ENTRY} for {folder}")


def put_in_place(staging: Path, root: Path, locales: Iterable[Locale]) -> None:
    """Replace the live site's bundles of ``locales`` by those made in ``staging``: each moved
    in with two renames, the old one removed after."""
    for locale in locales:
        new, live = bundle(staging, locale), bundle(root, locale)
        live.parent.mkdir(parents=True, exist_ok=True)
        old = live.with_name(f".{FOLDER}-old-{os.getpid()}")
        if live.exists():
            os.rename(live, old)
        os.rename(new, live)
        shutil.rmtree(old, ignore_errors=True)


@dataclass
class _Service:
    """One ``pagefind --service`` process: requests written as they come, its answers read
    by a thread (so neither pipe fills up while the other waits)."""

    process: subprocess.Popen[bytes] = field(init=False)
    _last: int = 0
    _answers: dict[int, dict[str, Any]] = field(default_factory=dict)
    _awaited: set[int] = field(default_factory=set)
    _error: str = ""
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        from pagefind.service import get_executable  # the binary of the installed package

        executable = get_executable()
        if executable is None:
            raise SearchIndexError("the pagefind binary is not installed (pagefind[extended])")
        try:
            self.process = subprocess.Popen(
                [str(executable), "--service"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as error:  # PAGEFIND_BINARY_PATH pointing nowhere, or at no program
            raise SearchIndexError(
                f"search index: cannot run pagefind {executable}: {error.strerror}"
                " (PAGEFIND_BINARY_PATH, or pip install 'pagefind[extended]')"
            ) from None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _send(self, payload: dict[str, Any], awaited: bool = False) -> int:
        self._last += 1
        message = {"message_id": self._last, "payload": payload}
        if awaited:
            with self._changed:
                self._awaited.add(self._last)
        self._write(base64.b64encode(json.dumps(message).encode("utf-8")) + b",")
        return self._last

    def _write(self, data: bytes | None) -> None:
        """Write ``data`` (None: flush what is buffered) to the service."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            if data is None:
                stdin.flush()
            else:
                stdin.write(data)
        except BrokenPipeError:
            self._failed("pagefind stopped")

    def _read(self, stdout: IO[bytes]) -> None:
        """Answers are base64 ended by a comma; a bundle's files come in one of some 100 MB."""
        parts: list[bytes] = []
        while chunk := stdout.read1(1 << 20):  # type: ignore[attr-defined]
            start = 0
            while (comma := chunk.find(b",", start)) >= 0:
                parts.append(chunk[start:comma])
                self._take(json.loads(base64.b64decode(b"".join(parts))))
                parts = []
                start = comma + 1
            parts.append(chunk[start:])
        with self._changed:
            self._error = self._error or "pagefind stopped"
            self._changed.notify_all()

    def _take(self, answer: dict[str, Any]) -> None:
        payload = answer.get("payload", {})
        with self._changed:
            if payload.get("type") == "Error":
                self._error = self._error or str(payload.get("message"))
            elif answer.get("message_id") in self._awaited:
                self._answers[answer["message_id"]] = payload
            self._changed.notify_all()

    def _failed(self, reason: str) -> NoReturn:
        raise SearchIndexError(f"search index: {self._error or reason}")

    def _answer(self, number: int) -> dict[str, Any]:
        self._write(None)
        with self._changed:
            self._changed.wait_for(lambda: number in self._answers or bool(self._error))
            if self._error:
                self._failed(self._error)
            return self._answers.pop(number)

    def new_index(self) -> int:
        number = self._send({"type": "NewIndex", "config": None}, awaited=True)
        return int(self._answer(number)["index_id"])

    def add_file(self, index: int, url: str, page: str) -> None:
        if self._error:
            self._failed(self._error)
        self._send(
            {"type": "AddFile", "index_id": index, "url": url, "file_path": None,
             "file_contents": page}
        )  # fmt: skip

    def ask_files(self, index: int) -> int:
        """Ask for a bundle's files (built first); the number of the answer to await."""
        number = self._send({"type": "GetFiles", "index_id": index}, awaited=True)
        self._write(None)
        return number

    def files(self, number: int) -> list[dict[str, str]]:
        """The files asked for: each a path in the bundle and its content in base64."""
        return list(self._answer(number)["files"])

    def close(self) -> None:
        if self.process.stdin is not None:
            with suppress(BrokenPipeError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
