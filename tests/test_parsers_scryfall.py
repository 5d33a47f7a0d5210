from __future__ import annotations

import datetime as dt
import io
import json

import pytest
from conftest import scryfall_ruling
from realdata import realdata

from kb.importers import scryfall
from kb.records import (
    CardNameRecord,
    CardRecord,
    CardRef,
    OracleFace,
    ParseError,
    PrintedTextRecord,
    Printing,
    RulingRecord,
)

THREE_STEPS_AHEAD = "282dfeaa-6243-4f92-838a-5cb54fa85184"


def _rulings(content: bytes) -> list[RulingRecord]:
    return list(scryfall.parse_rulings(io.BytesIO(content), "rulings.json"))


def _cards(content: bytes) -> list[CardRecord | CardNameRecord | PrintedTextRecord]:
    return list(scryfall.parse_cards(io.BytesIO(content), "cards.json"))


def test_rulings_list_of_derevi() -> None:
    rulings = _rulings(realdata("scryfall_rulings_list_derevi.json").read_bytes())
    assert [ruling.origin for ruling in rulings] == ["scryfall", "wotc", "wotc"]
    assert [ruling.position for ruling in rulings] == [0, 1, 2]
    assert {ruling.card for ruling in rulings} == {
        CardRef(oracle_id="afa49a09-146f-4439-850e-dd1938c93cef")
    }
    assert rulings[0].published_on == dt.date(2015, 1, 19)
    assert rulings[1].text.startswith("You can activate Derevi’s last ability")


def test_ruling_positions_count_per_card_in_file_order() -> None:
    bulk = [
        scryfall_ruling("a"),
        scryfall_ruling("b"),
        scryfall_ruling("a"),
        scryfall_ruling("a"),
        scryfall_ruling("b"),
    ]
    rulings = _rulings(json.dumps(bulk).encode())
    assert [(ruling.card.oracle_id, ruling.position) for ruling in rulings] == [
        ("a", 0),
        ("b", 0),
        ("a", 1),
        ("a", 2),
        ("b", 1),
    ]


@pytest.mark.parametrize(
    ("bad_field", "reason"),
    [
        ({"published_at": "x"}, "item 2: published_at 'x' is not a date YYYY-MM-DD"),
        ({"published_at": "2024-02-30"}, "item 2: published_at '2024-02-30' is not a date"),
        ({"comment": 42}, "item 2: comment 42 is not a string"),
        ({"oracle_id": None}, "item 2: oracle_id (missing) is not a string"),
        ({"object": "card"}, "item 2: object 'card' is not a ruling"),
    ],
)
def test_wrong_types_name_the_item(bad_field: dict[str, object], reason: str) -> None:
    content = json.dumps([scryfall_ruling(), scryfall_ruling() | bad_field]).encode()
    with pytest.raises(ParseError) as raised:
        _rulings(content)
    assert str(raised.value).startswith(f"rulings.json: {reason}")


def test_truncated_json_is_a_parse_error() -> None:
    content = json.dumps([scryfall_ruling(), scryfall_ruling()]).encode()[:-30]
    with pytest.raises(ParseError, match=r"^rulings\.json: truncated or invalid JSON"):
        _rulings(content)


def test_english_card_object() -> None:
    [card] = _cards(realdata("scryfall_card_otj_75_three_steps_ahead.json").read_bytes())
    assert isinstance(card, CardRecord)
    assert card.name == "Three Steps Ahead"
    assert card.oracle_id == THREE_STEPS_AHEAD
    assert card.mana_cost == "{U}"
    assert card.type_line == "Instant"
    assert card.keywords == ("Spree",)
    assert card.oracle_text is not None and card.oracle_text.startswith("Spree (")


def test_german_card_object_gives_the_card_and_its_printed_name_and_text() -> None:
    [card, name, text] = _cards(
        realdata("scryfall_card_m21_2_de_alpine_watchdog.json").read_bytes()
    )
    assert isinstance(card, CardRecord)
    assert (card.name, card.type_line, card.keywords) == (
        "Alpine Watchdog",
        "Creature — Dog",
        ("Vigilance",),
    )
    assert isinstance(name, CardNameRecord)
    assert (name.locale, name.name) == ("de", "Alpiner Wachhund")
    assert name.card.name == "Alpine Watchdog"
    assert name.card.oracle_id is not None
    assert text == PrintedTextRecord(
        name.card,
        "de",
        face=0,
        face_name=None,
        type_line="Kreatur — Hund",
        text="Wachsamkeit (Diese Kreatur wird beim Angreifen nicht getappt.)",
        printing=Printing("M21", "2", dt.date(2020, 7, 3)),
        card_name="Alpiner Wachhund",
    )


def test_an_english_card_object_gives_no_printed_text() -> None:
    records = _cards(realdata("scryfall_card_otj_75_three_steps_ahead.json").read_bytes())
    assert [type(record) for record in records] == [CardRecord]


