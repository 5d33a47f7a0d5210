"""A locale's texts kept as one buffer of UTF-8 while the miner reads the store: what
``Contrast`` keeps of every sample, to count n-grams in a spread of them once all are in.

Why: the contrast of keyword actions needs every localized text of a locale, because which
ones its estimates read (every n-th) depends on how many there are. On the real corpus that is
164,000 texts, 37 MB as Python strings (an object each), held until the end of the mining,
whose peak is the import's (benchmarks/README.md); as one buffer of their UTF-8 they take a
fraction of that, split between the mining's two processes. Until 2026-12-07 the buffer was
also compressed (zlib's fastest level): that saved 5 MB in each process and cost 0.15-0.2 s of
a mining that had come down to 3.5 s (five minings each way in turns, medians 3.75 s against
3.91 s), when the mining stood at its bound of a quarter of the import.

The contract: ``PackedTexts`` behaves as the list of the texts appended, for ``len`` and for
``every(step, ...)`` (``texts[::step]`` for each step); tests/test_mining.py proves it equal
to a list, and the mined names of the real corpus are the same either way.
"""

from __future__ import annotations

from array import array


class PackedTexts:
    """Texts appended one by one and kept as UTF-8 in one buffer; read back as a spread."""

    def __init__(self) -> None:
        self._stream = bytearray()
        self._ends = array("Q")
        """Each text's end in the UTF-8 stream of them all."""

    def append(self, text: str) -> None:
        self._stream += text.encode("utf-8")
        self._ends.append(len(self._stream))

    def __len__(self) -> int:
        return len(self._ends)

    def every(self, *steps: int) -> list[list[str]]:
        """``[texts[::step] for step in steps]``: for each step, one in ``step`` of the texts,
        from the first."""
        stream, ends = self._stream, self._ends
        return [
            [
                stream[(ends[index - 1] if index else 0) : ends[index]].decode("utf-8")
                for index in range(0, len(ends), step)
            ]
            for step in steps
        ]
