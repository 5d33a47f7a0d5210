"""The loader's dedupe and damaged copies, through ``kb import``: which ruling a text links to.

A wrong answer here is silent: a damaged copy merged into the wrong ruling, or two rulings kept
apart, still imports without a word. Each test reads back the links and the summary line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assert_keys_and_pairs_follow_texts, run_kb
from realdata import DATA

from kb.engine import make_engine

THREE_STEPS = "282dfeaa-6243-4f92-838a-5cb54fa85184"
CROSSFIRE = "d262f3e1-b5bc-4dab-86c2-cd89c2419e54"
CARD_NAMES = {THREE_STEPS: "Three Steps Ahead", CROSSFIRE: "Caught in the Crossfire"}

LINKS = """SELECT c.oracle_id, r.text, r.origin, cr.published_on, cr.position
FROM card_rulings cr JOIN cards c ON c.id = cr.card_id JOIN rulings r ON r.id = cr.ruling_id
ORDER BY c.oracle_id, cr.position"""


class Store:
    """A store on one engine holding the catalog's two cards, fed files through ``kb import``."""

    def __init__(self, url: str, folder: Path) -> None:
        self.url = url
        self.folder = folder
        self.files = 0
        self.kb("import", str(DATA / "catalog.toml"))

    def kb(self, *args: str) -> str:
        result = run_kb(self.url, *args)
        assert result.exit_code == 0, result.output
        return result.stdout

    def _path(self, name: str) -> Path:
        self.files += 1
        return self.folder / f"{self.files}-{name}"

    def scryfall(self, *rulings: tuple[str, str, str | None], source: str = "wotc") -> str:
        """Import Scryfall rulings (oracle id, text, date); the summary's rulings and links."""
        path = self._path("rulings.json")
        objects = [
            {"object": "ruling", "oracle_id": oracle_id, "source": source}
            | {"published_at": date, "comment": text}
            for oracle_id, text, date in rulings
        ]
        path.write_text(json.dumps(objects), encoding="utf-8")
        return self._summary(path)

    def jsonl(self, name: str, *rulings: tuple[str, str]) -> Path:
        """A Scryfall rulings file in JSON Lines (oracle id, text), each line of its own."""
        path = self._path(name)
        objects = [
            {"object": "ruling", "oracle_id": oracle_id, "source": "wotc"}
            | {"published_at": "2024-04-12", "comment": text}
            for oracle_id, text in rulings
        ]
        lines = [json.dumps(item) + "\n" for item in objects]
        path.write_text("".join(lines), encoding="utf-8")
        return path

    def page(self, oracle_id: str, *texts: str) -> str:
        """Import an English rulings page (undated) of the card."""
        path = self._path("en-page.txt")
        body = "\n\n".join(texts)  # a paragraph each
        path.write_text(f"{CARD_NAMES[oracle_id]}\n\n{body}\n", encoding="utf-8")
        return self._summary(path)

    def _summary(self, path: Path) -> str:
        lines = self.kb("import", str(path)).splitlines()
        return "\n".join(line for line in lines if line.startswith(("rulings:", "links:")))

    def links(self) -> list[tuple[str, ...]]:
        """(card, text, origin, date, position) of every link, by card and position."""
        rows = self.kb("sql", "--tsv", LINKS).splitlines()[1:]
        return [tuple(row.split("\t")) for row in rows]

    def ruling_count(self) -> int:
        return int(self.kb("sql", "--tsv", "SELECT count(*) FROM rulings").splitlines()[1])


@pytest.fixture
def store(database_url: str, tmp_path: Path) -> Store:
    return Store(database_url, tmp_path)


def test_a_damaged_copy_of_two_candidates_is_a_ruling_of_its_own(store: Store) -> None:
    """ "Add ." may have lost {G} or {U}: linking it to either would be a guess."""
    store.scryfall((THREE_STEPS, "Add {G}.", "2024-04-12"), (THREE_STEPS, "Add {U}.", "2024-04-12"))
    assert store.page(CROSSFIRE, "Add .") == (
        "rulings: 1 new, 0 reused, 0 improved (damaged copies mended)\n"
        "links: 1 new, 0 dated, 0 unchanged"
    )
    assert store.ruling_count() == 3
    assert [link[:2] for link in store.links()] == [
        (THREE_STEPS, "Add {G}."),
        (THREE_STEPS, "Add {U}."),
        (CROSSFIRE, "Add ."),
    ]


