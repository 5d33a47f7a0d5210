"""The site: ``kb build`` (once, or ``--watch``), ``kb serve`` and ``kb demo``."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import click
from sqlalchemy.engine import Engine

from kb.cli.app import LOCALE_LIST, App, KbError, LocaleCode, clear_errors, one_line, pass_app
from kb.cli.import_summary import summary_lines
from kb.locales import LOCALES, Locale
from kb.site import WATCH_INTERVAL

if TYPE_CHECKING:  # kb.site.build is imported by the commands that build: it is slow to import
    from kb.site.build import BuildOptions, BuildResult, WatchState

DEMO_DATA = Path("data")
DEMO_SITE = Path("site")


def _locale_list(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> tuple[Locale, ...]:
    """``de,it`` (or ``--locale de --locale it``) → those locales, in kb's order; all of them
    when the option is absent. Codes are matched whatever their case (``pt-br``, as its folder
    is named, is ``pt-BR``). Repeats add up: a repeated option that silently kept its last
    value built one locale where a reader asked for three."""
    if not values:
        return LOCALES
    folded = {
        code.strip().casefold() for value in values for code in value.split(",") if code.strip()
    }
    if not folded:
        raise click.BadParameter("no locale given")
    unknown = sorted(folded - LocaleCode.by_folded.keys())
    if unknown:
        raise click.BadParameter(f"{', '.join(unknown)}: not one of {LOCALE_LIST}")
    codes = {LocaleCode.by_folded[code] for code in folded}
    return tuple(locale for locale in LOCALES if locale.code in codes)


def _base_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """An absolute http(s) address, ending with a slash; "" none, None not given."""
    if not value:
        return value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or not value.isprintable():
        raise click.BadParameter(f"{value!r}: not an absolute http(s) address")
    return value if value.endswith("/") else f"{value}/"


@click.command("build")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEMO_SITE,
    show_default=True,
    help="Output folder; a failed build leaves the previous site in place.",
)
@click.option("--full", is_flag=True, help="Rewrite every page, not only the changed ones.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=os.cpu_count() or 1,
    show_default="the number of cores",
    help="Worker processes rendering card pages.",
)
@click.option(
    "--locale",
    "locales",
    multiple=True,
    callback=_locale_list,
    metavar="CODES",
    help="Build only these locales, comma-separated (de,it) or repeated (--locale de --locale "
    "it); the others' pages are kept.",
)
@click.option(
    "--base-url",
    callback=_base_url,
    help="Where the site is published, for sitemap.xml, robots.txt and 404.html; kept by the "
    "site for later builds ('' forgets it). Without one there is no sitemap.",
)
@click.option(
    "--no-search",
    is_flag=True,
    help="The pages alone: no search index made (a full build leaves none, an incremental one "
    "the previous, stale).",
)
@click.option(
    "--watch",
    is_flag=True,
    help="Keep running: build again, incrementally, whenever the store changes (Ctrl-C stops).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.01),
    default=None,
    show_default=", ".join(f"{seconds} on {name}" for name, seconds in WATCH_INTERVAL.items()),
    help="With --watch: seconds between two looks at the store.",
)
@pass_app
def build_command(
    app: App,
    out: Path,
    full: bool,
    jobs: int,
    locales: tuple[Locale, ...],
    base_url: str | None,
    no_search: bool,
    watch: bool,
    interval: float | None,
) -> None:
    """Build the static site: home, A–Z index, card and mechanic pages per locale.

    Incremental: pages whose content did not change are not rewritten. With --watch, kb
    keeps what it read and builds again after each write to the store, in a fraction of the
    time a new kb build takes.
    """
    from kb.site.build import BuildOptions, WatchState, build

    options = BuildOptions(
        locales=locales, jobs=jobs, full=full, base_url=base_url,
        search="off" if no_search else "now",
    )  # fmt: skip
    engine = app.engine()
    kept = WatchState() if watch else None
    with clear_errors(out), ExitStack() as stack:
        advance: list[Callable[[int, int], None]] = []
        done = 0

        def start_progress(pages: int) -> None:
            advance.append(stack.enter_context(app.progress(pages, "Rendering")))

        def rendered(pages: int) -> None:
            nonlocal done
            done += pages
            advance[0](pages, done)

        def start_indexing(pages: int) -> Callable[[int], None]:
            bar = stack.enter_context(app.progress(pages, "Indexing"))
            indexed = 0

            def advance_indexing(steps: int) -> None:
                nonlocal indexed
                indexed += steps
                bar(steps, indexed)

            return advance_indexing

        result = build(engine, out, options, rendered, start_progress, kept, start_indexing)
    app.echo(_built(result))
    if kept is not None:
        _keep_watching(app, engine, out, options, kept, interval)


def _keep_watching(
    app: App,
    engine: Engine,
    out: Path,
    options: BuildOptions,
    kept: WatchState,
    interval: float | None,
) -> None:
    """kb build --watch, after its first build: a line per build until stopped."""
    from kb.site.build import CodeChanged
    from kb.site.watch import unreachable, watch

    def rebuilt(result: BuildResult, seconds: float) -> None:
        app.echo(f"{time.strftime('%H:%M:%S')} {_built(result)} ({seconds:.2f} s)")

    def caught_up(locales: tuple[Locale, ...], seconds: float) -> None:
        codes = ", ".join(locale.code for locale in locales)
        app.echo(f"{time.strftime('%H:%M:%S')} search index of {codes} caught up ({seconds:.2f} s)")

    def failed(error: Exception) -> None:
        waiting = "; building again once it can be reached" if unreachable(error) else ""
        click.echo(f"kb: error: {one_line(error, out)}{waiting}", err=True)

    # Stopped by Ctrl-C, or by SIGTERM as a service manager stops it (and as a shell's
    # background job must be, its SIGINT ignored): the manifest is written either way.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda _signal, _frame: stop.set())
    app.echo("watching the store for changes (Ctrl-C stops)")
    with suppress(KeyboardInterrupt):
        try:
            watch(engine, out, options, kept, stop, rebuilt, failed, interval, caught_up)
        except CodeChanged as error:
            raise KbError(str(error)) from None
    app.echo("stopped")


def _built(result: BuildResult) -> str:
    line = (
        f"{result.pages} pages in {result.out}: {result.written} written, "
        f"{result.unchanged} unchanged, {result.removed} removed"
    )
    if result.base_url_was is not None:
        line += f"; base URL {result.base_url or 'none'} (was {result.base_url_was or 'none'})"
    return line


@click.command("serve")
@click.option(
    "--out",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=DEMO_SITE,
    show_default=True,
    help="The built site to serve.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on; 0: any free one (the line printed says which).",
)
@pass_app
def serve_command(app: App, out: Path, port: int) -> None:
    """Preview the built site on http://127.0.0.1:PORT/ (Ctrl-C stops)."""
    from kb.site.serve import preview_server

    try:
        server = preview_server(out, port)
    except OSError as error:  # the port taken, for one
        raise KbError(f"127.0.0.1:{port}: {error.strerror}") from None
    host, bound_port = server.server_address[:2]
    click.echo(f"serving {out} on http://{host!s}:{bound_port}/ (Ctrl-C stops)")
    with server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            app.echo("stopped")


@click.command("demo")
@pass_app
def demo_command(app: App) -> None:
    """Import data/ into the store, build site/, and show where the German page is."""
    if not DEMO_DATA.is_dir():
        raise KbError(f"{DEMO_DATA}/: no such folder; run kb demo in the repository root")
    from kb.importing import run_import
    from kb.site.build import build

    with clear_errors(DEMO_SITE):
        engine = app.engine(create=True)
        summary = run_import(engine, [DEMO_DATA])
        result = build(engine, DEMO_SITE)
    for line in summary_lines(summary):
        app.echo(line)
    german = result.out / "de" / "cards" / "three-steps-ahead.html"
    click.echo(f"{result.pages} pages in {result.out}; German page of Three Steps Ahead: {german}")
