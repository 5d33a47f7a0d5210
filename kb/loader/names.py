"""Name rows, of cards and of mechanics: new ones added, differing ones replaced where the
caller says the stored one gives way, and an editor's correction kept while a source still says
the old name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Table, and_, update

from kb.loader.state import LoadState
from kb.records import english_faces

Key = tuple[int, str]
"""A name's owner id and locale."""
GivesWay = Callable[[int], bool]
"""Whether a stored name from this source (by id) gives way to the one wanted."""


class Names:
    """Writes the (owner, locale) → name rows of one owner table at a time."""

    def __init__(self, state: LoadState) -> None:
        self.state = state

    def upsert(
        self,
        table: Table,
        owner: str,
        wanted: dict[Key, str],
        counter: str,
        replace: bool | GivesWay = True,
        translating: dict[Key, str] | None = None,
        count_unchanged: bool = True,
    ) -> None:
        """Insert (owner id, locale) → name rows, and change differing ones if ``replace``, or
        where ``replace`` says the stored name's source gives way, or where the stored name
        says more of the one ``translating`` gives for its key than the wanted name does (a
        card's English name, or more of its faces, standing where a translation comes:
        ``more_english``). An editor's name gives way only where ``replace`` is True.
        ``count_unchanged``: count the others too (not where the names are a second reading of
        records counted already)."""
        translating = translating or {}
        owner_column = table.c[owner]
        with_source = "source_id" in table.c
        columns = (owner, "locale", "name", *(["source_id"] if with_source else []))
        existing: dict[Key, tuple[str, int | None]] = {}
        owners = {owner_id for owner_id, _ in wanted}
        for found in self.state.bulk.select_in(table, columns, owner, owners):
            existing[found[0], found[1]] = (found[2], found[3] if with_source else 0)
        by_editor = any(source is None for _, source in existing.values())
        replaced = self.state.corrections()[table.name] if by_editor else {}
        new_rows: list[tuple[Any, ...]] = []
        for key, name in wanted.items():
            old, source = existing.get(key, (None, None))
            if old is None:
                new_rows.append((*key, name))
            elif source is None and replaced.get(key) == name:
                # The source still says what an editor corrected: the correction stands.
                self.state.summary.counts[f"{counter} as edited"] += 1
            elif old != name and (
                replace is True
                or (
                    source is not None
                    and (
                        more_english(old, name, translating.get(key))
                        or (callable(replace) and replace(source))
                    )
                )
            ):
                self.state.connection.execute(
                    update(table)
                    .where(and_(owner_column == key[0], table.c.locale == key[1]))
                    .values(
                        name=name, **({"source_id": self.state.source()} if with_source else {})
                    )
                )
                self.state.summary.counts[f"{counter} changed" if with_source else counter] += 1
            elif with_source and count_unchanged:
                self.state.summary.counts[f"{counter} unchanged"] += 1
        if new_rows:
            if with_source:
                source_id = self.state.source()
                new_rows = [(*row, source_id) for row in new_rows]
            self.state.bulk.insert(table, columns, new_rows)
            if with_source:
                self.state.summary.counts[f"{counter} new"] += len(new_rows)


def more_english(old: str, new: str, english: str | None) -> bool:
    """Whether the name ``old`` says more of the English name than ``new`` does: it is the
    English name, or more of a card's faces are their English names in it. Some printings name
    one face in English and translate the other (AFC's German "Realm-Cloaked Giant //
    Abstreifen", where ELD's is "Reichsmantel-Riese // Abstreifen"): a gap in the source, which
    a fuller translation fills."""
    if english is None or old == new:
        return False
    if old == english:
        return True
    old_same, new_same = english_faces(old, english), english_faces(new, english)
    return old_same is not None and new_same is not None and old_same > new_same