def test_a_damaged_copy_of_one_ruling_links_to_it(store: Store) -> None:
    store.scryfall((THREE_STEPS, "Add {G}.", "2024-04-12"))
    assert store.page(CROSSFIRE, "Add .") == (
        "rulings: 0 new, 1 reused, 0 improved (damaged copies mended)\n"
        "links: 1 new, 0 dated, 0 unchanged"
    )
    assert store.ruling_count() == 1
    assert [link[:2] for link in store.links()] == [
        (THREE_STEPS, "Add {G}."),
        (CROSSFIRE, "Add {G}."),
    ]


def test_the_mended_text_replaces_a_damaged_one_stored_first(store: Store) -> None:
    store.page(CROSSFIRE, "Add .")
    assert store.scryfall((THREE_STEPS, "Add {G}.", "2024-04-12")) == (
        "rulings: 0 new, 0 reused, 1 improved (damaged copies mended)\n"
        "links: 1 new, 0 dated, 0 unchanged"
    )
    assert store.ruling_count() == 1
    assert [link[:2] for link in store.links()] == [
        (THREE_STEPS, "Add {G}."),
        (CROSSFIRE, "Add {G}."),
    ]
    # Its keys now are the mended text's: the damaged copy again is the same ruling.
    engine = make_engine(store.url)
    assert_keys_and_pairs_follow_texts(engine)
    engine.dispose()
    assert store.page(THREE_STEPS, "Add .").startswith("rulings: 0 new, 1 reused, 0 improved")
    assert store.ruling_count() == 1


def test_two_texts_whose_symbols_differ_are_two_rulings(store: Store) -> None:
    store.scryfall((THREE_STEPS, "Add {G}.", "2024-04-12"))
    assert store.page(CROSSFIRE, "Add {U}.").startswith("rulings: 1 new, 0 reused, 0 improved")
    assert [link[:2] for link in store.links()] == [
        (THREE_STEPS, "Add {G}."),
        (CROSSFIRE, "Add {U}."),
    ]


def test_two_damaged_copies_of_one_text_are_one_ruling(store: Store) -> None:
    store.page(CROSSFIRE, "Add .")
    assert store.page(THREE_STEPS, "Add  .").startswith("rulings: 0 new, 1 reused, 0 improved")
    assert [link[:2] for link in store.links()] == [
        (THREE_STEPS, "Add ."),
        (CROSSFIRE, "Add ."),
    ]


def test_a_text_shared_in_one_import_is_one_ruling_linked_once_per_card(store: Store) -> None:
    summary = store.scryfall(
        (THREE_STEPS, "Shared.", "2024-04-12"),
        (CROSSFIRE, "Shared.", "2024-04-13"),
        (THREE_STEPS, "Shared.", "2024-05-01"),
        (THREE_STEPS, "Other.", "2024-04-12"),
    )
    assert summary == (
        "rulings: 2 new, 0 reused, 0 improved (damaged copies mended)\n"
        "links: 3 new, 0 dated, 0 unchanged"
    )
    assert store.links() == [
        (THREE_STEPS, "Shared.", "wotc", "2024-04-12", "0"),
        (THREE_STEPS, "Other.", "wotc", "2024-04-12", "1"),
        (CROSSFIRE, "Shared.", "wotc", "2024-04-13", "0"),
    ]


def test_a_ruling_stored_before_is_reused_and_learns_its_origin(store: Store) -> None:
    store.page(THREE_STEPS, "Known ruling.", "Second ruling.")
    assert store.links() == [
        (THREE_STEPS, "Known ruling.", "", "", "0"),
        (THREE_STEPS, "Second ruling.", "", "", "1"),
    ]
    assert store.scryfall((CROSSFIRE, "Known  ruling.", "2024-04-12")) == (
        "rulings: 0 new, 1 reused, 0 improved (damaged copies mended)\n"
        "links: 1 new, 0 dated, 0 unchanged"
    )
    assert store.links()[0] == (THREE_STEPS, "Known ruling.", "wotc", "", "0")
    # An origin once known stays: another source's claim does not replace it.
    store.scryfall((THREE_STEPS, "Known ruling.", "2024-04-12"), source="scryfall")
    assert store.links()[0][2] == "wotc"


