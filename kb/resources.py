"""Where kb's non-Python resources live: beside the package in a checkout, bundled in a wheel."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The folder ``migrations`` or ``templates``: the checkout's, else the wheel's bundled copy."""
    for candidate in (PACKAGE_DIR.parent / name, PACKAGE_DIR / "_bundled" / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"kb resource folder {name!r} is missing from this installation")
