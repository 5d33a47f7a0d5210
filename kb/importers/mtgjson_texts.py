"""MTGJSON's printed texts as the cards print them: what Gatherer's layout, which MTGJSON
copies, adds or loses, mended. Each repair is pure, and leaves a text it is not sure of as it is
(docs/importing.md, "As printed")."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import accumulate
from typing import Final, NamedTuple

from kb.locales import LATIN_SCRIPT, in_latin_letters

_LEVEL_MARKER: Final = re.compile(r"//Level_\d+//")


class AsPrinted(NamedTuple):
    """A printing's texts in one locale, mended: its English text, its text, its type line."""

    english: str | None
    text: str | None
    type_line: str | None


def as_printed(
    layout: object, english: str | None, text: str | None, type_line: str | None, locale: str
) -> AsPrinted:
    """Every repair, in order, of a face's printed texts in ``locale`` beside its printed
    English (MTGJSON ``originalText``); ``layout`` is the face's (MTGJSON ``layout``). No text
    and no type line where the text is the English copied (``english_copy``). The one way the
    parser and the miner's samples read them."""
    if layout == "modal_dfc":
        english, text = without_other_face(english, text)
    english = _english_as_printed(english)
    text = without_markers(without_markup(without_stray_glyphs(one_kind_of_break(text))))
    text, type_line = lines_trimmed(words_spaced(text)), words_spaced(type_line)
    text = breaks_out_of_brackets(text, english, locale)
    # The line repairs change only a text with more or fewer lines than its English: told once
    # here, so that their own counts run for those alone (half of as_printed's time otherwise).
    if text is not None and english is not None and _line_count(text) != _line_count(english):
        text = lines_apart(text, english, locale)
        text = lines_joined(lines_by_sentences(text, english, locale), english)
    text = letters_as_symbols(text, english)
    if english_copy(text, english, locale):
        return AsPrinted(english, None, None)
    if english_type_copied(type_line, locale):
        type_line = None
    return AsPrinted(english, text, one_separator(type_line))


@lru_cache(maxsize=16)
def _english_as_printed(english: str | None) -> str | None:
    """The printed English, mended: the same for each of a face's ten locales, which come one
    after the other."""
    return english_mended(without_markers(english))


_LETTERS: Final = re.compile(r"[A-Za-z]{2,}")


def english_copy(text: str | None, english: str | None, locale: str) -> bool:
    """Whether a printing's "translation" is its English text: a gap in MTGJSON's data (AFR's
    Trelasarra, Moon Dancer has its English type line and text in all ten languages), which the
    page would show as the locale's printed text, and which would vote English words for the
    locale's names. In a locale written in Latin letters only a sentence counts: keywords are
    often the same words (French "Vigilance", "Menace"; "Bushido 2"). A text in the locale's
    own script is no copy, even where MTGJSON's English is that text too (two Japanese-only
    planeswalkers)."""
    if text is None or text != english or not _LETTERS.search(text):
        return False
    return locale not in LATIN_SCRIPT or "." in text


def english_type_copied(type_line: str | None, locale: str) -> bool:
    """Whether a type line in a locale not written in Latin letters is in Latin letters: the
    English copied (HOU's Crypt of the Eternals is "Land" in Japanese and Russian), which the
    page would show as the printed type line."""
    return type_line is not None and locale not in LATIN_SCRIPT and in_latin_letters(type_line)


_OTHER_FACE: Final = "\n\n\n"
"""What parts a modal double-faced card's printed English text from the reminder of its other
face (Gatherer's layout, which MTGJSON's ``originalText`` keeps)."""


def without_other_face(english: str | None, text: str | None) -> tuple[str | None, str | None]:
    """A modal double-faced face's printed English text and localized text without the
    reminder of the other face that the card prints at its bottom: ZNR's Agadeem's Awakening
    prints "Land / {T}: Add {B}." under its own text, and the page shows that face whole
    anyway. The localized text has the same lines without the blank ones ("Tierra", "{T}:
    Agrega {B}."); where its lines are not those (a text that lacks the reminder), it stays."""
    if english is None or _OTHER_FACE not in english:
        return english, text
    own, _, other = english.partition(_OTHER_FACE)
    reminder = len(other.split("\n"))
    if text is not None:
        lines = text.split("\n")
        if len(lines) == len(own.split("\n")) + reminder:
            text = "\n".join(lines[:-reminder])
    return own, text


