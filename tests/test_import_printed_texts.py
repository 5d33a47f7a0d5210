"""Printed texts in the store (issue 20 §1): per card, locale and face, from the most recent
printing, with its provenance; editors' corrections kept by later imports; bad input refused."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path

import pytest
from conftest import run_kb, snapshot
from printed_helpers import BOLT_1995, BOLT_2009, BOLT_2021, WATCHDOG, printed, sets
from realdata import realdata
from sqlalchemy import select, text
from sqlalchemy.engine import Engine

from kb import schema
from kb.engine import make_engine
from kb.importers.mtgjson_names import mended_name, partly_english
from kb.importing import ImportOptions, run_import
from kb.loader.names import more_english
from kb.records import ParseError
from kb.site.card_texts import FaceView, PrintedView
from kb.site.data import load_cards, load_index
from kb.site.views import CardEntry


def test_a_german_scryfall_card_object_gives_its_printed_text(engine: Engine) -> None:
    run_import(engine, [realdata(WATCHDOG)])
    assert printed(engine, "Alpine Watchdog") == [
        {
            "face": 0,
            "printed_name": "Alpiner Wachhund",
            "printed_type_line": "Kreatur — Hund",
            "printed_text": "Wachsamkeit (Diese Kreatur wird beim Angreifen nicht getappt.)",
            "oracle_type_line": "Creature — Dog",
            "oracle_text": "Vigilance (Attacking doesn't cause this creature to tap.)",
            "english_printed_text": None,  # Scryfall gives no English of the printing
            "set_code": "M21",
            "collector_number": "2",
            "released_on": "2020-07-03",
            "source": WATCHDOG,
        }
    ]
    assert printed(engine, "Alpine Watchdog", "fr") == []


def test_the_otj_excerpt_gives_three_steps_ahead_its_texts_with_the_english_printed(
    engine: Engine,
) -> None:
    summary = run_import(engine, [realdata("mtgjson_OTJ_excerpt.json")])
    [german] = printed(engine, "Three Steps Ahead")
    assert german["printed_text"].startswith("Exzess (Bestimme eines oder mehrere")
    assert german["printed_type_line"] == "Spontanzauber"
    assert german["english_printed_text"].startswith("Spree (Choose one or more additional")
    # The excerpt's set keeps no code or release date: the cards' own setCode and number.
    assert (german["set_code"], german["collector_number"], german["released_on"]) == (
        "OTJ",
        "75",
        None,
    )
    with engine.connect() as connection:
        locales = connection.execute(
            text(
                "SELECT p.locale FROM printed_texts p JOIN cards c ON c.id = p.card_id "
                "WHERE c.name = 'Three Steps Ahead' ORDER BY p.locale"
            )
        ).scalars()
        assert list(locales) == ["de", "es", "fr", "it", "ja", "pt-BR", "zh-Hans"]
    assert summary.counts["texts new"] == sum(
        len(printed(engine, card, locale))
        for card in (
            "Another Round",
            "Archangel of Tithes",
            "This Town Ain't Big Enough",
            "Three Steps Ahead",
            "Calamity, Galloping Inferno",
            "Caught in the Crossfire",
        )
        for locale in ("de", "es", "fr", "it", "ja", "pt-BR", "zh-Hans")
    )


@pytest.mark.realdata
@pytest.mark.parametrize("order", [("4ED", "STA", "M10"), ("STA", "M10", "4ED")])
def test_a_reprint_keeps_the_text_of_its_most_recent_printing(
    engine: Engine, order: tuple[str, ...]
) -> None:
    """Lightning Bolt's German text changed in 2009 (M10) and in 2021 (STA)."""
    run_import(engine, sets(*order))
    [bolt] = printed(engine, "Lightning Bolt")
    assert bolt["printed_text"] == BOLT_2021
    assert (bolt["set_code"], bolt["released_on"], bolt["source"]) == (
        "STA",
        "2021-04-23",
        "STA.json.gz",
    )
    assert bolt["english_printed_text"] == "Lightning Bolt deals 3 damage to any target."
    # Importing an older printing again changes nothing.
    again = run_import(engine, sets("M10"), ImportOptions(force=True))
    assert (again.counts["texts new"], again.counts["texts changed"]) == (0, 0)
    assert printed(engine, "Lightning Bolt") == [bolt]


