"""kb translations check: translations of rulings that name a mechanic, checked against the
mechanic's term in the locale, on both engines."""

from __future__ import annotations

import pytest
from conftest import run_kb

from kb.translations.check import stem, uses


def translate(url: str, ruling: int, locale: str, text: str) -> None:
    result = run_kb(url, "edit", "translation", str(ruling), locale, text, "--editor", "ann")
    assert result.exit_code == 0, result.output


def test_a_finding_per_term_missing_or_left_in_english(demo_url: str) -> None:
    # 12 and 9 say "spree", 21 and 20 "outlaw"; 2 is a general Spree ruling that names nothing.
    translate(demo_url, 12, "de", "Du musst mindestens einen Modus wählen, um Exzess zu nutzen.")
    translate(demo_url, 9, "de", "Wird ein Zauberspruch mit Spree kopiert, wähle neue Ziele.")
    translate(demo_url, 21, "de", "Gesetzlose sind kein Kreaturentyp.")
    translate(demo_url, 20, "de", "Eine Fähigkeit, die sich auf Banditen bezieht, ...")
    translate(demo_url, 2, "de", "Kein Modus zweimal.")
    result = run_kb(demo_url, "translations", "check", "--locale", "de")
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        'ruling:9: Spree: expected "Exzess"; the English term is left untranslated\n'
        'ruling:20: outlaw: expected "gesetzlos"; the translation does not use it\n'
        "de: 2 findings in 4 translations that name a mechanic (5 checked)\n"
    )
    quiet = run_kb(demo_url, "-q", "translations", "check", "--locale", "de")
    assert (quiet.exit_code, quiet.stdout.count("\n")) == (1, 2)
    translate(demo_url, 9, "de", "Wird ein Zauberspruch mit Exzess kopiert, wähle neue Ziele.")
    translate(demo_url, 20, "de", "Eine Fähigkeit, die sich auf einen Gesetzlosen bezieht, ...")
    clean = run_kb(demo_url, "translations", "check", "--locale", "de")
    assert (clean.exit_code, clean.stdout) == (
        0,
        "de: 0 findings in 4 translations that name a mechanic (5 checked)\n",
    )


def test_a_locale_without_translations_has_no_findings_and_english_is_refused(
    demo_url: str,
) -> None:
    translate(demo_url, 12, "ja", "放題を持つ呪文を唱えるには、モードを1つ以上選ぶ。")
    result = run_kb(demo_url, "translations", "check", "--locale", "it")
    assert (result.exit_code, result.stdout) == (
        0,
        "it: 0 findings in 0 translations that name a mechanic (0 checked)\n",
    )
    japanese = run_kb(demo_url, "translations", "check", "--locale", "ja")
    assert (japanese.exit_code, japanese.stdout) == (
        0,
        "ja: 0 findings in 1 translation that name a mechanic (1 checked)\n",
    )
    refused = run_kb(demo_url, "translations", "check", "--locale", "en")
    assert refused.exit_code == 2
    assert "rulings are in English already" in refused.stderr


@pytest.mark.parametrize(
    ("translation", "term", "locale", "used"),
    [
        ("Wenn du diese Karte umwandelst, ziehe.", "Umwandlung", "de", True),
        ("Die Umwandlungskosten sind {2}.", "Umwandlung", "de", True),
        ("UMWANDLUNG ist eine Fähigkeit.", "Umwandlung", "de", True),
        # A prefix inside the word (the participle's ge-) is not found: a known limit.
        ("Die Karte wurde umgewandelt.", "Umwandlung", "de", False),
        (
            "Die Kreatur hat Trampelschaden und verursacht ihn.",
            "Verursacht Trampelschaden",
            "de",
            True,
        ),
        ("Die Kreatur hat Trampelschaden.", "Verursacht Trampelschaden", "de", False),
        ("C'est un sort avec l'Impétuosité.", "Impétuosité", "fr", True),
        ("Un hors-la-loi est une créature.", "hors-la-loi", "fr", True),
        ("Il a le vol.", "Vol", "fr", True),
        ("Il a la vigilance.", "Vol", "fr", False),
        ("このカードをサイクリングする。", "サイクリング", "ja", True),
        ("이 카드를 순환하면", "순환", "ko", True),
        ("这张牌有循环。", "循环", "zh-Hans", True),
        ("这张牌有飞行。", "循环", "zh-Hans", False),
    ],
)
def test_terms_are_found_by_their_stems(
    translation: str, term: str, locale: str, used: bool
) -> None:
    assert uses(translation, term, locale) is used


def test_a_stem_keeps_two_thirds_of_a_word_and_at_least_four_letters() -> None:
    assert [stem(word) for word in ("umwandlung", "exzess", "bonus", "vol", "gesetzlos")] == [
        "umwand",
        "exze",
        "bonu",
        "vol",
        "gesetz",
    ]
