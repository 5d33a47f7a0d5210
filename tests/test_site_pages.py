"""The site as a reader meets it: valid pages and working links, localized names, text, dates,
mana and collation, the sitemaps, robots.txt and 404 page, and the local preview server."""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
import xml.sax.saxutils
from pathlib import Path
from urllib.parse import urldefrag

import html5lib
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from site_helpers import _add_card, _pages, _section
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection, Engine

from kb import edits, schema
from kb.cli import cli
from kb.locales import BY_CODE
from kb.site import mana, render
from kb.site.build import BuildOptions, build
from kb.site.collation import collated, label, sectioned
from kb.site.paths import relative_href
from kb.site.render import NOT_FOUND
from kb.site.serve import preview_server
from kb.site.views import shown_name

GERMAN_PAGE = Path("de/cards/three-steps-ahead.html")
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"


def test_every_page_is_valid_html5_and_every_link_resolves(demo_site: Path) -> None:
    pages = sorted(demo_site.rglob("*.html"))
    # a card page per card, A–Z, home, changes, mechanics; two A–Z sections (German: D, I)
    assert len(pages) == 11 * (7 + 2) + 2
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    for page in pages:
        document = parser.parse(page.read_bytes())
        for element in document.iter():
            for attribute in ("href", "src"):
                link = element.get(attribute)
                if link is None:
                    continue
                if page == demo_site / NOT_FOUND:  # served at any address: from the root
                    assert link.startswith("/"), f"{page}: {link} is not from the root"
                    link = relative_href(NOT_FOUND, link.removeprefix("/"))
                assert not re.match(r"[a-z]+:|/", link), f"{page}: {link} is not relative"
                target, fragment = urldefrag(link)
                resolved = (page.parent / target).resolve() if target else page
                assert resolved.is_file(), f"{page}: {link} leads nowhere"
                assert resolved.is_relative_to(demo_site)
                if fragment:
                    assert f'id="{fragment}"' in resolved.read_text("utf-8")


def test_german_card_page(demo_site: Path) -> None:
    page = (demo_site / GERMAN_PAGE).read_text("utf-8")
    assert '<html lang="de">' in page
    assert "<title>Drei Schritte voraus</title>" in page
    assert (
        '<h1>Drei Schritte voraus</h1>\n<p class="english-name" lang="en">Three Steps Ahead</p>'
        in page
    )
    assert page.count('<time datetime="2024-04-12">12.04.2024</time>') == 18
    assert page.count('<p lang="en">') == 18
    assert '<h2 id="rulings">18 Klarstellungen</h2>' in page
    assert 'aria-label="blau"><span class="ms ms-u" aria-hidden="true">U</span>' in page
    assert '<a class="tag" href="../../de/mechanics/spree.html">Exzess</a>' in page
    assert (
        '<link rel="alternate" hreflang="pt-BR" href="../../pt-br/cards/three-steps-ahead.html">'
        in page
    )
    assert 'hreflang="x-default" href="../../en/cards/three-steps-ahead.html"' in page
    assert (
        '<li><a href="../../it/cards/three-steps-ahead.html" hreflang="it" lang="it">'
        "italiano</a></li>" in page
    )
    assert '<span lang="de" aria-current="page">Deutsch</span>' in page
    assert "nur auf Englisch" in page


def test_pages_without_a_localized_name_mark_the_english_one(demo_site: Path) -> None:
    korean = (demo_site / "ko/cards/three-steps-ahead.html").read_text("utf-8")
    assert '<h1 lang="en">Three Steps Ahead</h1>' in korean
    assert "판정 18개" in korean
    index = (demo_site / "ko/cards/index.html").read_text("utf-8")
    section = re.search(r'<li><a href="../../(ko/a-z/\d+\.html)">T</a></li>', index)
    assert section is not None, "the Korean A–Z page links to no T section"
    assert '<a href="../../ko/cards/three-steps-ahead.html" lang="en">Three Steps Ahead</a>' in (
        demo_site / section[1]
    ).read_text("utf-8")


