"""``kb translations``: rulings out to translators' PO files and back, and each locale's
coverage."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kb.cli.app import (
    LOCALE_CHOICE,
    LOCALE_LIST,
    App,
    KbError,
    clear_errors,
    editor_option,
    output_options,
    pass_app,
)
from kb.revisions import EditError
from kb.sql import format_result


@click.group("translations")
def translations_group() -> None:
    """Rulings for PO editors: export, import, a glossary, term checks, coverage."""


@translations_group.command("export")
@click.option(
    "--locale", type=LOCALE_CHOICE, help=f"The locale of the translations: {LOCALE_LIST}."
)
@click.option("--pot", is_flag=True, help="Write the template (no translations) instead.")
@click.option("--mechanic", help="Only the rulings tagged with this mechanic (its slug).")
@click.option("--card", help="Only the rulings of this card (id, English or localized name).")
@click.option("--untranslated", is_flag=True, help="Only rulings with no translation yet.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write (default: standard output).",
)
@pass_app
def export_command(
    app: App,
    locale: str | None,
    pot: bool,
    mechanic: str | None,
    card: str | None,
    untranslated: bool,
    out: Path | None,
) -> None:
    """Write the rulings as a gettext PO file of LOCALE's translations, or a template (--pot).

    One entry per shared ruling: msgctxt ruling:ID, msgid the English text, msgstr the
    translation; comments name its cards, mechanics and dates. A reviewed translation whose
    English text changed since is marked fuzzy. The same store writes the same bytes.
    """
    from kb.translations import po_export

    if (locale is None) == (not pot):
        raise click.UsageError("give --locale LOCALE or --pot (the template), one of them")
    if locale == "en":
        raise click.UsageError("rulings are in English already; choose a translation locale")
    if pot and untranslated:
        raise click.UsageError("--untranslated needs --locale: a template has no translations")
    selection = po_export.Selection(mechanic, card, untranslated)
    engine = app.engine()
    with clear_errors(out, refused=(EditError,)), engine.connect() as connection:
        if out is None:
            written_po = po_export.render(po_export.build_catalog(connection, locale, selection))
            sys.stdout.buffer.write(written_po)
            return
        written = po_export.export_to_file(connection, locale, selection, out)
    app.echo(f"{written} rulings written to {out}")


@translations_group.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--locale", type=LOCALE_CHOICE, help=f"Refuse the file unless it is for LOCALE: {LOCALE_LIST}."
)
@click.option(
    "--reviewed",
    is_flag=True,
    help="Every translated entry not marked fuzzy is reviewed (Weblate's approved upload).",
)
@editor_option
@pass_app
def import_command(app: App, path: Path, locale: str | None, reviewed: bool, editor: str) -> None:
    """Import a translated PO file: new and changed translations become drafts (reviewed with
    --reviewed), each a revision (kb history, kb revert), all in one transaction.

    Entries marked fuzzy, and entries whose English text changed since the export, are not
    applied and are listed with the reason. A file about a ruling the store does not hold, for
    another locale, or malformed, changes nothing.
    """
    from kb.translations.po_import import import_po

    if locale == "en":
        raise KbError("rulings are in English already; translations are for other locales")
    with clear_errors(refused=(EditError,)):
        report = import_po(app.engine(), editor, path, reviewed, locale)
    for line in report.lines():
        click.echo(line)


@translations_group.command("status")
@output_options
@pass_app
def status_command(app: App, style: str) -> None:
    """Per locale: rulings translated, reviewed and outdated, and the share of rulings and of
    card–ruling links translated."""
    from kb.translations.status import status

    with clear_errors(), app.engine().connect() as connection:
        result = status(connection)
    click.echo(format_result(result, style), nl=False)


@translations_group.command("glossary")
@click.option(
    "--locale", type=LOCALE_CHOICE, required=True, help=f"The locale of the terms: {LOCALE_LIST}."
)
@click.option(
    "--format",
    "form",
    type=click.Choice(["tbx", "csv"]),
    default="tbx",
    show_default=True,
    help="TBX (TBX-Basic) or Weblate's CSV glossary.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write (default: standard output).",
)
@pass_app
def glossary_command(app: App, locale: str, form: str, out: Path | None) -> None:
    """Write LOCALE's glossary of the game's terms, for Weblate: the mechanics' names (editors'
    corrections first) and the card types and subtypes mined from type lines.

    TBX by default (Weblate's glossary format), or Weblate's CSV glossary (--format csv). The
    same store writes the same bytes.
    """
    from kb.translations import glossary

    if locale == "en":
        raise click.UsageError("the terms are English already; choose a translation locale")
    with clear_errors(out), app.engine().connect() as connection:
        if out is None:
            sys.stdout.buffer.write(glossary.render(connection, locale, form)[0])
            return
        written = glossary.export_to_file(connection, locale, form, out)
    app.echo(f"{written} terms written to {out}")


@translations_group.command("check")
@click.option(
    "--locale", type=LOCALE_CHOICE, required=True, help=f"The locale to check: {LOCALE_LIST}."
)
@pass_app
def check_command(app: App, locale: str) -> None:
    """Warn where a translation of a ruling that names a mechanic does not use the mechanic's
    term in LOCALE, or leaves the English term in: a line per finding.

    Exit status 1 when there are findings, as linters do; 0 when there are none.
    """
    from kb.translations.check import check

    if locale == "en":
        raise click.UsageError("rulings are in English already; choose a translation locale")
    with clear_errors(), app.engine().connect() as connection:
        report = check(connection, locale)
    for finding in report.findings:
        click.echo(finding.line())
    app.echo(report.summary())
    if report.findings:
        raise SystemExit(1)
