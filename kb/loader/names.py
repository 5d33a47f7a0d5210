"""Name rows, of cards and of mechanics: new ones added, differing ones replaced if the source
may replace them, and an editor's correction kept while a source still says the old name."""

from __future__ import annotations

from sqlalchemy import Table, and_, insert, select, update

from kb.batches import chunks
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
    ) -> None:
        """Insert (owner id, locale) → name rows, and change differing ones if ``replace``."""
        owner_column = table.c[owner]
        with_source = "source_id" in table.c
        columns = [owner_column, table.c.locale, table.c.name]
        existing: dict[tuple[int, str], str] = {}
        by_editor: set[tuple[int, str]] = set()  # names an editor wrote (no source file)
        for chunk in chunks({owner_id for owner_id, _ in wanted}):
            query = select(*columns, *([table.c.source_id] if with_source else [])).where(
                owner_column.in_(chunk)
            )
            for found in self.state.connection.execute(query):
                existing[found[0], found[1]] = found[2]
                if with_source and found[3] is None:
                    by_editor.add((found[0], found[1]))
        replaced = self.state.corrections()[table.name] if by_editor else {}
        new_rows = []
        for (owner_id, locale), name in wanted.items():
            old = existing.get((owner_id, locale))
            if old is None:
                new_rows.append({owner: owner_id, "locale": locale, "name": name})
            elif (owner_id, locale) in by_editor and replaced.get((owner_id, locale)) == name:
                # The source still says what an editor corrected: the correction stands.
                self.state.summary.counts[f"{counter} as edited"] += 1
            elif old != name and replace:
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
                for row in new_rows:
                    row["source_id"] = self.state.source()
            self.state.connection.execute(insert(table), new_rows)
            if with_source:
                self.state.summary.counts[f"{counter} new"] += len(new_rows)
