"""Mechanic patterns tag texts as their regular expressions match whole words, whether or not
the fast path indexes them."""

from __future__ import annotations

import pytest

from kb.tagging import MechanicMatcher, slugify_mechanic

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
