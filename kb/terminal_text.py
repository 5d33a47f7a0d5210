"""Text wrapped to a terminal's columns, in any of the eleven languages.

Python's textwrap counts characters and breaks at spaces only: a Japanese or Chinese text, which
has no spaces and takes two columns a character, would run past the edge. Here a line breaks at
spaces, and between two Chinese or Japanese characters, but never before closing punctuation
(``。``, ``」``) or after opening punctuation (``「``); Korean, which spaces its words, breaks
at spaces only. Widths are wcwidth's: two columns for a wide character, none for a combining
mark.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from wcwidth import wcswidth, wcwidth

_CLOSING = frozenset(
    "、。，．,.！？!?：；:;」』）)】〕〉》〗〙〛｝}ー…‥・々〻ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
)
_OPENING = frozenset("「『（(【〔〈《〖〘〚｛{")
_TOKEN = re.compile(r"\s+|\S+")


def columns(text: str) -> int:
    """The terminal columns ``text`` takes (a character a terminal does not print counts one)."""
    width = wcswidth(text)
    return width if width >= 0 else len(text)


def _breaks_anywhere(character: str) -> bool:
    """A wide character a line may break before or after: Chinese and Japanese, not Hangul."""
    return wcwidth(character) == 2 and not unicodedata.name(character, "").startswith("HANGUL")


def _pieces(word: str) -> Iterator[str]:
    """A word (no spaces) cut where a line may break inside it."""
    piece = ""
    for character in word:
        if (
            piece
            and (_breaks_anywhere(character) or _breaks_anywhere(piece[-1]))
            and character not in _CLOSING
            and piece[-1] not in _OPENING
        ):
            yield piece
            piece = ""
        piece += character
    if piece:
        yield piece


def wrap(text: str, width: int, indent: str = "", hanging: str = "") -> list[str]:
    """``text``'s lines, each ``indent``-ed and broken to at most ``width`` columns where it
    can be (a piece longer than a line stands alone on its line), the lines a break makes
    indented ``hanging`` more. ``width`` 0: lines only indented."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        if width <= 0:
            lines.append(f"{indent}{paragraph}".rstrip())
            continue
        prefix, line, used = indent, "", 0
        for token in _TOKEN.findall(paragraph):
            if token.isspace():
                if line:
                    line, used = line + " ", used + 1
                continue
            for piece in _pieces(token):
                size = columns(piece)
                if line.strip() and columns(prefix) + used + size > width:
                    lines.append(f"{prefix}{line}".rstrip())
                    prefix, line, used = indent + hanging, "", 0
                line, used = line + piece, used + size
        lines.append(f"{prefix}{line}".rstrip())
    return lines