_GATHERER_SYMBOLS: Final = re.compile(  # "o" first: re then looks for it alone, 6 times faster
    r"o(?<![A-Za-z]o)(?:o?\n[WUBRGX]|c\n[TQ]|[0-9]+|X)(?:o(?:o?\n[WUBRGX]|c\n[TQ]|[0-9]+|X))*(?![a-z])"
)
_GATHERER_SYMBOL: Final = re.compile(r"oo?\n([WUBRGX])|oc\n([TQ])|o([0-9]+|X)")
"""Old Gatherer's mana and tap symbols as MTGJSON's ``originalText`` of older sets spells them:
"oc\nT" for {T}, "o2" for {2}, "o\nR" (or "oo\nR") for {R}, one after the other ("o1o\nG")."""
_BREAK_IN_SYMBOL: Final = re.compile(r"\{([^{}\n]+)\n([^{}\n]+)\}")
_COST_AFTER_DASH: Final = re.compile(r"—\n(?!•)")
"""A line break after a keyword's dash, before its cost ("Evoke—\nExile a red card from your
hand."), where the card prints one line; a break before a mode's bullet is the card's."""


def english_mended(english: str | None) -> str | None:
    """A printing's English text (MTGJSON ``originalText``) as the card prints it: Gatherer's
    old symbol codes as symbols (``_GATHERER_SYMBOLS``: ODY's Crystal Quarry "oc\nT: Add one
    colorless mana", about 1,800 texts of the 2022 corpus), a hybrid symbol's slash that is
    a line break ("{2\nW}" in SHM's, ZNR's and MM2's reminders, 53 texts), and a keyword's
    cost on its keyword's line (``_COST_AFTER_DASH``). All added lines that the translations
    do not have, so a translation could not be set beside its English line by line."""
    if english is None:
        return None
    english = _GATHERER_SYMBOLS.sub(_symbols, english)
    if "\n" in english:
        english = _BREAK_IN_SYMBOL.sub(r"{\1/\2}", english)
    return _COST_AFTER_DASH.sub("—", english) if "—\n" in english else english


def _symbols(codes: re.Match[str]) -> str:
    return _GATHERER_SYMBOL.sub(
        lambda code: "{" + next(filter(None, code.groups())) + "}", codes[0]
    )


_STRAY_F: Final = re.compile(r"(?<=）)ｆ$", re.MULTILINE)


def without_stray_glyphs(text: str | None) -> str | None:
    """A translation without the glyphs Gatherer's Japanese pages left as letters: PTK spells
    the tap symbol "(Ｔ)" (12 texts), and KTK's delve reminders end with a stray "ｆ" (7)."""
    if text is None:
        return None
    if "ｆ" in text:
        text = _STRAY_F.sub("", text)
    return text.replace("(Ｔ)", "{T}")


_MANA_LETTERS: Final = re.compile(r"(?<![\w{}/+\-’'.])([0-9]?)([WUBRG]{1,4})(?![\w{}/’'\-])")


def letters_as_symbols(text: str | None, english: str | None) -> str | None:
    """Mana symbols that MTGJSON gives as capital letters in some older translations (4ED's
    German Cosmic Horror "Versorgungsphase 3BBB", ICE's "Erhöhe Deinen Manavorrat um G.",
    ODY's Portuguese "W, Sacrifique"; 97 texts), as the cards print them: symbols. Only where
    the translation has fewer symbols than its ``english`` (the letters stand for those), and
    no word of a translation is made of those capitals alone (German "z.B." is no {B})."""
    if text is None or (english is not None and text.count("{") >= english.count("{")):
        return text
    return _MANA_LETTERS.sub(_as_symbols, text)


def _as_symbols(letters: re.Match[str]) -> str:
    generic = "{" + letters[1] + "}" if letters[1] else ""
    return generic + "".join("{" + letter + "}" for letter in letters[2])


