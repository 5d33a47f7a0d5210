"""``kb card``: one card looked up by name, printed for a reader or as JSON."""

from __future__ import annotations

import shutil
import sys

import click

from kb.card_output import card_text, describe, lookup_json, matches_text
from kb.cli.app import LOCALE_CHOICE, LOCALE_LIST, App, KbError, clear_errors, pass_app
from kb.lookup import CardSheet, find_cards, read_card
from kb.suggest import did_you_mean

MAX_WIDTH = 100
"""Columns a text is wrapped at, at most, on a wider terminal: longer lines read badly."""


@click.command("card")
@click.argument("name")
@click.option(
    "--locale",
    type=LOCALE_CHOICE,
    default="en",
    show_default=True,
    help=f"Show the card's name, printed text and tags in this locale: {LOCALE_LIST}.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON, for scripts (docs/sql.md).")
@click.option(
    "--width",
    type=click.IntRange(min=0),
    help=f"Wrap texts at this many columns; 0: never (default: the terminal's width, at most "
    f"{MAX_WIDTH}, and no wrapping when not printing to a terminal).",
)
@pass_app
def card_command(app: App, name: str, locale: str, as_json: bool, width: int | None) -> None:
    """Show the card NAME: its names, texts and rulings, in a locale.

    NAME is the card's name in any locale, its English name or a face's name, in any case and
    with or without accents. Close names are suggested when none matches. A name of several
    cards lists them and exits with status 1: give one's English name.
    """
    with clear_errors(), app.engine().connect() as connection:
        lookup = find_cards(connection, name)
        card: CardSheet | None = None
        if len(lookup.matches) == 1:
            card = read_card(connection, lookup.matches[0].card_id, locale)
    if as_json:
        click.echo(lookup_json(lookup, locale, card), nl=False)
    elif card is not None:
        click.echo(card_text(card, _width(width)), nl=False)
    else:
        click.echo(matches_text(lookup), nl=False)
    if lookup.others and not app.quiet:
        also = "; ".join(describe(other) for other in lookup.others)
        click.echo(f"kb: note: {name!r} also names {also}", err=True)
    if not lookup.matches:
        raise KbError(f"no card is named {name!r}{did_you_mean(lookup.suggestions)}")
    if card is None:
        raise KbError(f"{name!r} names {len(lookup.matches)} cards: name one by its English name")


def _width(asked: int | None) -> int:
    if asked is not None:
        return asked
    if not sys.stdout.isatty():
        return 0
    return min(shutil.get_terminal_size().columns, MAX_WIDTH)
