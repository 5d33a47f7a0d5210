"""One pass over the samples, and the names of every miner, merged."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from kb.mining.actions import Contrast, actions
from kb.mining.keywords import KeywordLines
from kb.mining.samples import Sample
from kb.mining.types import TypeLines
from kb.mining.votes import MinedName

MIN_CARDS: Final = 3
"""A name needs this many voting cards: fewer is an anecdote, not a vote."""


@dataclass(frozen=True, slots=True)
class Mined:
    mechanics: tuple[MinedName, ...]
    """Keywords: one name per keyword and locale, sorted."""
    types: tuple[MinedName, ...]
    """Card types, supertypes and subtypes: one name per type and locale, sorted."""
    actions: frozenset[str]
    """The keywords taken for actions (named by contrast)."""


@dataclass(frozen=True, slots=True)
class Found:
    """What each miner found in some locales' samples, before they are merged."""

    lines: list[MinedName]
    contrast: list[MinedName]
    types: list[MinedName]


@dataclass(slots=True)
class Miners:
    """The three miners. Each one's votes are per locale: miners that see some locales each
    find what one would find in all of them, but for the keywords the contrast takes for
    actions, which count each card once in any locale (``Contrast.firsts``)."""

    lines: KeywordLines = field(default_factory=KeywordLines)
    contrast: Contrast = field(default_factory=Contrast)
    types: TypeLines = field(default_factory=TypeLines)

    def add(self, sample: Sample, position: int) -> None:
        self.lines.add(sample)
        self.contrast.add(sample, position)
        self.types.add(sample)

    def found(self, actions: frozenset[str], minimum: int) -> Found:
        return Found(
            self.lines.results(minimum),
            self.contrast.results(actions, minimum),
            self.types.results(minimum),
        )


def mine(
    samples: Iterable[Sample],
    minimum: int = MIN_CARDS,
    also_actions: frozenset[str] = frozenset(),
) -> Mined:
    """Every name with at least ``minimum`` voting cards. A keyword action is named by
    contrast; a keyword ability by its lines, or by contrast where its lines name nothing.
    ``also_actions`` are taken for actions whatever their lines (keyword actions that start a
    line: "Counter target spell.")."""
    miners = Miners()
    for position, sample in enumerate(samples):
        miners.add(sample, position)
    taken = actions(miners.contrast.firsts, also_actions)
    return merged([miners.found(taken, minimum)], taken)


def merged(founds: list[Found], actions: frozenset[str]) -> Mined:
    """What miners of different locales found, as one: the contrast's name for an action, or
    where the lines have none."""
    by_key = {(name.mechanic, name.locale): name for found in founds for name in found.lines}
    for found in founds:
        for name in found.contrast:
            key = (name.mechanic, name.locale)
            if name.mechanic in actions or key not in by_key:
                by_key[key] = name
    types = [name for found in founds for name in found.types]
    return Mined(
        mechanics=tuple(by_key[key] for key in sorted(_without_borrowed(by_key))),
        types=tuple(sorted(types, key=lambda name: (name.mechanic, name.locale))),
        actions=actions,
    )


def _without_borrowed(by_key: dict[tuple[str, str], MinedName]) -> set[tuple[str, str]]:
    """The keys but those of a keyword named as the shorter keyword it extends: Japanese
    "Hexproof from black" prints 黒からの呪禁, and its lines name Hexproof from 呪禁, Hexproof's
    own name; German prints "Fluchsicher vor Schwarz", and names it "Fluchsicher vor". Such a
    name is not the keyword's own, and two mechanics of one name would read as one."""
    named: dict[tuple[str, str], set[str]] = {}
    for (mechanic, locale), name in by_key.items():
        named.setdefault((locale, name.name.casefold()), set()).add(mechanic.casefold())
    return {
        (mechanic, locale)
        for (mechanic, locale), name in by_key.items()
        if not any(
            mechanic.casefold().startswith(f"{shorter} ")
            for shorter in named[(locale, name.name.casefold())]
        )
    }
