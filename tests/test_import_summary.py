"""The words kb import and kb demo close with, made from a Summary's counts."""

from __future__ import annotations

from collections import Counter

from kb.cli.import_summary import summary_lines
from kb.loader import Summary


def test_a_summary_with_everything_to_tell() -> None:
    counts = Counter(
        {
            "cards new": 1,
            "cards updated": 2,
            "cards unchanged": 3,
            "names new": 4,
            "names changed": 5,
            "names unchanged": 6,
            "names as edited": 7,
            "names kept official": 8,
            "rulings new": 9,
            "rulings reused": 10,
            "rulings improved": 11,
            "rulings as edited": 12,
            "links new": 13,
            "links dated": 14,
            "links unchanged": 15,
            "mechanics new": 16,
            "mechanics updated": 17,
            "card tags new": 18,
            "ruling tags new": 19,
            "files skipped": 20,
        }
    )
    summary = Summary(
        counts, ["a.json: a warning", "b.json: another"], Counter({"ph": 2, "la": 1}), ["x.md"]
    )
    told = [
        "cards: 1 new, 2 updated, 3 unchanged",
        "names: 4 new, 5 changed, 6 unchanged, 7 kept as an editor corrected them, "
        "8 kept from an official source (use --replace-name)",
        "rulings: 9 new, 10 reused, 11 improved (damaged copies mended), "
        "12 kept as an editor corrected them",
        "links: 13 new, 14 dated, 15 unchanged",
        "mechanics: 16 new, 17 updated",
        "tags: 18 new on cards, 19 new on rulings",
        "files: 20 skipped (imported before: same checksum; --force)",
        "files: 1 of no known format skipped",
    ]
    languages = "names in languages outside the 11 (not stored): la 1, ph 2"
    assert summary_lines(summary) == [*told, languages, "warnings: 2 (--verbose)"]
    assert summary_lines(summary, verbose=True) == [
        *told,
        "  x.md",
        languages,
        "warnings: 2",
        "  a.json: a warning",
        "  b.json: another",
    ]


def test_a_summary_of_nothing_new() -> None:
    summary = Summary(Counter({"cards unchanged": 2, "links unchanged": 33}))
    assert summary_lines(summary, verbose=True) == [
        "cards: 0 new, 0 updated, 2 unchanged",
        "names: 0 new, 0 changed, 0 unchanged",
        "rulings: 0 new, 0 reused, 0 improved (damaged copies mended)",
        "links: 0 new, 0 dated, 33 unchanged",
        "mechanics: 0 new, 0 updated",
        "tags: 0 new on cards, 0 new on rulings",
        "nothing changed: the store already held all of it",
    ]
