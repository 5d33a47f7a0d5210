"""Votes: each card votes once for a name per mechanic and locale; a name wins by its share.

The evidence stays with each mined name: how many cards voted for it, out of how many cards
voted at all, and the runner-up, so that an editor sees a split vote at a glance.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from kb.mining.text import display_form


@dataclass(frozen=True, slots=True)
class MinedName:
    mechanic: str
    """The English name: a keyword as MTGJSON spells it ("Flying"), or a card type ("Rogue")."""
    locale: str
    name: str
    cards: int
    """How many cards voted for the name."""
    voters: int
    """How many cards voted at all."""
    method: str
    """How it was mined: "line" (aligned lines), "contrast" (n-grams), "type" (type lines)."""
    runner_up: str | None = None
    runner_up_cards: int = 0
    examples: tuple[str, ...] = ()
    """A few of the cards that voted for it, by English name, in order."""

    @property
    def share(self) -> float:
        return self.cards / self.voters if self.voters else 0.0


@dataclass(frozen=True, slots=True)
class Ballot:
    key: str
    """What is counted: the name case-folded."""
    form: str
    """The name as printed on this card."""
    released: str


class Ballots:
    """The votes cast so far, one per card per mechanic and locale (the first a card casts)."""

    def __init__(self) -> None:
        self._votes: dict[tuple[str, str], dict[str, Ballot]] = defaultdict(dict)
        self._ballots: dict[tuple[str, str], Ballot] = {}

    def cast(self, mechanic: str, locale: str, card: str, form: str, released: str) -> None:
        votes = self._votes[(mechanic, locale)]
        if card not in votes and (form := form.strip()):
            # Most cards vote for one of a few names: one copy of each name, one of each ballot.
            key = (form, released)
            ballot = self._ballots.get(key)
            if ballot is None:
                ballot = self._ballots[key] = Ballot(form.casefold(), form, released)
            votes[card] = ballot

    def __len__(self) -> int:
        return len(self._votes)

    def keys(self) -> Iterable[tuple[str, str]]:
        return self._votes.keys()

    def voters(self, mechanic: str, locale: str) -> int:
        return len(self._votes.get((mechanic, locale), {}))

    def results(self, method: str, minimum: int = 1) -> list[MinedName]:
        """The winner of each vote with at least ``minimum`` voters, sorted."""
        mined = [
            tally(mechanic, locale, votes, method)
            for (mechanic, locale), votes in self._votes.items()
            if len(votes) >= minimum
        ]
        return sorted(mined, key=lambda name: (name.mechanic, name.locale))

    def winners(self) -> dict[tuple[str, str], str]:
        """Each vote's winning name (``results``' ``name``), case-folded, by (mechanic,
        locale): what aligning the type lines of several subtypes needs, without the rest
        of each tally."""
        return {
            key: _name(_ranked(votes)[0]).casefold() for key, votes in self._votes.items() if votes
        }


def tally(mechanic: str, locale: str, votes: dict[str, Ballot], method: str) -> MinedName:
    """The name most cards voted for, unless a name of newer printings has votes enough
    (``NEWER_MIN_CARDS``, ``NEWER_MIN_SHARE``: a translation that changed, the current one); a
    tie goes to the name of the newer printings, then to the first in code point order."""
    ranked = _ranked(votes)
    winner = ranked[0]
    runner_up = ranked[1] if len(ranked) > 1 else []
    return MinedName(
        mechanic=mechanic,
        locale=locale,
        name=_name(winner),
        cards=len(winner),
        voters=len(votes),
        method=method,
        runner_up=_name(runner_up) if runner_up else None,
        runner_up_cards=len(runner_up),
        examples=tuple(heapq.nsmallest(3, (card for card, _ in winner))),
    )


NEWER_MIN_CARDS: Final = 3
NEWER_MIN_SHARE: Final = 0.25
"""A name printed only on newer printings than the most voted one wins with this many cards,
and this share of the most voted name's."""


def _ranked(votes: dict[str, Ballot]) -> list[list[tuple[str, Ballot]]]:
    """The cards' ballots grouped by name, the winner first (see ``tally``)."""
    by_key: dict[str, list[tuple[str, Ballot]]] = defaultdict(list)
    for card, ballot in votes.items():
        by_key[ballot.key].append((card, ballot))
    newest = {key: max(ballot.released for _, ballot in by_key[key]) for key in by_key}

    def rank(key: str) -> tuple[int, str, str]:
        return (len(by_key[key]), newest[key], _reverse(key))

    ranked = sorted(by_key, key=rank, reverse=True)
    # A translation that changed: a name whose cards are all older than another's newest
    # ones loses to it, if that one has votes enough (Portuguese Reinforce, "Reforçar" on 7
    # cards of 2008, "Fortalecer" on 3 of 2021 since Kicker took "Reforçar").
    top = len(by_key[ranked[0]])
    enough = [
        key for key in ranked if len(by_key[key]) >= max(NEWER_MIN_CARDS, NEWER_MIN_SHARE * top)
    ]
    current = max(enough, key=lambda key: newest[key], default=ranked[0])
    if newest[current] > newest[ranked[0]]:
        ranked.remove(current)
        ranked.insert(0, current)
    return [by_key[key] for key in ranked]


def _name(ballots: list[tuple[str, Ballot]]) -> str:
    """The name a group of ballots (one name, case-folded) is shown by."""
    return display_form(ballot.form for _, ballot in ballots)


def _reverse(text: str) -> str:
    return "".join(chr(0x10FFFF - ord(character)) for character in text)
