"""Tags as an import writes them, on both engines: keyword actions tag in their rule's sense, the
rules' vocabulary tags nothing, cards' names and asides name no mechanic, and a general ruling
stands on enough of a mechanic's cards."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import scryfall_ruling
from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from kb import schema
from kb.importing import ImportOptions, run_import

RULES = """\
701. Keyword Actions
701.4. Cast
701.4a To cast a spell is to take it from where it is, put it on the stack, and pay its costs.
701.5. Counter
701.5a To counter a spell or ability means to cancel it, removing it from the stack.
701.9. Double
701.9a Doubling a creature's power and/or toughness creates a continuous effect.
701.13. Mill
701.13a For a player to mill a number of cards, that player puts that many cards from the top of their library into their graveyard.
702. Keyword Abilities
702.4. Double Strike
702.4a Double strike is a static ability that modifies the rules for the combat damage step.
702.9. Flying
702.9a Flying is an evasion ability.
702.29. Cycling
702.29a Cycling is an activated ability that functions only while the card with cycling is in a player's hand.
702.40. Storm
702.40a Storm is a triggered ability that functions on the stack.
"""  # noqa: E501

RULINGS = {
    "You cast this spell and activate its ability.": ["plain"],
    "Put a +1/+1 counter on target creature.": ["plain"],
    "If that spell is countered, nothing happens.": ["plain"],
    "Double strike isn't an effect, so it's not doubled.": ["plain"],
    "Double the number of +1/+1 counters on it.": ["plain"],
    "Storm Entity's ability counts the spells cast before it.": ["Storm Entity"],
    "If you milled a land this way, you gain 2 life.": ["plain"],
    "If it isn't dealt damage (most likely because it has flying), nothing happens.": ["plain"],
    # On the two cyclers, which both fly: it names cycling, so it is not about flying.
    "Cycling is an activated ability that works from your hand.": ["cycler 1", "cycler 2"],
    # On both cyclers and naming no mechanic: a general ruling of cycling, not of flying
    # (2 of 32 flying cards).
    "You may discard this card even if you have no other cards.": ["cycler 1", "cycler 2"],
    # On two of thirty fliers, naming nothing: about those two cards, not about flying.
    "You choose the color as the ability resolves.": ["flier 1", "flier 2"],
}
EXPECTED = {
    "You cast this spell and activate its ability.": set(),
    "Put a +1/+1 counter on target creature.": set(),
    "If that spell is countered, nothing happens.": {"counter"},
    "Double strike isn't an effect, so it's not doubled.": {"double-strike"},
    "Double the number of +1/+1 counters on it.": {"double"},
    "Storm Entity's ability counts the spells cast before it.": set(),
    "If you milled a land this way, you gain 2 life.": {"mill"},
    "If it isn't dealt damage (most likely because it has flying), nothing happens.": set(),
    "Cycling is an activated ability that works from your hand.": {"cycling"},
    "You may discard this card even if you have no other cards.": {"cycling"},
    "You choose the color as the ability resolves.": set(),
}


def _card(name: str, keywords: list[str]) -> str:
    return f'[[cards]]\nname = "{name}"\noracle_id = "{name}"\nkeywords = {json.dumps(keywords)}\n'


def _files(tmp_path: Path) -> list[Path]:
    cards = [_card("plain", []), _card("Storm Entity", [])]
    cards += [_card(f"cycler {n}", ["Cycling", "Flying"]) for n in (1, 2)]
    cards += [_card(f"flier {n}", ["Flying"]) for n in range(1, 31)]
    catalog = tmp_path / "catalog.toml"
    catalog.write_text("\n".join(cards), encoding="utf-8")
    rulings = tmp_path / "rulings.json"
    objects = [
        scryfall_ruling(card, comment=text) for text, names in RULINGS.items() for card in names
    ]
    rulings.write_text(json.dumps(objects), encoding="utf-8")
    rules = tmp_path / "MagicCompRules.txt"
    rules.write_text(RULES, encoding="utf-8")
    return [rules, catalog, rulings]


def _tags(engine: Engine) -> dict[str, set[str]]:
    query = (
        select(schema.rulings.c.text, schema.mechanics.c.slug)
        .select_from(schema.rulings)
        .outerjoin(schema.ruling_mechanics)
        .outerjoin(schema.mechanics)
    )
    tags: dict[str, set[str]] = {}
    with engine.connect() as connection:
        for text, slug in connection.execute(query):
            tags.setdefault(text, set()).update({slug} if slug else set())
    return tags


def _mechanic(engine: Engine, slug: str) -> tuple[str, str, str | None]:
    query = select(schema.mechanics.c.kind, schema.mechanics.c.rule, schema.mechanics.c.pattern)
    with engine.connect() as connection:
        row = connection.execute(query.where(schema.mechanics.c.slug == slug)).one()
    return row.kind, row.rule, row.pattern


def test_an_import_tags_each_ruling_with_what_it_is_about(engine: Engine, tmp_path: Path) -> None:
    run_import(engine, _files(tmp_path))
    assert _tags(engine) == EXPECTED
    # The vocabulary tags nothing by word, yet keeps its mechanic and its rule.
    assert _mechanic(engine, "cast") == ("keyword_action", "701.4", None)
    assert _mechanic(engine, "mill")[2] == r"\b(?:mill|milled|milling|mills)\b"


def test_rules_imported_again_take_the_vocabulary_pattern_an_older_kb_stored(
    engine: Engine, tmp_path: Path
) -> None:
    files = _files(tmp_path)
    run_import(engine, files)
    with engine.begin() as connection:
        connection.execute(
            update(schema.mechanics)
            .where(schema.mechanics.c.slug == "cast")
            .values(pattern=r"\bcast\b")
        )
    summary = run_import(engine, files[:1], ImportOptions(force=True))
    assert summary.counts["mechanics updated"] == 1
    assert _mechanic(engine, "cast") == ("keyword_action", "701.4", None)
    assert _tags(engine) == EXPECTED


ACTION_RULES = """\
701. Keyword Actions
701.5. Counter
701.5a To counter a spell or ability means to cancel it, removing it from the stack.
701.18. Scry
701.18a To "scry N" means to look at the top N cards of your library.
702. Keyword Abilities
702.9. Flying
702.9a Flying is an evasion ability.
"""


def _catalog(path: Path, cards: dict[str, tuple[list[str], str]]) -> Path:
    entries = [
        f"{_card(name, keywords)}oracle_text = {json.dumps(text)}\n"
        for name, (keywords, text) in cards.items()
    ]
    path.write_text("\n".join(entries), encoding="utf-8")
    return path


def _card_tags(engine: Engine) -> dict[str, dict[str, str]]:
    query = (
        select(schema.cards.c.name, schema.mechanics.c.slug, schema.card_mechanics.c.origin)
        .join(schema.card_mechanics, schema.card_mechanics.c.card_id == schema.cards.c.id)
        .join(schema.mechanics, schema.mechanics.c.id == schema.card_mechanics.c.mechanic_id)
    )
    tags: dict[str, dict[str, str]] = {}
    with engine.connect() as connection:
        for name, slug, origin in connection.execute(query):
            tags.setdefault(name, {})[slug] = origin
    return tags


def test_a_card_is_tagged_with_the_actions_its_text_says(engine: Engine, tmp_path: Path) -> None:
    """Sources list Scry on its cards but never Counter: a keyword action is read in the Oracle
    text too, in the rule's sense, and the tag says so; a keyword ability only from keywords."""
    rules = tmp_path / "MagicCompRules.txt"
    rules.write_text(ACTION_RULES, encoding="utf-8")
    cards = {
        "Cancel": ([], "Counter target spell."),
        "Hardened": ([], "Put a +1/+1 counter on target creature."),
        "Seer": (["Scry"], "When this creature enters, scry 2."),
        "Glimpse": ([], "Scry 1. Draw a card."),
        "Bird": (["Flying"], "Flying"),
        "Watcher": ([], "Creatures with flying can't block."),
    }
    run_import(engine, [rules, _catalog(tmp_path / "catalog.toml", cards)])
    assert _card_tags(engine) == {
        "Cancel": {"counter": "text"},
        "Seer": {"scry": "listed"},
        "Glimpse": {"scry": "text"},
        "Bird": {"flying": "listed"},
    }
    # A source that lists what was read in the text makes it listed.
    again = _catalog(tmp_path / "again.toml", {"Glimpse": (["Scry"], "Scry 1. Draw a card.")})
    run_import(engine, [again])
    assert _card_tags(engine)["Glimpse"] == {"scry": "listed"}


