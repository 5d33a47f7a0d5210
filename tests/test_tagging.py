"""Mechanic patterns tag texts as their regular expressions match whole words, whether or not
the fast path indexes them, and whether or not a matcher of few words looks for them first."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kb.tagging import (
    QUICK_WORDS,
    RULES_VOCABULARY,
    MechanicMatcher,
    _first_words,
    rule_pattern,
    slugify_mechanic,
)

PATTERNS = [
    (1, r"\bspree\b"),
    (2, r"\boutlaws?\b"),
    (3, r"\bdouble\s+strike\b"),
    (4, r"\bjump\-start\b"),
    (5, r"(?:^|\W)\{X\}"),
    (6, None),
]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("A spell with Spree has a + indicator.", {1}),
        ("Outlaws are Assassins, Mercenaries, Pirates, Rogues and Warlocks.", {2}),
        ("An outlaw spell.", {2}),
        ("It has double  strike.", {3}),
        ("Jump-start lets you cast it again.", {4}),
        ("If it has {X} in its mana cost, X is 0.", {5}),
        ("Sprees and outlawed things are neither.", set()),
        ("Spree and double strike and outlaw.", {1, 2, 3}),
        ("Spree's additional costs are paid.", {1}),
        ("An outlaw's power and the outlaws' guns.", {2}),
        ("A 'spree' spell, a -jump-start- card.", {1, 4}),
        ("Outlaw-Spree Minotaur's ability.", set()),  # a card's name, not the mechanics
    ],
)
def test_patterns_match_like_their_regular_expressions(text: str, expected: set[int]) -> None:
    assert MechanicMatcher(PATTERNS).matches(text) == expected


def test_mechanic_slugs() -> None:
    assert slugify_mechanic("First strike") == "first-strike"
    assert slugify_mechanic("Jump-start") == "jump-start"
    assert slugify_mechanic("Aura Swap") == "aura-swap"


def _rules_matcher(*names: str, cards: tuple[str, ...] = ()) -> MechanicMatcher:
    """A matcher of the keyword actions (701) named, as the rules parser gives them."""
    patterns = [(i, rule_pattern("keyword_action", name)) for i, name in enumerate(names)]
    return MechanicMatcher(patterns, cards)


@pytest.mark.parametrize("name", ["Cast", "Activate", "Play", "Sacrifice", "Tap and Untap"])
def test_the_rules_vocabulary_tags_by_no_word(name: str) -> None:
    assert rule_pattern("keyword_action", name) is None
    assert slugify_mechanic(name) in RULES_VOCABULARY


@pytest.mark.parametrize(
    ("text", "tagged"),
    [
        ("Counter target spell unless its controller pays {3}.", True),
        ("If that spell is countered, nothing happens.", True),
        ("Spells that would counter it can still be cast.", True),
        ("Kadena's Silencer can't counter an activated mana ability.", True),
        ("A spell or ability counters a spell only if it says so.", True),
        ("Only effects that counter spells are ignored.", True),
        ("Put a +1/+1 counter on target creature.", False),
        ("Remove a counter from it. It can't have more than three counters.", False),
        ("It won't receive a counter or gain indestructible.", False),
        ("The number of counters it has is doubled.", False),
    ],
)
def test_counter_tags_only_the_verb(text: str, tagged: bool) -> None:
    assert _rules_matcher("Counter").matches(text) == ({0} if tagged else set())


@pytest.mark.parametrize(
    ("text", "tagged"),
    [
        ("If you double a negative life total, you do the real math.", True),
        ("Double the number of +1/+1 counters on it.", True),
        ("Doubling a creature's power gives it +X/+0.", True),
        ("These amounts are then doubled to 4 and 6 damage, respectively.", True),
        ("Planeswalkers enter with double the normal number of loyalty counters.", True),
        ("Double strike isn't an effect, so it's not doubled.", False),
        ("If a creature loses double strike, it deals no more damage.", False),
        ("Double-faced cards have a face on each side.", False),
        ("You may cast Double Negative with no targets.", False),
        ("Treat Body Double as though it were the chosen card.", False),
    ],
)
def test_double_tags_only_doubling(text: str, tagged: bool) -> None:
    assert _rules_matcher("Double").matches(text) == ({0} if tagged else set())


def test_support_tags_the_action_not_the_english_word() -> None:
    matcher = _rules_matcher("Support")
    assert matcher.matches("You can't put two counters on one target with support 2.") == {0}
    assert matcher.matches("If you support the Phyrexians, choose an opponent.") == set()


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("Mill", "One of the cards you just milled."),
        ("Mill", "If a player mills a land."),
        ("Scry", "You scried 2 before you drew."),
        ("Fight", "The creatures fought each other."),
        ("Surveil", "The cards you surveilled."),
        ("Regenerate", "A regeneration shield will save it."),
        ("Monstrosity", "Once it has become monstrous, it can't become monstrous again."),
        ("Venture into the Dungeon", "If you ventured into the dungeon this turn."),
    ],
)
def test_keyword_actions_tag_every_form_of_their_verb(name: str, text: str) -> None:
    matcher = _rules_matcher(name)
    assert matcher.matches(text) == {0}
    # The verb's forms are indexed: the same as the regular expression says, with no full scan.
    assert matcher._always == []


def test_verb_forms_stay_whole_words() -> None:
    assert _rules_matcher("Mill").matches("A windmill and the Millstone.") == set()


def test_a_cards_name_is_not_its_mechanic() -> None:
    patterns = [(1, r"\bstorm\b"), (2, r"\bfear\b"), (3, r"\bfortify\b")]
    names = ("Storm Entity", "Smell Fear", "Fortify", "Eye of the Storm")
    matcher = MechanicMatcher(patterns, names)
    assert matcher.matches("Storm Entity's ability counts spells.") == set()
    assert matcher.matches("A copy created by Eye of the Storm isn't a card.") == set()
    assert matcher.matches("Storm Entity doesn't have storm.") == {1}
    assert matcher.matches("You can't cast Smell Fear just to proliferate.") == set()
    # A name that is only the word is a name inside a sentence, the word at a sentence's start.
    assert (
        matcher.matches("Creatures that come under your control after Fortify resolves.") == set()
    )
    assert matcher.matches("Fortify is an activated ability of Fortifications.") == {3}


@pytest.mark.parametrize(
    "text",
    [
        "If it isn't destroyed (most likely because it has indestructible), draw a card.",
        "If it isn't destroyed, perhaps because it has indestructible, draw a card.",
        "Costs (such as an indestructible cost) are added first.",
        "It doesn't get counters for copies (as with indestructible), just for spells.",
    ],
)
def test_a_mechanic_named_as_an_example_or_a_likely_reason_is_not_tagged(text: str) -> None:
    matcher = MechanicMatcher([(1, r"\bindestructible\b")])
    assert matcher.matches(text) == set()
    assert matcher.matches(text + " It gains indestructible.") == {1}


@pytest.mark.parametrize("name", ["Counter", "Double", "Support"])
def test_a_senses_pattern_is_indexed_by_its_verbs_forms(name: str) -> None:
    """A sense's pattern runs only on texts that hold a form of its verb, not on every text."""
    matcher = _rules_matcher(name)
    assert matcher._always == []
    pattern = rule_pattern("keyword_action", name)
    assert pattern is not None
    for word in sorted(_first_words(pattern)):
        assert word.startswith(name.lower()[:5])


