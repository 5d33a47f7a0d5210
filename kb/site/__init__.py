"""The static site: reads the store, renders Jinja2 templates per locale, writes files."""
