"""A locale's texts kept compressed while the miner reads the store: what ``Contrast`` keeps of
every sample, to count n-grams in a spread of them once all are in.

Why: the contrast of keyword actions needs every localized text of a locale, because which
ones its estimates read (every n-th) depends on how many there are. On the real corpus that is
164,000 texts, 37 MB as Python strings, held until the end of the mining, whose peak is the
import's (benchmarks/README.md). Compressed as they come (zlib's fastest level) they take
7 MB, for about 0.3 s of the mining's 10 s.

The contract: ``PackedTexts`` behaves as the list of the texts appended, for ``len`` and for
``every(step, ...)`` (``texts[::step]`` for each step); tests/test_mining.py proves it equal
to a list, and the mined names of the real corpus are the same either way.
"""

from __future__ import annotations

import zlib
from array import array
from typing import Final

LEVEL: Final = 1
"""zlib's fastest: the texts repeat each other's words, which even it finds."""
BUFFERED: Final = 1 << 16
"""Bytes of texts compressed in one call: a call per text costs several times the work."""


class PackedTexts:
    """Texts appended one by one and kept compressed; read back as a spread, all at once."""

    def __init__(self) -> None:
        self._compressor = zlib.compressobj(LEVEL)
        self._pieces: list[bytes] = []
        self._buffer: list[bytes] = []
        self._size = 0
        """Bytes of all the texts, in UTF-8."""
        self._compressed = 0
        """Bytes of them compressed so far."""
        self._ends = array("Q")
        """Each text's end in the UTF-8 stream of them all."""

    def append(self, text: str) -> None:
        data = text.encode("utf-8")
        self._size += len(data)
        self._ends.append(self._size)
        self._buffer.append(data)
        if self._size - self._compressed >= BUFFERED:
            self._compress()

    def _compress(self) -> None:
        piece = self._compressor.compress(b"".join(self._buffer))
        if piece:
            self._pieces.append(piece)
        self._buffer.clear()
        self._compressed = self._size

    def __len__(self) -> int:
        return len(self._ends)

    def every(self, *steps: int) -> list[list[str]]:
        """``[texts[::step] for step in steps]``: for each step, one in ``step`` of the texts,
        from the first (the texts are decompressed once for them all)."""
        self._compress()
        # A copy is flushed, so that texts can still be appended after.
        stream = zlib.decompress(b"".join([*self._pieces, self._compressor.copy().flush()]))
        ends = self._ends
        return [
            [
                stream[(ends[index - 1] if index else 0) : ends[index]].decode("utf-8")
                for index in range(0, len(ends), step)
            ]
            for step in steps
        ]