@pytest.mark.realdata
def test_each_printing_in_turn_replaces_an_older_one(engine: Engine) -> None:
    run_import(engine, sets("4ED"))
    assert printed(engine, "Lightning Bolt")[0]["printed_text"] == BOLT_1995
    later = run_import(engine, sets("M10"))
    assert printed(engine, "Lightning Bolt")[0]["printed_text"] == BOLT_2009
    assert later.counts["texts changed"] > 0


@pytest.mark.realdata
def test_an_adventure_card_has_its_faces_in_english_and_in_print(engine: Engine) -> None:
    run_import(engine, sets("ELD"))
    card = "Ardenvale Tactician // Dizzying Swoop"
    faces = printed(engine, card)
    swoop = "Tap up to two target creatures. (Then exile this card. You may cast the creature "
    swoop += "later from exile.)"
    assert [
        (f["face"], f["printed_name"], f["printed_type_line"], f["oracle_type_line"]) for f in faces
    ] == [
        (0, "Ardenthal-Taktikerin", "Kreatur — Mensch, Ritter", "Creature — Human Knight"),
        (1, "Sturzflug", "Spontanzauber — Abenteuer", "Instant — Adventure"),
    ]
    assert [(f["printed_text"], f["oracle_text"], f["english_printed_text"]) for f in faces] == [
        ("Fliegend", "Flying", "Flying"),
        (
            "Tappe bis zu zwei Kreaturen deiner Wahl. (Schicke diese Karte dann ins Exil. Du "
            "kannst sie später als Kreatur aus dem Exil wirken.)",
            swoop,
            swoop,
        ),
    ]
    with engine.connect() as connection:
        card_id = connection.execute(
            select(schema.cards.c.id).where(schema.cards.c.name == card)
        ).scalar_one()
        entry = CardEntry(card, {}, card_id, "ardenvale")
        [view] = load_cards(connection, [entry], load_index(connection).mechanics)
    assert view.faces == ("Ardenvale Tactician", "Dizzying Swoop")
    assert view.oracle_faces == (
        FaceView("Ardenvale Tactician", "{1}{W}{W}", "Creature — Human Knight", "Flying"),
        FaceView("Dizzying Swoop", "{1}{W}", "Instant — Adventure", swoop),
    )
    assert view.oracle_text == f"Flying\n//\n{swoop}"
    assert [face.face_name for face in view.printed["de"]] == ["Ardenthal-Taktikerin", "Sturzflug"]
    assert view.printed["de"][1] == PrintedView(
        1,
        "Sturzflug",
        "Spontanzauber — Abenteuer",
        faces[1]["printed_text"],
        "ELD",
        "5",
        dt.date(2019, 10, 4),
    )
    assert "en" not in view.printed


@pytest.mark.realdata
def test_a_split_card_has_a_printed_text_per_face(engine: Engine) -> None:
    run_import(engine, sets("CMD"))
    faces = printed(engine, "Fire // Ice")
    # MTGJSON's German Fire // Ice of 2011 names its faces in English.
    assert [(f["face"], f["printed_name"], f["printed_type_line"]) for f in faces] == [
        (0, "Fire", "Spontanzauber"),
        (1, "Ice", "Spontanzauber"),
    ]
    assert faces[0]["printed_text"].startswith("Feuer fügt 2 Schadenspunkte zu")
    assert faces[1]["printed_text"] == "Tappe ein bliebende Karte deiner Wahl.\nZiehe eine Karte."
    assert faces[1]["oracle_text"] == "Tap target permanent.\nDraw a card."


