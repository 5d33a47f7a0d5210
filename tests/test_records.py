"""Records (kb/records.py) compare and hash by their fields, as frozen dataclasses do, where a
record's place in its file (``where``) and a ruling's text key count for nothing; and mypy holds
them frozen, though they are not at run time (made four times as fast)."""

from __future__ import annotations

from pathlib import Path

from mypy import api

from kb.records import CardNameRecord, CardRef, PrintedTextRecord, Printing, RulingRecord


def test_records_compare_and_hash_by_their_fields_but_where_they_stand() -> None:
    card = CardRef("id", "Lightning Bolt")
    one = CardNameRecord(card, "de", "Blitzschlag", where="card 1 foreignData")
    other = CardNameRecord(CardRef("id", "Lightning Bolt"), "de", "Blitzschlag", where="card 9")
    assert one == other and hash(one) == hash(other)
    assert one != CardNameRecord(card, "de", "Blitz")
    printed = PrintedTextRecord(card, "de", printing=Printing("M10", "146"))
    assert {printed, PrintedTextRecord(card, "de", printing=Printing("M10", "146"))} == {printed}
    ruling = RulingRecord(card, "Text.")
    assert ruling.key  # made with the record
    assert ruling == RulingRecord(card, "Text.", key="another") and hash(ruling) == hash(
        RulingRecord(card, "Text.", key="another")
    )


def test_mypy_rejects_a_change_to_a_record(tmp_path: Path) -> None:
    module = tmp_path / "changes_a_record.py"
    module.write_text(
        "from kb.records import CardRef, RulingRecord\n"
        "ruling = RulingRecord(CardRef(name='Lightning Bolt'), 'Text.')\n"
        "ruling.text = 'Another text.'\n"
    )
    out, _, status = api.run(
        ["--cache-dir", str(tmp_path / "cache"), "--follow-imports", "silent", str(module)]
    )
    assert status == 1
    assert f'{module}:3: error: Property "text" defined in "RulingRecord" is read-only' in out