def test_a_dated_source_dates_an_undated_link_and_orders_it(store: Store) -> None:
    store.page(THREE_STEPS, "First.", "Second.", "Third.")
    # Scryfall's order for the card: Third (position 0), then Second (position 1).
    summary = store.scryfall(
        (THREE_STEPS, "Third.", "2024-04-12"), (THREE_STEPS, "Second.", "2024-04-13")
    )
    assert summary == (
        "rulings: 0 new, 2 reused, 0 improved (damaged copies mended)\n"
        "links: 0 new, 2 dated, 0 unchanged"
    )
    assert store.links() == [
        (THREE_STEPS, "First.", "", "", "0"),
        (THREE_STEPS, "Third.", "wotc", "2024-04-12", "0"),
        (THREE_STEPS, "Second.", "wotc", "2024-04-13", "1"),
    ]
    # A date once known stays; the same links again change nothing.
    summary = store.scryfall((THREE_STEPS, "Third.", "2025-01-01"))
    assert summary.endswith("links: 0 new, 0 dated, 1 unchanged")
    assert store.links()[1][3] == "2024-04-12"


def test_dating_one_cards_link_leaves_the_other_cards_link_to_the_ruling(store: Store) -> None:
    """One ruling on two cards' undated pages: a date for one card is no date for the other."""
    store.page(THREE_STEPS, "Shared.", "Own.")
    store.page(CROSSFIRE, "Shared.")
    summary = store.scryfall(
        (THREE_STEPS, "Own.", "2024-04-12"), (THREE_STEPS, "Shared.", "2024-04-13")
    )
    assert summary.endswith("links: 0 new, 2 dated, 0 unchanged")
    assert store.links() == [
        (THREE_STEPS, "Own.", "wotc", "2024-04-12", "0"),
        (THREE_STEPS, "Shared.", "wotc", "2024-04-13", "1"),
        (CROSSFIRE, "Shared.", "wotc", "", "0"),
    ]


def test_an_undated_source_leaves_a_dated_link_as_it_was(store: Store) -> None:
    store.scryfall((THREE_STEPS, "Dated.", "2024-04-12"))
    assert store.page(THREE_STEPS, "Dated.").endswith("links: 0 new, 0 dated, 1 unchanged")
    assert store.links() == [(THREE_STEPS, "Dated.", "wotc", "2024-04-12", "0")]


def test_new_links_go_after_the_cards_existing_ones(store: Store) -> None:
    store.scryfall(
        (THREE_STEPS, "One.", "2024-04-12"),
        (THREE_STEPS, "Two.", "2024-04-12"),
        (CROSSFIRE, "Other.", "2024-04-12"),
    )
    store.page(THREE_STEPS, "Three.", "Four.")
    store.page(CROSSFIRE, "Five.")
    assert [(link[0], link[1], link[4]) for link in store.links()] == [
        (THREE_STEPS, "One.", "0"),
        (THREE_STEPS, "Two.", "1"),
        (THREE_STEPS, "Three.", "2"),
        (THREE_STEPS, "Four.", "3"),
        (CROSSFIRE, "Other.", "0"),
        (CROSSFIRE, "Five.", "1"),
    ]


def test_edited_rulings_old_texts_link_to_the_edited_rulings(store: Store) -> None:
    store.page(THREE_STEPS, "Old wording.", "Old order.")
    store.kb("edit", "ruling-text", "1", "New wording.", "--editor", "ann")
    store.kb("edit", "ruling-text", "2", "New order.", "--editor", "ann")
    assert store.page(CROSSFIRE, "Old wording.", "Old order.") == (
        "rulings: 0 new, 0 reused, 0 improved (damaged copies mended), "
        "2 kept as an editor corrected them\n"
        "links: 2 new, 0 dated, 0 unchanged"
    )
    assert store.ruling_count() == 2
    assert [link[:2] for link in store.links()] == [
        (THREE_STEPS, "New wording."),
        (THREE_STEPS, "New order."),
        (CROSSFIRE, "New wording."),
        (CROSSFIRE, "New order."),
    ]


