"""The miner on small samples written here, the names it reads off aligned lines: keyword
lines and type lines with their subtypes, one vote per card, and the samples that MTGJSON set
files and the store's printed rows give."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from mining_samples import names, sample

from kb.mining.mine import mine
from kb.mining.samples import (
    PrintedRow,
    Sample,
    english_lines,
    from_mtgjson_sets,
    from_printed_rows,
)
from kb.mining.text import name_part, without_reminder
from kb.mining.votes import Ballots


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


def test_a_preposition_meaning_with_is_in_the_object_where_the_english_one_is() -> None:
    """Italian "Affinità con gli artefatti" is Affinity for artifacts, Spanish "Empalmar con lo
    arcano" Splice onto Arcane: "con" stands where "for" and "onto" do, in the object."""
    affinity = [("artifacts", "gli artefatti"), ("Islands", "le Isole"), ("Forests", "le Foreste")]
    samples = [
        sample(f"A{word}", ("Affinity",), f"Affinity for {word}", f"Affinità con {italian}", "it")
        for word, italian in affinity
    ]
    splice = [("Arcane", "lo arcano"), ("instant or sorcery", "instantáneo o conjuro")]
    samples += [
        sample(f"S{word}", ("Splice",), f"Splice onto {word}", f"Empalmar con {spanish}", "es")
        for word, spanish in splice
    ]
    assert names(samples) == {("Affinity", "it"): "Affinità", ("Splice", "es"): "Empalmar"}


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
