"""The whole site of the real corpus (MTGJSON sets, May 2022: about 23,700 cards, 260,000
pages): every file name safe, every link of every page resolving, a deterministic sample of pages
valid HTML5, and split and double-faced cards shown with their faces.

Strict HTML5 parsing is slow (html5lib is pure Python), so it covers a sample: every page of 300
cards spread over the alphabet, every split and double-faced card page in two locales, and every
home, index, recent changes and mechanic page. Links are checked on every page (and feed) with
a regular expression; every locale's feed is read by feedparser.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import feedparser
import html5lib
import pytest
from realdata import realdata

from kb.engine import make_engine
from kb.importing import run_import
from kb.locales import BY_CODE, LOCALES
from kb.site.build import BuildOptions, BuildResult, build
from kb.site.changes import FEED_LENGTH
from kb.site.data import load_cards, load_index
from kb.site.output import MANIFEST
from kb.site.paths import relative_href
from kb.site.render import NOT_FOUND, Urls

pytestmark = pytest.mark.realdata

CORPUS = "mtgjson-sets-2022-05"
SAFE_PAGE = re.compile(r"[a-z0-9-]+\.html|feed\.atom")
FIXED_FILES = {"robots.txt", "sitemap.xml", "static/style.css", "static/search.js", MANIFEST}
SITEMAP_PART = re.compile(r"sitemap-[0-9]+\.xml")
LINK = re.compile(rb'(?:href|src)="([^"]*)"')
ANCHOR = re.compile(rb'id="([^"]*)"')
SAMPLED_CARDS = 300


@pytest.fixture(scope="session")
def real_store(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Iterator[str]:
    """The real corpus imported into a SQLite store, once per session."""
    corpus = realdata(CORPUS)
    path = tmp_path_factory.mktemp("real-store") / "kb.sqlite"
    shutil.copy(migrated_sqlite, path)
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    run_import(engine, [corpus])
    engine.dispose()
    yield url


@pytest.fixture(scope="session")
def real_site(real_store: str, tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    engine = make_engine(real_store)
    result = build(
        engine,
        tmp_path_factory.mktemp("real-site") / "site",
        # The pages alone: indexing 11 locales of the real corpus takes minutes, and its search
        # is tested on a real set in tests/test_search.py (and measured by bench_search).
        BuildOptions(jobs=os.cpu_count() or 1, search="off"),
    )
    engine.dispose()
    return result


def _site_files(site: Path) -> list[str]:
    return sorted(
        posixpath.relpath(posixpath.join(root, name), site)
        for root, _folders, names in os.walk(site)
        for name in names
    )


def _broken_links(site: Path, page: str, files: frozenset[str]) -> list[str]:
    """The links of one page that lead nowhere, outside the site, or to a missing anchor."""
    text = (site / page).read_bytes()
    folder = posixpath.dirname(page)
    broken = []
    for raw in LINK.findall(text):
        link = raw.decode("utf-8")
        if page == NOT_FOUND:  # served at any address: from the server's root
            link = relative_href(NOT_FOUND, link.removeprefix("/"))
        target, _, fragment = link.partition("#")
        if re.match(r"[a-z]+:|/", target):
            broken.append(f"{page}: {link} is not relative")
            continue
        resolved = posixpath.normpath(posixpath.join(folder, target)) if target else page
        if resolved not in files:
            broken.append(f"{page}: {link} leads nowhere")
        elif fragment:
            anchors = ANCHOR.findall(text if resolved == page else (site / resolved).read_bytes())
            if fragment.encode("utf-8") not in anchors:
                broken.append(f"{page}: {link} has no anchor")
    return broken


def _validation_errors(site: Path, pages: list[str]) -> list[str]:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    errors = []
    for page in pages:
        try:
            parser.parse((site / page).read_bytes())
        except html5lib.html5parser.ParseError as error:
            errors.append(f"{page}: {error}")
    return errors


def _check_links(site: Path, files: frozenset[str], pages: list[str]) -> list[str]:
    return [problem for page in pages for problem in _broken_links(site, page, files)]


def _in_parallel(check: Callable[[list[str]], list[str]], pages: list[str]) -> list[str]:
    """The problems ``check`` finds in shares of the pages, checked by worker processes."""
    jobs = os.cpu_count() or 1
    with ProcessPoolExecutor(jobs) as pool:
        results = pool.map(check, [pages[start::jobs] for start in range(jobs)])
        return [problem for result in results for problem in result]


def test_every_file_name_is_safe(real_site: BuildResult) -> None:
    files = _site_files(real_site.out)
    assert len(files) == real_site.pages + 1  # the manifest
    assert real_site.pages > 250_000
    unsafe = [
        path
        for path in files
        if path not in FIXED_FILES
        and not SITEMAP_PART.fullmatch(path)
        and not SAFE_PAGE.fullmatch(path.rpartition("/")[2])
    ]
    assert unsafe == []


def test_every_link_of_every_page_resolves(real_site: BuildResult) -> None:
    files = _site_files(real_site.out)
    pages = [path for path in files if path.endswith((".html", ".atom"))]
    assert _in_parallel(partial(_check_links, real_site.out, frozenset(files)), pages) == []


def test_a_sample_of_pages_is_valid_html5(real_site: BuildResult, real_store: str) -> None:
    site = real_site.out
    engine = make_engine(real_store)
    with engine.connect() as connection:
        index = load_index(connection)
        cards = load_cards(connection, index.cards, index.mechanics)
    engine.dispose()
    sampled = cards[:: len(cards) // SAMPLED_CARDS][:SAMPLED_CARDS]
    faced = [card for card in cards if card.faces]
    assert len(faced) > 400
    pages = [Urls.card(locale, card) for locale in LOCALES for card in sampled]
    pages += [
        Urls.card(locale, card) for locale in (BY_CODE["de"], BY_CODE["ja"]) for card in faced
    ]
    pages += [url(locale) for locale in LOCALES for url in (Urls.home, Urls.cards, Urls.changes)]
    pages += [f"{locale.folder}/mechanics/{name}" for locale in LOCALES
              for name in os.listdir(site / locale.folder / "mechanics")]  # fmt: skip
    pages += ["index.html", "404.html"]
    assert _in_parallel(partial(_validation_errors, site), pages) == []


def test_every_locales_feed_is_valid_and_links_built_pages(real_site: BuildResult) -> None:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for locale in LOCALES:
        folder = real_site.out / locale.folder
        parsed = feedparser.parse((folder / "feed.atom").read_bytes())
        assert parsed.bozo == 0, f"{locale.folder}: {parsed.get('bozo_exception')}"
        assert len(parsed.entries) == FEED_LENGTH  # one import: its latest published rulings
        for entry in parsed.entries:
            assert (folder / entry.link).is_file(), entry.link
            content = parser.parseFragment(entry.content[0].value)
            for anchor in content.iter("a"):
                assert (folder / anchor.get("href")).is_file(), anchor.get("href")


def test_split_and_double_faced_cards_show_their_faces(real_site: BuildResult) -> None:
    site = real_site.out
    fire_ice = (site / "de" / "cards" / "fire-ice.html").read_text("utf-8")
    # Each face with its own type line and text: printed (German) and Oracle (English).
    assert fire_ice.count('<div class="face">') == 4
    assert '<h3>Fire <span class="mana-cost"' in fire_ice and "Spontanzauber" in fire_ice
    assert "<p>Fire deals 2 damage divided as you choose among one or two targets.</p>" in fire_ice
    delver = (site / "ja" / "cards" / "delver-of-secrets-insectile-aberration.html").read_text(
        "utf-8"
    )
    assert "<h3>秘密を掘り下げる者</h3>" in delver and "<h3>昆虫の逸脱者</h3>" in delver
    assert "<h3>Delver of Secrets <span" in delver and "<h3>Insectile Aberration</h3>" in delver
    bonecrusher = (site / "it" / "cards" / "bonecrusher-giant-stomp.html").read_text("utf-8")
    assert "Testo stampato" in bonecrusher and "Istantaneo — Avventura" in bonecrusher


def test_a_rulings_symbols_are_symbols_said_in_the_pages_language(real_site: BuildResult) -> None:
    saga = (real_site.out / "de" / "cards" / "urza-s-saga.html").read_text("utf-8")
    # "... a card with actual mana cost {0} or {1}, not mana value 0 or 1. ... mana cost {U} ..."
    assert "{0}" not in saga and "{U}" not in saga
    assert (
        'with actual mana cost <span class="mana-cost" lang="de" role="img" aria-label="0">'
        '<span class="ms" aria-hidden="true">0</span></span> or '
    ) in saga
    assert 'lang="de" role="img" aria-label="blau"><span class="ms ms-u"' in saga


def _letters(site: Path, folder: str) -> list[str]:
    """The index letters a locale's A–Z page lists, in order (a cut letter once, not its parts)."""
    page = (site / folder / "cards" / "index.html").read_text("utf-8")
    nav = page.partition('<nav class="letters"')[2].partition("</nav>")[0]
    nav = re.sub(r"</span>\n<ul>\n.*?</ul>", "</span>", nav, flags=re.S)  # a cut letter's parts
    return re.findall(
        r'<li(?: class="split")?>(?:<a href="[^"]*">|<span class="letter">)([^<]*)<', nav
    )


