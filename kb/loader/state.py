"""What the loader's parts share during one import run: the connection, the file being read, the
summary and its warnings, and what the run wrote that ``Loader.finish`` still has to follow up.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from kb.importers import PARSER_REVISION
from kb.loader.bulk import Bulk, bulk_for, plain_way
from kb.loader.corrections import read_corrections
from kb.loader.summary import Summary
from kb.loader.tables import sources


class Placed(NamedTuple):
    """A card this run placed: its id, and its columns that are empty in the store."""

    card_id: int
    empty: frozenset[str]


@dataclass
class LoadState:
    """One per ``Loader``; every part reads and writes it, none keeps a copy of it."""

    connection: Connection
    now: dt.datetime
    summary: Summary = field(default_factory=Summary)
    replace_names: bool = False
    """``--replace-name``: a page's title replaces even an official name."""
    path: str = ""
    """The file being read, as warnings and errors name it."""
    source_format: str = ""
    source_id: int | None = None
    """The file's ``sources`` row, once something it adds needs one."""
    sources_written: set[int] = field(default_factory=set)
    """The ``sources`` rows this run wrote: a row from one of them is this run's own."""
    read_before: bool = field(init=False)
    """Whether an earlier run wrote any ``sources`` row: none did in a new store, whose rows
    are all this run's."""
    touched_rulings: set[int] = field(default_factory=set)
    """Rulings whose text or links this run wrote: the finish tags them."""
    texts_written: set[int] = field(default_factory=set)
    """Rulings whose text this run wrote: the finish refreshes their near duplicates."""
    retag_everything: bool = False
    """A mechanic was added or changed: the finish tags every ruling again, and every card
    where ``card_texts_stale``."""
    card_texts_stale: bool = False
    """A pattern that tags cards by their Oracle text was added or changed while the store held
    cards: the finish reads every card's text again. A new store's rules, read before its cards,
    leave it False: its cards were read with every pattern."""
    _corrections: dict[str, dict[Any, Any]] | None = field(default=None, init=False, repr=False)
    bulk: Bulk = field(init=False, repr=False)
    """The bulk reads and writes on ``connection`` (kb.loader.bulk)."""
    remembers: bool = field(init=False)
    """Whether ``placed`` remembers the cards this run placed: the fast way, unless
    ``KB_BULK=plain`` (kb.loader.bulk.plain_way)."""
    placed: dict[str, Placed] = field(default_factory=dict)
    """The cards this run placed (kb.loader.cards), by Oracle id: not looked up again. Each bulk
    file names the cards of the files before it again, and a placed card keeps its Oracle id
    for the rest of the run. By Oracle id alone: a few megabytes, where more of each card (its
    rows, its names) would hold the corpus in memory."""

    def __post_init__(self) -> None:
        self.bulk = bulk_for(self.connection)
        self.remembers = not plain_way()
        earlier = self.connection.execute(select(sources.c.id).limit(1)).first()
        self.read_before = earlier is not None

    def source(self) -> int:
        """The id of the file's ``sources`` row, written with the first row the file adds."""
        if self.source_id is None:
            self.source_id = self.connection.execute(
                insert(sources)
                .values(
                    uri=self.path,
                    format=self.source_format,
                    sha256="",
                    imported_at=self.now,
                    parser_revision=PARSER_REVISION,
                )
                .returning(sources.c.id)
            ).scalar_one()
            self.sources_written.add(self.source_id)
        return self.source_id

    def corrections(self) -> dict[str, dict[Any, Any]]:
        """What editors corrected (kb.loader.corrections), read once per import."""
        if self._corrections is None:
            self._corrections = read_corrections(self.connection)
        return self._corrections

    def warn(self, line: int | None, message: str) -> None:
        where = f"{self.path}:{line}" if line is not None else self.path
        self.summary.warnings.append(f"{where}: {message}")
