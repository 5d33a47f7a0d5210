"""The static site: reads the store, renders Jinja2 templates per locale, writes files.

Its modules are imported by the commands that build or serve it, not by every kb command (the
renderer brings Jinja2, Babel and the collation table)."""

DEFAULT_BASE_URL = "http://127.0.0.1:8000/"
