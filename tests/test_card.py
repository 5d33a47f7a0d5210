"""kb card (issue 21 §2): a card found by any of its names, printed for a reader or as JSON;
a name of several cards listed, a typo answered with close names, one-line errors."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import ENGINES, PostgresDatabases, run_kb, scryfall_ruling
from conftest import kb_card as ok
from realdata import DATA, realdata
from wcwidth import wcswidth

from kb.engine import make_engine
from kb.importing import run_import
from kb.lookup import fold
from kb.terminal_text import wrap

FIRE = {
    "name": "Fire",
    "mana_cost": "{1}{R}",
    "type_line": "Instant",
    "oracle_text": "Fire deals 2 damage divided as you choose among one or two targets.",
}
ICE = {
    "name": "Ice",
    "mana_cost": "{1}{U}",
    "type_line": "Instant",
    "oracle_text": "Tap target permanent.\nDraw a card.",
}
FIRE_ICE = {
    "object": "card",
    "oracle_id": "fire-ice",
    "lang": "en",
    "name": "Fire // Ice",
    "layout": "split",
    "card_faces": [FIRE, ICE],
}
GERMAN_FIRE_ICE = FIRE_ICE | {
    "lang": "de",
    "set": "mh2",
    "collector_number": "290",
    "released_at": "2021-06-18",
    "card_faces": [
        FIRE
        | {
            "printed_name": "Feuer",
            "printed_type_line": "Spontanzauber",
            "printed_text": "Feuer fügt zwei Schadenspunkte in beliebiger Aufteilung auf ein "
            "oder zwei Ziele deiner Wahl zu.",
        },
        ICE
        | {
            "printed_name": "Eis",
            "printed_type_line": "Spontanzauber",
            "printed_text": "Tappe eine bleibende Karte deiner Wahl.\nZiehe eine Karte.",
        },
    ],
}
START_FIRE = {
    "object": "card",
    "oracle_id": "start-fire",
    "name": "Start // Fire",
    "layout": "aftermath",
    "card_faces": [
        {"name": "Start", "mana_cost": "{2}{W}", "type_line": "Instant"},
        {"name": "Fire", "mana_cost": "{1}{R}", "type_line": "Sorcery"},
    ],
}


def card(oracle_id: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"object": "card", "oracle_id": oracle_id, "lang": "en", "name": name} | fields


CARDS = [
    FIRE_ICE,
    GERMAN_FIRE_ICE,
    START_FIRE,
    card("coercion", "Coercion", type_line="Sorcery"),
    card("coercion", "Coercion", lang="de", printed_name="Zwang"),
    card("duress", "Duress", type_line="Sorcery"),
    card("duress", "Duress", lang="de", printed_name="Zwang"),
    card("regeneration", "Regeneration", lang="de", printed_name="Regeneration"),
    card("regenerate", "Regenerate", lang="de", printed_name="Regeneration"),
]
RULINGS = [
    scryfall_ruling(
        "fire-ice",
        published_at="2021-06-18",
        comment="Fire and Ice are the two halves of one split card.",
    ),
    scryfall_ruling(
        "fire-ice", published_at=None, comment="You may cast either half, but not both."
    ),
]


@pytest.fixture(scope="module", params=ENGINES)
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The demo, with a split card (Fire // Ice, printed in German), two cards of one German
    name (Zwang), a face name of two cards (Fire) and a German name that is another card's
    English name (Regeneration); on each engine, made once: kb card only reads it."""
    folder = tmp_path_factory.mktemp("card")
    postgres: PostgresDatabases | None = None
    if request.param == "sqlite":
        shutil.copy(request.getfixturevalue("migrated_sqlite"), folder / "kb.sqlite")
        url = f"sqlite:///{folder / 'kb.sqlite'}"
    else:
        postgres = request.getfixturevalue("postgres")
        url = postgres.create(migrated=True)
    cards, rulings = folder / "cards.jsonl", folder / "rulings.jsonl"
    cards.write_text("".join(json.dumps(item) + "\n" for item in CARDS), encoding="utf-8")
    rulings.write_text("".join(json.dumps(item) + "\n" for item in RULINGS), encoding="utf-8")
    engine = make_engine(url)
    run_import(engine, [DATA])
    run_import(engine, [cards, rulings])
    engine.dispose()
    yield url
    if postgres is not None:
        postgres.drop(url)


