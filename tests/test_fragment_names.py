"""Shorter fragment names in Pagefind's bundles (kb.site.fragment_names), checked on bundles
that the real Pagefind service made. tests/test_search.py searches the renamed bundles in
headless Chromium."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import cbor2
import pytest

from kb.site.fragment_names import SIGNATURE, shorten
from kb.site.search import _Service

File = dict[str, str]


def _pagefind(pages: list[str]) -> list[File]:
    """The files of a German bundle of ``pages`` (bodies), as Pagefind's service gives them."""
    service = _Service()
    try:
        number = service.new_index()
        for position, body in enumerate(pages):
            page = f'<html lang="de"><body><h1>{body}</h1><p>Karte {position % 7}</p></body></html>'
            service.add_file(number, f"/karten/{position}.html", page)
        return service.files(service.ask_files(number))
    finally:
        service.close()


@pytest.fixture(scope="module")
def made() -> list[File]:
    return _pagefind([f"Drachen {n}" for n in range(60)])


def _contents(files: list[File]) -> dict[str, bytes]:
    return {file["path"]: base64.b64decode(file["content"]) for file in files}


def _meta(contents: dict[str, bytes]) -> tuple[str, Any]:
    [(path, compressed)] = [item for item in contents.items() if item[0].endswith(".pf_meta")]
    data = gzip.decompress(compressed)
    assert data.startswith(SIGNATURE)
    return path, cbor2.loads(data[len(SIGNATURE) :])


def test_each_page_keeps_its_fragment_under_a_short_name(made: list[File]) -> None:
    before, after = _contents(made), _contents(shorten(made))
    old_path, old = _meta(before)
    new_path, new = _meta(after)
    prefix = old_path.removeprefix("pagefind.").removesuffix(".pf_meta") + "_"
    assert len(new[1]) == len(old[1]) == 60
    assert [count for _name, count in new[1]] == [count for _name, count in old[1]]
    for (old_name, _), (new_name, _) in zip(old[1], new[1], strict=True):
        assert (
            after[f"fragment/{new_name}.pf_fragment"] == before[f"fragment/{old_name}.pf_fragment"]
        )
    # Numbered in base 36, in the order of the pages.
    names = [name for name, _count in new[1]]
    assert names[:12] == [prefix + digit for digit in "0123456789ab"]
    assert names[-1] == prefix + "1n"
    # The rest of the meta, and every file but the meta and the entry, is as Pagefind made it.
    assert new[0] == old[0] and new[2:] == old[2:]
    assert {path for path in after if path.startswith("fragment/")} == {
        f"fragment/{name}.pf_fragment" for name in names
    }
    unchanged = {path: data for path, data in before.items() if not path.startswith("fragment/")}
    del unchanged[old_path], unchanged["pagefind-entry.json"]
    assert unchanged.items() <= after.items() and old_path not in after
    assert len(after) == len(before)
    entry = json.loads(after["pagefind-entry.json"])
    assert f"pagefind.{entry['languages']['de']['hash']}.pf_meta" == new_path
    assert entry["languages"]["de"]["page_count"] == 60
    assert entry == {**json.loads(before["pagefind-entry.json"]), "languages": entry["languages"]}


def test_the_meta_is_smaller_and_the_same_for_the_same_bundle(made: list[File]) -> None:
    shortened = shorten(made)
    path, _ = _meta(_contents(shortened))
    meta_size = {len(data) for name, data in _contents(made).items() if name.endswith("pf_meta")}
    assert len(_contents(shortened)[path]) < meta_size.pop()
    assert shorten(made) == shortened


def test_a_meta_of_another_format_leaves_the_bundle_as_pagefind_made_it(
    made: list[File],
) -> None:
    def with_meta(data: bytes) -> list[File]:
        content = base64.b64encode(gzip.compress(data)).decode()
        return [
            {**file, "content": content} if file["path"].endswith(".pf_meta") else file
            for file in made
        ]

    _path, meta = _meta(_contents(made))
    # Pages with a third part that kb does not know.
    unknown = with_meta(SIGNATURE + cbor2.dumps([meta[0], [[*page, 1] for page in meta[1]]]))
    assert shorten(unknown) is unknown
    # The pages as an array of indefinite length: kb's encoding would not give these bytes.
    pages = b"\x9f" + b"".join(cbor2.dumps(page) for page in meta[1]) + b"\xff"
    head = bytes([0x80 + len(meta)]) + cbor2.dumps(meta[0])
    rest = b"".join(cbor2.dumps(part) for part in meta[2:])
    indefinite = with_meta(SIGNATURE + head + pages + rest)
    assert shorten(indefinite) is indefinite
    # Not CBOR at all.
    broken = with_meta(SIGNATURE + b"\xff\xff")
    assert shorten(broken) is broken
    # Not gzip.
    garbled = [
        {**file, "content": base64.b64encode(b"\x1f\x8b garbled").decode()}
        if file["path"].endswith(".pf_meta")
        else file
        for file in made
    ]
    assert shorten(garbled) is garbled
    # An entry that names another meta, or is of another shape.
    for entry in (b'{"languages": {"de": {"hash": "de_0"}}}', b'{"languages": []}', b"[]"):
        other = [
            {**file, "content": base64.b64encode(entry).decode()}
            if file["path"] == "pagefind-entry.json"
            else file
            for file in made
        ]
        assert shorten(other) is other
    # No signature.
    unsigned = with_meta(cbor2.dumps(meta))
    assert shorten(unsigned) is unsigned


def test_a_meta_written_uncompressed_is_read_too(made: list[File]) -> None:
    _path, meta = _meta(_contents(made))
    plain = base64.b64encode(SIGNATURE + cbor2.dumps(meta)).decode()
    files = [
        {**file, "content": plain} if file["path"].endswith(".pf_meta") else file for file in made
    ]
    assert _contents(shorten(files)) == _contents(shorten(made))
