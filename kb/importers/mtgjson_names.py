"""MTGJSON's foreign card names as the cards print them: the gaps and slips of the source that
a name can be mended from, or must name no card for (docs/importing.md, "Names"). Pure."""

from __future__ import annotations

from kb.records import FACE_SEPARATOR, english_faces


def mended_name(name: str, english: str) -> str:
    """A card's foreign ``name`` as the card prints it (``english`` is its English name): with
    a capital first, as every card name starts (MTGJSON has ten that do not: French
    "l'Innommable", Portuguese "ódio"), and without English names of faces it has too many
    (``without_english_tail``)."""
    name = without_english_tail(name, english)
    return name[0].upper() + name[1:] if name[:1].islower() else name


def without_english_tail(name: str, english: str) -> str:
    """A name of more faces than the card has, whose last ones are the English names of the
    card's last faces, without them: MTGJSON names INV's four Japanese split cards "暴行 // 殴打
    // Battery" (their first face "暴行 // 殴打", their second in English; no text)."""
    faces, originals = name.split(FACE_SEPARATOR), english.split(FACE_SEPARATOR)
    extra = len(faces) - len(originals)
    if extra <= 0 or faces[len(originals) :] != originals[len(originals) - extra :]:
        return name
    return FACE_SEPARATOR.join(faces[: len(originals)])


def partly_english(name: str, english: str) -> bool:
    """Whether a card's foreign name of several faces names some of them in English and
    translates the others (AFC's German "Realm-Cloaked Giant // Abstreifen"): not a translation
    of the card's name, but a gap in the source that another printing's fills."""
    same = english_faces(name, english)
    return same is not None and 0 < same < name.count(FACE_SEPARATOR) + 1
