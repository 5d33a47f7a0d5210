"""The parsers' revision follows what they yield: an import reads again a file that an older
revision read (``kb.importers.PARSER_REVISION``), so a change to the records the parsers make of
the real files must come with a higher revision, or stores imported before would never get it.

The digest of each sample file's records is kept in tests/expected/parser-output.txt. After an
intended change to the parsers, raise ``PARSER_REVISION``, then refresh the digests:

    KB_REFRESH_EXPECTED=1 .venv/bin/pytest tests/test_parser_revision.py

A refresh with the revision not raised is refused while the records differ.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path

from realdata import realdata

from kb.importers import PARSER_REVISION, streams
from kb.parsing import STREAM_PARSERS

EXPECTED = Path(__file__).parent / "expected" / "parser-output.txt"
SAMPLES = {
    # Sets whose printed texts the parser repairs, one repair or more each (docs/importing.md).
    **{
        f"mtgjson-sets-2022-05/{code}.json.gz": streams.MTGJSON
        for code in (
            [
                "AKH",
                "C13",
                "C19",
                "DKA",
                "ELD",
                "FUT",
                "HOU",
                "INV",
                "ISD",
                "KHM",
                "M10",
                "M12",
                "MH1",
                "ONS",
                "SHM",
                "STA",
                "UGIN",
                "ZNR",
            ]
        )
    },
    "mtgjson_OTJ_excerpt.json": streams.MTGJSON,
    "scryfall_card_m21_2_de_alpine_watchdog.json": streams.SCRYFALL_CARDS,
    "scryfall_card_otj_75_three_steps_ahead.json": streams.SCRYFALL_CARDS,
    "scryfall_rulings_list_derevi.json": streams.SCRYFALL_RULINGS,
    "MagicCompRules_20220429.txt": streams.COMPREHENSIVE_RULES,
}


def digest(name: str, format_: str) -> str:
    """The digest of what the parser of ``format_`` yields from the sample: every field of
    every record that the loader reads (not the line a warning would name)."""
    found = hashlib.sha256()
    with streams.open_input(realdata(name)) as stream:
        for record in STREAM_PARSERS[format_](stream, name):
            assert dataclasses.is_dataclass(record)
            values = [
                (field.name, getattr(record, field.name))
                for field in dataclasses.fields(record)
                if field.compare and field.name != "line"
            ]
            found.update(f"{type(record).__name__} {values!r}\n".encode())
    return found.hexdigest()


def written(revision: int, digests: dict[str, str]) -> str:
    return f"revision {revision}\n" + "".join(f"{d} {name}\n" for name, d in digests.items())


def test_the_parsers_yield_what_their_revision_yielded() -> None:
    digests = {name: digest(name, format_) for name, format_ in SAMPLES.items()}
    now = written(PARSER_REVISION, digests)
    recorded = EXPECTED.read_text("utf-8") if EXPECTED.exists() else ""
    revision = int(recorded.split("\n", 1)[0].removeprefix("revision ") or 0)
    same = recorded.split("\n", 1)[-1] == now.split("\n", 1)[-1]
    if os.environ.get("KB_REFRESH_EXPECTED") and (same or revision < PARSER_REVISION):
        EXPECTED.write_text(now, "utf-8")
        return
    assert same or revision < PARSER_REVISION, (
        "the parsers yield other records than revision "
        f"{revision} did: raise kb.importers.PARSER_REVISION, then refresh {EXPECTED.name} "
        "with KB_REFRESH_EXPECTED=1 .venv/bin/pytest tests/test_parser_revision.py"
    )
    assert recorded == now, (
        f"kb.importers.PARSER_REVISION is {PARSER_REVISION}: refresh {EXPECTED.name} with "
        "KB_REFRESH_EXPECTED=1 .venv/bin/pytest tests/test_parser_revision.py"
    )
