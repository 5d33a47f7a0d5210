"""The command line as a user meets it: help, the demo, one-line errors, the README."""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from realdata import ROOT

from kb.cli import cli
from kb.cli.app import LOCALE_CHOICE, LocaleCode, clear_errors
from kb.locales import LOCALE_CODES

README = (ROOT / "README.md").read_text(encoding="utf-8")


def all_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None
        found.append((f"{prefix}{name}", command))
        if isinstance(command, click.Group):
            found.extend(all_commands(command, f"{prefix}{name} "))
    return found


@pytest.mark.parametrize("name,command", all_commands(cli), ids=lambda v: str(v))
def test_every_command_has_help_and_is_in_the_readme(name: str, command: click.Command) -> None:
    assert command.help and command.help.strip(), f"kb {name} has no help"
    assert f"kb {name}" in README, f"kb {name} is not documented in README.md"
    result = CliRunner().invoke(cli, [*name.split(), "--help"])
    assert result.exit_code == 0
    first_line = command.help.strip().splitlines()[0]
    assert " ".join(first_line.split()) in " ".join(result.output.split())
    options = [param for param in command.params if isinstance(param, click.Option)]
    assert [option.opts[0] for option in options if not option.help] == []


LOCALE_PARAMETERS = [
    (name, param)
    for name, command in all_commands(cli)
    for param in command.params
    if isinstance(param.type, LocaleCode)
]


def test_locale_parameters_say_locale_and_list_the_codes_as_kb_writes_them() -> None:
    assert len(LOCALE_PARAMETERS) >= 10  # kb card, import, translations, edit
    codes = ", ".join(LOCALE_CODES)  # pt-BR, zh-Hans: click's Choice showed them lower-cased
    for name, param in LOCALE_PARAMETERS:
        help_text = CliRunner().invoke(cli, [*name.split(), "--help"]).output
        assert "LOCALE" in help_text and "pt-br" not in help_text, name
        listed = param.help if isinstance(param, click.Option) else help_text
        if name.startswith("edit "):  # arguments: kb edit --help lists the codes
            listed = CliRunner().invoke(cli, ["edit", "--help"]).output
        assert codes in " ".join((listed or "").split()), name


def test_a_locale_is_matched_in_any_case_and_completed_as_kb_writes_it() -> None:
    assert LOCALE_CHOICE.convert("PT-br", None, None) == "pt-BR"
    with pytest.raises(click.BadParameter, match=r"'xx' is not one of en, de, .*, pt-BR, "):
        LOCALE_CHOICE.convert("xx", None, None)
    context = click.Context(cli)
    option = click.Option(["--locale"], type=LOCALE_CHOICE)
    completed = LOCALE_CHOICE.shell_complete(context, option, "ZH")
    assert [item.value for item in completed] == ["zh-Hans", "zh-Hant"]


def quick_start_lines() -> list[str]:
    block = re.search(r"## Quick start\n.*?```\w*\n(.*?)```", README, re.S)
    assert block is not None, "README.md has no Quick start block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_two_commands_and_ci_runs_the_test_one() -> None:
    lines = quick_start_lines()
    assert len(lines) == 2
    assert "kb demo" in lines[0]
    assert "pytest" in lines[1]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert lines[1] in ci_lines


def test_the_kb_command_loads_with_the_collector_paused_and_runs_with_it_on() -> None:
    """kb.__main__.main, the installed ``kb`` and ``python -m kb``, in a process of its own."""
    script = (
        "import gc, sys\n"
        "from kb.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        "    print('collecting:', gc.isenabled(), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "--version"], capture_output=True, text=True, check=True
    )
    assert done.stdout.startswith("kb, version ")
    assert done.stderr == "collecting: True\n"
    module = subprocess.run(
        [sys.executable, "-m", "kb", "--help"], capture_output=True, text=True, check=True
    )
    assert module.stdout.startswith("Usage: kb ")