ACTION_CARDS = {
    "Cancel": ([], "Counter target spell."),
    "Hardened": ([], "Put a +1/+1 counter on target creature."),
    "Glimpse": ([], "Scry 1. Draw a card."),
    "Bird": (["Flying"], "Flying"),
}
ACTION_TAGS = {
    "Cancel": {"counter": "text"},
    "Glimpse": {"scry": "text"},
    "Bird": {"flying": "listed"},
}


def _scryfall_cards(path: Path, cards: dict[str, tuple[list[str], str]]) -> Path:
    objects = [
        {
            "object": "card",
            "oracle_id": name,
            "lang": "en",
            "name": name,
            "layout": "normal",
            "type_line": "Instant",
            "oracle_text": text,
            "keywords": keywords,
        }
        for name, (keywords, text) in cards.items()
    ]
    path.write_text(json.dumps(objects), encoding="utf-8")
    return path


def test_cards_read_after_the_rules_in_one_run_are_tagged_as_they_load(
    engine: Engine, tmp_path: Path
) -> None:
    """A new store's rules are read before its cards in one run: the cards are tagged by every
    pattern as they load, and the run's end need not read them again."""
    rules = tmp_path / "MagicCompRules.txt"
    rules.write_text(ACTION_RULES, encoding="utf-8")
    summary = run_import(engine, [rules, _scryfall_cards(tmp_path / "cards.json", ACTION_CARDS)])
    assert summary.counts["mechanics new"] == 3
    assert _card_tags(engine) == ACTION_TAGS