def test_an_english_name_in_another_script_is_marked_english(
    demo_store: Engine, tmp_path: Path
) -> None:
    """A Japanese or Chinese "translation" that is the English name is a gap in the source
    (MTGJSON gives 153 Simplified Chinese names of Portal Three Kingdoms in English): it is
    marked English, as where there is no name, on the card's page and in its A–Z section. In
    German the same name is a German word ("Opposition"), and stays unmarked."""
    same = {"de": "Opposition", "ja": "Opposition", "zh-Hans": "Opposition", "ru": "Оппозиция"}
    _add_card(demo_store, "Opposition", **same)
    site = tmp_path / "site"
    build(demo_store, site)
    for folder, marked in (("de", ""), ("ja", ' lang="en"'), ("zh-hans", ' lang="en"')):
        page = (site / folder / "cards/opposition.html").read_text("utf-8")
        assert f"<h1{marked}>Opposition</h1>" in page, folder
        assert '<p class="english-name"' not in page, folder
        section = (site / _section(site, folder, "O")).read_text("utf-8")
        assert f'<a href="../../{folder}/cards/opposition.html"{marked}>Opposition</a>' in section
    russian = (site / "ru/cards/opposition.html").read_text("utf-8")
    assert "<h1>Оппозиция</h1>" in russian


def test_a_name_in_latin_letters_in_another_script_is_no_translation() -> None:
    """MTGJSON gives a few Japanese and Chinese names in Latin letters that are not quite the
    English name: its older spelling ("Æther Barrier"), other quotation marks. They are no
    translation either; a name partly in Latin letters, or with no letters, stays."""
    assert shown_name("ja", "Æther Barrier", "Aether Barrier") is None
    assert shown_name("zh-Hans", "Pang Tong, “Young Phoenix”", 'Pang Tong, "Young Phoenix"') is None
    assert shown_name("ja", "Aether Barrier", "Aether Barrier") is None
    assert shown_name("de", "Æther-Barriere", "Aether Barrier") == "Æther-Barriere"
    assert shown_name("ja", "エーテルの障壁", "Aether Barrier") == "エーテルの障壁"
    russian = "Никол Болас, Planeswalker"
    assert shown_name("ru", russian, "Nicol Bolas, Planeswalker") == russian
    assert shown_name("ja", "_____", "_____ Goblin") == "_____"
    assert shown_name("ja", None, "Aether Barrier") is None


def test_a_to_z_section_page_has_no_alternates_and_switches_to_a_to_z_pages(
    demo_site: Path,
) -> None:
    """Each language has its own sections: a section page names no version in another
    language (hreflang), and its switcher leads to the other languages' A–Z pages."""
    page = (demo_site / _section(demo_site, "de", "D")).read_text("utf-8")
    head = page[: page.index("</head>")]
    assert 'rel="alternate" hreflang' not in head
    assert 'type="application/atom+xml"' in head
    assert '<li><a href="../../ja/cards/index.html" hreflang="ja" lang="ja">' in page
    index = (demo_site / "de/cards/index.html").read_text("utf-8")
    assert '<link rel="alternate" hreflang="ja" href="../../ja/cards/index.html">' in index


def test_mechanic_page_shows_general_rulings_once_and_its_cards(demo_site: Path) -> None:
    page = (demo_site / "it/mechanics/spree.html").read_text("utf-8")
    assert "<h1>Frenesia</h1>" in page
    assert "Regole Complete, regola 702.172" in page
    assert page.count('<li class="ruling">') == 12
    assert "You can’t choose the same mode more than once." in page
    assert "2 carte" in page
    assert page.index("Preso nel Fuoco Incrociato") < page.index("Tre Passi Avanti")


def test_home_counts_and_language_picker(demo_site: Path) -> None:
    home = (demo_site / "ru/index.html").read_text("utf-8")
    assert "<li>2 карты</li>" in home
    assert "<li>21 разъяснение</li>" in home
    assert "<li>2 механики</li>" in home
    for name in ("Deutsch", "français", "português (Brasil)", "日本語", "中文 (繁體)"):
        assert f">{name}</a>" in home
    root = (demo_site / "index.html").read_text("utf-8")
    assert '<a href="de/index.html" hreflang="de" lang="de">Deutsch</a>' in root


@given(st.text())
def test_sitemaps_escape_as_xml_sax_saxutils_does(text: str) -> None:
    assert render.xml_escape(text) == xml.sax.saxutils.escape(text)


