"""``kb serve``: a local preview of the built site (http.server, localhost only)."""

from __future__ import annotations

from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from kb.site.render import NOT_FOUND


class _SiteHandler(SimpleHTTPRequestHandler):
    """Serves the site's files, with its own 404 page for missing ones."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / NOT_FOUND
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the preview is for looking at pages, not at a request log."""


def preview_server(out: Path, port: int) -> ThreadingHTTPServer:
    """A server for ``out`` bound to 127.0.0.1 only (port 0: any free port)."""
    handler = partial(_SiteHandler, directory=str(out.resolve()))
    return ThreadingHTTPServer(("127.0.0.1", port), handler)