def test_demo_builds_the_site_and_points_at_the_german_page(workdir: Path) -> None:
    result = CliRunner().invoke(cli, ["demo"])
    assert result.exit_code == 0, result.output
    german = workdir / "site" / "de" / "cards" / "three-steps-ahead.html"
    assert german.is_file()
    assert (workdir / "kb.sqlite").is_file()
    assert result.output.splitlines()[-1] == (
        f"115 pages in {workdir / 'site'}; German page of Three Steps Ahead: {german}"
    )


def test_import_summary_then_nothing_changed(workdir: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["import", "data"])
    assert first.exit_code == 0
    assert first.output == (
        "cards: 2 new, 0 updated, 0 unchanged\n"
        "names: 16 new, 0 changed, 0 unchanged\n"
        "rulings: 21 new, 12 reused, 0 improved (damaged copies mended)\n"
        "links: 33 new, 0 dated, 0 unchanged\n"
        "mechanics: 2 new, 0 updated\n"
        "tags: 3 new on cards, 15 new on rulings\n"
    )
    again = runner.invoke(cli, ["import", "data"])
    assert again.exit_code == 0
    assert again.output.splitlines()[-1] == "nothing changed: the store already held all of it"
    assert runner.invoke(cli, ["--quiet", "import", "data"]).output == ""


def test_bad_file_is_one_line_on_stderr_and_exit_status_1(workdir: Path) -> None:
    (workdir / "bad.txt").write_bytes(b"")
    result = CliRunner().invoke(cli, ["import", "bad.txt"])
    assert result.exit_code == 1
    assert result.stderr == "kb: error: bad.txt:1: the file is empty\n"


def test_missing_path_is_a_clear_error(workdir: Path) -> None:
    result = CliRunner().invoke(cli, ["import", "nowhere.txt"])
    assert result.exit_code == 1
    assert result.stderr == "kb: error: nowhere.txt: no such file or folder\n"


def test_db_commands_walk_the_migrations(workdir: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["db", "current"]).output == (
        "kb: error: sqlite:///kb.sqlite: no store here (kb import or kb db upgrade creates one)\n"
    )
    assert not (workdir / "kb.sqlite").exists()
    assert runner.invoke(cli, ["db", "upgrade"]).output == "database at revision 0013\n"
    assert runner.invoke(cli, ["db", "current"]).output == "0013 (latest)\n"
    refused = runner.invoke(cli, ["db", "downgrade", "base"], input="n\n")
    assert refused.exit_code == 1 and refused.stdout == ""
    assert "drops the tables and columns later migrations added" in refused.stderr
    assert runner.invoke(cli, ["db", "current"]).output == "0013 (latest)\n"
    downgraded = runner.invoke(cli, ["db", "downgrade", "base"], input="y\n")
    assert downgraded.stdout == "database at revision base\n"
    assert runner.invoke(cli, ["db", "current"]).output == "base (behind: latest is 0013)\n"
    assert runner.invoke(cli, ["db", "upgrade"]).exit_code == 0
    yes = runner.invoke(cli, ["db", "downgrade", "0007", "--yes"])
    assert (yes.stdout, yes.stderr) == ("database at revision 0007\n", "")


def test_database_url_from_the_environment(workdir: Path) -> None:
    url = f"sqlite:///{workdir / 'other.sqlite'}"
    result = CliRunner().invoke(cli, ["db", "upgrade"], env={"KB_DATABASE_URL": url})
    assert result.exit_code == 0
    assert (workdir / "other.sqlite").is_file()
    assert not (workdir / "kb.sqlite").exists()


def test_sources_list_what_each_file_added(workdir: Path) -> None:
    runner = CliRunner()
    runner.invoke(cli, ["import", "data"])
    runner.invoke(cli, ["import", "data"])  # adds nothing: no new source
    output = runner.invoke(cli, ["sources"]).output
    lines = output.splitlines()
    assert len(lines) == 6
    assert re.fullmatch(
        r"1  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  catalog  sha256:[0-9a-f]{12}  data/catalog.toml",
        lines[0],
    )
    assert lines[1] == "    added: 3 card tags new, 2 cards new, 2 mechanics new, 16 names new"
    assert lines[2].endswith("seed-page  sha256:eb13e7cf9b49  data/pages/de-three-steps-ahead.txt")
    assert lines[3] == "    added: 18 links new, 18 rulings new"


