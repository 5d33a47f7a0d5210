"""Audited edits: ``kb edit`` (ruling texts, names, printed texts, tags, translations,
reviews), ``kb history`` and ``kb revert``."""

from __future__ import annotations

import click

from kb import edits, revisions
from kb.cli.app import (
    LOCALE_CHOICE,
    App,
    clear_errors,
    editor_option,
    output_options,
    pass_app,
)
from kb.sql import QueryError, format_result

REFUSED = (revisions.EditError, QueryError)
"""Errors whose message is the line to show."""


@click.group("edit")
def edit_group() -> None:
    """Change the knowledge base; every change is recorded (kb history) and can be reverted.

    LOCALE, where a command takes one, is a locale code in any case: en, de, fr, it, es,
    pt-BR, ja, ko, ru, zh-Hans, zh-Hant."""


def _done(revision_id: int) -> None:
    click.echo(f"revision {revision_id}")


@edit_group.command("ruling-text")
@click.argument("ruling_id", type=int)
@click.argument("text")
@click.option("--expect-text", help="The text you saw (default: the text now); else a conflict.")
@editor_option
@pass_app
def edit_ruling_text(
    app: App, ruling_id: int, text: str, expect_text: str | None, editor: str
) -> None:
    """Change the text of ruling RULING_ID, on every card that shares it. Its reviewed
    translations then wait for review again (unless only typography changed)."""
    with clear_errors(refused=REFUSED):
        _done(edits.set_ruling_text(app.engine(), editor, ruling_id, text, expect_text))
        outdated = edits.reviews_outdated(app.engine(), ruling_id)
    if outdated:
        click.echo(
            f"its reviewed translations ({', '.join(outdated)}) wait for review again: "
            "the English text changed"
        )


@edit_group.command("card-name")
@click.argument("card")
@click.argument("locale", type=LOCALE_CHOICE)
@click.argument("name")
@click.option("--expect-name", help="The name you saw (default: the name now); else a conflict.")
@editor_option
@pass_app
def edit_card_name(
    app: App, card: str, locale: str, name: str, expect_name: str | None, editor: str
) -> None:
    """Add or change the name of CARD (id, English or localized name) in LOCALE."""
    with clear_errors(refused=REFUSED):
        _done(edits.set_card_name(app.engine(), editor, card, locale, name, expect_name))


def _printed_command(column: str, argument: str, help_text: str) -> click.Command:
    action, _ = edits.PRINTED_COLUMNS[column]
    face_required = column == "face_name"

    @click.argument("card")
    @click.argument("locale", type=LOCALE_CHOICE)
    @click.argument(argument.lower())
    @click.option(
        "--face",
        type=int,
        required=face_required,
        default=None if face_required else 0,
        show_default=not face_required,
        help="The face's position (0 for the first, the only one of a card of one face).",
    )
    @click.option("--expect", help="What you saw (default: what is stored now); else a conflict.")
    @editor_option
    @pass_app
    def command(
        app: App,
        /,
        card: str,
        locale: str,
        face: int,
        expect: str | None,
        editor: str,
        **value: str,
    ) -> None:
        with clear_errors(refused=REFUSED):
            new = value[argument.lower()]
            _done(edits.set_printed(app.engine(), editor, card, locale, column, new, face, expect))

    command.__doc__ = help_text
    return click.command(action)(command)


edit_group.add_command(
    _printed_command(
        "text",
        "TEXT",
        "Add or correct the rules text printed on CARD in LOCALE (kept over a later import of "
        "the same printed text).",
    )
)
edit_group.add_command(
    _printed_command(
        "type_line",
        "TYPE_LINE",
        "Add or correct the type line printed on CARD in LOCALE (kept over a later import of "
        "the same printed type line).",
    )
)
edit_group.add_command(
    _printed_command(
        "face_name",
        "NAME",
        "Add or correct the printed name of a face of CARD in LOCALE (kept over a later import "
        "of the same name).",
    )
)


@edit_group.command("mechanic-name")
@click.argument("mechanic")
@click.argument("locale", type=LOCALE_CHOICE)
@click.argument("name")
@click.option("--expect-name", help="The name you saw (default: the name now); else a conflict.")
@editor_option
@pass_app
def edit_mechanic_name(
    app: App, mechanic: str, locale: str, name: str, expect_name: str | None, editor: str
) -> None:
    """Confirm or correct the name of MECHANIC (its slug) in LOCALE; a mined name never
    replaces it."""
    with clear_errors(refused=REFUSED):
        _done(edits.set_mechanic_name(app.engine(), editor, mechanic, locale, name, expect_name))


def _tag_command(tagged: bool) -> click.Command:
    verb = "tag" if tagged else "untag"

    @click.argument("mechanic")
    @click.option("--card", help="The card (id, English or localized name).")
    @click.option("--ruling", "ruling_id", type=int, help="The ruling id.")
    @editor_option
    @pass_app
    def command(
        app: App, mechanic: str, card: str | None, ruling_id: int | None, editor: str
    ) -> None:
        with clear_errors(refused=REFUSED):
            _done(edits.set_tag(app.engine(), editor, mechanic, tagged, card, ruling_id))

    command.__doc__ = f"{verb.capitalize()} a card or a ruling with MECHANIC (its slug)."
    return click.command(verb)(command)


edit_group.add_command(_tag_command(tagged=True))
edit_group.add_command(_tag_command(tagged=False))


@edit_group.command("translation")
@click.argument("ruling_id", type=int)
@click.argument("locale", type=LOCALE_CHOICE)
@click.argument("text")
@editor_option
@pass_app
def edit_translation(app: App, ruling_id: int, locale: str, text: str, editor: str) -> None:
    """Add or change the LOCALE translation of ruling RULING_ID (a draft until reviewed)."""
    with clear_errors(refused=REFUSED):
        _done(edits.set_translation(app.engine(), editor, ruling_id, locale, text))


@edit_group.command("review")
@click.argument("ruling_id", type=int)
@click.argument("locale", type=LOCALE_CHOICE)
@editor_option
@pass_app
def edit_review(app: App, ruling_id: int, locale: str, editor: str) -> None:
    """Mark the LOCALE translation of ruling RULING_ID as reviewed."""
    with clear_errors(refused=REFUSED):
        _done(edits.set_translation(app.engine(), editor, ruling_id, locale, status="reviewed"))


@click.command("history")
@click.option("--card", help="Only changes about this card (id, English or localized name).")
@click.option("--ruling", "ruling_id", type=int, help="Only changes about this ruling.")
@click.option("--editor", help="Only this editor's changes.")
@output_options
@pass_app
def history_command(
    app: App, card: str | None, ruling_id: int | None, editor: str | None, style: str
) -> None:
    """List the recorded changes, oldest first."""
    with clear_errors(refused=REFUSED):
        result = edits.history(app.engine(), card, ruling_id, editor)
    click.echo(format_result(result, style), nl=False)


@click.command("revert")
@click.argument("revision_id", type=int)
@editor_option
@pass_app
def revert_command(app: App, revision_id: int, editor: str) -> None:
    """Undo revision REVISION_ID (recorded as a new revision)."""
    with clear_errors(refused=REFUSED):
        _done(revisions.revert(app.engine(), editor, revision_id))