@pytest.mark.realdata
@pytest.mark.parametrize("runs", [["AKH C19"], ["AKH", "C19"], ["C19", "AKH"]])
def test_faces_named_in_english_take_their_part_of_the_translated_name(
    engine: Engine, runs: list[str]
) -> None:
    """MTGJSON's German Dusk // Dawn of 2019 (C19) names its faces in English, and the card
    "Dusk // Dawn"; Amonkhet's (AKH, 2017) is "Sonnenuntergang // Sonnenaufgang". The text is
    the 2019 printing's, its faces named by the card's German name, whatever the order."""
    for run in runs:
        summary = run_import(engine, sets(*run.split()))
    faces = printed(engine, "Dusk // Dawn")
    assert [(f["printed_name"], f["set_code"]) for f in faces] == [
        ("Sonnenuntergang", "C19"),
        ("Sonnenaufgang", "C19"),
    ]
    assert summary.counts["texts faces named"] > 0
    again = run_import(engine, sets("AKH", "C19"), ImportOptions(force=True))
    assert again.counts["texts faces named"] == 0 and not again.changed


@pytest.mark.realdata
@pytest.mark.parametrize("runs", [["AFC ELD"], ["AFC", "ELD"], ["ELD", "AFC"]])
def test_a_name_partly_in_english_gives_way_to_a_whole_translation(
    engine: Engine, runs: list[str]
) -> None:
    """AFC (2021) names Realm-Cloaked Giant // Cast Off "Realm-Cloaked Giant // Abstreifen" in
    German, one face in English; ELD (2019) "Reichsmantel-Riese // Abstreifen". The card's name
    is ELD's whatever the order, and the text AFC's, its faces named by that name."""
    for run in runs:
        run_import(engine, sets(*run.split()))
    card = "Realm-Cloaked Giant // Cast Off"
    with engine.connect() as connection:
        names = dict(
            connection.execute(
                select(schema.card_names.c.locale, schema.card_names.c.name)
                .join(schema.cards, schema.cards.c.id == schema.card_names.c.card_id)
                .where(schema.cards.c.name == card, schema.card_names.c.locale.in_(["de", "ja"]))
            ).all()
        )
    assert names == {"de": "Reichsmantel-Riese // Abstreifen", "ja": "王国まといの巨人 // 脱ぎ捨て"}
    assert [(f["printed_name"], f["set_code"]) for f in printed(engine, card)] == [
        ("Reichsmantel-Riese", "AFC"),
        ("Abstreifen", "AFC"),
    ]


def test_a_name_that_says_more_english_gives_way() -> None:
    english = "Realm-Cloaked Giant // Cast Off"
    assert more_english(
        "Realm-Cloaked Giant // Abstreifen", "Reichsmantel-Riese // Abstreifen", english
    )
    assert more_english(english, "Realm-Cloaked Giant // Abstreifen", english)
    assert not more_english(
        "Reichsmantel-Riese // Abstreifen", "Realm-Cloaked Giant // Abstreifen", english
    )
    assert not more_english("Reichsmantel-Riese // Abstreifen", "Riese // Abstreifen", english)
    assert more_english("Lightning Bolt", "Blitzschlag", "Lightning Bolt")
    assert not more_english("Blitz", "Blitzschlag", "Lightning Bolt")
    assert not more_english("Blitz", "Blitzschlag", None)
    assert partly_english("Realm-Cloaked Giant // Abstreifen", english)
    assert not partly_english(english, english)
    assert not partly_english("Reichsmantel-Riese // Abstreifen", english)
    assert not partly_english("Blitzschlag", "Lightning Bolt")