def test_sitemap_robots_and_404(demo_engine: Engine, tmp_path: Path) -> None:
    published = "https://rulings.example.org/kb/"
    site = build(demo_engine, tmp_path / "site", BuildOptions(base_url=published)).out
    sitemaps = ET.parse(site / "sitemap.xml").getroot().findall(f"{SITEMAP}sitemap/{SITEMAP}loc")
    assert [loc.text for loc in sitemaps] == [
        f"{published}sitemap-1.xml",
        f"{published}sitemap-a-z.xml",
    ]
    sections = ET.parse(site / "sitemap-a-z.xml").getroot().findall(f"{SITEMAP}url/{SITEMAP}loc")
    assert sorted(loc.text or "" for loc in sections) == sorted(
        f"{published}{path.relative_to(site).as_posix()}" for path in site.glob("*/a-z/*.html")
    )
    assert len(sections) == 11 * 2
    urls = ET.parse(site / "sitemap-1.xml").getroot().findall(f"{SITEMAP}url")
    assert len(urls) == 11 * 7  # 2 cards, home, A–Z, recent changes, 2 mechanics
    german = next(u for u in urls if u.findtext(f"{SITEMAP}loc", "").endswith(str(GERMAN_PAGE)))
    alternates = {link.get("hreflang"): link.get("href") for link in german.iter(f"{XHTML}link")}
    assert len(alternates) == 12
    assert alternates["x-default"] == f"{published}en/cards/three-steps-ahead.html"
    assert (site / "robots.txt").read_text() == (
        f"User-agent: *\nAllow: /\n\nSitemap: {published}sitemap.xml\n"
    )
    not_found = (site / "404.html").read_text("utf-8")
    assert "<h1>Page not found</h1>" in not_found
    # Served for any missing address, however deep: absolute links, every language.
    assert f'<link rel="stylesheet" href="{published}static/style.css">' in not_found
    assert (
        f'<li lang="de"><a href="{published}de/index.html" hreflang="de">Deutsch</a>: '
        "Seite nicht gefunden</li>"
    ) in not_found


def test_a_default_build_points_nowhere_outside(demo_site: Path) -> None:
    """Without a base address no page names a host (127.0.0.1 least of all): 404.html links
    from the server's root, and there is no sitemap, whose addresses would be absolute."""
    for path, data in _pages(demo_site).items():
        assert b"127.0.0.1" not in data and b"localhost" not in data, path
        assert not re.search(rb'(href|src)="[a-z]+:', data), path
    assert (demo_site / "robots.txt").read_text() == "User-agent: *\nAllow: /\n"
    assert not (demo_site / "sitemap.xml").exists()
    not_found = (demo_site / "404.html").read_text("utf-8")
    assert '<link rel="stylesheet" href="/static/style.css">' in not_found
    assert '<li lang="de"><a href="/de/index.html" hreflang="de">Deutsch</a>: ' in not_found


def test_collation_is_each_locales_own() -> None:
    def order(locale: str, names: list[str]) -> list[str]:
        return collated(names, str, locale)

    names = ["Zebra", "Ezra", "Éclair", "eclair", "Fable", "Ebene"]
    assert order("fr", names) == ["Ebene", "eclair", "Éclair", "Ezra", "Fable", "Zebra"]
    # Spanish ñ is a letter after n; elsewhere it is an n with a tilde.
    assert order("es", ["ñandú", "nube", "oso"]) == ["nube", "ñandú", "oso"]
    assert order("en", ["ñandú", "nube", "oso"]) == ["ñandú", "nube", "oso"]
    # Simplified Chinese by pinyin (a, ai, jiao, long, san), Traditional by strokes (3, 6, 8,
    # 13, 16); Japanese kana in gojūon order, katakana with hiragana, before kanji.
    hans = ["三步先", "龙", "交叉火力", "阿", "爱"]
    assert order("zh-Hans", hans) == ["阿", "爱", "交叉火力", "龙", "三步先"]
    hant = ["龍", "阿", "三步先", "愛", "交叉火力"]
    assert order("zh-Hant", hant) == ["三步先", "交叉火力", "阿", "愛", "龍"]
    assert order("ja", ["三歩先", "すし", "カード", "あさ"]) == ["あさ", "カード", "すし", "三歩先"]
    assert order("ko", ["한국", "가나", "나비"]) == ["가나", "나비", "한국"]
    assert order("fr", ["Éclair", "Eclair"]) == ["Eclair", "Éclair"]
    # Equal names keep the order they were given in (the build's order is its input's).
    entries = [("eclair", 1), ("Ezra", 2), ("eclair", 0)]
    assert collated(entries, lambda entry: entry[0], "fr") == [
        ("eclair", 1), ("eclair", 0), ("Ezra", 2),
    ]  # fmt: skip


