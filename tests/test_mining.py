"""The miner on small samples written here: each case of docs/mining.md on its own."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.mining.actions import MIN_CONTRAST_CARDS, occurrences
from kb.mining.mine import mine
from kb.mining.packed import PackedTexts
from kb.mining.samples import (
    PrintedRow,
    Sample,
    english_lines,
    from_mtgjson_sets,
    from_printed_rows,
)
from kb.mining.text import name_part, without_reminder
from kb.mining.votes import Ballots


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


def contrasted(
    keyword: str, having: list[tuple[str, str]], others: list[tuple[str, str]], locale: str
) -> dict[tuple[str, str], str]:
    """The names mined from cards that have ``keyword`` and cards that do not, each an English
    text and its translation into ``locale``."""
    samples = [
        sample(f"{kind}{index}", keywords, english, localized, locale=locale)
        for kind, keywords, rows in (("K", (keyword,), having), ("O", (), others))
        for index, (english, localized) in enumerate(rows)
    ]
    return names(samples, minimum=3)


def test_cost_and_reminder_text_are_cut_off() -> None:
    assert name_part(without_reminder("Umwandlung {2} ({2}, wirf diese Karte ab: Ziehe.)")) == (
        "Umwandlung"
    )
    assert name_part("Bushido 1") == "Bushido"
    assert name_part("Abwehr—Bezahle 3 Lebenspunkte.") == "Abwehr"
    assert without_reminder("絆魂（このクリーチャーが（ダメージ）を与えると…）") == "絆魂"


def test_a_keyword_line_names_the_keyword_with_evidence() -> None:
    samples = [
        sample("A", ("Cycling",), "Cycling {2}", "Umwandlung {2}"),
        sample(
            "B",
            ("Cycling",),
            "Draw a card.\nCycling {1}{U}",
            "Ziehe eine Karte.\nUmwandlung {1}{U}",
        ),
        sample(
            "C", ("Cycling",), "Cycling {3} ({3}, Discard this card: Draw a card.)", "Wandlung {3}"
        ),
    ]
    (mined,) = mine(samples, minimum=1).mechanics
    assert (mined.mechanic, mined.locale, mined.name) == ("Cycling", "de", "Umwandlung")
    assert (mined.cards, mined.voters, round(mined.share, 2)) == (2, 3, 0.67)
    assert (mined.runner_up, mined.runner_up_cards, mined.examples) == ("Wandlung", 1, ("A", "B"))


def test_a_list_of_keywords_aligns_part_by_part() -> None:
    samples = [
        sample("A", ("Flying", "Vigilance"), "Flying, vigilance", "Fliegend, Wachsamkeit"),
        sample("B", ("Flying", "Haste"), "Flying, haste", "Vol, célérité", locale="fr"),
        sample("C", ("Flying", "Vigilance"), "Flying, vigilance", "飛行、警戒", locale="ja"),
    ]
    assert names(samples) == {
        ("Flying", "de"): "Fliegend",
        ("Vigilance", "de"): "Wachsamkeit",
        ("Flying", "fr"): "Vol",
        ("Haste", "fr"): "Célérité",
        ("Flying", "ja"): "飛行",
        ("Vigilance", "ja"): "警戒",
    }


def test_a_line_whose_counts_differ_only_aligns_its_first_line() -> None:
    samples = [
        sample("A", ("Flying", "Haste"), "Flying\nHaste", "Fliegend Eile"),
        sample("B", ("Haste",), "Haste\nDraw a card.", "Eile (Sofort.)Ziehe eine Karte."),
    ]
    assert names(samples) == {("Flying", "de"): "Fliegend Eile", ("Haste", "de"): "Eile"}


def test_a_keyword_with_an_object_is_named_by_what_its_lines_share() -> None:
    enchant = [
        (
            "Enchant creature",
            "Verzaubert eine Kreatur",
            "생물 부여",
            "エンチャント（クリーチャー）",
        ),
        ("Enchant land", "Verzaubert ein Land", "대지 부여", "エンチャント（土地）"),
        (
            "Enchant artifact",
            "Verzaubert ein Artefakt",
            "마법물체 부여",
            "エンチャント（アーティファクト）",
        ),
        (
            "Enchant player",
            "Verzaubert einen Spieler",
            "플레이어 부여",
            "エンチャント（プレイヤー）",
        ),
    ]
    samples = [
        sample(f"E{index}", ("Enchant",), english, text, locale=locale)
        for index, (english, *texts) in enumerate(enchant)
        for locale, text in zip(("de", "ko", "ja"), texts, strict=True)
    ]
    protection = [("red", "Rot"), ("black", "Schwarz"), ("artifacts", "Artefakte")]
    samples += [
        sample(f"P{word}", ("Protection",), f"Protection from {word}", f"Schutz vor {german}")
        for word, german in protection
    ]
    assert names(samples) == {
        ("Enchant", "de"): "Verzaubert",
        # Korean puts the object first: the name is what the lines end with.
        ("Enchant", "ko"): "부여",
        ("Enchant", "ja"): "エンチャント",
        # "from" is in the object: "vor" is not in the name.
        ("Protection", "de"): "Schutz",
    }


def test_an_ability_word_whose_dash_was_lost_is_not_taken_for_an_object() -> None:
    samples = [
        sample("K", ("Kinship",), f"Kinship At the beginning of your upkeep, look {n}.", text)
        for n, text in enumerate(
            ["Verwandtschaft Zu Beginn schau.", "Verwandtschaft Zu Beginn sieh."]
        )
    ]
    assert names(samples) == {}


def test_a_changed_translation_ties_to_the_newer_printings() -> None:
    samples = [
        sample("Old", ("Trample",), "Trample", "Trampelschaden", released="1995-01-01"),
        sample("New", ("Trample",), "Trample", "Verursacht Trampelschaden", released="2021-01-01"),
    ]
    assert names(samples) == {("Trample", "de"): "Verursacht Trampelschaden"}
    samples.append(sample("Old2", ("Trample",), "Trample", "Trampelschaden", released="1996-01-01"))
    assert names(samples) == {("Trample", "de"): "Trampelschaden"}


def test_a_changed_translation_wins_with_three_newer_cards_and_a_quarter_of_the_votes() -> None:
    """Portuguese Reinforce was "Reforçar" (2008), then "Fortalecer" (2021), Kicker's name
    being "Reforçar" by then."""

    def cards(count: int, name: str, released: str) -> list[Sample]:
        return [
            sample(f"{name} {n}", ("Reinforce",), "Reinforce 1", f"{name} 1", "pt-BR", released)
            for n in range(count)
        ]

    def winner(old: int, new: int) -> str:
        found = cards(old, "Reforçar", "2008-02-01") + cards(new, "Fortalecer", "2021-06-18")
        return names(found)[("Reinforce", "pt-BR")]

    assert winner(7, 3) == "Fortalecer"
    assert winner(7, 2) == "Reforçar"  # too few cards to tell a new translation
    assert winner(13, 3) == "Reforçar"  # fewer than a quarter of the old name's
    assert winner(12, 3) == "Fortalecer"


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


def test_an_action_inside_sentences_is_named_by_contrast() -> None:
    samples = [
        sample(f"{kind}{index}", keywords, english, text, locale=locale)
        for kind, keywords, rows in (("S", ("Scry",), SCRY), ("O", (), OTHER))
        for index, (english, *texts) in enumerate(rows)
        for locale, text in zip(("de", "ja"), texts, strict=True)
    ]
    mined = mine(samples, minimum=3)
    assert mined.actions == {"Scry"}
    by_key = {(n.mechanic, n.locale): n for n in mined.mechanics}
    assert {key: n.name for key, n in by_key.items()} == {
        ("Scry", "de"): "Hellsicht",
        # Japanese puts the verb last ("占術2を行う"): the name is the run with no hiragana.
        ("Scry", "ja"): "占術",
    }
    assert {n.method for n in by_key.values()} == {"contrast"}


def test_an_umbrella_said_only_inside_a_longer_keyword_is_not_named() -> None:
    """MTGJSON lists Landcycling beside Basic landcycling: no card says the umbrella alone, so
    the contrast has no card that votes for it (it named it "Básicas" in Spanish)."""
    basic = [
        sample(
            f"B{index}",
            ("Basic landcycling", "Landcycling"),
            f"Flying\nBasic landcycling {{{index}}}",
            f"Fliegend\nStandardlandumwandlung {{{index}}}",
        )
        for index in range(1, 5)
    ]
    others = [sample(f"O{index}", (), e, de) for index, (e, de, _ja) in enumerate(OTHER)]
    mined = mine(basic + others, minimum=3)
    assert "Landcycling" not in mined.actions  # no card says it
    assert [(n.mechanic, n.locale, n.name, n.method) for n in mined.mechanics] == [
        ("Basic landcycling", "de", "Standardlandumwandlung", "line"),
    ]


def test_an_ability_word_old_printings_lack_is_named_by_its_lines() -> None:
    """MTGJSON lists Domain on old printings that print no ability word: only the cards whose
    English says the keyword tell whether it starts their lines (Spanish Domain was "Básica
    entre", of "tierra básica entre las tierras que controlas", when it was taken for an action)."""
    printed = [
        sample(
            f"N{index}",
            ("Domain",),
            f"Domain — A gets +{index}/+0 for each basic land type among lands you control.",
            f"Dominio — A obtiene +{index}/+0 por cada tipo de tierra básica entre tus tierras.",
            locale="es",
        )
        for index in range(1, 4)
    ]
    old = [
        sample(
            f"O{index}",
            ("Domain",),
            f"Draw {index} cards for each basic land type among lands you control.",
            f"Roba {index} cartas por cada tipo de tierra básica entre tus tierras.",
            locale="es",
        )
        for index in range(1, 5)
    ]
    mined = mine(printed + old, minimum=3)
    assert mined.actions == frozenset()
    assert [(n.mechanic, n.name, n.method) for n in mined.mechanics] == [
        ("Domain", "Dominio", "line")
    ]


def test_a_word_of_one_card_is_no_name() -> None:
    """Korean Meld was 쥐떼와 ("with the rat swarm"), on one of its cards: a word no other
    text holds outranked the name, which other texts hold too."""
    creatures = ("Ratten", "Ghoule", "Engel", "Zombies")
    having = [("Then meld them.", f"Verschmilz {name}.") for name in creatures]
    others = [("Draw a card.", "Ziehe eine Karte, verschmilz.")] * 12
    assert contrasted("Meld", having, others, "de") == {("Meld", "de"): "Verschmilz"}


def test_three_cards_of_one_sentence_name_nothing_by_contrast() -> None:
    """Meld's three cards say one sentence, each of whose words is on all three: Italian named
    it "Se possiedi" ("if you own"). Contrast needs MIN_CONTRAST_CARDS."""
    sentence = "Se possiedi e controlli A e B, esiliali, poi combinali in {}."
    having = [
        ("If you own A and B, exile them, then meld them.", sentence.format(name)) for name in "XYZ"
    ]
    others = [("Draw a card.", "Pesca una carta.")] * 12
    assert MIN_CONTRAST_CARDS == 4
    assert contrasted("Meld", having, others, "it") == {}
    fourth = ("If you own C and D, exile them, then meld them.", sentence.format("W"))
    assert contrasted("Meld", [*having, fourth], others, "it") != {}


def test_a_word_counts_elsewhere_as_a_whole_word() -> None:
    """French Fight is printed "se bat": "se" is a word of many other texts, "bat" of none
    ("bataille" holds the letters, not the word), so "bat" names it. Counted as letters, "bat"
    stood as often elsewhere as "se", and the import named Fight "Se"."""
    fights = [
        ("A fights B.", "A se bat contre B."),
        ("C fights D.", "C se bat contre D."),
        ("E fights F.", "E se bat contre F."),
        ("Two creatures fight each other.", "Deux créatures se battent."),
    ]
    others = [("Untap it.", "Elle se dégage contre la bataille, de la bataille.")] * 30
    assert occurrences("se bat, chose, bataille, se", "se", "fr") == 2
    assert occurrences("se bat, chose, bataille, se", "bat", "fr") == 1
    assert occurrences("se bat, puis se bat", "se bat", "fr") == 2
    assert occurrences("格闘を行う。格闘", "格闘", "ja") == 2
    assert contrasted("Fight", fights, others, "fr") == {("Fight", "fr"): "Bat"}


FIGHT = [  # English, German: "gegen" stands on every card, "kämpft" on three of four
    ("Target creature you control fights target creature.", "Kreatur A kämpft gegen Kreatur B."),
    ("When A enters, it fights up to one target creature.", "Wenn A kommt, kämpft A gegen B."),
    ("A fights another target creature.", "A kämpft gegen eine andere Kreatur deiner Wahl."),
    ("Two target creatures fight each other.", "Zwei Kreaturen kämpfen gegen einander."),
]


def test_a_lone_preposition_is_no_name() -> None:
    others = [(english, german) for english, german, _ in OTHER]
    assert contrasted("Fight", FIGHT, others, "de") == {("Fight", "de"): "Kämpft"}


EXPLORE = [  # English, Simplified Chinese as printed (XLN 191, RIX 15, RIX 55, XLN 216): 令它勘察
    ("When A enters, it explores.", "当日升探寻者进战场时，令它勘察。"),
    ("When B enters, it explores.", "当女王密探进战场时，令它勘察。"),
    ("When C enters, it explores.", "当莽霸联盟海贼进战场时，令它勘察。"),
    (
        "Whenever a creature you control explores, you gain 3 life.",
        "每当一个由你操控的生物勘察时，你获得3点生命。",
    ),
]
CHINESE_OTHER = [
    ("When D enters, draw a card.", "当D进战场时，抓一张牌。"),
    ("When E enters, destroy target creature.", "当E进战场时，消灭目标生物。"),
    ("When F enters, you gain 2 life.", "当F进战场时，你获得2点生命。"),
    ("When G enters, scry 1.", "当G进战场时，占卜1。"),
]


def test_a_chinese_name_is_not_run_together_with_a_pronoun() -> None:
    """Every candidate is on all the cards; a tie went to the run that sorts last (它勘)."""
    mined = contrasted("Explore", EXPLORE, CHINESE_OTHER, "zh-Hans")
    assert mined == {("Explore", "zh-Hans"): "勘察"}


KOREAN_EXPLORE = [  # as printed (XLN 191, RIX 15): "... 탐험을 한다" (it does an exploring)
    ("When A enters, it explores.", "일출 추적자가 전장에 들어올 때, 일출 추적자는 탐험을 한다."),
    (
        "When B enters, it explores.",
        "여왕의 대리인이 전장에 들어올 때, 여왕의 대리인은 탐험을 한다.",
    ),
    ("Whenever C attacks, it explores.", "C가 공격할 때마다, C는 탐험을 한다."),
    (  # XLN 216
        "Whenever a creature you control explores, you gain 3 life.",
        "당신이 조종하는 생물이 탐험을 할 때마다, 당신은 생명 3점을 얻는다.",
    ),
]
KOREAN_OTHER = [
    ("When D enters, draw a card.", "D가 전장에 들어올 때, 카드 한 장을 뽑는다."),
    ("Destroy target creature.", "생물 한 개를 목표로 정한다. 그 생물을 파괴한다."),
    ("When E enters, you gain 2 life.", "E가 전장에 들어올 때, 당신은 생명점 2점을 얻는다."),
]


def test_a_korean_action_is_named_without_its_ending_or_particle() -> None:
    mined = contrasted("Explore", KOREAN_EXPLORE, KOREAN_OTHER, "ko")
    assert mined == {("Explore", "ko"): "탐험"}


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


def test_an_action_that_starts_its_lines_is_named_by_contrast_when_told() -> None:
    samples = counter_samples()
    # Three lines of four start with "Counter": by its lines alone it is an ability, and the
    # name would be what those lines share with their objects.
    assert mine(samples, minimum=3).actions == frozenset()
    told = mine(samples, minimum=3, also_actions=frozenset({"Counter"}))
    assert told.actions == {"Counter"}
    assert [(n.mechanic, n.locale, n.name, n.method) for n in told.mechanics] == [
        ("Counter", "de", "Neutralisiere", "contrast")
    ]


JAPANESE_COUNTER = [  # as the cards print them (Cancel, M21 46: "それを打ち消す。")
    ("Counter target spell.", "呪文１つを対象とし、それを打ち消す。"),
    ("Counter target creature spell.", "クリーチャー・呪文１つを対象とし、それを打ち消す。"),
    ("Counter target activated ability.", "起動型能力１つを対象とし、それを打ち消す。"),
    (
        "Draw a card, then counter target spell.",
        "カードを１枚引く。その後、呪文１つを対象とし、それを打ち消す。",
    ),
]


def test_a_japanese_action_that_is_a_verb_is_named_with_its_okurigana() -> None:
    """Japanese candidates hold no hiragana (a particle, an inflection), but for a verb written
    with its okurigana, one kana after each kanji run: 打ち消す, not 呪文 ("spell")."""
    samples = [
        sample(f"{kind}{index}", keywords, english, japanese, locale="ja")
        for kind, keywords, rows in (
            ("C", ("Counter",), JAPANESE_COUNTER),
            ("O", (), [(english, japanese) for english, _, japanese in OTHER + SCRY]),
        )
        for index, (english, japanese) in enumerate(rows)
    ]
    told = mine(samples, minimum=3, also_actions=frozenset({"Counter"}))
    assert [(n.mechanic, n.locale, n.name) for n in told.mechanics] == [
        ("Counter", "ja", "打ち消す")
    ]


def test_types_and_subtypes_align_on_the_dash() -> None:
    samples = [
        sample(
            "A",
            (),
            "",
            "",
            english_type="Creature — Human Rogue",
            localized_type="Kreatur — Mensch, Räuber",
        ),
        sample(
            "B",
            (),
            "",
            "",
            english_type="Legendary Creature — Rogue",
            localized_type="Legendäre Kreatur — Räuber",
        ),
        sample("C", (), "", "", english_type="Creature — Human", localized_type="Kreatur — Mensch"),
        sample(
            "D",
            (),
            "",
            "",
            locale="ja",
            english_type="Legendary Creature — Human Rogue",
            localized_type="伝説のクリーチャー — 人間・ならず者",
        ),
        sample(
            "E",
            (),
            "",
            "",
            locale="ja",
            english_type="Creature — Rogue",
            localized_type="クリーチャー — ならず者",
        ),
        sample(
            "F",
            (),
            "",
            "",
            locale="fr",
            english_type="Creature — Human Rogue",
            localized_type="Créature : humain et gredin",
        ),
        # An old English type line beside a newer translation: a list names no one subtype.
        sample(
            "G",
            (),
            "",
            "",
            locale="ja",
            english_type="Creature — Legend",
            localized_type="クリーチャー — 人間・兵士",
        ),
    ]
    mined = {(n.mechanic, n.locale): n.name for n in mine(samples, minimum=1).types}
    assert mined == {
        ("Creature", "de"): "Kreatur",
        ("Human", "de"): "Mensch",
        ("Rogue", "de"): "Räuber",
        ("Legendary", "de"): "Legendäre",
        ("Creature", "ja"): "クリーチャー",
        ("Human", "ja"): "人間",
        ("Rogue", "ja"): "ならず者",
        ("Legendary", "ja"): "伝説の",
        ("Creature", "fr"): "Créature",
        ("Human", "fr"): "Humain",
        ("Rogue", "fr"): "Gredin",
    }


def test_a_subtype_of_two_words_aligns_as_one() -> None:
    def bat(card: str, localized_type: str, english_type: str = "Creature — Zombie Bat") -> Sample:
        return sample(
            card, (), "", "", locale="ru", english_type=english_type, localized_type=localized_type
        )

    samples = [
        bat("A", "Существо — Летучая мышь", "Creature — Bat"),
        bat("B", "Существо — Зомби", "Creature — Zombie"),
        bat("C", "Существо — Глаз Летучая мышь", "Creature — Eye Bat"),
        bat("D", "Существо — Зомби Летучая мышь"),
        # Words left over that no known name joins: no vote.
        bat("E", "Существо — Ночной Зомби Летучая", "Creature — Zombie Bat"),
    ]
    mined = {(n.mechanic, n.locale): (n.name, n.cards) for n in mine(samples, minimum=1).types}
    assert mined == {
        ("Creature", "ru"): ("Существо", 5),
        ("Bat", "ru"): ("Летучая мышь", 3),
        ("Zombie", "ru"): ("Зомби", 2),
        ("Eye", "ru"): ("Глаз", 1),
    }


def test_a_card_votes_once() -> None:
    ballots = Ballots()
    ballots.cast("Flying", "de", "A", "Fliegend", "2020-01-01")
    ballots.cast("Flying", "de", "A", "Fliegen", "2021-01-01")
    ballots.cast("Flying", "de", "B", "Fliegend", "2020-01-01")
    (mined,) = ballots.results("line")
    assert (mined.name, mined.cards, mined.voters) == ("Fliegend", 2, 2)


def test_english_lines_fall_back_on_the_oracle_text_when_only_its_lines_match() -> None:
    assert english_lines("Flying Haste", "Flying\nHaste", ("Fliegend", "Eile")) == (
        "Flying",
        "Haste",
    )
    assert english_lines("Flying\nHaste", "Flying", ("Fliegend", "Eile")) == ("Flying", "Haste")
    assert english_lines(None, "Flying", ("Fliegend",)) == ("Flying",)


def test_set_files_give_the_newest_printing_per_card_locale_and_face(tmp_path: Path) -> None:
    def card(text: str, number: str) -> dict[str, object]:
        return {
            "name": "Grizzly",
            "number": number,
            "keywords": ["Trample"],
            "originalText": "Trample",
            "text": "Trample",
            "type": "Creature — Bear",
            "foreignData": [
                {"language": "German", "text": text, "type": "Kreatur — Bär"},
                {"language": "Phyrexian", "text": "ignored"},
            ],
            "identifiers": {"scryfallOracleId": "oracle-1"},
        }

    for code, released, text in (
        ("OLD", "1999-01-01", "Trampelschaden"),
        ("NEW", "2021-01-01", "Verursacht Trampelschaden"),
    ):
        document = {"data": {"code": code, "releaseDate": released, "cards": [card(text, "7")]}}
        (tmp_path / f"{code}.json.gz").write_bytes(gzip.compress(json.dumps(document).encode()))
    (only,) = from_mtgjson_sets(tmp_path)
    assert (only.localized, only.printing, only.released) == (
        ("Verursacht Trampelschaden",),
        "NEW 7",
        "2021-01-01",
    )
    assert (only.english_type, only.localized_type) == ("Creature — Bear", "Kreatur — Bär")


def test_the_stores_printed_rows_are_samples() -> None:
    def row(locale: str, text: str | None, english: str | None) -> PrintedRow:
        return PrintedRow(
            card="Alpine Watchdog",
            keywords=("Vigilance",),
            locale=locale,
            text=text,
            type_line="Kreatur — Hund",
            english_text=english,
            english_type_line=None,
            oracle_text="Vigilance",
            oracle_type_line="Creature — Dog",
            released_on="2020-07-03",
            printing="M21 2",
        )

    rows = [
        row("de", "Wachsamkeit (Diese Kreatur wird beim Angreifen nicht getappt.)", None),
        row("en", "Vigilance", "Vigilance"),
        row("fr", None, None),
    ]
    german, french = from_printed_rows(rows)
    assert (german.english, german.localized[0][:11], german.english_type) == (
        ("Vigilance",),
        "Wachsamkeit",
        "Creature — Dog",
    )
    assert (french.localized, french.localized_type, french.printing) == (
        (),
        "Kreatur — Hund",
        "M21 2",
    )


def test_subtypes_in_another_order_align_by_the_single_ones_names() -> None:
    def typed(card: str, english: str, spanish: str) -> Sample:
        return sample(card, (), "", "", "es", english_type=english, localized_type=spanish)

    samples = [
        typed("A", "Creature — Human", "Criatura — Humano"),
        typed("B", "Creature — Human Wizard", "Criatura — Hechicero humano"),
        typed("C", "Creature — Merfolk Wizard", "Criatura — Hechicero tritón"),
    ]
    mined = {(n.mechanic, n.locale): n.name for n in mine(samples, minimum=1).types}
    assert mined == {
        ("Creature", "es"): "Criatura",
        ("Human", "es"): "Humano",
        ("Wizard", "es"): "Hechicero",
        # Neither known: in order, as printed (which is wrong here, on one card's vote).
        ("Merfolk", "es"): "Hechicero",
    }


@settings(max_examples=200, deadline=None)
@given(
    texts=st.lists(st.text(max_size=300), max_size=60),
    step=st.integers(min_value=1, max_value=70),
    more=st.lists(st.text(max_size=40), max_size=5),
)
def test_packed_texts_are_the_list_of_the_texts_appended(
    texts: list[str], step: int, more: list[str]
) -> None:
    """The contrast keeps every text compressed (kb.mining.packed): read back, the same texts
    as a list's, and texts may still be appended after a read."""
    packed = PackedTexts()
    for text in texts:
        packed.append(text)
    assert (len(packed), packed.every(step)) == (len(texts), [texts[::step]])
    for text in more:
        packed.append(text)
    every = [*texts, *more]
    assert packed.every(step, 1, 7) == [every[::step], every, every[::7]]