ACTIONS = ("Counter", "Regenerate", "Double", "Mill", "Scry", "Vote", "Fight", "Set in Motion")
WORDS = (
    "counter", "countered", "counters", "encounter", "regenerate", "Regeneration", "double",
    "strike", "mill", "Millstone", "scry", "scried", "vote", "votes", "fight", "fought",
    "set", "sets", "reset", "motion", "target", "spell", "+1/+1", "creature", "Fight", "with",
    "Fire", "Counterspell", "it", "can't", "be", "the", "a",
)  # fmt: skip
SEPARATORS = (" ", "  ", ", ", ". ", "\n", "'", "'s ", "s' ", "-", " (", ") ", '"', "’")


@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=12))
def test_a_matcher_of_few_words_finds_what_the_plain_way_finds(
    words: list[tuple[str, str]],
) -> None:
    """The quick look for any first word (``QUICK_WORDS``) only skips texts with no candidate:
    the same tags as the matcher without it, whatever the words, their forms and the names."""
    quick = _rules_matcher(*ACTIONS, cards=("Fight with Fire", "Counterspell", "Millstone"))
    assert quick._quick is not None and len(quick._by_first_word) <= QUICK_WORDS
    plain = copy.copy(quick)
    plain._quick = None
    text = "".join(word + separator for word, separator in words)
    assert quick.matches(text) == plain.matches(text)
    assert quick.matches(text.upper()) == plain.matches(text.upper())


def test_a_matcher_of_many_words_or_one_that_always_runs_does_not_look_first() -> None:
    assert MechanicMatcher(PATTERNS)._quick is None  # {X} runs on every text
    many = [(i, rf"\bword{i}\b") for i in range(QUICK_WORDS + 1)]
    assert MechanicMatcher(many)._quick is None
    assert MechanicMatcher(many[:QUICK_WORDS])._quick is not None