def test_a_ruling_for_an_unknown_card_is_a_warning_and_the_rest_imports(store: Store) -> None:
    unknown = "00000000-0000-0000-0000-000000000000"
    path = store.jsonl(
        "rulings.jsonl",
        (THREE_STEPS, "Before."),
        (unknown, "Lost."),
        (THREE_STEPS, "After."),
        (unknown, "Lost again."),
    )
    lines = store.kb("import", "--verbose", str(path)).splitlines()
    assert lines[2:4] == [
        "rulings: 2 new, 0 reused, 0 improved (damaged copies mended)",
        "links: 2 new, 0 dated, 0 unchanged",
    ]
    assert lines[-3:] == [
        "warnings: 2",
        f"  {path}:2: a ruling for an unknown card: {unknown}",
        f"  {path}:4: a ruling for an unknown card: {unknown}",
    ]
    assert [link[1] for link in store.links()] == ["Before.", "After."]


def test_rulings_reused_are_counted_across_the_files_of_one_import(store: Store) -> None:
    store.page(THREE_STEPS, "One.", "Two.")
    first = store.jsonl("a.jsonl", (CROSSFIRE, "One."))
    second = store.jsonl("b.jsonl", (CROSSFIRE, "Two."), (CROSSFIRE, "Three."))
    lines = store.kb("import", str(first), str(second)).splitlines()
    assert lines[2:4] == [
        "rulings: 1 new, 2 reused, 0 improved (damaged copies mended)",
        "links: 3 new, 0 dated, 0 unchanged",
    ]


def test_new_and_mended_rulings_are_counted_across_the_files_of_one_import(
    store: Store,
) -> None:
    store.page(CROSSFIRE, "Add .", "Pay .")
    first = store.jsonl("a.jsonl", (THREE_STEPS, "Add {G}."), (THREE_STEPS, "New one."))
    second = store.jsonl("b.jsonl", (THREE_STEPS, "Pay {1}."), (THREE_STEPS, "New two."))
    lines = store.kb("import", str(first), str(second)).splitlines()
    assert lines[2:4] == [
        "rulings: 2 new, 0 reused, 2 improved (damaged copies mended)",
        "links: 4 new, 0 dated, 0 unchanged",
    ]
    assert store.ruling_count() == 4


def test_damaged_copies_of_stored_rulings_are_each_counted_reused(store: Store) -> None:
    store.scryfall((THREE_STEPS, "Add {G}.", "2024-04-12"), (THREE_STEPS, "Pay {1}.", "2024-04-12"))
    assert store.page(CROSSFIRE, "Add .", "Pay .") == (
        "rulings: 0 new, 2 reused, 0 improved (damaged copies mended)\n"
        "links: 2 new, 0 dated, 0 unchanged"
    )
    assert [link[1] for link in store.links()] == ["Add {G}.", "Pay {1}.", "Add {G}.", "Pay {1}."]


def test_links_imported_again_are_each_counted_unchanged(store: Store) -> None:
    store.scryfall((THREE_STEPS, "One.", "2024-04-12"), (THREE_STEPS, "Two.", "2024-04-13"))
    # Other dates, so that the file is not the same one again: a date once known stays.
    again = ((THREE_STEPS, "One.", "2025-01-01"), (THREE_STEPS, "Two.", "2025-01-02"))
    assert store.scryfall(*again) == (
        "rulings: 0 new, 2 reused, 0 improved (damaged copies mended)\n"
        "links: 0 new, 0 dated, 2 unchanged"
    )


def test_a_link_names_the_file_it_came_from_and_the_one_that_dated_it(store: Store) -> None:
    sources = (
        "SELECT r.text, s.uri FROM card_rulings cr JOIN rulings r ON r.id = cr.ruling_id "
        "JOIN sources s ON s.id = cr.source_id ORDER BY r.text"
    )
    store.page(THREE_STEPS, "Undated.", "Stays undated.")
    page = str(store.folder / "1-en-page.txt")
    assert store.kb("sql", "--tsv", sources).splitlines()[1:] == [
        f"Stays undated.\t{page}",
        f"Undated.\t{page}",
    ]
    store.scryfall((THREE_STEPS, "Undated.", "2024-04-12"))
    dated = str(store.folder / "2-rulings.json")
    assert store.kb("sql", "--tsv", sources).splitlines()[1:] == [
        f"Stays undated.\t{page}",
        f"Undated.\t{dated}",
    ]