FIRE_ICE_IN_GERMAN = """\
Feuer // Eis
Fire // Ice
Mana cost: {1}{R} // {1}{U}

Printed text, as printed in MH2, number 290 (2021-06-18)
  Feuer
    Spontanzauber
    Feuer fügt zwei Schadenspunkte in beliebiger Aufteilung auf ein oder zwei Ziele deiner Wahl zu.
  Eis
    Spontanzauber
    Tappe eine bleibende Karte deiner Wahl.
    Ziehe eine Karte.

Oracle text
  Fire  {1}{R}
    Instant
    Fire deals 2 damage divided as you choose among one or two targets.
  Ice  {1}{U}
    Instant
    Tap target permanent.
    Draw a card.

2 rulings
  2021-06-18
    Fire and Ice are the two halves of one split card.

  (undated)
    You may cast either half, but not both.
"""


def test_a_german_name_gives_the_card_with_its_german_printed_text(store: str) -> None:
    assert ok(store, "Feuer // Eis", "--locale", "de") == FIRE_ICE_IN_GERMAN


@pytest.mark.parametrize("name", ["Eis", "Feuer", "ice", "Ice", "FEUER//EIS", "fire // ice"])
def test_a_face_name_or_a_name_in_any_case_and_spacing_gives_the_card(
    store: str, name: str
) -> None:
    assert ok(store, name, "--locale", "de") == FIRE_ICE_IN_GERMAN


IM_KREUZFEUER_HEAD = """\
Im Kreuzfeuer
Caught in the Crossfire
Mana cost: {R}{R}
Mechanics: gesetzlos, Exzess

Oracle text
  Instant
  Spree (Choose one or more additional costs.)
  + {1} — Caught in the Crossfire deals 2 damage to each outlaw creature. (Assassins, \
Mercenaries, Pirates, Rogues, and Warlocks are outlaws.)
  + {1} — Caught in the Crossfire deals 2 damage to each non-outlaw creature.

15 rulings
  (undated) · gesetzlos
    A card, spell, or permanent is an outlaw if it has the Assassin, Mercenary, Pirate, Rogue, \
or Warlock creature type. It doesn’t matter if it has more than one of those creature types; as \
long as it has at least one, it’s an outlaw.
"""


def test_the_demos_german_card_with_its_rulings_tagged_in_german(store: str) -> None:
    """The Italian page gave its rulings, undated; their tags are named in German."""
    shown = ok(store, "im kreuzfeuer", "--locale", "de")
    assert shown.startswith(IM_KREUZFEUER_HEAD)
    rulings = shown.split("\n15 rulings\n")[1].split("\n\n")
    assert len(rulings) == 15
    assert [ruling.splitlines()[0] for ruling in rulings].count("  (undated) · Exzess") == 12
    assert rulings[-1].endswith("\n")


def test_an_english_name_and_accents_left_out_give_the_same_card(store: str) -> None:
    english = ok(store, "Three Steps Ahead", "--locale", "pt-br")
    assert english.startswith("Três Passos à Frente\nThree Steps Ahead\nMana cost: {U}\n")
    assert "18 rulings\n  2024-04-12 · Série\n" in english
    assert ok(store, "tres passos a frente", "--locale", "pt-BR") == english
    assert ok(store, "Drei Schritte voraus", "--locale", "pt-BR") == english


def test_a_locale_without_the_cards_name_says_so(store: str) -> None:
    shown = ok(store, "Drei Schritte voraus", "--locale", "ko")
    assert shown.startswith(
        "Three Steps Ahead\n(no Korean name in the store)\nMana cost: {U}\nMechanics: Spree\n"
    )


def test_english_is_the_default_and_shows_the_english_name_once(store: str) -> None:
    shown = ok(store, "Drei Schritte voraus")
    assert shown.startswith("Three Steps Ahead\nMana cost: {U}\nMechanics: Spree\n\nOracle")


def test_json_holds_the_card_whole(store: str) -> None:
    document = json.loads(ok(store, "Drei Schritte voraus", "--json"))
    assert list(document) == ["query", "locale", "matches", "others", "suggestions", "card"]
    assert document["query"] == "Drei Schritte voraus" and document["locale"] == "en"
    assert document["matches"] == [
        {
            "card": "Three Steps Ahead",
            "names": [
                {"name": "Drei Schritte voraus", "locale": "de", "face": False, "english": False}
            ],
        }
    ]
    assert (document["others"], document["suggestions"]) == ([], [])
    shown = document["card"]
    assert list(shown) == [
        "name",
        "localized_name",
        "oracle_id",
        "layout",
        "names",
        "mana_cost",
        "type_line",
        "oracle_text",
        "faces",
        "printed",
        "mechanics",
        "rulings",
    ]
    assert shown["name"] == shown["localized_name"] == "Three Steps Ahead"
    assert shown["oracle_id"] == "282dfeaa-6243-4f92-838a-5cb54fa85184"
    assert list(shown["names"]) == ["en", "de", "fr", "it", "es", "pt-BR", "ja", "zh-Hans"]
    assert shown["names"]["ja"] == "三歩先"
    assert (shown["faces"], shown["printed"]) == ([], [])
    assert shown["mechanics"] == [{"slug": "spree", "name": "Spree", "locale": "en"}]
    assert len(shown["rulings"]) == 18
    assert {ruling["published_on"] for ruling in shown["rulings"]} == {"2024-04-12"}
    first = shown["rulings"][0]
    assert first["text"].startswith("If an effect allows you to cast a spell with spree")
    assert first["tags"] == [{"slug": "spree", "name": "Spree", "locale": "en"}]


