"""A click group whose subcommands are imported when they are needed, as click documents it
("Lazily loading subcommands"): a command's module is imported when the command runs, when its
own help is shown, or for shell completion; not to list the commands in the group's help."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from gettext import gettext as click_text
from typing import Any, NamedTuple

import click

from kb import collector


class Lazy(NamedTuple):
    """A subcommand not yet imported: where it is, and what the group's help says of it."""

    import_path: str
    """``module:attribute``, the module to import and the command in it."""
    summary: str
    """The first paragraph of the command's help (a test keeps the two the same): the group's
    help shortens it as click shortens the help of a command it has loaded."""


class LazyGroup(click.Group):
    def __init__(self, *args: Any, lazy_subcommands: Mapping[str, Lazy], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = dict(lazy_subcommands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy_subcommands])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = self.lazy_subcommands.get(cmd_name)
        if lazy is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = lazy.import_path.partition(":")
        if module in sys.modules:
            command = getattr(sys.modules[module], attribute)
        else:
            # A command's modules live as long as the process, as kb.cli's do (kb.__main__):
            # set aside, the collector no longer walks them (about 3 % of a small site build).
            with collector.set_aside():
                command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):  # a slip in the table, said plainly
            raise TypeError(f"{lazy.import_path} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's list of subcommands and their short help, made without importing them: a
        stand-in command holding a lazy one's summary gives click's short help of it."""
        commands: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            lazy = self.lazy_subcommands.get(name)
            command = super().get_command(ctx, name) if lazy is None else stand_in(name, lazy)
            if command is not None and not command.hidden:
                commands.append((name, command))
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            # Click's heading, translated as click does (the stdlib's gettext), under a name
            # pybabel does not extract: the site's catalog holds no CLI text.
            with formatter.section(click_text("Commands")):
                formatter.write_dl(
                    [(name, command.get_short_help_str(limit)) for name, command in commands]
                )


def stand_in(name: str, lazy: Lazy) -> click.Command:
    """A command that only has ``lazy``'s summary for its help."""
    return click.Command(name, help=lazy.summary)
