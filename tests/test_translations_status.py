"""kb translations status: each locale's coverage, in rulings and in card–ruling links."""

from __future__ import annotations

from conftest import run_kb

SAME_MODE = "You can’t choose the same mode more than once."


def edit(url: str, *args: str) -> None:
    result = run_kb(url, "edit", *args, "--editor", "ann")
    assert result.exit_code == 0, result.output


def test_status_counts_translated_reviewed_and_outdated_rulings_and_links(demo_url: str) -> None:
    # Ruling 2 stands on both demo cards, ruling 4 on Three Steps Ahead only: 3 of 33 links.
    edit(demo_url, "translation", "2", "de", "Kein Modus zweimal.")
    edit(demo_url, "review", "2", "de")
    edit(demo_url, "translation", "4", "de", "Der Spielstein kopiert ...")
    edit(demo_url, "translation", "2", "it", "Nessun modo due volte.")
    edit(demo_url, "review", "2", "it")
    edit(demo_url, "ruling-text", "2", SAME_MODE + " Not even with a copy.")
    result = run_kb(demo_url, "translations", "status")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "locale   translated  reviewed  outdated  rulings  links\n"
        "-------  ----------  --------  --------  -------  -----\n"
        "de       2           0         1         9.5%     9.1%\n"
        "fr       0           0         0         0.0%     0.0%\n"
        "it       1           0         1         4.8%     6.1%\n"
        "es       0           0         0         0.0%     0.0%\n"
        "pt-BR    0           0         0         0.0%     0.0%\n"
        "ja       0           0         0         0.0%     0.0%\n"
        "ko       0           0         0         0.0%     0.0%\n"
        "ru       0           0         0         0.0%     0.0%\n"
        "zh-Hans  0           0         0         0.0%     0.0%\n"
        "zh-Hant  0           0         0         0.0%     0.0%\n"
    )
    edit(demo_url, "review", "2", "it")  # reviewed again, against the new English
    csv = run_kb(demo_url, "translations", "status", "--csv").stdout.splitlines()
    assert csv[0] == "locale,translated,reviewed,outdated,rulings,links"
    assert csv[3] == "it,1,1,0,4.8%,6.1%"


def test_an_empty_store_has_no_coverage(database_url: str) -> None:
    result = run_kb(database_url, "translations", "status", "--csv")
    assert result.stdout.splitlines()[1:3] == ["de,0,0,0,0.0%,0.0%", "fr,0,0,0,0.0%,0.0%"]