def test_a_name_is_mended_as_the_card_prints_it() -> None:
    """A capital first; no English names of faces the card does not have."""
    assert mended_name("l'Innommable", "The Unspeakable") == "L'Innommable"
    assert mended_name("ódio", "Hatred") == "Ódio"
    assert mended_name("暴行 // 殴打 // Battery", "Assault // Battery") == "暴行 // 殴打"
    assert mended_name("Feuer // Eis", "Fire // Ice") == "Feuer // Eis"
    assert mended_name("A // B // C", "Fire // Ice") == "A // B // C"  # not the English tail
    assert mended_name("鬼斬の聖騎士", "Oni-Cult Anvil") == "鬼斬の聖騎士"


@pytest.mark.realdata
def test_invasions_japanese_split_cards_lose_the_english_face_name(engine: Engine) -> None:
    """MTGJSON names INV's Japanese Assault // Battery "暴行 // 殴打 // Battery", its first
    face "暴行 // 殴打" and its second in English; the card prints "暴行 // 殴打"."""
    run_import(engine, sets("INV"))
    card = "Assault // Battery"
    with engine.connect() as connection:
        name = connection.execute(
            select(schema.card_names.c.name)
            .join(schema.cards, schema.cards.c.id == schema.card_names.c.card_id)
            .where(schema.cards.c.name == card, schema.card_names.c.locale == "ja")
        ).scalar_one()
    assert name == "暴行 // 殴打"


@pytest.mark.realdata
def test_a_class_card_prints_no_gatherer_level_markers(engine: Engine) -> None:
    run_import(engine, sets("AFR"))
    [druid] = printed(engine, "Druid Class")
    # MTGJSON's texts hold a line "//Level_2//" where the card prints its level bar.
    assert druid["printed_text"].split("\n")[2:5] == [
        "{2}{G}: Stufe 2",
        "Du darfst in jedem deiner Züge ein zusätzliches Land spielen.",
        "{4}{G}: Stufe 3",
    ]
    assert druid["english_printed_text"].split("\n")[2:4] == [
        "{2}{G}: Level 2",
        "You may play an additional land on each of your turns.",
    ]
    with engine.connect() as connection:
        marked = "SELECT count(*) FROM printed_texts WHERE text LIKE :m OR english_text LIKE :m"
        assert connection.execute(text(marked), {"m": "%//Level%"}).scalar_one() == 0
        assert connection.execute(text("SELECT count(*) FROM printed_texts")).scalar_one() > 2000


def test_the_site_reads_a_card_of_one_face(engine: Engine) -> None:
    run_import(engine, [realdata(WATCHDOG)])
    with engine.connect() as connection:
        card_id = connection.execute(select(schema.cards.c.id)).scalar_one()
        entry = CardEntry("Alpine Watchdog", {}, card_id, "a")
        [view] = load_cards(connection, [entry], load_index(connection).mechanics)
    assert view.oracle_text == "Vigilance (Attacking doesn't cause this creature to tap.)"
    assert view.oracle_faces == ()
    assert [tag.key for tag in view.mechanics] == ["vigilance"]
    assert view.printed == {
        "de": (
            PrintedView(
                0,
                None,
                "Kreatur — Hund",
                "Wachsamkeit (Diese Kreatur wird beim Angreifen nicht getappt.)",
                "M21",
                "2",
                dt.date(2020, 7, 3),
            ),
        )
    }