def test_index_letters_are_the_locales_own() -> None:
    def labels(locale: str, names: list[str]) -> list[str]:
        return [label(sectioned([name], str, locale)[0][0], locale) for name in names]

    assert labels("de", ["Éclair", "ärger", "42 Wege", "Zorn"]) == ["E", "A", "#", "Z"]
    assert labels("es", ["ñandú", "nube"]) == ["Ñ", "N"]
    assert labels("ru", ["Живой", "Shock"]) == ["Ж", "S"]  # an English name on a Russian page
    assert labels("ko", ["한국", "가나"]) == ["ㅎ", "ㄱ"]
    assert labels("ja", ["カード", "すし", "あさ", "Shock"]) == ["か", "さ", "あ", "S"]
    assert labels("zh-Hans", ["龙", "三步先", "阿"]) == ["L", "S", "A"]
    assert labels("zh-Hant", ["三步先", "龍"]) == ["3劃", "16劃"]
    # Lists come section by section: a Latin and a Han name of the same letter together,
    # though Chinese collation puts every Han character before the Latin letters.
    names = ["Shock", "三步先", "Island", "龙", "Aysen", "阿", "42", "爱", "Lotus"]
    assert collated(names, str, "zh-Hans") == [
        "42", "阿", "爱", "Aysen", "Island", "龙", "Lotus", "三步先", "Shock",
    ]  # fmt: skip


def _same_mode_ruling(connection: Connection) -> int:
    """The demo's ruling "You can't choose the same mode ...", on the German page's card."""
    ruling_id: int = connection.execute(
        select(schema.rulings.c.id).where(
            schema.rulings.c.text.like("You can%t choose the same mode%")
        )
    ).scalar_one()
    return ruling_id


def test_rulings_are_shown_as_text(demo_store: Engine, tmp_path: Path) -> None:
    hostile = "<script>alert('x')</script> Tom & Jerry"
    with demo_store.begin() as connection:
        ruling_id = _same_mode_ruling(connection)
        connection.execute(
            update(schema.rulings).where(schema.rulings.c.id == ruling_id).values(text=hostile)
        )
    page = (build(demo_store, tmp_path / "site").out / GERMAN_PAGE).read_text("utf-8")
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; Tom &amp; Jerry" in page


def test_reviewed_translation_is_shown_marked_unofficial(
    demo_store: Engine, tmp_path: Path
) -> None:
    with demo_store.begin() as connection:
        ruling_id = _same_mode_ruling(connection)
        connection.execute(
            insert(schema.ruling_translations),
            [
                {"ruling_id": ruling_id, "locale": "de", "text": "Kein Modus zweimal."},
                {"ruling_id": ruling_id, "locale": "it", "text": "Bozza."},
            ],
        )
        connection.execute(
            update(schema.ruling_translations)
            .where(schema.ruling_translations.c.locale == "de")
            .values(status="reviewed")
        )
    site = build(demo_store, tmp_path / "site").out
    german = (site / GERMAN_PAGE).read_text("utf-8")
    assert (
        '<div class="translation">\n<p class="unofficial">Inoffizielle Übersetzung der Community'
        "</p>\n<p>Kein Modus zweimal.</p>"
    ) in german
    assert "Bozza." not in (site / "it/cards/three-steps-ahead.html").read_text("utf-8")


