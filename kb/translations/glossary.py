"""``kb translations glossary``: the game's terms in one locale, as a glossary that Weblate
imports.

The terms are the mechanics' names in the locale (the rules', kb's catalog's, the mined ones, and
the editors', which win: ``mechanic_names`` holds one name per mechanic and locale) and the card
types, supertypes and subtypes mined from the printed type lines (``type_names``). A term with no
name in the locale is left out: the file says what the locale calls a thing, not what it lacks.

Two forms. TBX (TermBase eXchange, the TBX-Basic dialect of ISO 30042's ``martif``), the one
glossary format Weblate both imports and exports with explanations: one ``termEntry`` per term,
its definition in ``descrip``, an English and a localized ``langSet``. And Weblate's CSV glossary
(``source``, ``target``, ``context``, ``developer_comments``, ``translator_comments``). Both depend
on the store alone, in a fixed order (mechanics by slug, then types by English name): the same
store gives the same bytes.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy import and_, select
from sqlalchemy.engine import Connection

from kb.locales import BY_CODE
from kb.mining.types import SUPERTYPES, TYPES
from kb.schema import mechanic_names, mechanics, type_names

FORMATS: Final = ("tbx", "csv")
CSV_COLUMNS: Final = ("source", "target", "context", "developer_comments", "translator_comments")
_XML_LANG: Final = "{http://www.w3.org/XML/1998/namespace}lang"
_NOT_IN_ID: Final = re.compile(r"[^\w.-]")
_DOCTYPE: Final = '<!DOCTYPE martif SYSTEM "TBXBasiccoreStructV02.dtd">'
_KINDS: Final = {
    "keyword_ability": "keyword ability",
    "keyword_action": "keyword action",
    "keyword": "keyword",
    "term": "term",
}
_ORIGINS: Final = {
    "source": "from the Comprehensive Rules or kb's catalog",
    "editor": "confirmed or corrected by an editor",
}


@dataclass(frozen=True)
class Term:
    """One term: its stable key (``mechanic:cycling``, ``type:Creature``), the English and the
    localized name, what it is (the definition) and where the localized name comes from."""

    key: str
    english: str
    localized: str
    definition: str
    evidence: str


def _mined(cards: int | None, voters: int | None) -> str:
    if cards is None or voters is None:
        return "mined from the printed texts"
    return f"mined from the printed texts: {cards} of {voters} cards print it"


def mechanic_terms(connection: Connection, locale: str) -> list[Term]:
    """The mechanics named in ``locale``, by slug."""
    english, localized = mechanic_names.alias("english"), mechanic_names.alias("localized")
    query = (
        select(
            mechanics.c.slug,
            mechanics.c.kind,
            mechanics.c.rule,
            english.c.name,
            localized.c.name,
            localized.c.origin,
            localized.c.cards,
            localized.c.voters,
        )
        .join(localized, localized.c.mechanic_id == mechanics.c.id)
        .outerjoin(english, and_(english.c.mechanic_id == mechanics.c.id, english.c.locale == "en"))
        .where(localized.c.locale == locale)
    )
    terms = []
    for slug, kind, rule, english_name, name, origin, cards, voters in connection.execute(query):
        what = _KINDS.get(kind, kind.replace("_", " "))
        definition = f"Magic {what}, rule {rule}" if rule else f"Magic {what}"
        evidence = _mined(cards, voters) if origin == "mined" else _ORIGINS.get(origin, origin)
        terms.append(Term(f"mechanic:{slug}", english_name or slug, name, definition, evidence))
    # Sorted here, not by the database, whose collation differs between engines.
    return sorted(terms, key=lambda term: term.key)


def _type_kind(english: str) -> str:
    if english in TYPES:
        return "card type"
    return "supertype" if english in SUPERTYPES else "subtype"


def type_terms(connection: Connection, locale: str) -> list[Term]:
    """The card types, supertypes and subtypes named in ``locale``, by English name."""
    query = select(
        type_names.c.type, type_names.c.name, type_names.c.cards, type_names.c.voters
    ).where(type_names.c.locale == locale)
    terms = [
        Term(
            f"type:{english}",
            english,
            name,
            f"Magic {_type_kind(english)}",
            _mined(cards, voters).replace("printed texts", "printed type lines"),
        )
        for english, name, cards, voters in connection.execute(query)
    ]
    return sorted(terms, key=lambda term: term.key)


def terms(connection: Connection, locale: str) -> list[Term]:
    """Every term of the locale's glossary, in the file's order."""
    return mechanic_terms(connection, locale) + type_terms(connection, locale)


def _xml_id(key: str) -> str:
    """The key as an XML name (a TBX ``id``): "type:Urza's" → "type-Urza_27_s"."""
    return _NOT_IN_ID.sub(lambda found: f"_{ord(found.group()):x}_", key.replace(":", "-", 1))


def _language(locale: str) -> str:
    """The language tag a TBX file and Weblate read (BCP 47): ``pt-BR``, ``zh-Hans``."""
    return BY_CODE[locale].code


def render_tbx(locale: str, found: list[Term]) -> bytes:
    """The TBX-Basic file of ``locale``'s terms."""
    language = _language(locale)
    root = ET.Element("martif", {"type": "TBX-Basic", _XML_LANG: "en"})
    header = ET.SubElement(root, "martifHeader")
    description = ET.SubElement(header, "fileDesc")
    title = ET.SubElement(ET.SubElement(description, "titleStmt"), "title")
    title.text = f"Magic: The Gathering terms in {BY_CODE[locale].english_name}, from kb"
    source = ET.SubElement(ET.SubElement(description, "sourceDesc"), "p")
    source.text = (
        "Mechanic names (the Comprehensive Rules, kb's catalog, mined from the printed texts, "
        "editors' corrections) and card type names mined from the printed type lines."
    )
    encoding = ET.SubElement(ET.SubElement(header, "encodingDesc"), "p", {"type": "XCSURI"})
    encoding.text = "TBXBasicXCSV02.xcs"
    body = ET.SubElement(ET.SubElement(root, "text"), "body")
    for term in found:
        entry = ET.SubElement(body, "termEntry", {"id": _xml_id(term.key)})
        ET.SubElement(entry, "descrip", {"type": "definition"}).text = term.definition
        english = ET.SubElement(entry, "langSet", {_XML_LANG: "en"})
        ET.SubElement(ET.SubElement(english, "tig"), "term").text = term.english
        localized = ET.SubElement(entry, "langSet", {_XML_LANG: language})
        tig = ET.SubElement(localized, "tig")
        ET.SubElement(tig, "term").text = term.localized
        ET.SubElement(tig, "note").text = term.evidence
    ET.indent(root, space="  ")
    text = ET.tostring(root, encoding="unicode", short_empty_elements=True)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{_DOCTYPE}\n{text}\n'.encode()


def render_csv(found: list[Term]) -> bytes:
    """Weblate's CSV glossary of the terms: a header row, then a row per term."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for term in found:
        writer.writerow((term.english, term.localized, term.key, term.definition, term.evidence))
    return out.getvalue().encode("utf-8")


def render(connection: Connection, locale: str, form: str) -> tuple[bytes, int]:
    """The glossary file of ``locale`` in ``form`` (tbx or csv), and how many terms it holds."""
    found = terms(connection, locale)
    return (render_tbx(locale, found) if form == "tbx" else render_csv(found)), len(found)


def export_to_file(connection: Connection, locale: str, form: str, path: Path) -> int:
    """Write the file beside ``path`` then rename it: a failed export leaves no half file."""
    data, count = render(connection, locale, form)
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(data)
        partial.replace(path)
    except OSError as error:  # the file asked for, not the partial one beside it
        raise OSError(error.errno, error.strerror, str(path)) from None
    finally:
        partial.unlink(missing_ok=True)
    return count