def test_cards_stored_before_the_rules_are_read_again_when_they_come(
    engine: Engine, tmp_path: Path
) -> None:
    rules = tmp_path / "MagicCompRules.txt"
    rules.write_text(ACTION_RULES, encoding="utf-8")
    run_import(engine, [_scryfall_cards(tmp_path / "cards.json", ACTION_CARDS)])
    assert _card_tags(engine) == {"Bird": {"flying": "listed"}}
    run_import(engine, [rules])
    assert _card_tags(engine) == ACTION_TAGS


def test_an_action_read_in_texts_makes_no_ruling_general(engine: Engine, tmp_path: Path) -> None:
    """A ruling on two counterspells that names no mechanic is about them, not about counter:
    mining and the general-ruling rule count an action's cards as the sources list them."""
    rules = tmp_path / "MagicCompRules.txt"
    rules.write_text(ACTION_RULES, encoding="utf-8")
    cards = {f"Cancel {n}": ([], "Counter target spell.") for n in (1, 2)}
    cards |= {f"Bird {n}": (["Flying"], "Flying") for n in (1, 2)}
    rulings = tmp_path / "rulings.json"
    shared = {"You choose the target as you cast it.": "Cancel", "It can't be blocked.": "Bird"}
    objects = [
        scryfall_ruling(f"{card} {n}", comment=text)
        for text, card in shared.items()
        for n in (1, 2)
    ]
    rulings.write_text(json.dumps(objects), encoding="utf-8")
    run_import(engine, [rules, _catalog(tmp_path / "catalog.toml", cards), rulings])
    assert _card_tags(engine)["Cancel 1"] == {"counter": "text"}
    tags = _tags(engine)
    assert tags["You choose the target as you cast it."] == set()
    assert tags["It can't be blocked."] == {"flying"}  # a listed keyword's general ruling


TEMPLATE_RULES = """\
702. Keyword Abilities
702.14. Landwalk
702.14a Landwalk is a generic term that appears within an object's rules text as "[type]walk," where [type] is usually a land type.
702.29. Cycling
702.29a Cycling is an activated ability that functions only while the card with cycling is in a player's hand.
702.29e Typecycling is a variant of the cycling ability. "[Type]cycling [cost]" means "[Cost], Discard this card: Search your library for a [type] card."
"""  # noqa: E501


def test_a_keyword_named_by_a_rules_template_gets_its_rule_whichever_comes_first(
    engine: Engine, tmp_path: Path
) -> None:
    """Islandwalk and Basic landcycling are cards' keywords that the rules define only by a
    template ("[type]walk", "[Type]cycling"): they take its rule, whether the cards or the
    rules are imported first, and as the latest rules number it."""
    rules = tmp_path / "MagicCompRules.txt"
    rules.write_text(TEMPLATE_RULES, encoding="utf-8")
    before, after = tmp_path / "before.toml", tmp_path / "after.toml"
    before.write_text(
        _card("Zodiac Dog", ["Islandwalk"]) + _card("Ash Barrens", ["Basic landcycling"]),
        encoding="utf-8",
    )
    after.write_text(_card("Bog Wraith", ["Swampwalk"]), encoding="utf-8")
    run_import(engine, [before])
    assert _mechanic(engine, "islandwalk")[:2] == ("keyword", None)
    run_import(engine, [rules])
    run_import(engine, [after])
    for slug in ("islandwalk", "swampwalk"):
        assert _mechanic(engine, slug)[:2] == ("keyword", "702.14"), slug
    assert _mechanic(engine, "basic-landcycling")[:2] == ("keyword", "702.29e")
    assert _mechanic(engine, "landwalk")[:2] == ("keyword_ability", "702.14")
    assert _mechanic(engine, "typecycling")[:2] == ("keyword", "702.29e")
    rules.write_text(TEMPLATE_RULES.replace("702.14", "702.15"), encoding="utf-8")
    run_import(engine, [rules])  # a new edition numbers Landwalk anew: its walks follow
    assert _mechanic(engine, "landwalk")[:2] == ("keyword_ability", "702.15")
    assert _mechanic(engine, "swampwalk")[:2] == ("keyword", "702.15")