def test_json_in_a_locale_with_printed_faces(store: str) -> None:
    document = json.loads(ok(store, "Eis", "--json", "--locale", "de"))
    shown = document["card"]
    assert document["matches"][0]["names"] == [
        {"name": "Eis", "locale": "de", "face": True, "english": False}
    ]
    assert shown["localized_name"] == "Feuer // Eis"
    assert shown["faces"][1] == {
        "name": "Ice",
        "mana_cost": "{1}{U}",
        "type_line": "Instant",
        "oracle_text": "Tap target permanent.\nDraw a card.",
    }
    assert shown["printed"][1] == {
        "face": 1,
        "face_name": "Eis",
        "type_line": "Spontanzauber",
        "text": "Tappe eine bleibende Karte deiner Wahl.\nZiehe eine Karte.",
        "set_code": "MH2",
        "collector_number": "290",
        "released_on": "2021-06-18",
        "damaged_in_source": False,
    }
    assert [ruling["published_on"] for ruling in shown["rulings"]] == ["2021-06-18", None]
    assert shown["mechanics"] == [] and shown["rulings"][0]["tags"] == []


def test_the_demos_tags_in_json_are_named_in_the_locale(store: str) -> None:
    shown = json.loads(ok(store, "Caught in the Crossfire", "--json", "--locale", "it"))["card"]
    assert shown["mechanics"] == [
        {"slug": "outlaw", "name": "fuorilegge", "locale": "it"},
        {"slug": "spree", "name": "Frenesia", "locale": "it"},
    ]
    korean = json.loads(ok(store, "Caught in the Crossfire", "--json", "--locale", "ko"))
    assert korean["card"]["localized_name"] is None
    assert korean["card"]["mechanics"][1] == {"slug": "spree", "name": "Spree", "locale": "en"}


def test_the_same_store_prints_the_same_bytes(store: str) -> None:
    for args in (["Eis", "--locale", "de"], ["Zwang", "--json"], ["Three Steps Ahead", "--json"]):
        first = run_kb(store, "card", *args)
        assert run_kb(store, "card", *args).stdout_bytes == first.stdout_bytes


@pytest.mark.parametrize(
    ("name", "listed"),
    [
        ("Zwang", "Coercion  (Zwang: de)\nDuress  (Zwang: de)\n"),
        ("zwang", "Coercion  (Zwang: de)\nDuress  (Zwang: de)\n"),
        ("Fire", "Fire // Ice  (face Fire: en)\nStart // Fire  (face Fire: en)\n"),
    ],
)
def test_a_name_of_several_cards_lists_them_and_exits_1(store: str, name: str, listed: str) -> None:
    result = run_kb(store, "card", name)
    assert (result.exit_code, result.stdout) == (1, listed)
    assert result.stderr == f"kb: error: {name!r} names 2 cards: name one by its English name\n"


def test_a_name_of_several_cards_in_json(store: str) -> None:
    result = run_kb(store, "card", "Zwang", "--json", "--locale", "de")
    assert result.exit_code == 1
    assert result.stderr == "kb: error: 'Zwang' names 2 cards: name one by its English name\n"
    document = json.loads(result.stdout)
    assert [match["card"] for match in document["matches"]] == ["Coercion", "Duress"]
    assert document["card"] is None and document["locale"] == "de"


def test_an_english_name_wins_over_another_cards_german_name(store: str) -> None:
    result = run_kb(store, "card", "Regeneration", "--locale", "de")
    assert (result.exit_code, result.stdout) == (0, "Regeneration\nRegeneration\n\nNo rulings\n")
    assert result.stderr == ("kb: note: 'Regeneration' also names Regenerate  (Regeneration: de)\n")
    quiet = run_kb(store, "-q", "card", "Regeneration", "--locale", "de")
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, result.stdout, "")
    document = json.loads(run_kb(store, "card", "Regeneration", "--json").stdout)
    assert [match["card"] for match in document["others"]] == ["Regenerate"]
    assert document["card"]["name"] == "Regeneration"
    # Its own German name is found as a German name, the card's English name as English:
    assert document["matches"][0]["names"] == [
        {"name": "Regeneration", "locale": "en", "face": False, "english": True},
        {"name": "Regeneration", "locale": "de", "face": False, "english": False},
    ]
    assert ok(store, "Regenerate").startswith("Regenerate\n")


