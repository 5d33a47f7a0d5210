"""One pass over the samples, and the names of every miner, merged."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from kb.mining.actions import Contrast
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


def mine(samples: Iterable[Sample], minimum: int = MIN_CARDS) -> Mined:
    """Every name with at least ``minimum`` voting cards. A keyword action is named by
    contrast; a keyword ability by its lines, or by contrast where its lines name nothing."""
    lines, contrast, types = KeywordLines(), Contrast(), TypeLines()
    for sample in samples:
        lines.add(sample)
        contrast.add(sample)
        types.add(sample)
    actions = frozenset(contrast.actions())
    by_key = {(name.mechanic, name.locale): name for name in lines.results(minimum)}
    for name in contrast.results(minimum):
        key = (name.mechanic, name.locale)
        if name.mechanic in actions or key not in by_key:
            by_key[key] = name
    return Mined(
        mechanics=tuple(by_key[key] for key in sorted(by_key)),
        types=tuple(types.results(minimum)),
        actions=actions,
    )
