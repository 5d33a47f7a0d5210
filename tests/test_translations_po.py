"""kb translations export and import: rulings out to gettext PO files and back, on both engines,
checked with GNU gettext's own tools."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from conftest import run_kb
from realdata import DATA, REQUIRE_VARIABLE
from sqlalchemy import select
from sqlalchemy.engine import Engine

from kb import schema
from kb.engine import make_engine
from kb.importing import run_import

SAME_MODE = "You can’t choose the same mode more than once."
OUTLAW = (
    "A card, spell, or permanent is an outlaw if it has the Assassin, Mercenary, Pirate, Rogue, "
    "or Warlock creature type. It doesn’t matter if it has more than one of those creature "
    "types; as long as it has at least one, it’s an outlaw."
)

SAME_MODE_ENTRY = """\
#. cards: Im Kreuzfeuer (Caught in the Crossfire); Drei Schritte voraus (Three
#. Steps Ahead)
#. mechanics: Exzess (Spree)
#. published: 2024-04-12
msgctxt "ruling:2"
msgid "You can’t choose the same mode more than once."
msgstr "{}"
"""


def gettext_tool(name: str) -> str:
    """The path of a GNU gettext program (Debian's ``gettext``); skips where it is absent."""
    path = shutil.which(name)
    if path is None:
        reason = f"GNU gettext's {name} is not installed (Debian: apt-get install gettext)"
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return path


def msgfmt_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [gettext_tool("msgfmt"), "--check", "-o", os.devnull, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )


def export(url: str, path: Path, *options: str) -> Path:
    result = run_kb(url, "translations", "export", *options, "--out", str(path))
    assert result.exit_code == 0, result.output
    return path


def translations(url: str) -> list[tuple[object, ...]]:
    engine = make_engine(url)
    table = schema.ruling_translations
    with engine.connect() as connection:
        rows = connection.execute(
            select(table.c.ruling_id, table.c.locale, table.c.text, table.c.status).order_by(
                table.c.ruling_id, table.c.locale
            )
        )
        found = [tuple(row) for row in rows]
    engine.dispose()
    return found


def revision_count(url: str) -> int:
    engine = make_engine(url)
    with engine.connect() as connection:
        count = len(connection.execute(select(schema.revisions.c.id)).all())
    engine.dispose()
    return count


def msgid_line(po: Path, context: str) -> int:
    """The line of the entry's msgid: the line an import names."""
    lines = po.read_text("utf-8").splitlines()
    return lines.index(f'msgctxt "{context}"') + 2


def translate(po: Path, translated: dict[str, str]) -> None:
    """What a translator does in a PO editor: fill the msgstr of the entries named."""
    lines = po.read_text("utf-8").splitlines(keepends=True)
    context = None
    for number, line in enumerate(lines):
        if line.startswith("msgctxt "):
            context = line.split('"')[1]
        if line == 'msgstr ""\n' and context in translated:
            lines[number] = f'msgstr "{translated[context]}"\n'
    po.write_text("".join(lines), "utf-8")


def test_an_export_holds_each_shared_ruling_once_and_the_same_store_gives_the_same_bytes(
    demo_url: str, tmp_path: Path
) -> None:
    result = run_kb(demo_url, "translations", "export", "--locale", "de", "--out", "de.po")
    assert (result.exit_code, result.stdout) == (0, "21 rulings written to de.po\n")
    first = export(demo_url, tmp_path / "first.po", "--locale", "de").read_bytes()
    text = first.decode("utf-8")
    assert text.count('msgctxt "ruling:') == 21
    assert SAME_MODE_ENTRY.format("") in text
    assert '"Language: de\\n"' in text and "#, fuzzy" not in text
    catalog = read_po(io.BytesIO(first))
    assert [message.context for message in catalog if message.id][:3] == [
        "ruling:1",
        "ruling:2",
        "ruling:3",
    ]
    assert export(demo_url, tmp_path / "again.po", "--locale", "de").read_bytes() == first
    Path("de.po").unlink()


def test_the_template_has_every_ruling_and_no_translation(demo_url: str, tmp_path: Path) -> None:
    done = run_kb(demo_url, "edit", "translation", "2", "de", "Nie zweimal.", "--editor", "a")
    assert done.exit_code == 0, done.output
    pot = export(demo_url, tmp_path / "kb.pot", "--pot").read_text("utf-8")
    assert pot.count('msgctxt "ruling:') == 21
    assert "Nie zweimal." not in pot and "Language:" not in pot
    assert (
        "#. cards: Caught in the Crossfire; Three Steps Ahead\n#. mechanics: Spree\n"
        '#. published: 2024-04-12\nmsgctxt "ruling:2"\n'
    ) in pot


def test_exports_pass_msgfmt_check(demo_url: str, tmp_path: Path) -> None:
    for step in (["translation", "2", "de", "Nie zweimal."], ["review", "2", "de"]):
        assert run_kb(demo_url, "edit", *step, "--editor", "ann").exit_code == 0
    reworded = SAME_MODE + " Not even with a copy."
    assert run_kb(demo_url, "edit", "ruling-text", "2", reworded, "--editor", "bo").exit_code == 0
    po = export(demo_url, tmp_path / "de.po", "--locale", "de")
    assert '#, fuzzy\nmsgctxt "ruling:2"\n' in po.read_text("utf-8")
    assert '"Report-Msgid-Bugs-To: \\n"\n' in po.read_text("utf-8")  # no placeholder address
    checked = msgfmt_check(po)
    assert (checked.returncode, checked.stderr) == (0, "")
    template = msgfmt_check(export(demo_url, tmp_path / "kb.pot", "--pot"))
    # A template's header holds placeholders (as xgettext's do): warnings, not errors.
    assert template.returncode == 0, template.stderr


def test_an_export_can_take_a_mechanic_a_card_or_the_untranslated(
    demo_url: str, tmp_path: Path
) -> None:
    def contexts(*options: str) -> list[str]:
        po = export(demo_url, tmp_path / "part.po", "--locale", "it", *options)
        return [message.context for message in read_po(io.BytesIO(po.read_bytes())) if message.id]

    assert contexts("--mechanic", "outlaw") == ["ruling:19", "ruling:20", "ruling:21"]
    assert len(contexts("--card", "Drei Schritte voraus")) == 18
    done = run_kb(demo_url, "edit", "translation", "19", "it", "Fuorilegge.", "--editor", "a")
    assert done.exit_code == 0, done.output
    assert contexts("--mechanic", "outlaw", "--untranslated") == ["ruling:20", "ruling:21"]
    nope = run_kb(demo_url, "translations", "export", "--locale", "it", "--mechanic", "nope")
    assert (nope.exit_code, nope.stderr) == (1, "kb: error: no mechanic 'nope'\n")
    both = run_kb(demo_url, "translations", "export", "--locale", "it", "--pot")
    assert both.exit_code == 2 and "give --locale LOCALE or --pot" in both.stderr
    english = run_kb(demo_url, "translations", "export", "--locale", "en")
    assert english.exit_code == 2 and "rulings are in English already" in english.stderr


def test_a_translated_file_rewrapped_by_msgcat_imports_as_drafts_each_a_revision(
    demo_url: str, tmp_path: Path
) -> None:
    po = export(demo_url, tmp_path / "de.po", "--locale", "de")
    translate(po, {"ruling:2": "Kein Modus zweimal.", "ruling:19": "Ein Gesetzloser ist ..."})
    rewrapped = tmp_path / "rewrapped.po"
    subprocess.run([gettext_tool("msgcat"), "-w", "30", "-o", str(rewrapped), str(po)], check=True)
    assert rewrapped.read_text("utf-8") != po.read_text("utf-8")  # msgcat wrapped it anew
    assert msgfmt_check(rewrapped).returncode == 0
    name = str(rewrapped)
    result = run_kb(demo_url, "translations", "import", name, "--editor", "ann")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"{name}: 2 new, 0 changed, 0 reviewed (revisions 1 to 2); "
        "0 unchanged, 19 untranslated, 0 not applied\n"
    )
    assert translations(demo_url) == [
        (2, "de", "Kein Modus zweimal.", "draft"),
        (19, "de", "Ein Gesetzloser ist ...", "draft"),
    ]
    history = run_kb(demo_url, "history", "--ruling", "19", "--csv").stdout.splitlines()
    assert len(history) == 2 and ",ann,translation,ruling_translations," in history[1]
    again = run_kb(demo_url, "translations", "import", name, "--editor", "ann")
    assert again.stdout == (
        f"{name}: nothing changed; 2 unchanged, 19 untranslated, 0 not applied\n"
    )
    assert revision_count(demo_url) == 2
    assert run_kb(demo_url, "revert", "2", "--editor", "bo").stdout == "revision 3\n"
    assert translations(demo_url) == [(2, "de", "Kein Modus zweimal.", "draft")]


