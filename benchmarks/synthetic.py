"""A seeded synthetic corpus in Scryfall's bulk formats, at the size of today's game.

``python -m benchmarks.synthetic OUT [--cards 30000] [--seed 1] [--jsonl]`` writes
``OUT/cards.json`` (one card object per card and language: names in all 11 locales) and
``OUT/rulings.json`` (about two ruling links per card; mechanic rulings shared across dozens of
cards) as JSON arrays, as Scryfall's older bulk files are; with ``--jsonl``, ``OUT/cards.jsonl``
and ``OUT/rulings.jsonl`` as JSON Lines, as Scryfall publishes them since 2026-07-20. The same
seed always makes the same bytes, and the same objects in either form.
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

SCRYFALL_LANGS = ("en", "de", "fr", "it", "es", "pt", "ja", "ko", "ru", "zhs", "zht")
# Letters each language's names are drawn from, so names look (and collate) like the real ones.
ALPHABETS = {
    "en": "abcdefghiklmnoprstuvwy",
    "de": "abcdefghiklmnoprstuvwzäöüß",
    "fr": "abcdefghilmnoprstuvéèêàç",
    "it": "abcdefgilmnoprstuvzàèò",
    "es": "abcdefghilmnoprstuvñáéó",
    "pt": "abcdefghilmnoprstuvãõçáé",
    "ja": "あいうえおかきくけこさしすせそたちつてとなにぬねの光影炎氷竜",
    "ko": "가나다라마바사아자차카타파하",
    "ru": "абвгдежзиклмнопрстуфхцчшыэюя",
    "zhs": "龙火影光风水石剑王神魔兽灵战",
    "zht": "龍火影光風水石劍王神魔獸靈戰",
}
WORDS = [
    "the",
    "spell",
    "ability",
    "creature",
    "target",
    "player",
    "card",
    "battlefield",
    "token",
    "copy",
    "counter",
    "damage",
    "controller",
    "mana",
    "cost",
    "mode",
    "effect",
    "turn",
    "graveyard",
    "hand",
    "library",
    "exile",
    "permanent",
    "trigger",
    "resolve",
    "choose",
    "pay",
    "additional",
    "value",
    "power",
    "toughness",
    "attack",
    "block",
    "combat",
]
MECHANICS = 120
RULINGS_PER_MECHANIC = 4
LINKS_PER_CARD = 2


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def _name(rng: random.Random, lang: str) -> str:
    alphabet = ALPHABETS[lang]
    if lang in ("ja", "ko", "zhs", "zht"):
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 6)))
    words = ("".join(rng.choice(alphabet) for _ in range(rng.randint(3, 9))) for _ in range(2))
    return " ".join(word.capitalize() for word in words)


def _oracle_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def cards_and_rulings(
    count: int, seed: int
) -> Iterator[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """For each card: its card objects (one per language) and its ruling objects."""
    rng = random.Random(seed)
    mechanics = [f"Mechanic{index}" for index in range(MECHANICS)]
    general = {
        keyword: [
            f"{keyword}: " + _sentence(rng, rng.randint(15, 60))
            for _ in range(RULINGS_PER_MECHANIC)
        ]
        for keyword in mechanics
    }
    for index in range(count):
        oracle_id = _oracle_id(rng)
        keyword = rng.choice(mechanics) if rng.random() < 0.5 else None
        english = f"{_name(rng, 'en')} {index}"
        oracle_text = _sentence(rng, rng.randint(10, 40))
        if keyword:
            oracle_text = f"{keyword}\n{oracle_text}"
        base = {
            "object": "card",
            "oracle_id": oracle_id,
            "name": english,
            "layout": "normal",
            "mana_cost": f"{{{rng.randint(1, 6)}}}{{U}}",
            "type_line": "Creature — Synthetic",
            "oracle_text": oracle_text,
            "keywords": [keyword] if keyword else [],
            "set": "syn",
            "collector_number": str(index + 1),
        }
        objects = []
        for lang in SCRYFALL_LANGS:
            card = {"id": _oracle_id(rng), "lang": lang, **base}
            if lang != "en":
                card["printed_name"] = f"{_name(rng, lang)} {index}"
            objects.append(card)
        texts = []
        if keyword:
            texts.extend(rng.sample(general[keyword], LINKS_PER_CARD))
        while len(texts) < LINKS_PER_CARD:
            texts.append(_sentence(rng, rng.randint(15, 70)))
        rulings = [
            {
                "object": "ruling",
                "oracle_id": oracle_id,
                "source": rng.choice(("wotc", "wotc", "scryfall")),
                "published_at": (
                    f"20{rng.randint(10, 24)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
                ),
                "comment": text,
            }
            for text in texts
        ]
        yield objects, rulings


class _JsonArray:
    """Writes a JSON array one object a line, as Scryfall's bulk files are."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.first = True
        out.write("[")

    def write(self, item: dict[str, Any]) -> None:
        self.out.write("\n" if self.first else ",\n")
        self.out.write(json.dumps(item, ensure_ascii=False))
        self.first = False

    def close(self) -> None:
        self.out.write("\n]\n")


class _JsonLines:
    """Writes JSON Lines: one object a line, each line ended."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, item: dict[str, Any]) -> None:
        self.out.write(json.dumps(item, ensure_ascii=False))
        self.out.write("\n")

    def close(self) -> None:
        pass


def generate(out: Path, count: int, seed: int = 1, jsonl: bool = False) -> tuple[Path, Path]:
    """Write the corpus into ``out``: JSON arrays, or JSON Lines with ``jsonl``."""
    out.mkdir(parents=True, exist_ok=True)
    suffix = ".jsonl" if jsonl else ".json"
    cards_path, rulings_path = out / f"cards{suffix}", out / f"rulings{suffix}"
    writer = _JsonLines if jsonl else _JsonArray
    with (
        cards_path.open("w", encoding="utf-8") as cards_file,
        rulings_path.open("w", encoding="utf-8") as rulings_file,
    ):
        cards, rulings = writer(cards_file), writer(rulings_file)
        for objects, card_rulings in cards_and_rulings(count, seed):
            for card in objects:
                cards.write(card)
            for ruling in card_rulings:
                rulings.write(ruling)
        cards.close()
        rulings.close()
    return cards_path, rulings_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--cards", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jsonl", action="store_true", help="JSON Lines instead of arrays")
    args = parser.parse_args()
    for path in generate(args.out, args.cards, args.seed, args.jsonl):
        print(f"{path} ({path.stat().st_size / 1e6:.0f} MB)")


if __name__ == "__main__":
    main()