def words_spaced(text: str | None) -> str | None:
    """A translation with its spaces: MTGJSON joins the words of a Russian subtype of two
    words with "_" ("Существо — Зомби Летучая_мышь", "Тайных_знаний"), which the card prints
    with a space. (It runs after ``without_markers``, whose "//Level_2//" holds one too.)"""
    if text is None or "_" not in text:
        return text
    return text.replace("_", " ")


_SPACE_AT_A_LINES_EDGE: Final = re.compile(r"^[ \t]+|[ \t]+$|\n(?=\n)", re.MULTILINE)


def lines_trimmed(text: str | None) -> str | None:
    """A translation without spaces at its lines' starts and ends, nor blank lines: older
    sets' German, French, Portuguese and Japanese texts start lines with a space (FUT's "...\n
    Vorhersage {1}{W}, ...", 229 texts), and 8 have a blank line the card does not print."""
    if text is None or (
        text == text.strip() and " \n" not in text and "\n " not in text and "\n\n" not in text
    ):
        return text
    return _SPACE_AT_A_LINES_EDGE.sub("", text).strip("\n")


def one_kind_of_break(text: str | None) -> str | None:
    """A translation's line breaks all "\n": FUT's Spanish texts (and a few Japanese and
    Russian ones) part their lines with U+2028, which a page shows inside one paragraph."""
    if text is None or "\u2028" not in text:
        return text
    return text.replace("\u2028", "\n")


_MARKUP: Final = re.compile(
    r"&lt;/?(?:i|line)&gt;|&gt;(?=[(（])|^&gt;|&amp;$", re.IGNORECASE | re.MULTILINE
)
"""Gatherer's markup that MTGJSON keeps, escaped, in some translations: TSR's "&lt;I&gt;(...)
&lt;/I&gt;" around reminder text, MH2's Spanish "&lt;/line&gt;" and "&lt;line&gt;" around a
line, DKA's and AVR's "&gt;" left before a reminder or an ability word, a "&amp;" at a text's
end (KHM)."""


def without_markup(text: str | None) -> str | None:
    """The translation without Gatherer's escaped markup (``_MARKUP``), which its page showed
    as text ("Flankenangriff &lt;I&gt;(Immer wenn..."); a text without "&" is as it is."""
    if text is None or "&" not in text:
        return text
    return _MARKUP.sub("", text)


_RUN_TOGETHER: Final = re.compile(
    r"(?<=[a-zß-öø-ÿа-яё.)])(?=[A-ZÀ-ÖØ-ÞА-ЯЁ{])|(?<=\})(?=[A-ZÀ-ÖØ-ÞА-ЯЁ])"
)
"""Where two lines run together: a lower-case letter, a full stop or a closing bracket, then at
once a capital or a symbol ("angreifen.)Fliegend", "KreaturWenn", "Spiel.{T}"); a symbol, then
at once a capital (UGIN's French "Équipement {3}La capacité ...")."""
_AFTER_KOREAN_SEAM: Final = r"[^\s.,)\]}」』”’\"':;!?·…~\-—]"
_KOREAN_SEAM: Final = re.compile(rf"(?:(?<=\.)|(?<=\.\)))(?={_AFTER_KOREAN_SEAM})")
"""Korean puts a space after a sentence: a full stop (or a reminder's ".)") with a word or a
symbol at once after it is where two lines run together ("있다.)마법학원", "잃는다.회상")."""
_CJK_SEAM: Final = re.compile(
    r"(?<=。）)(?=[^\s。、，．）)」』”（(：:・ー])"
    r"|(?<=[。）])(?=(?:\{[^{}]+\})+[^。（(]*?[：:])"
    r"|(?<=[。）])(?=[＋+−\-－][0-9０-９XＸ]+[：:])"
)
"""Japanese and Chinese put no space between sentences, so only three seams are sure: a
reminder's end ("。）") with a word at once after it ("防衛（...。）飛行"), and a sentence's or
a reminder's end before an activated ability's cost ("。{T}：") or a loyalty ability
("。−3：")."""
_SEAMS: Final = {"ko": _KOREAN_SEAM, "ja": _CJK_SEAM, "zh-Hans": _CJK_SEAM, "zh-Hant": _CJK_SEAM}
"""The seams of the locales whose scripts have no capitals; the others' are _RUN_TOGETHER."""