def test_a_file_marked_reviewed_reviews_and_a_changed_text_is_a_draft_again(
    demo_url: str, tmp_path: Path
) -> None:
    po = export(demo_url, tmp_path / "de.po", "--locale", "de")
    translate(po, {"ruling:2": "Kein Modus zweimal."})
    name = str(po)
    result = run_kb(demo_url, "translations", "import", name, "--reviewed", "--editor", "rev")
    assert result.stdout == (
        f"{name}: 1 new, 0 changed, 1 reviewed (revisions 1 to 1); "
        "0 unchanged, 20 untranslated, 0 not applied\n"
    )
    assert translations(demo_url) == [(2, "de", "Kein Modus zweimal.", "reviewed")]
    drafts = run_kb(demo_url, "translations", "import", name, "--editor", "ann")
    assert (
        drafts.stdout == f"{name}: nothing changed; 1 unchanged, 20 untranslated, 0 not applied\n"
    )
    assert translations(demo_url)[0][3] == "reviewed"  # the same text does not undo a review
    translate(po, {})
    po.write_text(po.read_text("utf-8").replace("Kein Modus zweimal.", "Nie zweimal."), "utf-8")
    changed = run_kb(demo_url, "translations", "import", name, "--editor", "ann")
    assert changed.stdout.startswith(f"{name}: 0 new, 1 changed, 0 reviewed (revisions 2 to 2);")
    assert translations(demo_url) == [(2, "de", "Nie zweimal.", "draft")]
    history = run_kb(demo_url, "history", "--ruling", "2", "--csv").stdout.splitlines()
    assert [line.split(",")[3] for line in history[1:]] == ["translation", "translation"]


