"""``Loader``: one import run's writer. It takes the records of each source file in batches and
hands each kind to the part that writes it, then follows up what the run wrote (``finish``)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable

from sqlalchemy import or_, update
from sqlalchemy.engine import Connection

from kb.batches import BATCH_SIZE, chunks
from kb.derived import refresh_near_duplicates
from kb.importers import PARSER_REVISION
from kb.loader.cards import Cards
from kb.loader.mechanics import Mechanics
from kb.loader.mined_names import MinedNames
from kb.loader.names import Names
from kb.loader.references import CardReferences
from kb.loader.rulings import Rulings
from kb.loader.state import LoadState
from kb.loader.summary import Summary
from kb.loader.tables import sources
from kb.loader.tags import Tags
from kb.loader.texts import Texts
from kb.records import (
    CardNameRecord,
    CardRecord,
    MechanicRecord,
    PrintedTextRecord,
    Record,
    RulingRecord,
)
from kb.text import normalize


class Loader:
    """Writes records into the store on ``connection``; call ``finish`` once at the end."""

    def __init__(self, connection: Connection, now: dt.datetime | None = None) -> None:
        self.state = LoadState(
            connection, now or dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
        )
        names = Names(self.state)
        self._mechanics = Mechanics(self.state, names)
        self._tags = Tags(self.state, self._mechanics)
        self._references = CardReferences(self.state, names)
        self._cards = Cards(self.state, self._references, names, self._mechanics, self._tags)
        self._rulings = Rulings(self.state, self._references)
        self._texts = Texts(self.state, self._references, names)
        self._counts_before: Counter[str] = Counter()

    @property
    def summary(self) -> Summary:
        return self.state.summary

    @property
    def replace_names(self) -> bool:
        """``--replace-name``: a page's title replaces even an official name."""
        return self.state.replace_names

    @replace_names.setter
    def replace_names(self, value: bool) -> None:
        self.state.replace_names = value

    # Sources

    def begin_source(self, uri: str, format: str) -> None:
        """Records that follow come from this file.

        Its ``sources`` row is written with the first row it adds: a file that adds nothing (a
        re-import) writes nothing at all.
        """
        self.state.path = uri
        self.state.source_format = format
        self.state.source_id = None
        self._counts_before = Counter(self.summary.counts)

    def end_source(self, sha256: str) -> None:
        """Record the file's checksum and what it added, if it added anything."""
        counts = self.summary.counts
        added = Counter(
            {
                key: counts[key] - self._counts_before[key]
                for key in Summary.CHANGES
                if counts[key] > self._counts_before[key]
            }
        )
        if added:
            self.state.source()
        if self.state.source_id is not None:
            self.state.connection.execute(
                update(sources)
                .where(sources.c.id == self.state.source_id)
                .values(sha256=sha256, stats=dict(sorted(added.items())))
            )
        else:  # read again and found the same: the file is this revision's, too
            older = sources.c.parser_revision
            self.state.connection.execute(
                update(sources)
                .where(sources.c.sha256 == sha256)
                .where(or_(older.is_(None), older < PARSER_REVISION))
                .values(parser_revision=PARSER_REVISION)
            )

    # Records

    def load(self, records: Iterable[Record]) -> None:
        for batch in chunks(records, BATCH_SIZE):
            self._load_batch(batch)

    def _load_batch(self, batch: list[Record]) -> None:
        for record in batch:
            if isinstance(record, MechanicRecord):
                self._mechanics.upsert(record)
        self._cards.load([r for r in batch if isinstance(r, CardRecord)])
        self._cards.load_names([r for r in batch if isinstance(r, CardNameRecord)])
        self._rulings.load([r for r in batch if isinstance(r, RulingRecord)])
        self._texts.load([r for r in batch if isinstance(r, PrintedTextRecord)])

    def locale_of_name(self, name: str, must_exist: bool = True) -> str | None:
        """The locale of a printed name, when the store knows it in exactly one (see
        CardReferences.locale_of_name): how a page without a footer tells its locale."""
        return self._references.locale_of_name(name, must_exist)

    def finish(self) -> Summary:
        """Tag the rulings this run touched (all of them after a mechanic changed), refresh the
        near duplicates of the texts it wrote, and mine the names of the printed texts."""
        counts = self.summary.counts
        self._mechanics.rules_by_template()
        texts = counts["texts new"] + counts["texts changed"] + counts["texts reread"]
        if texts or counts["names new"] or counts["names changed"]:
            self._texts.name_faces()
        # The printed texts or the mechanics changed: their names are voted again (a keyword
        # action the rules define is mined from its cards' Oracle texts).
        mining = bool(texts or self.state.retag_everything)
        miner = MinedNames(self.state)
        with self._tags.tag_touched(miner.texts() if mining else 0) as ruling_tags:
            refresh_near_duplicates(self.state.connection, self.state.texts_written)
            normalize.cache_clear()  # the rulings' texts are folded: their memory is the mining's
            if mining:
                miner.mine()
            ruling_tags.write()
        return self.summary