def lines_apart(text: str | None, english: str | None, locale: str) -> str | None:
    """A translation whose line breaks MTGJSON lost, its lines apart again: M14's German
    Angelic Wall, "Verteidiger (Diese Kreatur kann nicht angreifen.)Fliegend", where the
    English says "Defender (...)" and "Flying" on two lines. Only where the seams found (the
    locale's: ``_SEAMS``) are exactly the lines missing beside the English text; any other text
    stays as it is."""
    if text is None or english is None:
        return text
    missing = _line_count(english) - _line_count(text)
    if missing <= 0:
        return text
    seams = [found.start() for found in _SEAMS.get(locale, _RUN_TOGETHER).finditer(text)]
    if len(seams) != missing:
        return text
    pieces = [text[start:end] for start, end in zip([0, *seams], [*seams, len(text)], strict=True)]
    return "\n".join(pieces)


_BREAK_IN_BRACKETS: Final = re.compile(r"[(（][^)）\n]*\n")
"""A line break inside a reminder's brackets."""


def breaks_out_of_brackets(text: str | None, english: str | None, locale: str) -> str | None:
    """A translation whose line break fell inside a reminder while the line before it ran
    together with the previous one: ONS's German "... blocken.Morph {2}{U} (Du kannst ...
    spielen.\nDecke sie ... auf.)", ISD's Korean "...받는다.회상 (... 있다.\n그 후, ...)", where
    the English parts the lines before "Morph" and "Flashback". The reminder is joined again,
    then parted at its seam (``lines_apart``); only where that gives the English's lines, and
    the English breaks no reminder itself."""
    if text is None or english is None or _BREAK_IN_BRACKETS.search(text) is None:
        return text
    if _BREAK_IN_BRACKETS.search(english) is not None:
        return text
    glue = "" if locale in _SCRIPTS_WITHOUT_SPACES else " "
    lines = text.split("\n")
    joined = [lines[0]]
    for line in lines[1:]:
        if _BREAK_IN_BRACKETS.search(joined[-1] + "\n"):
            joined[-1] += glue + line
        else:
            joined.append(line)
    parted = lines_apart("\n".join(joined), english, locale)
    return parted if parted is not None and _line_count(parted) == _line_count(english) else text


_SCRIPTS_WITHOUT_SPACES: Final = frozenset({"ja", "zh-Hans", "zh-Hant"})
_CLOSING_QUOTES: Final = "\"'”’」』»"
_NOT_A_SENTENCE_START: Final = "。、，．・：:…）)」』"
_ENDS_A_SENTENCE: Final = re.compile(r"[.!?。)）\"”]\s*$")


def lines_by_sentences(text: str | None, english: str | None, locale: str) -> str | None:
    """A translation whose lines MTGJSON ran together with a space (SOK's German Eternal
    Dominion, "... mischt dann seine Bibliothek. Episch (...)", where the English prints
    "Epic (...)" on a line of its own) or with no seam ``lines_apart`` can see (BFZ's
    Japanese "...等しい。あなたが..."), its lines apart again by its sentences: where the
    translation has as many sentences as the English text, its breaks fall where the English
    lines end. Only where every break the translation has is at the end of an English line,
    and the English line before each new break ends a sentence (a keyword line such as
    "Flying" does not: the translation may have lost it). Korean is left as it is: it says a
    target in a sentence of its own ("생물 한 개를 목표로 정한다. 그 생물을 파괴한다.")."""
    if text is None or english is None or locale == "ko":
        return text
    lines = text.split("\n")
    if len(lines) >= _line_count(english) or not all(map(str.strip, lines)):
        return text
    english_lines = [line for line in english.split("\n") if line.strip()]
    english_ends = list(accumulate(len(_sentence_ends(line, False)) + 1 for line in english_lines))
    cjk = locale in _SCRIPTS_WITHOUT_SPACES
    ends = [_sentence_ends(line, cjk) for line in lines]
    if sum(len(found) + 1 for found in ends) != english_ends[-1]:
        return text
    parted: list[str] = []
    count = 0
    for line, found in zip(lines, ends, strict=True):
        start = 0
        for end, next_start in found:
            count += 1
            if count in english_ends:
                if not _ENDS_A_SENTENCE.search(english_lines[english_ends.index(count)]):
                    return text
                parted.append(line[start:end].rstrip())
                start = next_start
        count += 1
        if count not in english_ends:
            return text
        parted.append(line[start:])
    return "\n".join(parted)