FIRE_ICE_FACES = [
    {"name": "Fire", "mana_cost": "{1}{R}", "type_line": "Instant", "oracle_text": "Fire text."},
    {"name": "Ice", "mana_cost": "{1}{U}", "type_line": "Instant", "oracle_text": "Ice text."},
]


def test_multi_face_cards_keep_cost_and_text_on_faces() -> None:
    fire_ice = {
        "object": "card",
        "oracle_id": "fi",
        "lang": "en",
        "name": "Fire // Ice",
        "layout": "split",
        "type_line": "Instant // Instant",
        "card_faces": FIRE_ICE_FACES,
    }
    [card] = _cards(json.dumps([fire_ice]).encode())
    assert card == CardRecord(
        name="Fire // Ice",
        oracle_id="fi",
        mana_cost="{1}{R} // {1}{U}",
        type_line="Instant // Instant",
        oracle_text="Fire text.\n//\nIce text.",
        layout="split",
        faces=("Fire", "Ice"),
        oracle_faces=(
            OracleFace("Fire", "{1}{R}", "Instant", "Fire text."),
            OracleFace("Ice", "{1}{U}", "Instant", "Ice text."),
        ),
    )


def test_foreign_multi_face_and_reversible_cards() -> None:
    japanese_fire_ice = {
        "oracle_id": "fi",
        "lang": "ja",
        "name": "Fire // Ice",
        "card_faces": [
            FIRE_ICE_FACES[0] | {"printed_name": "火"},
            FIRE_ICE_FACES[1] | {"printed_name": "氷"},
        ],
    }
    # A reversible card keeps oracle_id on its faces only; "ph" is not one of the 11 locales.
    phyrexian_reversible = {
        "lang": "ph",
        "name": "Zndrsplt // Zndrsplt",
        "printed_name": "Zndrsplt-ph",
        "card_faces": [
            {"name": "Zndrsplt", "oracle_id": "z"},
            {"name": "Zndrsplt", "oracle_id": "z"},
        ],
    }
    no_printed_name = {"oracle_id": "x", "lang": "fr", "name": "X"}
    records = _cards(
        json.dumps([japanese_fire_ice, phyrexian_reversible, no_printed_name]).encode()
    )
    assert [card.name for card in records if isinstance(card, CardRecord)] == [
        "Fire // Ice",
        "Zndrsplt // Zndrsplt",
        "X",
    ]
    names = [name for name in records if isinstance(name, CardNameRecord)]
    assert names == [
        CardNameRecord(CardRef(oracle_id="fi", name="Fire // Ice"), "ja", "火 // 氷"),
        CardNameRecord(CardRef(oracle_id="z", name="Zndrsplt // Zndrsplt"), "ph", "Zndrsplt-ph"),
    ]
    # The faces have no printed text or type line: no text.
    assert [r for r in records if isinstance(r, PrintedTextRecord)] == []


def test_a_foreign_split_card_gives_each_face_its_printed_text() -> None:
    german_fire_ice = {
        "oracle_id": "fi",
        "lang": "de",
        "name": "Fire // Ice",
        "set": "mh2",
        "collector_number": "290",
        "released_at": "2021-06-18",
        "card_faces": [
            FIRE_ICE_FACES[0]
            | {"printed_name": "Feuer", "printed_type_line": "Spontanzauber", "printed_text": "F."},
            FIRE_ICE_FACES[1] | {"printed_name": "Eis", "printed_type_line": "Spontanzauber"},
        ],
    }
    records = _cards(json.dumps([german_fire_ice]).encode())
    card = CardRef(oracle_id="fi", name="Fire // Ice")
    printing = Printing("MH2", "290", dt.date(2021, 6, 18))
    assert [r for r in records if isinstance(r, PrintedTextRecord)] == [
        PrintedTextRecord(
            card,
            "de",
            0,
            "Feuer",
            "Spontanzauber",
            "F.",
            printing=printing,
            card_name="Feuer // Eis",
        ),
        PrintedTextRecord(
            card, "de", 1, "Eis", "Spontanzauber", None, printing=printing, card_name="Feuer // Eis"
        ),
    ]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"printed_text": 5}, "printed_text 5 is not a string"),
        ({"printed_text": "x", "released_at": "July"}, "released_at 'July' is not a date"),
        ({"printed_text": "x", "collector_number": 2}, "collector_number 2 is not a string"),
    ],
)
def test_a_printed_text_of_the_wrong_type_is_an_error(
    fields: dict[str, object], reason: str
) -> None:
    item = {"object": "card", "oracle_id": "x", "lang": "de", "name": "X"} | fields
    with pytest.raises(ParseError) as raised:
        _cards(json.dumps(item).encode())
    assert str(raised.value).startswith(f"cards.json:1: {reason}")


def test_card_without_oracle_id_is_a_parse_error() -> None:
    # One object on one line is a JSON Lines file of one line: the error names the line.
    with pytest.raises(ParseError, match=r"^cards\.json:1: oracle_id \(missing\)"):
        _cards(b'{"object": "card", "lang": "en", "name": "X"}')