@pytest.mark.realdata
def test_an_editors_correction_survives_imports_of_what_it_corrected(database_url: str) -> None:
    run_kb(database_url, "-q", "import", *map(str, sets("M10")))
    fixed = "Der Blitzschlag fügt einer Kreatur oder einem Spieler deiner Wahl 3 Schaden zu."
    edit = run_kb(
        database_url, "edit", "printed-text", "Blitzschlag", "de", fixed, "--editor", "ann"
    )
    assert (edit.exit_code, edit.stdout) == (0, "revision 1\n")
    history = run_kb(database_url, "history", "--card", "Lightning Bolt", "--csv").stdout
    assert history.splitlines()[1].endswith(
        f'ann,printed-text,printed_texts,"{{""card_id"": {_bolt_id(database_url)}, '
        f'""face"": 0, ""locale"": ""de""}}","{{""text"": ""{BOLT_2009}""}}",'
        f'"{{""text"": ""{fixed}""}}"'
    )
    # The same printing again, then a later one that prints the same text: the fix stands,
    # the row names the later printing.
    forced = run_kb(database_url, "import", "--force", *map(str, sets("M10")))
    assert "printed texts: 0 new, 0 from a later printing," in forced.stdout
    later = run_kb(database_url, "import", *map(str, sets("M11")))
    assert "kept as an editor corrected them" in later.stdout.splitlines()[2]
    engine = make_engine(database_url)
    [bolt] = printed(engine, "Lightning Bolt")
    assert (bolt["printed_text"], bolt["set_code"]) == (fixed, "M11")
    # A printing that says something else is a new translation: it replaces the fix.
    run_kb(database_url, "-q", "import", *map(str, sets("STA")))
    assert printed(engine, "Lightning Bolt")[0]["printed_text"] == BOLT_2021
    engine.dispose()


@pytest.mark.realdata
def test_a_face_name_is_corrected_and_reverted(database_url: str) -> None:
    run_kb(database_url, "-q", "import", *map(str, sets("CMD")))
    edit = run_kb(
        database_url,
        "edit",
        "face-name",
        "Fire // Ice",
        "de",
        "Eis",
        "--face",
        "1",
        "--editor",
        "bo",
    )
    assert (edit.exit_code, edit.stdout) == (0, "revision 1\n")
    engine = make_engine(database_url)
    assert [f["printed_name"] for f in printed(engine, "Fire // Ice")] == ["Fire", "Eis"]
    run_kb(database_url, "-q", "import", "--force", *map(str, sets("CMD")))
    assert [f["printed_name"] for f in printed(engine, "Fire // Ice")] == ["Fire", "Eis"]
    revert = run_kb(database_url, "revert", "1", "--editor", "bo")
    assert (revert.exit_code, revert.stdout) == (0, "revision 2\n")
    assert [f["printed_name"] for f in printed(engine, "Fire // Ice")] == ["Fire", "Ice"]
    engine.dispose()


def test_an_editor_adds_a_printed_type_line_and_the_edits_refuse_what_is_not_there(
    database_url: str,
) -> None:
    run_kb(database_url, "-q", "import", str(realdata(WATCHDOG)))

    def edit(*args: str) -> tuple[int, str, str]:
        result = run_kb(database_url, "edit", *args, "--editor", "cy")
        return result.exit_code, result.stdout, result.stderr

    assert edit("printed-type-line", "Alpine Watchdog", "it", "Creatura — Canide") == (
        0,
        "revision 1\n",
        "",
    )
    engine = make_engine(database_url)
    [italian] = printed(engine, "Alpine Watchdog", "it")
    assert (italian["printed_type_line"], italian["printed_text"], italian["source"]) == (
        "Creatura — Canide",
        None,
        None,
    )
    engine.dispose()
    refused = {
        ("printed-text", "Alpine Watchdog", "de", "x", "--face", "1"): (
            "no face 1: the card has one face (0)"
        ),
        ("face-name", "Alpine Watchdog", "de", "x", "--face", "0"): (
            "the card has one face, named as the card: use kb edit card-name"
        ),
        ("printed-text", "Alpine Watchdog", "en", "x"): (
            "printed texts are kept for other locales; English is the Oracle text"
        ),
        ("printed-text", "Alpine Watchdog", "de", "  "): "a printed text cannot be empty",
        ("printed-text", "Nowhere", "de", "x"): (
            "no card 'Nowhere' (give its id, English name or a localized name)"
        ),
        ("printed-text", "Alpine Watchdog", "de", "x", "--expect", "not what is there"): (
            "printed_texts card_id=1, locale=de, face=0 was changed by someone else since you "
            "read it; nothing was written. Read it again and redo your edit."
        ),
    }
    for args, message in refused.items():
        assert edit(*args) == (1, "", f"kb: error: {message}\n"), args


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"text": 5}, "card 1 foreignData: text 5 is not a string"),
        ({"type": ["Kreatur"]}, "card 1 foreignData: type ['Kreatur'] is not a string"),
        ({"text": "x", "faceName": 3}, "card 1 foreignData: faceName 3 is not a string"),
    ],
)
def test_a_foreign_entry_of_the_wrong_type_is_refused(
    engine: Engine, tmp_path: Path, entry: dict[str, object], reason: str
) -> None:
    card = {"name": "Fire // Ice", "faceName": "Fire", "side": "a", "layout": "split"}
    card["foreignData"] = [{"language": "German", "name": "Feuer // Eis"} | entry]
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"data": {"baseSetSize": 1, "cards": [card]}}), "utf-8")
    assert _refused(engine, path) == f"{path}: {reason}"


