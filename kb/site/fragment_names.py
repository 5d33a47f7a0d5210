"""Shorter names for the fragments of a Pagefind bundle, so that a first search downloads less.

A first search fetches the locale's ``pf_meta`` whole, before any index chunk. Pagefind lists
every page in it by its fragment's name, ``de_`` and 7 hex digits of the fragment's hash, with
its word count. Those digits are random, so they do not compress: 24,400 German pages make
a meta of 163 KB, half of what a first search may download. Renamed in the order of the pages,
with the numbers in base 36, the names compress to about a third (docs/site.md, "Search").

The contract, for ``shorten(files)`` with ``files`` as Pagefind's service gives a bundle's
files (``{"path": ..., "content": base64}``):

- Each fragment is named ``<meta>_<n>``: ``<meta>`` is Pagefind's own name of the bundle's
  meta, a hash of the whole index that changes with any page's words or fragment, so a
  browser never takes a cached fragment of an older bundle for a new one; ``n`` counts the
  distinct fragments in the order of the pages, in base 36. Pages that Pagefind gave one
  fragment keep one.
- The meta is written again with those names, and named by a hash of its new bytes; the entry
  file names it. Nothing else changes: the fragments' bytes, the index chunks (they name pages
  by number), the filters and the WebAssembly.
- The bundle is left exactly as Pagefind made it unless kb's CBOR encoding of the meta Pagefind
  wrote gives back its very bytes, and the entry names that meta for its one language: a
  Pagefind whose format kb does not know loses nothing but the bytes saved.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from typing import Any

import cbor2

SIGNATURE = b"pagefind_dcd"
"""What every file of a bundle starts with once decompressed."""
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"

File = dict[str, str]


def shorten(files: list[File]) -> list[File]:
    """``files`` with the fragments renamed and the meta written again (the module's
    docstring has the contract); ``files`` itself where the meta's format is not the known one.
    """
    entry = next((file for file in files if file["path"] == "pagefind-entry.json"), None)
    metas = [file for file in files if file["path"].endswith(".pf_meta")]
    if entry is None or len(metas) != 1:
        return files
    meta_file = metas[0]
    old_meta = meta_file["path"].removeprefix("pagefind.").removesuffix(".pf_meta")
    try:
        data = base64.b64decode(meta_file["content"])
        data = data if data.startswith(SIGNATURE) else gzip.decompress(data)
        meta = cbor2.loads(data[len(SIGNATURE) :])
        entry_data = json.loads(base64.b64decode(entry["content"]))
        [(language, details)] = entry_data["languages"].items()
        named = details["hash"]
    except (
        cbor2.CBORDecodeError,
        ValueError,
        EOFError,
        OSError,
        LookupError,
        TypeError,
        AttributeError,
    ):
        return files  # not gzip, not CBOR, or an entry of another shape
    known = data.startswith(SIGNATURE) and _known(meta) and named == old_meta
    if not known or cbor2.dumps(meta) != data[len(SIGNATURE) :]:
        return files

    names: dict[str, str] = {}
    for page in meta[1]:
        page[0] = names.setdefault(page[0], f"{old_meta}_{_base36(len(names))}")
    new_data = SIGNATURE + cbor2.dumps(meta)
    new_meta = f"{language}_{hashlib.sha256(new_data).hexdigest()[:10]}"

    out: list[File] = []
    for file in files:
        path = file["path"]
        if file is meta_file:
            content = gzip.compress(new_data, compresslevel=9, mtime=0)
            out.append(_file(f"pagefind.{new_meta}.pf_meta", content))
        elif file is entry:
            details["hash"] = new_meta
            entry_json = json.dumps(entry_data, ensure_ascii=False, separators=(",", ":"))
            out.append(_file(path, entry_json.encode()))
        elif path.startswith("fragment/") and path.endswith(".pf_fragment"):
            old = path.removeprefix("fragment/").removesuffix(".pf_fragment")
            out.append({**file, "path": f"fragment/{names.get(old, old)}.pf_fragment"})
        else:
            out.append(file)
    return out


def _known(meta: Any) -> bool:
    """Whether ``meta`` starts as Pagefind 1.x's does: its version, then its pages as
    (name, word count). Its index chunks, filters, sorts and fields follow."""
    return (
        isinstance(meta, list)
        and len(meta) >= 2
        and isinstance(meta[0], str)
        and isinstance(meta[1], list)
        and all(
            isinstance(page, list)
            and len(page) == 2
            and isinstance(page[0], str)
            and isinstance(page[1], int)
            for page in meta[1]
        )
    )


def _file(path: str, content: bytes) -> File:
    return {"path": path, "content": base64.b64encode(content).decode("ascii")}


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 36)
        digits = _DIGITS[digit] + digits
        if not number:
            return digits
