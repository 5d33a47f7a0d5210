"""The tags of the real corpus, measured against hand-judged samples (docs/tagging.md): the
precision of the tags shown, the true tags of before that stay, and the noisiest mechanics'
counts. SQLite only: the corpus takes a minute to import, and the tagging does not depend on
the engine (tests/test_tagging_store.py runs it on both)."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from realdata import realdata
from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from tagging_sample import PRECISION, RECALL, read_judged, sample, shown_tags

from kb import schema
from kb.engine import make_engine
from kb.importing import run_import
from kb.site.data import load_index
from kb.tagging import RULES_VOCABULARY
from kb.text import normalize

pytestmark = pytest.mark.realdata

# Tags on the real corpus (MTGJSON sets of May 2022 and the rules of 2022-04-29) before issue 20
# §5 (commit 046c9a6) and now; docs/tagging.md shows the same table.
BEFORE_AFTER = {
    "cast": (2840, 0),
    "activate": (934, 0),
    "counter": (891, 593),
    "sacrifice": (775, 0),
    "exile": (652, 0),
    "flying": (241, 211),
    "indestructible": (228, 156),
    "double": (156, 80),
    "transform": (91, 129),
    "partner": (88, 22),
    "partner-with": (76, 12),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Iterator[Engine]:
    store = tmp_path_factory.mktemp("real") / "kb.sqlite"
    shutil.copy(migrated_sqlite, store)
    engine = make_engine(f"sqlite:///{store}")
    sets = realdata("mtgjson-sets-2022-05")
    run_import(engine, [sets, realdata("MagicCompRules_20220429.txt")])
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def tags(engine: Engine) -> set[tuple[str, str]]:
    return {(slug, normalize(text)) for slug, text in shown_tags(engine)}


def test_the_tags_shown_are_precise(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    judged = read_judged(PRECISION)
    sampled = [(slug, normalize(text)) for slug, text in sample(shown_tags(engine))]
    unjudged = [tag for tag in sampled if tag not in judged]
    assert not unjudged, (
        f"{len(unjudged)} sampled tags are not judged in {PRECISION.name}: print them with "
        "`.venv/bin/python tests/tagging_sample.py URL`, judge them, add them (docs/tagging.md)"
    )
    right = sum(judged[tag] for tag in sampled)
    mechanics = len({slug for slug, _ in sampled})
    with capsys.disabled():
        print(f"\nprecision: {right}/{len(sampled)} tags of {mechanics} mechanics right")
    assert len(sampled) >= 150 and mechanics >= 80
    assert right / len(sampled) >= 0.95


def test_the_true_tags_of_before_stay(
    tags: set[tuple[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    judged = read_judged(RECALL)
    true = [tag for tag, right in judged.items() if right]
    kept = [tag for tag in true if tag in tags]
    false_kept = [tag for tag, right in judged.items() if not right and tag in tags]
    with capsys.disabled():
        print(
            f"\nrecall: {len(kept)}/{len(true)} true tags of before kept; "
            f"{len(false_kept)}/{len(judged) - len(true)} false ones still shown"
        )
    assert len(true) >= 50
    assert len(kept) / len(true) >= 0.95


def test_the_noisiest_mechanics_tag_as_documented(engine: Engine) -> None:
    query = (
        select(schema.mechanics.c.slug, func.count(schema.ruling_mechanics.c.ruling_id))
        .select_from(schema.mechanics)
        .outerjoin(schema.ruling_mechanics)
        .group_by(schema.mechanics.c.slug)
    )
    with engine.connect() as connection:
        counts = Counter({slug: n for slug, n in connection.execute(query)})
    assert {slug: counts[slug] for slug in BEFORE_AFTER} == {
        slug: after for slug, (_, after) in BEFORE_AFTER.items()
    }


def test_the_vocabulary_keeps_its_mechanics_and_rules(engine: Engine) -> None:
    query = select(schema.mechanics.c.slug, schema.mechanics.c.rule, schema.mechanics.c.pattern)
    with engine.connect() as connection:
        rows = connection.execute(query.where(schema.mechanics.c.slug.in_(RULES_VOCABULARY)))
        vocabulary = {slug: (rule, pattern) for slug, rule, pattern in rows}
    assert set(vocabulary) == RULES_VOCABULARY
    assert all(rule and rule.startswith("701.") for rule, _ in vocabulary.values())
    assert all(pattern is None for _, pattern in vocabulary.values())


def test_keyword_actions_no_card_lists_are_named_from_the_oracle_texts(engine: Engine) -> None:
    """MTGJSON lists Scry and Mill on cards, never Counter or Regenerate: the miner takes the
    cards whose Oracle text says them in the rule's sense (docs/mining.md), where 100 do."""
    query = (
        select(
            schema.mechanics.c.slug, schema.mechanic_names.c.locale, schema.mechanic_names.c.name
        )
        .join(schema.mechanics)
        .where(
            schema.mechanics.c.slug.in_(["counter", "regenerate", "double"]),
            schema.mechanic_names.c.locale != "en",
        )
    )
    with engine.connect() as connection:
        named = {(slug, locale): name for slug, locale, name in connection.execute(query)}
    # As the cards print them (imperatives), with the printing that the store keeps:
    assert named[("counter", "de")] == "Neutralisiere"  # Cancel, M21 46: "Neutralisiere einen"
    assert named[("counter", "fr")] == "Contrecarrez"  # Cancel, M21 46: "Contrecarrez le sort"
    assert named[("counter", "zh-Hans")] == "反击"  # Cancel, M21 46: "反击目标咒语。"
    assert named[("counter", "ja")] == "打ち消す"  # Cancel, M21 46: "それを打ち消す。"
    assert named[("regenerate", "de")] == "Regeneriere"  # Regenerate, M10 202
    assert named[("regenerate", "ja")] == "再生"  # Regenerate, M10 202: "それを再生する"
    assert len([key for key in named if key[0] == "counter"]) == 10
    # Double is said on 58 cards: too few for the contrast to tell its name (docs/mining.md).
    assert not [key for key in named if key[0] == "double"]


def test_the_cards_of_a_keyword_action_no_card_lists_are_on_its_page(engine: Engine) -> None:
    """Counter's and Regenerate's cards are read in their Oracle texts (docs/tagging.md, "How a
    card is tagged"), and the mechanic pages list them: before, they listed none."""
    with engine.connect() as connection:
        index = load_index(connection)
        origins = Counter(
            connection.execute(
                select(schema.mechanics.c.slug, schema.card_mechanics.c.origin)
                .join(schema.mechanics)
                .where(schema.mechanics.c.slug.in_(["counter", "regenerate", "scry"]))
            ).all()
        )
    names = {card.id: card.name for card in index.cards}
    counter = {names[card_id] for card_id in index.mechanics["counter"].card_ids}
    assert {"Cancel", "Counterspell", "Negate"} <= counter
    assert "Hardened Scales" not in counter  # "+1/+1 counter": the noun
    assert origins == {
        ("counter", "text"): 494,
        ("regenerate", "text"): 420,
        ("scry", "listed"): 260,  # as MTGJSON lists it
        ("scry", "text"): 3,  # said, but not listed
    }