@pytest.mark.parametrize(
    ("name", "suggested"),
    [
        ("Drei Schritte vorraus", "'Drei Schritte voraus'"),
        ("drei schritte vorraus", "'Drei Schritte voraus'"),
        ("Three Step Ahead", "'Three Steps Ahead'"),
        ("Preso nel Fuoco Incrocato", "'Preso nel Fuoco Incrociato'"),
    ],
)
def test_a_typo_is_an_error_that_suggests_close_names(
    store: str, name: str, suggested: str
) -> None:
    result = run_kb(store, "card", name)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"kb: error: no card is named {name!r} (did you mean {suggested}?)\n"


def test_a_typo_in_json_gives_the_suggestions(store: str) -> None:
    result = run_kb(store, "card", "Im Kreutzfeuer", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "query": "Im Kreutzfeuer",
        "locale": "en",
        "matches": [],
        "others": [],
        "suggestions": ["Im Kreuzfeuer"],
        "card": None,
    }


def test_nothing_found_is_one_line_and_exit_status_1(store: str) -> None:
    result = run_kb(store, "card", "Xyzzy")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "kb: error: no card is named 'Xyzzy'\n",
    )


def test_an_unknown_locale_is_a_usage_error(store: str) -> None:
    result = run_kb(store, "card", "Zwang", "--locale", "xx")
    assert result.exit_code == 2 and "'xx' is not one of en, de," in result.stderr


def test_width_wraps_texts_with_a_hanging_indent(store: str) -> None:
    shown = ok(store, "Fire // Ice", "--width", "40")
    assert shown.splitlines()[3:10] == [
        "Oracle text",
        "  Fire  {1}{R}",
        "    Instant",
        "    Fire deals 2 damage divided as you",
        "      choose among one or two targets.",
        "  Ice  {1}{U}",
        "    Instant",
    ]
    assert shown.splitlines()[-7:] == [
        "  2021-06-18",
        "    Fire and Ice are the two halves of",
        "    one split card.",
        "",
        "  (undated)",
        "    You may cast either half, but not",
        "    both.",
    ]
    assert max(len(line) for line in shown.splitlines()) <= 40
    assert ok(store, "Fire // Ice", "--width", "0") == ok(store, "Fire // Ice")


def test_japanese_printed_text_wraps_by_columns(database_url: str) -> None:
    """Japanese takes two columns a character and breaks between characters, never before a
    closing mark: the OTJ excerpt's Japanese Three Steps Ahead at 40 columns."""
    engine = make_engine(database_url)
    run_import(engine, [realdata("mtgjson_OTJ_excerpt.json")])
    engine.dispose()
    shown = ok(database_url, "三歩先", "--locale", "ja", "--width", "40")
    printed = shown.split("\n\n")[1].splitlines()
    assert printed[0] == "Printed text, as printed in OTJ, number 75"
    assert printed[1:5] == [
        "  インスタント",
        "  放題（以下から１つ以上の追加コストを選",
        "    ぶ。）",
        "  ＋ {1}{U} ― 呪文１つを対象とする。それ",
    ]
    for line in printed[1:]:
        assert wide_columns(line) <= 40
        assert not line.strip().startswith(("。", "、", "）", "」"))


def wide_columns(line: str) -> int:
    return int(wcswidth(line))


@pytest.mark.parametrize(
    ("name", "folded"),
    [
        ("Æther Vial", "aether vial"),
        ("Jötun  Grunt", "jotun grunt"),
        ("Fire//Ice", "fire // ice"),
        ("Trois coups d’avance", "trois coups d'avance"),
        ("ＡＢＣ", "abc"),
        ("ガイアの祝福", "ガイアの祝福"),  # a voiced kana is not an accented one
        ("Ёлка", "елка"),
    ],
)
def test_fold(name: str, folded: str) -> None:
    assert fold(name) == folded


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        ("one two three", 9, ["one two", "three"]),
        ("a longwordthatdoesnotfit b", 6, ["a", "longwordthatdoesnotfit", "b"]),
        ("漢字かな交じり文。", 6, ["漢字か", "な交じ", "り文。"]),  # 。 never starts a line
        ("「引用」です", 4, ["「引", "用」", "です"]),  # 「 never ends one
        ("추가 비용을 하나", 11, ["추가 비용을", "하나"]),  # Korean breaks at spaces only
        ("first\nsecond line", 0, ["first", "second line"]),
    ],
)
def test_wrap_breaks_by_columns(text: str, width: int, lines: list[str]) -> None:
    assert wrap(text, width) == lines


def test_wrap_indents_and_hangs() -> None:
    assert wrap("aa bb cc dd", 7, "  ", "  ") == ["  aa bb", "    cc", "    dd"]