def test_a_reworded_ruling_is_not_applied_and_its_translation_exports_fuzzy(
    demo_url: str, tmp_path: Path
) -> None:
    po = export(demo_url, tmp_path / "de.po", "--locale", "de")
    translate(po, {"ruling:2": "Kein Modus zweimal.", "ruling:19": "Gesetzlos."})
    name = str(po)
    done = run_kb(demo_url, "translations", "import", name, "--reviewed", "--editor", "a")
    assert done.exit_code == 0, done.output
    # Only typography: the same ruling, the review stands; then reworded.
    retyped = SAME_MODE.replace("’", "'")
    assert run_kb(demo_url, "edit", "ruling-text", "2", retyped, "--editor", "b").exit_code == 0
    reworded = SAME_MODE + " Not even with a copy."
    assert run_kb(demo_url, "edit", "ruling-text", "2", reworded, "--editor", "b").exit_code == 0
    po.write_text(po.read_text("utf-8").replace("Gesetzlos.", "Gesetzlos!"), "utf-8")
    line = msgid_line(po, "ruling:2")
    result = run_kb(demo_url, "translations", "import", name, "--editor", "c")
    assert result.stdout == (
        f"{name}: 0 new, 1 changed, 0 reviewed (revisions 5 to 5); "
        "0 unchanged, 19 untranslated, 1 not applied\n"
        f"{name}:{line}: not applied: ruling:2: the English text changed since the export "
        "(its msgid is no longer the ruling's text)\n"
    )
    fresh = export(demo_url, tmp_path / "fresh.po", "--locale", "de")
    text = fresh.read_text("utf-8")
    assert (
        '#, fuzzy\nmsgctxt "ruling:2"\n'
        'msgid "You can’t choose the same mode more than once. Not even with a copy."\n'
        'msgstr "Kein Modus zweimal."\n'
    ) in text
    fuzzy = run_kb(demo_url, "translations", "import", str(fresh), "--editor", "c")
    line = msgid_line(fresh, "ruling:2")
    assert fuzzy.stdout.splitlines()[1:] == [
        f"{fresh}:{line}: not applied: ruling:2: marked fuzzy (needs editing)"
    ]
    # The translator edits the entry and clears the mark: a draft of the new English.
    fixed = text.replace('#, fuzzy\nmsgctxt "ruling:2"', 'msgctxt "ruling:2"').replace(
        'msgstr "Kein Modus zweimal."', 'msgstr "Kein Modus zweimal, auch nicht mit Kopie."'
    )
    fresh.write_text(fixed, "utf-8")
    done = run_kb(demo_url, "translations", "import", str(fresh), "--editor", "c")
    assert done.stdout.startswith(f"{fresh}: 0 new, 1 changed, 0 reviewed (revisions 6 to 6);")
    assert translations(demo_url)[0] == (
        2,
        "de",
        "Kein Modus zweimal, auch nicht mit Kopie.",
        "draft",
    )


