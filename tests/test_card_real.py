"""kb card on sets of the real corpus (MTGJSON, May 2022): a Japanese face name, mined mechanic
names as tags, and a printed text damaged in its source."""

from __future__ import annotations

import json

import pytest
from conftest import kb_card as ok
from realdata import realdata
from sqlalchemy import text

from kb.engine import make_engine
from kb.importing import run_import


@pytest.mark.realdata
def test_a_real_japanese_face_name_gives_the_split_card(database_url: str) -> None:
    """Ultimate Masters (2018) printed Fire // Ice in Japanese as 火 // 氷; MTGJSON gave it
    nine rulings."""
    engine = make_engine(database_url)
    run_import(engine, [realdata("mtgjson-sets-2022-05/UMA.json.gz")])
    engine.dispose()
    shown = ok(database_url, "氷", "--locale", "ja")
    assert shown.startswith(
        "火 // 氷\nFire // Ice\nMana cost: {1}{R} // {1}{U}\n\n"
        "Printed text, as printed in UMA, number 225 (2018-12-07)\n  火\n    インスタント\n"
    )
    assert "\n9 rulings\n  2018-12-07\n    If the target permanent becomes an illegal" in shown
    assert ok(database_url, "fire//ice", "--locale", "ja") == shown
    document = json.loads(ok(database_url, "火", "--json"))
    assert document["matches"][0]["names"] == [
        {"name": "火", "locale": "ja", "face": True, "english": False}
    ]


@pytest.mark.realdata
def test_tags_use_the_mined_names_of_a_real_set(database_url: str) -> None:
    """Innistrad: Midnight Hunt's German printed texts give flashback its German name
    (mined, kb/mining), which kb card tags the card and its rulings with."""
    engine = make_engine(database_url)
    run_import(engine, [realdata("mtgjson-sets-2022-05/MID.json.gz")])
    with engine.connect() as connection:
        origin = connection.execute(
            text(
                "SELECT n.origin FROM mechanic_names n JOIN mechanics m ON m.id = n.mechanic_id "
                "WHERE m.slug = 'flashback' AND n.locale = 'de'"
            )
        ).scalar_one()
    engine.dispose()
    assert origin == "mined"
    shown = ok(database_url, "blick aus einer anderen welt", "--locale", "de", "--width", "80")
    assert shown.startswith(
        "Blick aus einer anderen Welt\nOtherworldly Gaze\nMana cost: {U}\n"
        "Mechanics: Rückblende\n\nPrinted text, as printed in MID, number 67 (2021-09-24)\n"
        "  Spontanzauber\n"
        "  Schaue dir die obersten drei Karten deiner Bibliothek an. Lege eine beliebige\n"
        "    Anzahl davon auf deinen Friedhof und den Rest in beliebiger Reihenfolge oben\n"
    )
    assert "\n6 rulings\n  2021-09-24 · Rückblende\n    “Flashback [cost]” means" in shown
    document = json.loads(ok(database_url, "Otherworldly Gaze", "--json", "--locale", "de"))
    assert document["card"]["mechanics"] == [
        {"slug": "flashback", "name": "Rückblende", "locale": "de"}
    ]


@pytest.mark.realdata
def test_a_printed_text_damaged_in_its_source_says_so(database_url: str) -> None:
    """MTGJSON's Korean M12 lost Llanowar Elves' {T} and {G}: ": 를 당신의 마나풀에 담는다."."""
    engine = make_engine(database_url)
    run_import(engine, [realdata("mtgjson-sets-2022-05/M12.json.gz")])
    engine.dispose()
    shown = ok(database_url, "Llanowar Elves", "--locale", "ko", "--width", "60")
    assert (
        "Printed text, as printed in M12, number 182 (2011-07-15)\n"
        "  (This printed text looks damaged in its source: lines run\n"
        "  together or mana symbols lost. The Oracle text is whole.)\n"
        "  생물 — 엘프 드루이드\n  : 를 당신의 마나풀에 담는다.\n"
    ) in shown
    document = json.loads(ok(database_url, "Llanowar Elves", "--json", "--locale", "ko"))
    assert document["card"]["printed"][0]["damaged_in_source"] is True
    whole = ok(database_url, "Lava Axe", "--locale", "ko")
    assert "damaged" not in whole and "Printed text, as printed in M12" in whole
