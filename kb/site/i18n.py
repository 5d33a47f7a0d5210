"""Page text translations: gettext catalogs under kb/locale/, compiled in memory.

The .po files are the only committed form; a build compiles them as it loads them, so a stale
compiled catalog can never be served.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from kb.locales import BY_CODE

CATALOG_DIR = Path(__file__).resolve().parents[1] / "locale"
DOMAIN = "messages"


def catalog_path(locale: str) -> Path:
    return CATALOG_DIR / BY_CODE[locale].babel / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(locale: str) -> NullTranslations:
    path = catalog_path(locale)
    if not path.exists():
        return NullTranslations()
    with path.open("rb") as po:
        catalog = read_po(po, locale=BY_CODE[locale].babel)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(fp=compiled, domain=DOMAIN)
