"""What kb's commands share: the ``App`` a command is passed, its errors as one line, and the
options more than one command takes."""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

import click
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from kb.engine import DEFAULT_DATABASE_URL, StoreError
from kb.formats import OUTPUT_STYLES
from kb.locales import LOCALE_CODES
from kb.records import ParseError
from kb.site import OutputFolderError, SearchIndexError
from kb.store import close_store, open_store

F = TypeVar("F", bound=Callable[..., Any])

LOCALE_LIST = ", ".join(LOCALE_CODES)
"""The locale codes as kb writes them, for help texts."""


if TYPE_CHECKING:  # generic since click 8.4; kb runs on 8.1 too
    from click.shell_completion import CompletionItem

    _StringType = click.ParamType[str]
else:
    _StringType = click.ParamType


class LocaleCode(_StringType):
    """A locale code in any case (``pt-br`` is ``pt-BR``), given as kb writes it. Its usage says
    LOCALE and its error lists the codes as kb writes them, where ``click.Choice`` listed every
    code lower-cased in both."""

    name = "locale"
    by_folded: ClassVar = {code.casefold(): code for code in LOCALE_CODES}
    """Each code as kb writes it, by its case-folded form."""

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "LOCALE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        code = self.by_folded.get(str(value).casefold())
        if code is None:
            self.fail(f"{value!r} is not one of {LOCALE_LIST}.", param, ctx)
        return code

    def shell_complete(
        self, ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        from click.shell_completion import CompletionItem  # only when a shell completes

        start = incomplete.casefold()
        return [CompletionItem(code) for code in LOCALE_CODES if code.casefold().startswith(start)]


LOCALE_CHOICE = LocaleCode()
"""A locale code as an argument or an option's value."""


@dataclass
class App:
    database_url: str
    quiet: bool
    _engine: Engine | None = field(default=None, repr=False)

    def engine(self, migrated: bool = True, create: bool = False) -> Engine:
        """The store's engine; brought to the latest migration first unless ``migrated`` is off.
        Only a command that writes passes ``create``: for the others, no store is an error."""
        if self._engine is None:
            with clear_errors():
                self._engine = open_store(self.database_url, migrated, create)
        return self._engine

    def close(self) -> None:
        """At the end of every command, whatever its outcome: the store's file left whole."""
        if self._engine is not None:
            note = close_store(self._engine)
            self._engine = None
            if note is not None:
                click.echo(f"kb: note: {note}", err=True)

    def echo(self, message: str) -> None:
        if not self.quiet:
            click.echo(message)

    @contextmanager
    def progress(self, length: int, label: str) -> Iterator[Callable[[int, int], None]]:
        """A progress bar on a terminal (never with --quiet), showing items done and their rate.

        Yields ``advance(steps, items)``: ``steps`` more of ``length`` are done, ``items`` so far.
        """
        if self.quiet or not sys.stderr.isatty():
            yield lambda _steps, _items: None
            return
        started = time.monotonic()

        def show(items: int | None) -> str:
            rate = (items or 0) / max(time.monotonic() - started, 1e-9)
            return f"{items or 0:,} records, {rate:,.0f}/s"

        with click.progressbar(
            length=length, label=label, file=sys.stderr, show_eta=True, item_show_func=show
        ) as bar:
            yield lambda steps, items: bar.update(steps, items)


pass_app = click.make_pass_decorator(App)


class KbError(click.ClickException):
    """One line on stderr, exit status 1: never a traceback for bad input."""

    def show(self, file: Any = None) -> None:
        click.echo(f"kb: error: {self.format_message()}", err=True)


@contextmanager
def clear_errors(
    writing: Path | None = None, refused: tuple[type[Exception], ...] = ()
) -> Iterator[None]:
    """Errors as one line; ``writing``: the file or folder a system error that names no file
    (a full disk) is told of; ``refused``: errors whose message is that line (a query or an
    edit refused)."""
    try:
        yield
    except BrokenPipeError:
        raise  # a reader that stopped reading: see kb.pipes
    except refused as error:
        raise KbError(str(error)) from None
    except (
        ParseError,
        SQLAlchemyError,
        OutputFolderError,
        SearchIndexError,
        StoreError,
        OSError,
    ) as error:
        raise KbError(one_line(error, writing)) from None


def one_line(error: Exception, writing: Path | None = None) -> str:
    """What went wrong, in one line: the database's own message for a database error, the
    file (else ``writing``) and the system's reason for a file that could not be written or
    read."""
    if isinstance(error, SQLAlchemyError):
        return "database: " + str(getattr(error, "orig", None) or error).splitlines()[0]
    if isinstance(error, OSError) and error.strerror is not None:
        where = error.filename if error.filename is not None else writing
        if where is not None:
            return f"{where}: {error.strerror}"
    return str(error)


def database_option(command: F) -> F:
    return click.option(
        "--db",
        "database_url",
        envvar="KB_DATABASE_URL",
        default=DEFAULT_DATABASE_URL,
        show_default=True,
        help="Database URL (env KB_DATABASE_URL): sqlite:///file or postgresql+psycopg://...",
    )(command)


STYLE_HELP = {
    "table": "an aligned table (default)",
    "csv": "CSV",
    "tsv": "tab-separated values",
    "json": "JSON, a list of objects",
    "markdown": "a Markdown table",
}


def output_options(command: F) -> F:
    """--table (default), --csv, --tsv, --json, --markdown: one ``style`` parameter.

    Each style is its own flag so that two of them given together are an error, not the last
    one silently winning."""

    @functools.wraps(command)
    def with_style(*args: Any, **kwargs: Any) -> Any:
        chosen = [style for style in OUTPUT_STYLES if kwargs.pop(f"as_{style}")]
        if len(chosen) > 1:
            flags = " and ".join(f"--{style}" for style in chosen)
            raise click.UsageError(f"choose one output style, not {flags}")
        return command(*args, style=chosen[0] if chosen else "table", **kwargs)

    for style in reversed(OUTPUT_STYLES):
        help_text = f"Print the result as {STYLE_HELP[style]}."
        with_style = click.option(f"--{style}", f"as_{style}", is_flag=True, help=help_text)(
            with_style
        )
    return cast(F, with_style)


def query_options(command: F) -> F:
    """Parameters and limits shared by kb sql and kb query."""
    options = [
        click.option(
            "-p",
            "--param",
            "params",
            nargs=2,
            multiple=True,
            metavar="NAME VALUE",
            help="Value of the :NAME parameter (repeatable).",
        ),
        click.option(
            "--time-limit",
            type=click.FloatRange(min=0.001),
            default=1.0,
            show_default=True,
            help="Seconds before the query is stopped.",
        ),
        click.option(
            "--max-rows",
            type=click.IntRange(min=1),
            default=1000,
            show_default=True,
            help="Rows printed at most.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return output_options(command)


def editor_option(command: F) -> F:
    return click.option(
        "--editor",
        envvar="KB_EDITOR",
        required=True,
        help="Who is editing (env KB_EDITOR); recorded with every change.",
    )(command)
