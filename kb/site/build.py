"""``kb build``: one HTML page per card per locale, rendered from the store.

The site never writes to the store. A build renders into a fresh folder beside the output and
swaps it in only when every page was written, so a failed build leaves the previous site in place.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from babel.dates import format_date
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from kb import db
from kb.locales import LOCALES, Locale
from kb.resources import resource_dir
from kb.site.i18n import translations
from kb.site.paths import card_slugs


@dataclass(frozen=True)
class RulingView:
    text: str
    published_on: dt.date | None
    mechanics: tuple[str, ...]
    """Slugs of the mechanics the ruling is tagged with."""


@dataclass
class CardView:
    id: int
    name: str
    slug: str
    mana_cost: str | None
    type_line: str | None
    names: dict[str, str] = field(default_factory=dict)
    rulings: list[RulingView] = field(default_factory=list)

    def name_in(self, locale: str) -> str | None:
        return self.names.get(locale) or (self.name if locale == "en" else None)


@dataclass(frozen=True)
class BuildResult:
    out: Path
    pages: int


def load_cards(connection: Connection) -> list[CardView]:
    """Every card with its names and its rulings in publication order."""
    rows = connection.execute(
        select(db.Card.id, db.Card.name, db.Card.mana_cost, db.Card.type_line).order_by(
            db.Card.name
        )
    ).all()
    slugs = card_slugs(row.name for row in rows)
    cards = {
        row.id: CardView(row.id, row.name, slugs[row.name], row.mana_cost, row.type_line)
        for row in rows
    }
    for card_id, locale, name in connection.execute(
        select(db.CardName.card_id, db.CardName.locale, db.CardName.name)
    ):
        cards[card_id].names[locale] = name
    tags: dict[int, list[str]] = {}
    for ruling_id, slug in connection.execute(
        select(db.RulingMechanic.ruling_id, db.Mechanic.slug)
        .join(db.Mechanic, db.Mechanic.id == db.RulingMechanic.mechanic_id)
        .order_by(db.Mechanic.slug)
    ):
        tags.setdefault(ruling_id, []).append(slug)
    links = connection.execute(
        select(
            db.CardRuling.card_id,
            db.CardRuling.ruling_id,
            db.CardRuling.published_on,
            db.Ruling.text,
        )
        .join(db.Ruling, db.Ruling.id == db.CardRuling.ruling_id)
        .order_by(
            db.CardRuling.card_id,
            db.CardRuling.published_on.is_(None),
            db.CardRuling.published_on,
            db.CardRuling.position,
            db.CardRuling.ruling_id,
        )
    )
    for card_id, ruling_id, published_on, text in links:
        cards[card_id].rulings.append(
            RulingView(text, published_on, tuple(tags.get(ruling_id, ())))
        )
    return list(cards.values())


def environment(locale: Locale) -> Environment:
    env = Environment(
        loader=FileSystemLoader(resource_dir("templates")),
        autoescape=select_autoescape(default=True, default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.install_gettext_translations(translations(locale.code), newstyle=True)  # type: ignore[attr-defined]
    env.filters["date"] = lambda day: format_date(day, "medium", locale=locale.babel)
    env.globals.update(locale=locale, locales=LOCALES)
    return env


def card_path(locale: Locale, card: CardView) -> str:
    """The page's path inside the site, with forward slashes."""
    return f"{locale.folder}/cards/{card.slug}.html"


def render_pages(cards: list[CardView]) -> Iterator[tuple[str, str]]:
    for locale in LOCALES:
        template = environment(locale).get_template("card.html")
        for card in cards:
            alternates = [(other, "../../" + card_path(other, card)) for other in LOCALES]
            html = template.render(card=card, alternates=alternates)
            yield card_path(locale, card), html


def build(engine: Engine, out: Path, progress: Callable[[int], None] | None = None) -> BuildResult:
    with engine.connect() as connection:
        cards = load_cards(connection)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        pages = 0
        for relative, html in render_pages(cards):
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(html, encoding="utf-8")
            pages += 1
            if progress is not None:
                progress(1)
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BuildResult(out, pages)


def _swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` by ``staging`` with renames only."""
    staging.chmod(0o755)
    if not out.exists():
        staging.rename(out)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
    retired.rmdir()
    out.rename(retired)
    staging.rename(out)
    shutil.rmtree(retired)