def test_verbose_lists_warnings_about_unknown_cards(workdir: Path) -> None:
    rulings = workdir / "rulings.json"
    rulings.write_text(
        '[{"object": "ruling", "oracle_id": "0000", "source": "wotc",'
        ' "published_at": "2024-01-01", "comment": "A ruling."}]',
        encoding="utf-8",
    )
    runner = CliRunner()
    assert "warnings: 1 (--verbose)" in runner.invoke(cli, ["import", "rulings.json"]).output
    verbose = runner.invoke(cli, ["import", "--verbose", "rulings.json"]).output
    assert "  rulings.json: a ruling for an unknown card: 0000" in verbose.splitlines()


def test_export_writes_the_file_whole(workdir: Path) -> None:
    runner = CliRunner()
    runner.invoke(cli, ["import", "data"])
    result = runner.invoke(cli, ["export", "--format", "csv", "--out", "links.csv"])
    assert result.exit_code == 0
    assert result.output == "33 rows written to links.csv\n"
    result = runner.invoke(cli, ["export", "--format", "scryfall-rulings", "--out", "r.json"])
    assert result.output == "33 rulings written to r.json\n"
    result = runner.invoke(cli, ["export", "--format", "mtgjson", "--out", "kb.json"])
    assert result.output == "2 cards written to kb.json\n"
    assert (workdir / "links.csv").read_text(encoding="utf-8").count("\n") == 34
    assert not list(workdir.glob(".*.partial"))


def test_export_never_writes_over_the_store_or_leaves_a_half_file(workdir: Path) -> None:
    runner = CliRunner()
    runner.invoke(cli, ["import", "data"])
    store = (workdir / "kb.sqlite").read_bytes()
    over = runner.invoke(cli, ["export", "--format", "csv", "--out", "kb.sqlite"])
    assert (over.exit_code, over.output) == (
        1,
        "kb: error: kb.sqlite: is the store itself; export to another file\n",
    )
    assert (workdir / "kb.sqlite").read_bytes() == store
    nowhere = runner.invoke(cli, ["export", "--format", "csv", "--out", "gone/links.csv"])
    assert (nowhere.exit_code, nowhere.output) == (
        1,
        f"kb: error: {Path('gone/.links.csv.partial')}: No such file or directory\n",
    )
    with sqlite3.connect(workdir / "kb.sqlite") as connection:
        connection.execute("ALTER TABLE rulings RENAME TO rulings_away")
    failed = runner.invoke(cli, ["export", "--format", "csv", "--out", "links.csv"])
    assert failed.exit_code == 1 and "no such table: rulings" in failed.output
    assert not (workdir / "links.csv").exists() and not list(workdir.glob(".*.partial"))


def test_a_database_that_is_not_a_store_is_refused_in_one_line(workdir: Path) -> None:
    with sqlite3.connect(workdir / "other.sqlite") as connection:
        connection.execute("CREATE TABLE notes (body text)")
    result = CliRunner().invoke(cli, ["--db", "sqlite:///other.sqlite", "build"])
    assert (result.exit_code, result.output) == (
        1,
        "kb: error: sqlite:///other.sqlite: not a kb store (it holds other tables: notes); "
        "use a new file or an empty database\n",
    )
    assert not (workdir / "site").exists()


def test_an_unknown_revision_is_one_line(workdir: Path) -> None:
    assert CliRunner().invoke(cli, ["db", "upgrade"]).exit_code == 0
    result = CliRunner().invoke(cli, ["db", "downgrade", "zzz", "--yes"])
    assert (result.exit_code, result.output) == (
        1,
        "kb: error: Can't locate revision identified by 'zzz'\n",
    )


def test_a_system_error_naming_no_file_names_what_was_being_written() -> None:
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as os.write raises it
    with pytest.raises(click.ClickException) as raised, clear_errors(Path("site")):
        raise full
    assert raised.value.format_message() == "site: No space left on device"