def test_a_to_z_pages_have_the_locales_index_letters_once_each(real_site: BuildResult) -> None:
    def letters(folder: str) -> list[str]:
        return _letters(real_site.out, folder)

    for locale in LOCALES:
        found = letters(locale.folder)
        assert len(found) == len(set(found)), (locale.code, found)
    # Chinese names under pinyin letters and stroke counts, not a section per character.
    assert letters("zh-hans")[:4] == ["#", "A", "B", "C"] and len(letters("zh-hans")) < 30
    assert letters("zh-hant")[1:4] == ["1劃", "2劃", "3劃"]
    assert "Ñ" in letters("es") and "あ" in letters("ja")
    # Japanese kanji under their radicals, after the kana rows: none left in a "…" section.
    japanese = letters("ja")
    assert "…" not in japanese and japanese.index("わ") < japanese.index("一")
    assert {"人", "水", "火", "心", "龍"} <= set(japanese) and len(japanese) > 200


CARD_ITEM = re.compile(r'<li><a href="\.\./\.\./[a-z-]+/cards/([a-z0-9-]+)\.html"')
MAX_A_TO_Z_PAGE = 200_000


def test_no_a_to_z_page_is_over_200_kb_nor_a_section_over_a_tenth(real_site: BuildResult) -> None:
    site = real_site.out
    cards = len(os.listdir(site / "en" / "cards")) - 1  # the A–Z page
    assert cards > 23_000
    for locale in LOCALES:
        index = site / locale.folder / "cards" / "index.html"
        assert index.stat().st_size <= MAX_A_TO_Z_PAGE, locale.code
        listed: list[str] = []
        for page in sorted((site / locale.folder / "a-z").iterdir()):
            assert page.stat().st_size <= MAX_A_TO_Z_PAGE, page
            main = page.read_text("utf-8").partition("<main>")[2].partition("</main>")[0]
            slugs = CARD_ITEM.findall(main)
            assert 0 < len(slugs) <= cards // 10, (page, len(slugs))
            listed += slugs
        assert len(listed) == len(set(listed)) == cards, locale.code  # every card, once


def test_a_printed_text_damaged_in_its_source_says_so(real_site: BuildResult) -> None:
    """MTGJSON's Korean M12 ran Archon of Justice's "Flying" into its next line; its page says
    that the printed text looks damaged and that the Oracle text is whole. Lava Axe's is whole."""
    cards = real_site.out / "ko" / "cards"
    note = '<p class="source-note">이 인쇄된 텍스트는 출처에서 손상된 것으로 보입니다'
    assert note in (cards / "archon-of-justice.html").read_text("utf-8")
    assert "source-note" not in (cards / "lava-axe.html").read_text("utf-8")
    flagged = [page for page in cards.iterdir() if b"source-note" in page.read_bytes()]
    # As many as the saved query printed_texts_to_check lists (321 texts of some 300 cards).
    assert 250 <= len(flagged) <= 330
