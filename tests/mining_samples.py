"""Samples the miner's tests share: a sample written as text, the names mined from samples,
and small cards that scry, that counter, and that do neither (English, German, Japanese)."""

from __future__ import annotations

from kb.mining.mine import mine
from kb.mining.samples import Sample


def sample(
    card: str,
    keywords: tuple[str, ...],
    english: str,
    localized: str,
    locale: str = "de",
    released: str = "2020-01-01",
    english_type: str | None = None,
    localized_type: str | None = None,
) -> Sample:
    return Sample(
        card=card,
        keywords=keywords,
        locale=locale,
        english=tuple(english.split("\n")),
        localized=tuple(localized.split("\n")),
        english_type=english_type,
        localized_type=localized_type,
        released=released,
    )


def names(samples: list[Sample], minimum: int = 1) -> dict[tuple[str, str], str]:
    return {(n.mechanic, n.locale): n.name for n in mine(samples, minimum).mechanics}


SCRY = [  # English, German, Japanese
    (
        "When A enters, scry 2.",
        "Wenn A ins Spiel kommt, Hellsicht 2.",
        "Aが戦場に出たとき、占術2を行う。",
    ),
    (
        "Scry 1, then draw a card.",
        "Hellsicht 1, dann ziehe eine Karte.",
        "占術1を行い、カードを1枚引く。",
    ),
    (
        "Draw a card, then scry 2.",
        "Ziehe eine Karte, dann Hellsicht 2.",
        "カードを1枚引き、占術2を行う。",
    ),
    ("Scry 3.", "Hellsicht 3.", "占術3を行う。"),
]
OTHER = [
    ("Draw a card.", "Ziehe eine Karte.", "カードを1枚引く。"),
    (
        "When A enters, draw a card.",
        "Wenn A ins Spiel kommt, ziehe eine Karte.",
        "Aが戦場に出たとき、カードを1枚引く。",
    ),
    (
        "Destroy target creature.",
        "Zerstöre eine Kreatur deiner Wahl.",
        "クリーチャー1体を対象とし、それを破壊する。",
    ),
]


COUNTER = [  # English, German: the action starts most of its cards' lines
    ("Counter target spell.", "Neutralisiere einen Zauberspruch deiner Wahl."),
    ("Counter target creature spell.", "Neutralisiere einen Kreaturenzauber deiner Wahl."),
    ("Counter target ability.", "Neutralisiere eine Fähigkeit deiner Wahl."),
    ("Draw a card, then counter target spell.", "Ziehe eine Karte, dann neutralisiere ..."),
]


def counter_samples() -> list[Sample]:
    """Four cards that counter (MTGJSON lists no keyword for it: the store gives them Counter
    from their Oracle texts) and three that do not."""
    return [
        sample(f"{kind}{index}", keywords, english, german)
        for kind, keywords, rows in (
            ("C", ("Counter",), COUNTER),
            ("O", (), [(english, german) for english, german, _ in OTHER]),
        )
        for index, (english, german) in enumerate(rows)
    ]