HEADER = 'msgid ""\nmsgstr ""\n"Language: {}\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
GOOD = f'msgctxt "ruling:2"\nmsgid "{SAME_MODE}"\nmsgstr "Kein Modus zweimal."\n\n'

BAD_FILES = {
    "unknown ruling": (
        HEADER.format("de") + GOOD + 'msgctxt "ruling:999"\nmsgid "x"\nmsgstr "y"\n',
        "11: unknown msgctxt ruling:999: no such ruling in the store",
    ),
    "not a ruling key": (
        HEADER.format("de") + GOOD + 'msgctxt "menu"\nmsgid "x"\nmsgstr "y"\n',
        "11: msgctxt 'menu' is not a ruling's key (ruling:ID)",
    ),
    "no context": (
        HEADER.format("de") + GOOD + 'msgid "x"\nmsgstr "y"\n',
        "10: msgctxt None is not a ruling's key (ruling:ID)",
    ),
    "another locale": (
        HEADER.format("fr") + GOOD,
        "1: the file is for fr, not de",
    ),
    "English": (
        HEADER.format("en") + GOOD,
        "1: Language 'en' is not one of kb's translation locales",
    ),
    "a template": (
        HEADER.format("") + GOOD,
        "1: the header names no Language (a template?); translate a locale's file",
    ),
    "a string without quotes": (
        HEADER.format("de") + GOOD + 'msgctxt "ruling:3"\nmsgid Each additional\nmsgstr ""\n',
        "11: not a PO line: 'msgid Each additional'",
    ),
    "no msgstr": (
        HEADER.format("de") + GOOD + 'msgctxt "ruling:3"\nmsgid "Each"\n',
        "11: missing msgstr for msgid 'Each'",
    ),
    "the same entry twice": (HEADER.format("de") + GOOD + GOOD, "11: the same entry twice"),
    "plural forms": (
        HEADER.format("de") + GOOD + 'msgctxt "ruling:3"\nmsgid "a"\nmsgid_plural "b"\n'
        'msgstr[0] "c"\nmsgstr[1] "d"\n',
        "11: plural forms: a ruling has none",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_bad_file_is_one_line_and_changes_nothing(
    demo_url: str, tmp_path: Path, name: str
) -> None:
    content, error = BAD_FILES[name]
    po = tmp_path / "bad.po"
    po.write_text(content, "utf-8")
    result = run_kb(demo_url, "translations", "import", str(po), "--locale", "de", "--editor", "a")
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"kb: error: {po}:{error}\n")
    assert translations(demo_url) == [] and revision_count(demo_url) == 0


def test_the_good_file_of_those_imports(demo_url: str, tmp_path: Path) -> None:
    """The bad files above are bad only by what each adds to this one."""
    po = tmp_path / "good.po"
    po.write_text(HEADER.format("de") + GOOD, "utf-8")
    result = run_kb(demo_url, "translations", "import", str(po), "--locale", "de", "--editor", "a")
    assert result.exit_code == 0, result.output
    assert translations(demo_url) == [(2, "de", "Kein Modus zweimal.", "draft")]


def test_a_file_not_in_utf8_is_refused(demo_url: str, tmp_path: Path) -> None:
    po = tmp_path / "latin1.po"
    po.write_bytes((HEADER.format("de") + GOOD).encode("utf-8").replace(b"zweimal", b"\xe4"))
    result = run_kb(demo_url, "translations", "import", str(po), "--editor", "a")
    assert (result.exit_code, result.stderr) == (1, f"kb: error: {po}:8: not UTF-8\n")
    assert translations(demo_url) == []


def test_a_locale_with_a_region_or_script_goes_out_and_back(demo_url: str, tmp_path: Path) -> None:
    for locale, header in (("pt-BR", "pt_BR"), ("zh-Hant", "zh_Hant")):
        po = export(demo_url, tmp_path / f"{locale}.po", "--locale", locale)
        assert f'"Language: {header}\\n"' in po.read_text("utf-8")
        assert msgfmt_check(po).returncode == 0
        translate(po, {"ruling:2": f"({locale})"})
        # Some editors write a byte order mark first.
        po.write_bytes(b"\xef\xbb\xbf" + po.read_bytes())
        result = run_kb(demo_url, "translations", "import", str(po), "--editor", "ann")
        assert result.exit_code == 0, result.output
    assert translations(demo_url) == [
        (2, "pt-BR", "(pt-BR)", "draft"),
        (2, "zh-Hant", "(zh-Hant)", "draft"),
    ]
    wrong = run_kb(demo_url, "translations", "import", str(po), "--locale", "ja", "--editor", "a")
    header = po.read_text("utf-8-sig").splitlines().index('msgid ""') + 1
    assert wrong.stderr == f"kb: error: {po}:{header}: the file is for zh-Hant, not ja\n"


def test_a_msgid_in_other_typography_is_the_same_ruling(demo_url: str, tmp_path: Path) -> None:
    po = tmp_path / "plain.po"
    plain = GOOD.replace("can’t", "can't")  # as an editor that drops curly quotes saves it
    po.write_text(HEADER.format("de") + plain, "utf-8")
    result = run_kb(demo_url, "translations", "import", str(po), "--editor", "a")
    assert result.stdout == (
        f"{po}: 1 new, 0 changed, 0 reviewed (revisions 1 to 1); "
        "0 unchanged, 0 untranslated, 0 not applied\n"
    )
    assert translations(demo_url) == [(2, "de", "Kein Modus zweimal.", "draft")]


@pytest.mark.postgres
def test_both_engines_export_the_same_entries(
    sqlite_url: str, postgres_engine: Engine, tmp_path: Path
) -> None:
    """Only the header's dates (each store's own import time) may differ."""
    bodies = []
    for url in (sqlite_url, postgres_engine.url.render_as_string(hide_password=False)):
        engine = make_engine(url)
        run_import(engine, [DATA])
        engine.dispose()
        po = export(url, tmp_path / "de.po", "--locale", "de").read_text("utf-8")
        bodies.append(po.partition("Generated-By: Babel")[2])
    assert bodies[0] == bodies[1] and bodies[0].count("msgctxt") == 21