def test_a_set_of_a_bad_release_date_is_refused(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    document = {"data": {"cards": [], "code": "M10", "releaseDate": "July 2009"}}
    path.write_text(json.dumps(document), "utf-8")
    assert (
        _refused(engine, path) == f"{path}: set: releaseDate 'July 2009' is not a date YYYY-MM-DD"
    )


def test_a_printed_text_too_long_is_refused(engine: Engine, tmp_path: Path) -> None:
    item = json.loads(realdata(WATCHDOG).read_text("utf-8"))
    path = tmp_path / "cards.json"
    path.write_text(json.dumps([item, item | {"printed_text": "Wachsamkeit " * 1000}]), "utf-8")
    assert _refused(engine, path) == (
        f"{path}: item 2: a printed text of 12,000 characters ('Wachsamkeit Wachsamkeit "
        "Wachsamkeit Wach'...): at most 10,000"
    )


def test_a_gzipped_set_with_a_text_of_a_wrong_type_leaves_the_store_as_it_was(
    engine: Engine, tmp_path: Path
) -> None:
    run_import(engine, [realdata(WATCHDOG)])
    card = {"name": "Alpine Watchdog", "number": "2", "setCode": "M21"}
    card["foreignData"] = [{"language": "French", "name": "Chien", "text": "ok"}]
    bad = card | {"foreignData": [{"language": "German", "name": "Hund", "text": {"a": 1}}]}
    path = tmp_path / "M21.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"data": {"cards": [card, bad]}}).encode()))
    assert _refused(engine, path) == f"{path}: card 2 foreignData: text {{'a': 1}} is not a string"


def _refused(engine: Engine, path: Path) -> str:
    before = snapshot(engine)
    with pytest.raises(ParseError) as raised:
        run_import(engine, [path])
    assert snapshot(engine) == before
    return str(raised.value)


def _bolt_id(database_url: str) -> int:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        found: int = connection.execute(
            select(schema.cards.c.id).where(schema.cards.c.name == "Lightning Bolt")
        ).scalar_one()
    engine.dispose()
    return found


def test_an_edit_of_a_printed_text_logs_its_card_for_the_next_build(database_url: str) -> None:
    run_kb(database_url, "-q", "import", str(realdata(WATCHDOG)))
    engine = make_engine(database_url)
    last = text("SELECT card_id FROM site_changes ORDER BY id DESC LIMIT 1")
    with engine.connect() as connection:
        assert connection.execute(last).scalar() is None  # the import: "any card"
        card_id = connection.execute(select(schema.cards.c.id)).scalar_one()
    edit = run_kb(
        database_url, "edit", "printed-text", "Alpine Watchdog", "de", "x", "--editor", "a"
    )
    assert edit.exit_code == 0
    with engine.connect() as connection:
        assert connection.execute(last).scalar() == card_id
    engine.dispose()
