"""The deterministic samples of ruling tags that tests/test_tagging_real.py judges.

Run as a script on a store of the real corpus to print the sampled tags that the judged files
do not hold yet, as lines to judge (docs/tagging.md):

    .venv/bin/python tests/tagging_sample.py sqlite:////tmp/tags/real.sqlite
"""

from __future__ import annotations

import hashlib
import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import Engine

from kb import schema
from kb.text import normalize

JUDGED = Path(__file__).resolve().parent / "tagging"
PRECISION = JUDGED / "precision.tsv"
"""Tags the store shows, each judged: y (the ruling is about the mechanic) or n."""
RECALL = JUDGED / "recall.tsv"
"""True tags (judged y) sampled from the tags kb showed before issue 20: they must stay."""
SAMPLE_SIZE = 220
PER_MECHANIC = 6


def order(slug: str, text: str) -> str:
    """A tag's place in the sample: a hash, so the sample is spread and stable."""
    return hashlib.sha256(f"{slug}\n{normalize(text)}".encode()).hexdigest()


def shown_tags(engine: Engine) -> set[tuple[str, str]]:
    """Every (mechanic slug, ruling text) tag in the store."""
    query = (
        select(schema.mechanics.c.slug, schema.rulings.c.text)
        .select_from(schema.ruling_mechanics)
        .join(schema.mechanics)
        .join(schema.rulings)
    )
    with engine.connect() as connection:
        return {(slug, text) for slug, text in connection.execute(query)}


def sample(tags: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """The first SAMPLE_SIZE tags in hash order, at most PER_MECHANIC of one mechanic."""
    taken: list[tuple[str, str]] = []
    per_mechanic: Counter[str] = Counter()
    for slug, text in sorted(tags, key=lambda tag: order(*tag)):
        if per_mechanic[slug] < PER_MECHANIC:
            per_mechanic[slug] += 1
            taken.append((slug, text))
            if len(taken) == SAMPLE_SIZE:
                break
    return taken


def read_judged(path: Path) -> dict[tuple[str, str], bool]:
    """verdict, slug and ruling text, tab-separated, one tag a line; # starts a comment."""
    judged: dict[tuple[str, str], bool] = {}
    for line in path.read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            verdict, slug, text = line.split("\t", 2)
            judged[slug, normalize(text)] = {"y": True, "n": False}[verdict]
    return judged


if __name__ == "__main__":
    from kb.engine import make_engine

    judged = read_judged(PRECISION) if PRECISION.exists() else {}
    for slug, text in sample(shown_tags(make_engine(sys.argv[1]))):
        if (slug, normalize(text)) not in judged:
            print(f"?\t{slug}\t{text}")