def sentences(line: str, locale: str) -> list[str]:
    """A line's sentences, as ``lines_by_sentences`` counts them (a reminder belongs to the
    sentence it follows)."""
    start, parts = 0, []
    for end, next_start in _sentence_ends(line, locale in _SCRIPTS_WITHOUT_SPACES):
        parts.append(line[start:end])
        start = next_start
    parts.append(line[start:])
    return parts


def _sentence_ends(line: str, cjk: bool) -> list[tuple[int, int]]:
    """Where a line's sentences but its last end, outside brackets: each sentence's end (its
    closing quotes included) and the next one's start. A reminder's closing bracket after a
    full stop ends a sentence ("Devoid (This card has no color.) At the beginning..."). The
    next sentence starts with a capital, a digit or a symbol, or in Japanese and Chinese with
    anything but punctuation."""
    stops = "。" if cjk else ".!?"
    ends: list[int] = []
    depth = 0
    for index, char in enumerate(line):
        if char in "(（":
            depth += 1
        elif char in ")）":
            depth = max(depth - 1, 0)
            if depth == 0 and index and line[index - 1] in stops:
                ends.append(index + 1)
        elif char in stops and depth == 0:
            end = index + 1
            while end < len(line) and line[end] in _CLOSING_QUOTES:
                end += 1
            if end == len(line) or line[end] not in ")）":
                ends.append(end)
    found: list[tuple[int, int]] = []
    for end in ends:
        start = end
        while start < len(line) and line[start].isspace():
            start += 1
        if start < len(line) and _starts_a_sentence(line[start], cjk):
            found.append((end, start))
    return found


def _starts_a_sentence(char: str, cjk: bool) -> bool:
    if cjk:
        return char not in _NOT_A_SENTENCE_START
    return char.isupper() or char.isdigit() or char in '{(•„«"¡¿+−-'


_BROKEN: Final = re.compile(r"(?<=[\w,])\n(?=[a-zß-öø-ÿа-яё])")
"""A line break inside a sentence: after a word or a comma, before a lower-case letter ("Quand le
Dragon bleu arrive\nsur le champ de bataille")."""


def lines_joined(text: str | None, english: str | None) -> str | None:
    """A translation with line breaks inside its sentences, joined again: AFR's French Blue
    Dragon, "Quand le Dragon bleu arrive" and "sur le champ de bataille, ..." on two lines
    where the English has one. Only where the breaks found (``_BROKEN``) are exactly the lines
    too many beside the English text, as ``lines_apart`` the other way; any other text stays
    as it is. Scripts without capitals have no such sure break."""
    if text is None or english is None:
        return text
    extra = _line_count(text) - _line_count(english)
    if extra <= 0 or len(_BROKEN.findall(text)) != extra:
        return text
    return _BROKEN.sub(" ", text)


def _line_count(text: str) -> int:
    """The text's lines but the blank ones: how ``lines_apart`` and ``lines_joined`` compare a
    translation with its English."""
    return sum(map(bool, map(str.strip, text.split("\n"))))


_HYPHEN_AFTER_SEPARATOR: Final = re.compile(r"([—―:]) - ")


def one_separator(type_line: str | None) -> str | None:
    """A translated type line with its own separator once: MTGJSON writes some with a hyphen
    after it (Japanese "クリーチャー ― - ゾンビ・兵士", French "Créature : - zombie et soldat",
    Chinese "生物～ - 殭屍／士兵"), which the cards do not print."""
    if type_line is None or " - " not in type_line:
        return type_line
    return _HYPHEN_AFTER_SEPARATOR.sub(r"\1 ", type_line).replace("～ - ", "～")


def without_markers(text: str | None) -> str | None:
    """A printed text without Gatherer's level markers: MTGJSON copies a line "//Level_2//"
    into the printed texts of the Class cards (AFR), where the card prints a level bar and
    the Oracle text has nothing."""
    if text is None or "//Level_" not in text:
        return text
    return "\n".join(line for line in text.split("\n") if not _LEVEL_MARKER.fullmatch(line))