TAGS = (
    "SELECT r.text, m.slug FROM ruling_mechanics rm JOIN rulings r ON r.id = rm.ruling_id "
    "JOIN mechanics m ON m.id = rm.mechanic_id ORDER BY r.text, m.slug"
)


def test_a_new_ruling_is_tagged_with_the_mechanics_it_names(store: Store) -> None:
    store.page(THREE_STEPS, "An outlaw ruling.", "A plain ruling.")
    assert store.kb("sql", "--tsv", TAGS).splitlines()[1:] == ["An outlaw ruling.\toutlaw"]


def test_a_stored_ruling_linked_to_a_second_spree_card_becomes_spree_general(
    store: Store,
) -> None:
    """Both catalog cards are Spree cards: a ruling on the two of them is a general ruling."""
    store.page(THREE_STEPS, "Shared ruling.")
    assert store.kb("sql", "--tsv", TAGS).splitlines()[1:] == []
    store.page(CROSSFIRE, "Shared ruling.")
    assert store.kb("sql", "--tsv", TAGS).splitlines()[1:] == ["Shared ruling.\tspree"]


def test_new_rulings_get_their_near_duplicates(store: Store) -> None:
    store.scryfall((THREE_STEPS, "Add {G}.", "2024-04-12"), (THREE_STEPS, "Add {U}.", "2024-04-12"))
    pairs = (
        "SELECT a.text, b.text, n.reason FROM near_duplicates n "
        "JOIN rulings a ON a.id = n.ruling_id JOIN rulings b ON b.id = n.other_ruling_id"
    )
    assert store.kb("sql", "--tsv", pairs).splitlines()[1:] == [
        "Add {G}.\tAdd {U}.\tsame without symbols"
    ]
    engine = make_engine(store.url)
    assert_keys_and_pairs_follow_texts(engine)
    engine.dispose()


def test_a_mended_ruling_is_no_damaged_copy_for_the_next_text_of_the_import(
    store: Store,
) -> None:
    """Once "Add ." is mended into "Add {G}.", "Add {U}." in the same file is a ruling of its own:
    mended again, the first card's ruling would silently read "Add {U}."."""
    store.page(CROSSFIRE, "Add .")
    summary = store.scryfall(
        (THREE_STEPS, "Add {G}.", "2024-04-12"), (THREE_STEPS, "Add {U}.", "2024-04-12")
    )
    assert summary == (
        "rulings: 1 new, 0 reused, 1 improved (damaged copies mended)\n"
        "links: 2 new, 0 dated, 0 unchanged"
    )
    assert [link[:2] for link in store.links()] == [
        (THREE_STEPS, "Add {G}."),
        (THREE_STEPS, "Add {U}."),
        (CROSSFIRE, "Add {G}."),
    ]


PAIRS = (
    "SELECT n.ruling_id, n.other_ruling_id, n.reason FROM near_duplicates n "
    "ORDER BY n.ruling_id, n.other_ruling_id"
)
# Longer than the 60 characters of the head key, so that all three share it.
BEGINNING = "A ruling that begins the way its near duplicates do, word for word: "
SHORT = BEGINNING + "the end."


def test_rulings_that_begin_alike_pair_when_their_lengths_are_within_ten(store: Store) -> None:
    store.page(
        THREE_STEPS,
        SHORT,
        SHORT + " ten more.",  # 10 characters longer: a pair
        SHORT + " and eleven",  # 11 longer than the first (no pair), 1 than the second
        "Another ruling, nearly as long as the first one, that begins otherwise.",
    )
    assert store.kb("sql", "--tsv", PAIRS).splitlines()[1:] == [
        "1\t2\tsame beginning",
        "2\t3\tsame beginning",
    ]


def test_a_ruling_edited_away_loses_its_pairs(store: Store) -> None:
    store.page(THREE_STEPS, SHORT, SHORT + " ten more.", SHORT + " and eleven")
    store.kb("edit", "ruling-text", "2", "A ruling about something else entirely.", "--editor", "a")
    assert store.kb("sql", "--tsv", PAIRS).splitlines()[1:] == []
    engine = make_engine(store.url)
    assert_keys_and_pairs_follow_texts(engine)
    engine.dispose()
