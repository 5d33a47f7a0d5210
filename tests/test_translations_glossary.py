"""kb translations glossary: a locale's terms as TBX and as Weblate's CSV glossary, on both
engines, read back with the XML parser, the csv module and Weblate's own reader (the Translate
Toolkit)."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import run_kb
from realdata import DATA, realdata
from sqlalchemy import select
from translate.storage.csvl10n import csvfile
from translate.storage.tbx import tbxfile

from kb import schema
from kb.engine import make_engine
from kb.importing import run_import
from kb.translations.glossary import _xml_id

LANG = "{http://www.w3.org/XML/1998/namespace}lang"
CYCLING = "Cycling {2} ({2}, Discard this card: Draw a card.)"
UMWANDLUNG = "Umwandlung {2} ({2}, wirf diese Karte ab: Ziehe eine Karte.)"


def bird(number: int, name: str, german: str) -> dict[str, object]:
    """A card with cycling whose German printing says "Umwandlung" and "Kreatur — Vogel"."""
    return {
        "name": name,
        "number": str(number),
        "setCode": "TST",
        "layout": "normal",
        "keywords": ["Cycling"],
        "type": "Creature — Bird",
        "types": ["Creature"],
        "subtypes": ["Bird"],
        "text": CYCLING,
        "originalText": CYCLING,
        "identifiers": {"scryfallOracleId": f"00000000-0000-0000-0000-00000000000{number}"},
        "foreignData": [
            {"language": "German", "name": german, "type": "Kreatur — Vogel", "text": UMWANDLUNG}
        ],
    }


@pytest.fixture
def terms_url(database_url: str, tmp_path: Path) -> str:
    """The demo data (Spree and outlaw, named by kb's catalog) and three cards with cycling,
    whose German printings give the mined names Umwandlung, Kreatur and Vogel."""
    cards = [
        bird(1, "Drifting Gull", "Treibende Möwe"),
        bird(2, "Wandering Owl", "Wandernde Eule"),
        bird(3, "Silent Heron", "Stiller Reiher"),
    ]
    document = {"data": {"code": "TST", "releaseDate": "2020-04-24", "cards": cards}}
    path = tmp_path / "TST.json"
    path.write_text(json.dumps(document), "utf-8")
    engine = make_engine(database_url)
    run_import(engine, [DATA, path])
    engine.dispose()
    return database_url


def entries(tbx: bytes) -> dict[str, tuple[str, dict[str, str], str]]:
    """Each termEntry by id: its definition, its terms by language, the localized term's note."""
    root = ET.fromstring(tbx)
    assert (root.tag, root.get("type"), root.get(LANG)) == ("martif", "TBX-Basic", "en")
    assert [child.tag for child in root] == ["martifHeader", "text"]
    found = {}
    for entry in root.findall("./text/body/termEntry"):
        assert [child.tag for child in entry] == ["descrip", "langSet", "langSet"]
        terms = {lang.get(LANG, ""): lang.findtext("tig/term", "") for lang in entry[1:]}
        note = entry.findtext("langSet[2]/tig/note", "")
        found[entry.get("id", "")] = (entry.findtext("descrip", ""), terms, note)
    return found


def test_a_tbx_glossary_holds_the_mined_and_the_catalogs_terms(
    terms_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "de.tbx"
    result = run_kb(terms_url, "translations", "glossary", "--locale", "de", "--out", str(out))
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        f"5 terms written to {out}\n",
        "",
    )
    tbx = out.read_bytes()
    assert tbx.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE martif ')
    assert entries(tbx) == {
        "mechanic-cycling": (
            "Magic keyword",
            {"en": "Cycling", "de": "Umwandlung"},
            "mined from the printed texts: 3 of 3 cards print it",
        ),
        "mechanic-outlaw": (
            "Magic term, rule 700.12",
            {"en": "outlaw", "de": "gesetzlos"},
            "from the Comprehensive Rules or kb's catalog",
        ),
        "mechanic-spree": (
            "Magic keyword ability, rule 702.172",
            {"en": "Spree", "de": "Exzess"},
            "from the Comprehensive Rules or kb's catalog",
        ),
        "type-Bird": (
            "Magic subtype",
            {"en": "Bird", "de": "Vogel"},
            "mined from the printed type lines: 3 of 3 cards print it",
        ),
        "type-Creature": (
            "Magic card type",
            {"en": "Creature", "de": "Kreatur"},
            "mined from the printed type lines: 3 of 3 cards print it",
        ),
    }
    # Weblate reads a TBX glossary through the Translate Toolkit: English source, German target.
    store = tbxfile.parsestring(tbx, sourcelanguage="en", targetlanguage="de")
    assert [(unit.source, unit.target) for unit in store.units] == [
        ("Cycling", "Umwandlung"),
        ("outlaw", "gesetzlos"),
        ("Spree", "Exzess"),
        ("Bird", "Vogel"),
        ("Creature", "Kreatur"),
    ]
    assert store.units[0].getid() == "mechanic-cycling"
    # The same store, the same bytes, to a file or to standard output.
    again = run_kb(terms_url, "translations", "glossary", "--locale", "de")
    assert again.stdout_bytes == tbx


def test_an_editors_name_wins_and_the_csv_glossary_is_weblates(terms_url: str) -> None:
    edited = run_kb(
        terms_url, "edit", "mechanic-name", "cycling", "de", "Zyklus", "--editor", "ann"
    )
    assert edited.exit_code == 0, edited.output
    result = run_kb(terms_url, "translations", "glossary", "--locale", "de", "--format", "csv")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "source,target,context,developer_comments,translator_comments\n"
        "Cycling,Zyklus,mechanic:cycling,Magic keyword,confirmed or corrected by an editor\n"
        'outlaw,gesetzlos,mechanic:outlaw,"Magic term, rule 700.12",'
        "from the Comprehensive Rules or kb's catalog\n"
        'Spree,Exzess,mechanic:spree,"Magic keyword ability, rule 702.172",'
        "from the Comprehensive Rules or kb's catalog\n"
        "Bird,Vogel,type:Bird,Magic subtype,mined from the printed type lines: 3 of 3 cards "
        "print it\n"
        "Creature,Kreatur,type:Creature,Magic card type,mined from the printed type lines: 3 of "
        "3 cards print it\n"
    )
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [(row["source"], row["target"]) for row in rows][:1] == [("Cycling", "Zyklus")]
    store = csvfile(io.BytesIO(result.stdout_bytes))
    assert [(unit.source, unit.target, unit.getcontext()) for unit in store.units][:2] == [
        ("Cycling", "Zyklus", "mechanic:cycling"),
        ("outlaw", "gesetzlos", "mechanic:outlaw"),
    ]


