from __future__ import annotations

import io
import re

import pytest
from realdata import realdata

from kb.importers import comprehensive_rules
from kb.records import MechanicRecord


def _parse_file(name: str) -> list[MechanicRecord]:
    path = realdata(name)
    with path.open("rb") as stream:
        return list(comprehensive_rules.parse(stream, str(path)))


def _parse_text(text: str) -> list[MechanicRecord]:
    return list(comprehensive_rules.parse(io.BytesIO(text.encode()), "rules.txt"))


def _of_kind(records: list[MechanicRecord], kind: str) -> list[MechanicRecord]:
    return [record for record in records if record.kind == kind]


def test_2022_rules_give_every_keyword_ability_and_action() -> None:
    records = _parse_file("MagicCompRules_20220429.txt")
    abilities = _of_kind(records, "keyword_ability")
    assert len(abilities) == 152
    assert [int(record.rule.split(".")[1]) for record in abilities if record.rule] == list(
        range(2, 154)
    )
    assert abilities[0] == MechanicRecord(
        slug="deathtouch",
        kind="keyword_ability",
        rule="702.2",
        names={"en": "Deathtouch"},
        pattern=r"\bdeathtouch\b",
        rule_text="702.2a Deathtouch is a static ability.",
        line=abilities[0].line,
    )
    assert (abilities[-1].rule, abilities[-1].names) == ("702.153", {"en": "Casualty"})
    actions = _of_kind(records, "keyword_action")
    assert (actions[0].rule, actions[0].slug) == ("701.2", "activate")
    assert (actions[-1].rule, actions[-1].slug) == ("701.47", "connive")
    assert len(actions) == 46
    slugs = {record.slug for record in records}
    assert {"first-strike", "double-strike", "partner", "jump-start"} <= slugs
    assert "venture-into-the-dungeon" in slugs


def test_2024_excerpt_gives_spree_and_outlaw() -> None:
    records = {
        record.slug: record
        for record in _parse_file("MagicCompRules_2024_excerpt_outlaw_spree.txt")
    }
    assert (records["spree"].kind, records["spree"].rule) == ("keyword_ability", "702.172")
    assert records["outlaw"] == MechanicRecord(
        slug="outlaw",
        kind="term",
        rule="700.12",
        names={"en": "outlaw"},
        pattern=r"\boutlaws?\b",
        rule_text=records["outlaw"].rule_text,
        line=records["outlaw"].line,
    )
    assert (records["outlaw"].rule_text or "").startswith("700.12. The term outlaw refers to ")
    assert set(records) == {"outlaw", "plot", "saddle", "spree"}


def test_wizards_layout_without_indentation_and_old_line_endings() -> None:
    text = (
        "701. Keyword Actions\r702. Keyword Abilities\r\r"  # contents, Mac line endings
        "702. Keyword Abilities\r\n\r\n"
        "702.1. Most abilities describe exactly what they do in the card's rules text.\r\n"
        "702.2. Deathtouch\r\n702.2a Deathtouch is a static ability.\r\n"
        "702.4. Double Strike\r\n"
    )
    records = _parse_text(text)
    assert [(record.slug, record.rule) for record in records] == [
        ("deathtouch", "702.2"),
        ("double-strike", "702.4"),
    ]
    assert records[1].line == 9


@pytest.mark.parametrize(
    ("ruling", "matches"),
    [
        ("Double strike and first strike both apply.", True),
        ("A creature with double  strike deals damage twice.", True),
        ("Doublestrike is not a word.", False),
    ],
)
def test_patterns_match_whole_words_ignoring_case(ruling: str, matches: bool) -> None:
    [double_strike] = _parse_text("702.4. Double Strike\n")
    assert double_strike.pattern is not None
    assert bool(re.search(double_strike.pattern, ruling, re.IGNORECASE)) is matches


def test_only_term_definitions_are_terms() -> None:
    text = (
        '700.4. The term dies means "is put into a graveyard from the battlefield."\n'
        "700.6. The term historic refers to an object that has the legendary supertype.\n"
        "700.12a Some cards refer to outlaws that a player controls.\n"
    )
    assert [record.slug for record in _parse_text(text)] == ["historic"]


def test_a_keyword_s_rule_text_is_its_first_subrule() -> None:
    """The mechanic page quotes it (issue 20: "702.29a Cycling is an activated ability ...")."""
    records = {record.slug: record for record in _parse_file("MagicCompRules_20220429.txt")}
    assert (records["cycling"].rule_text or "").startswith(
        "702.29a Cycling is an activated ability that functions only while the card with cycling"
    )
    assert (records["scry"].rule_text or "").startswith('701.18a To "scry N" means to look')
    assert all(record.rule_text for record in records.values())


def test_ability_words_and_named_variants_get_the_rule_that_defines_them() -> None:
    """Ability words have no rule of their own: 207.2c, which lists them, is theirs. A variant
    of its own name is defined by its subrule; one named with a placeholder is its keyword."""
    records = _parse_file("MagicCompRules_20220429.txt")
    words = [record for record in records if record.rule == "207.2c"]
    assert len(words) == 44
    assert (words[0].slug, words[-1].slug) == ("adamant", "will-of-the-council")
    landfall = next(record for record in words if record.slug == "landfall")
    assert (landfall.kind, landfall.names, landfall.pattern) == (
        "keyword",
        {"en": "Landfall"},
        r"\blandfall\b",
    )
    assert (landfall.rule_text or "").startswith("207.2c An ability word appears in italics")
    variants = {
        record.slug: record.rule
        for record in records
        if record.kind == "keyword" and record.rule != "207.2c"
    }
    assert variants == {
        "equip-planeswalker": "702.6e",
        "protection-from-everything": "702.16j",
        "trample-over-planeswalkers": "702.19c",
        "typecycling": "702.29e",
        "multikicker": "702.33c",
        "megamorph": "702.37b",
        "commander-ninjutsu": "702.49d",
        "double-agenda": "702.106f",
        "friends-forever": "702.124g",
        "daybound": "702.145b",  # "Daybound ... 'Daybound' means", under "Daybound and Nightbound"
        "nightbound": "702.145e",
    }
    devour = [record for record in records if record.slug == "devour"]
    assert [(record.kind, record.rule) for record in devour] == [("keyword_ability", "702.82")]


def test_a_heading_without_its_subrule_has_no_rule_text_and_the_next_heading_counts() -> None:
    records = _parse_text("702.2. Deathtouch\n\n702.4. Double Strike\n702.4a Double strike ...\n")
    assert [(record.slug, record.rule_text) for record in records] == [
        ("deathtouch", None),
        ("double-strike", "702.4a Double strike ..."),
    ]