def test_a_mana_cost_is_said_in_the_locale_words() -> None:
    english, german, japanese = (BY_CODE[code] for code in ("en", "de", "ja"))
    assert mana.mana_in_words("{2}{U}{U}", english) == "2, blue, and blue"
    assert mana.mana_in_words("{2}{U}{U}", german) == "2, blau und blau"
    assert mana.mana_in_words("{2}{U}{U}", japanese) == "2、青、青"
    assert mana.mana_in_words("{W/U}{2/R}", english) == "white or blue and 2 or red"
    phyrexian = mana.mana_in_words("{G/U/P}{C}", german)
    assert phyrexian == "grün oder blau (phyrexianisch) und farblos"
    assert mana.mana_in_words("{X}{HW}", english) == "X and HW"  # no words: as printed
    split = "{1}{R} // {U}"
    assert mana.mana_in_words(split, english) == "1 and red // blue"
    assert str(mana.mana_symbols(split, english)) == (
        '<span class="mana-cost" role="img" aria-label="1 and red // blue">'
        '<span class="ms" aria-hidden="true">1</span>'
        '<span class="ms ms-r" aria-hidden="true">R</span>'
        '<span class="split" aria-hidden="true">//</span>'
        '<span class="ms ms-u" aria-hidden="true">U</span></span>'
    )
    # A hybrid is drawn half and half: its first half's colour, then its second's.
    hybrids = str(mana.mana_symbols("{G/U}{2/B}{R/P}", english))
    assert re.findall(r'class="(ms[^"]*)"', hybrids) == [
        "ms ms-g ms-then-u ms-hybrid",
        "ms ms-then-b ms-hybrid",
        "ms ms-r ms-hybrid",
    ]


def test_a_review_stands_only_for_the_english_text_it_was_of(
    demo_store: Engine, tmp_path: Path
) -> None:
    with demo_store.connect() as connection:
        ruling_id, english = connection.execute(
            select(schema.rulings.c.id, schema.rulings.c.text).where(
                schema.rulings.c.text.like("You can%t choose the same mode%")
            )
        ).one()
    edits.set_translation(demo_store, "ann", ruling_id, "de", "Kein Modus zweimal.")
    edits.set_translation(demo_store, "bob", ruling_id, "de", status="reviewed")
    out = tmp_path / "site"

    def shown() -> bool:
        build(demo_store, out)
        return "<p>Kein Modus zweimal.</p>" in (out / GERMAN_PAGE).read_text("utf-8")

    assert shown()
    edits.set_ruling_text(demo_store, "cy", ruling_id, english + " Not even with copies.")
    assert edits.reviews_outdated(demo_store, ruling_id) == ["de"]
    assert not shown()  # the incremental build drops it
    edits.set_translation(demo_store, "bob", ruling_id, "de", status="reviewed")
    assert edits.reviews_outdated(demo_store, ruling_id) == []
    assert shown()


def test_serve_previews_the_site_on_localhost(demo_site: Path) -> None:
    server = preview_server(demo_site, 0)
    host, port = server.server_address[:2]
    assert host == "127.0.0.1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{port}/"
        with urllib.request.urlopen(base + GERMAN_PAGE.as_posix()) as response:
            assert "Drei Schritte voraus" in response.read().decode("utf-8")
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "de/cards/nothing.html")
        assert missing.value.code == 404
        assert b"Page not found" in missing.value.read()
        taken = CliRunner().invoke(cli, ["serve", "--out", str(demo_site), "--port", str(port)])
        assert (taken.exit_code, taken.output) == (
            1,
            f"kb: error: 127.0.0.1:{port}: Address already in use\n",
        )
    finally:
        server.shutdown()
        server.server_close()


def test_dates_use_the_locale_format(demo_site: Path) -> None:
    expected = {
        "en": "Apr 12, 2024",
        "ja": "2024/04/12",
        "fr": "12 avr. 2024",
        "ko": "2024. 4. 12.",
    }
    for folder, date in expected.items():
        page = (demo_site / folder / "cards/three-steps-ahead.html").read_text("utf-8")
        assert f">{date}</time>" in page, folder


def test_a_rules_text_shows_any_symbol_in_braces() -> None:
    """Real Oracle texts hold symbols no mana cost does: {T}, {Q}, {P} alone, {E}, {CHAOS}."""
    german = BY_CODE["de"]
    shown = str(mana.rules_text("{T}, {Q}: Add {C}. {P} is {E}; {CHAOS} (reminder {R})", german))
    assert 'aria-label="tappen"' in shown and 'aria-label="enttappen"' in shown
    assert '<span class="ms" aria-hidden="true">P</span>' in shown
    assert "<i>(reminder " in shown and shown.startswith("<p>") and shown.endswith("</p>")