def test_a_locale_with_no_terms_has_an_empty_glossary_and_english_is_refused(
    database_url: str,
) -> None:
    empty = run_kb(database_url, "translations", "glossary", "--locale", "ko")
    assert empty.exit_code == 0
    assert entries(empty.stdout_bytes) == {}
    refused = run_kb(database_url, "translations", "glossary", "--locale", "en")
    assert refused.exit_code == 2
    assert refused.stderr.endswith(
        "Error: the terms are English already; choose a translation locale\n"
    )


def test_a_file_that_cannot_be_written_is_one_line(database_url: str, tmp_path: Path) -> None:
    out = tmp_path / "nowhere" / "de.tbx"
    result = run_kb(database_url, "translations", "glossary", "--locale", "de", "--out", str(out))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"kb: error: {out}: No such file or directory\n"
    assert not (tmp_path / "nowhere").exists()


def test_a_key_that_is_no_xml_name_is_escaped() -> None:
    assert _xml_id("type:Urza's") == "type-Urza_27_s"
    assert _xml_id("type:Time Lord") == "type-Time_20_Lord"
    assert _xml_id("mechanic:first-strike") == "mechanic-first-strike"


@pytest.mark.realdata
def test_the_real_corpus_gives_cycling_its_german_name(sqlite_url: str, tmp_path: Path) -> None:
    engine = make_engine(sqlite_url)
    run_import(engine, [realdata("mtgjson-sets-2022-05/IKO.json.gz")])
    engine.dispose()
    result = run_kb(sqlite_url, "translations", "glossary", "--locale", "de")
    assert result.exit_code == 0
    found = entries(result.stdout_bytes)
    assert found["mechanic-cycling"][1] == {"en": "Cycling", "de": "Umwandlung"}
    assert found["type-Creature"][1] == {"en": "Creature", "de": "Kreatur"}
    store = tbxfile.parsestring(result.stdout_bytes, sourcelanguage="en", targetlanguage="de")
    assert ("Mutate", "Mutation") in {(unit.source, unit.target) for unit in store.units}
    # The check finds the glossary's term inflected, and says so where a translation lacks it.
    engine = make_engine(sqlite_url)
    with engine.connect() as connection:
        cycling, mutate = (
            connection.execute(
                select(schema.rulings.c.id).where(schema.rulings.c.text.like(f"{start}%"))
            ).scalar_one()
            for start in ("Triggered abilities from cycling a card", "Mutating the enchanted")
        )
    engine.dispose()
    for ruling, text in (
        (cycling, "Ausgelöste Fähigkeiten durch das Umwandeln einer Karte sind keine Zauber."),
        (mutate, "Das Mutieren der verzauberten Kreatur gibt ihr keine Fähigkeiten."),
    ):
        edited = run_kb(sqlite_url, "edit", "translation", str(ruling), "de", text, "--editor", "a")
        assert edited.exit_code == 0, edited.output
    checked = run_kb(sqlite_url, "translations", "check", "--locale", "de")
    assert (checked.exit_code, checked.stdout) == (
        1,
        f'ruling:{mutate}: Mutate: expected "Mutation"; the translation does not use it\n'
        "de: 1 finding in 2 translations that name a mechanic (2 checked)\n",
    )
