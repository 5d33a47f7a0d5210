"""Batches: how many records the loader writes at a time, and how many keys one ``IN`` holds."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TypeVar

BATCH_SIZE = 2000
# Well under SQLite's and PostgreSQL's bound-parameter limits.
IN_CHUNK = 900

T = TypeVar("T")


def chunks(items: Iterable[T], size: int = IN_CHUNK) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
