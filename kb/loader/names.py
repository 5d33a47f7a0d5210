"""Name rows, of cards and of mechanics: new ones added, differing ones replaced if the source
may replace them, and an editor's correction kept while a source still says the old name."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, and_, update

from kb.loader.state import LoadState


class Names:
    """Writes the (owner, locale) → name rows of one owner table at a time."""

    def __init__(self, state: LoadState) -> None:
        self.state = state

    def upsert(
        self,
        table: Table,
        owner: str,
        wanted: dict[tuple[int, str], str],
        counter: str,
        replace: bool = True,
        fill_over: dict[tuple[int, str], str] | None = None,
    ) -> None:
        """Insert (owner id, locale) → name rows, and change differing ones if ``replace``.

        ``fill_over`` names, per key, a stored name that counts as missing even where nothing
        is replaced (a card's English name, standing where a translation now comes); an
        editor's name never does."""
        fill_over = fill_over or {}
        owner_column = table.c[owner]
        with_source = "source_id" in table.c
        columns = (owner, "locale", "name", *(["source_id"] if with_source else []))
        existing: dict[tuple[int, str], str] = {}
        by_editor: set[tuple[int, str]] = set()  # names an editor wrote (no source file)
        owners = {owner_id for owner_id, _ in wanted}
        for found in self.state.bulk.select_in(table, columns, owner, owners):
            existing[found[0], found[1]] = found[2]
            if with_source and found[3] is None:
                by_editor.add((found[0], found[1]))
        replaced = self.state.corrections()[table.name] if by_editor else {}
        new_rows: list[tuple[Any, ...]] = []
        for (owner_id, locale), name in wanted.items():
            old = existing.get((owner_id, locale))
            if old is None:
                new_rows.append((owner_id, locale, name))
            elif (owner_id, locale) in by_editor and replaced.get((owner_id, locale)) == name:
                # The source still says what an editor corrected: the correction stands.
                self.state.summary.counts[f"{counter} as edited"] += 1
            elif old != name and (
                replace
                or (
                    (owner_id, locale) not in by_editor and fill_over.get((owner_id, locale)) == old
                )
            ):
                self.state.connection.execute(
                    update(table)
                    .where(and_(owner_column == owner_id, table.c.locale == locale))
                    .values(
                        name=name, **({"source_id": self.state.source()} if with_source else {})
                    )
                )
                self.state.summary.counts[f"{counter} changed" if with_source else counter] += 1
            elif with_source:
                self.state.summary.counts[f"{counter} unchanged"] += 1
        if new_rows:
            if with_source:
                source_id = self.state.source()
                new_rows = [(*row, source_id) for row in new_rows]
            self.state.bulk.insert(table, columns, new_rows)
            if with_source:
                self.state.summary.counts[f"{counter} new"] += len(new_rows)
