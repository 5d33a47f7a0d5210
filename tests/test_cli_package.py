"""The kb.cli package: commands loaded when named, the root's help made without loading them,
and each command module wired to the shared one only."""

from __future__ import annotations

import ast
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from realdata import ROOT

from kb.cli import COMMANDS, cli
from kb.cli.lazy_group import Lazy, LazyGroup, stand_in

COMMAND_MODULES = sorted({lazy.import_path.partition(":")[0] for lazy in COMMANDS.values()})


def loaded(*args: str) -> set[str]:
    """The modules of kb that ``kb ARGS`` imports, in a new interpreter."""
    script = (
        "import sys\nfrom click.testing import CliRunner\nfrom kb.cli import cli\n"
        f"result = CliRunner().invoke(cli, {list(args)!r})\n"
        "assert result.exit_code == 0, result.output\n"
        "print(*sorted(name for name in sys.modules if name.startswith('kb.')))"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return set(run.stdout.split())


def of_the_cli(modules: set[str]) -> set[str]:
    return {module for module in modules if module.startswith("kb.cli")}


ROOT_ONLY = {"kb.cli", "kb.cli.app", "kb.cli.lazy_group"}


def test_kb_help_lists_the_commands_without_importing_them() -> None:
    assert of_the_cli(loaded("--help")) == ROOT_ONLY


def test_a_command_imports_its_own_module_only() -> None:
    build = loaded("build", "--help")
    assert of_the_cli(build) == ROOT_ONLY | {"kb.cli.site_commands", "kb.cli.import_summary"}
    assert "kb.db" not in build and "kb.loader" not in build  # the ORM: ~0.2 s of a build
    assert of_the_cli(loaded("edit", "tag", "--help")) == ROOT_ONLY | {"kb.cli.edit_commands"}


def test_a_commands_modules_are_set_aside_from_the_collector_when_first_loaded() -> None:
    """Loading a command's modules (a site build's: about 3 % of a small build's time) leaves
    them in the collector's permanent generation, as kb.__main__ leaves kb.cli's; loading it
    again freezes nothing more, and the collector runs as before."""
    script = (
        "import gc, click\nfrom kb.cli import cli\n"
        "counts = [gc.get_freeze_count()]\n"
        "for _ in range(2):\n"
        "    cli.get_command(click.Context(cli), 'build')\n"
        "    counts.append(gc.get_freeze_count())\n"
        "print(*counts, gc.isenabled())"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    before, loaded, again, enabled = run.stdout.split()
    assert int(loaded) > int(before) + 10_000  # the site's modules, Jinja2 and Babel among them
    assert int(again) <= int(loaded) and enabled == "True"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_is_the_first_paragraph_of_the_commands_help(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.name == name and command.help
    first_paragraph = command.help.partition("\n\n")[0]
    assert COMMANDS[name].summary.split() == first_paragraph.split()
    for width in (0, 3, 20, 45, 60, 74, 200):
        assert stand_in(name, COMMANDS[name]).get_short_help_str(width) == (
            command.get_short_help_str(width)
        )


@pytest.mark.parametrize("width", [50, 80, 200])
def test_the_lazy_listing_is_clicks_own(width: int) -> None:
    """The root's help, made from the summaries, is click's help of a group holding the loaded
    commands, at any terminal width."""
    context = click.Context(cli)
    eager = click.Group(
        "kb",
        commands=[command for name in COMMANDS if (command := cli.get_command(context, name))],
        params=cli.params,
        help=cli.help,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    lazy = CliRunner().invoke(cli, ["--help"], terminal_width=width, prog_name="kb")
    clicks = CliRunner().invoke(eager, ["--help"], terminal_width=width, prog_name="kb")
    assert lazy.output == clicks.output and lazy.exit_code == clicks.exit_code == 0
    assert lazy.output.count("\n  ") > len(COMMANDS)


def every_command_line(group: click.Group, prefix: tuple[str, ...] = ()) -> list[list[str]]:
    found = []
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None
        found.append([*prefix, name])
        if isinstance(command, click.Group):
            found.extend(every_command_line(command, (*prefix, name)))
    return found


@pytest.mark.parametrize("args", every_command_line(cli), ids=" ".join)
def test_every_commands_help_loads(args: list[str]) -> None:
    """As click advises for lazy groups: each command's module imports and its help shows."""
    result = CliRunner().invoke(cli, [*args, "--help"], prog_name="kb")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: kb {' '.join(args)} ")


def test_a_slip_in_the_table_is_said_plainly() -> None:
    group = LazyGroup(lazy_subcommands={"x": Lazy("kb.cli.app:App", "An app.")})
    with pytest.raises(TypeError, match=r"^kb.cli.app:App is not a click command$"):
        group.get_command(click.Context(group), "x")
    assert group.get_command(click.Context(group), "y") is None


SHARED = {"kb.cli.app", "kb.cli.import_summary"}
"""The modules of kb.cli that are not commands: what commands share, and kb import's and kb
demo's summary."""


@pytest.mark.parametrize("module", COMMAND_MODULES)
def test_a_command_module_imports_of_the_cli_only_what_is_shared(module: str) -> None:
    path = ROOT / (module.replace(".", "/") + ".py")
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    cli_modules = {name for name in names if name == "kb.cli" or name.startswith("kb.cli.")}
    # kb.cli.app.App is a name in kb.cli.app; kb.cli.site_commands would be a module
    imported = {name.rpartition(".")[0] if name.count(".") > 2 else name for name in cli_modules}
    assert "kb.cli.app" in imported and imported <= SHARED
