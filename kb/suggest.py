"""Close matches for a name nobody stored: what kb import and kb card suggest instead."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence

SUGGESTIONS = 3
"""Names suggested at most."""
CUTOFF = 0.6
"""How alike (difflib's ratio) a name must be to be suggested."""


def close_names(
    name: str, names: Iterable[str], key: Callable[[str], str] | None = None
) -> list[str]:
    """The names closest to ``name``, best first (difflib's ratio; ties by name, so the order
    ``names`` come in does not matter). ``key``: compare the names so folded (case and
    accents, say); each folded form is suggested as the first of its names in sorted order."""
    if key is None:
        return difflib.get_close_matches(name, set(names), n=SUGGESTIONS, cutoff=CUTOFF)
    originals: dict[str, str] = {}
    for original in sorted(set(names)):
        originals.setdefault(key(original), original)
    folded = difflib.get_close_matches(key(name), originals, n=SUGGESTIONS, cutoff=CUTOFF)
    return [originals[match] for match in folded]


def did_you_mean(close: Sequence[str]) -> str:
    """`` (did you mean 'A', 'B'?)``, or nothing when there is no close name."""
    return f" (did you mean {', '.join(repr(n) for n in close)}?)" if close else ""
