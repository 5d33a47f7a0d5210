"""The PostgreSQL server stopped and started again under ``kb build --watch`` and between
edits, on a private PostgreSQL 15 that each test starts in a folder of its own (the shared
server on port 5432 is never touched): one clear error line, nothing lost, and the watcher
carries on once the server is back."""

from __future__ import annotations

import os
import pwd
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from realdata import DATA
from sqlalchemy import text

from kb import migrate
from kb.engine import make_engine
from kb.importing import run_import

pytestmark = pytest.mark.slow

PG_BIN = Path("/usr/lib/postgresql/15/bin")
KB = Path(sys.executable).with_name("kb")
SPREE_MODES = "You can’t choose the same mode more than once."


class PrivateServer:
    """A PostgreSQL 15 cluster in a folder of its own, on a free port of 127.0.0.1, run as the
    ``postgres`` user when the tests run as root (PostgreSQL refuses to run as root)."""

    def __init__(self, folder: Path, as_user: list[str]) -> None:
        self.folder, self.as_user = folder, as_user
        self.data = folder / "data"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._pg("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.start()
        self.url = self.url_of("postgres")

    def url_of(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def execute(self, statement: str) -> None:
        admin = make_engine(self.url_of("postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(statement))
        admin.dispose()

    def _pg(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [*self.as_user, str(PG_BIN / tool), *args], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
        log = str(self.folder / "server.log")
        self._pg("pg_ctl", "-D", str(self.data), "-l", log, "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._pg("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()


def _as_postgres() -> list[str]:
    """The command prefix that runs the server's tools as a user PostgreSQL accepts; skips the
    test where there is none."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and there is no postgres user to run PostgreSQL as")
    if shutil.which("runuser") is None:
        pytest.skip("running as root and runuser is absent: cannot run PostgreSQL as postgres")
    if subprocess.run(["runuser", "-u", "postgres", "--", "true"]).returncode != 0:
        pytest.skip("running as root and cannot switch to the postgres user")
    return ["runuser", "-u", "postgres", "--"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[PrivateServer]:
    """The module's server, with a database ``demo`` of the demo data (each test's template)."""
    if not (PG_BIN / "initdb").is_file():
        pytest.skip(f"{PG_BIN}/initdb is absent: PostgreSQL 15's server is not installed")
    as_user = _as_postgres()
    # In /tmp, not in pytest's folder for the test (private to root): the postgres user
    # writes it.
    folder = Path(tempfile.mkdtemp(prefix="kb-faults-pg-"))
    if as_user:
        entry = pwd.getpwnam("postgres")
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    server = None
    try:
        server = PrivateServer(folder, as_user)
        server.execute("CREATE DATABASE demo")
        engine = make_engine(server.url_of("demo"))
        migrate.upgrade(engine)
        run_import(engine, [DATA])
        engine.dispose()
        yield server
    finally:
        if server is not None and server.running():
            server.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(cluster: PrivateServer) -> Iterator[PrivateServer]:
    """The server, running, its ``url`` a new copy of the demo store."""
    if not cluster.running():
        cluster.start()
    cluster.execute("CREATE DATABASE kb TEMPLATE demo")
    cluster.url = cluster.url_of("kb")
    yield cluster
    if not cluster.running():
        cluster.start()
    cluster.execute("DROP DATABASE kb WITH (FORCE)")


def _kb(server: PrivateServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(KB), "--db", server.url, *args], capture_output=True, text=True, timeout=120
    )


def _spree_ruling(server: PrivateServer) -> int:
    engine = make_engine(server.url)
    with engine.connect() as connection:
        ruling_id: int = connection.execute(
            text("SELECT id FROM rulings WHERE text = :text"), {"text": SPREE_MODES}
        ).scalar_one()
    engine.dispose()
    return ruling_id


def _edit(server: PrivateServer, ruling_id: int, new_text: str) -> subprocess.CompletedProcess[str]:
    return _kb(server, "edit", "ruling-text", str(ruling_id), new_text, "--editor", "faults")


def _ruling_and_revisions(server: PrivateServer, ruling_id: int) -> tuple[str, int]:
    engine = make_engine(server.url)
    with engine.connect() as connection:
        found = connection.execute(
            text("SELECT text FROM rulings WHERE id = :id"), {"id": ruling_id}
        ).scalar_one()
        revisions = connection.execute(text("SELECT COUNT(*) FROM revisions")).scalar_one()
    engine.dispose()
    return found, revisions


def _one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("kb: error: database: "), stderr
    return lines[0]


def test_edits_while_the_server_is_down_and_after_it_restarts(server: PrivateServer) -> None:
    ruling_id = _spree_ruling(server)
    server.stop()
    down = _edit(server, ruling_id, "Edited while the server was down.")
    assert down.returncode == 1
    assert "Connection refused" in _one_error_line(down.stderr)
    assert down.stdout == ""
    server.start()
    assert _ruling_and_revisions(server, ruling_id) == (SPREE_MODES, 0)
    back = _edit(server, ruling_id, "Edited once the server was back.")
    assert back.returncode == 0, back.stderr
    assert back.stdout.startswith("revision ")
    # A crash (no shutdown checkpoint): a committed edit is in the server's log all the same.
    server.stop("immediate")
    server.start()
    assert _ruling_and_revisions(server, ruling_id) == ("Edited once the server was back.", 1)
    again = _edit(server, ruling_id, "Edited after the crash.")
    assert again.returncode == 0, again.stderr
    assert _ruling_and_revisions(server, ruling_id) == ("Edited after the crash.", 2)


def _lines(stream: IO[str], into: queue.Queue[str]) -> None:
    for line in stream:
        into.put(line)


def _next_line(lines: queue.Queue[str], timeout: float = 120) -> str:
    return lines.get(timeout=timeout)


class _Watcher:
    """``kb build --watch`` on the server's store, its output lines in queues."""

    def __init__(self, server: PrivateServer, out: Path) -> None:
        # The pages alone: the outage is what is tested (a search index's catch-up lines
        # would come between the lines the tests read; tests/test_site_watch.py tests them).
        command = [str(KB), "--db", server.url, "build", "--watch", "--no-search"]
        command += ["--interval", "0.05"]
        self.process = subprocess.Popen(
            [*command, "--out", str(out), "--jobs", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.stdout: queue.Queue[str] = queue.Queue()
        self.stderr: queue.Queue[str] = queue.Queue()
        for stream, into in (
            (self.process.stdout, self.stdout),
            (self.process.stderr, self.stderr),
        ):
            threading.Thread(target=_lines, args=(stream, into), daemon=True).start()
        assert " pages in " in _next_line(self.stdout)
        assert _next_line(self.stdout) == "watching the store for changes (Ctrl-C stops)\n"

    def stop(self) -> list[str]:
        """Stop it as a service manager does; what it told on stderr."""
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=60) == 0
        assert _next_line(self.stdout, timeout=10) == "stopped\n"
        time.sleep(0.2)  # the reader threads reach the end of the streams
        assert self.stdout.empty()
        return list(iter_queue(self.stderr))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def _the_outage(told: list[str]) -> None:
    assert len(told) == 1, told
    assert told[0].startswith("kb: error: database: "), told
    assert told[0].endswith("; building again once it can be reached\n"), told


@pytest.fixture
def watcher(server: PrivateServer, tmp_path: Path) -> Iterator[_Watcher]:
    watcher = _Watcher(server, tmp_path / "site")
    yield watcher
    watcher.kill()


@pytest.mark.parametrize("restart", ["fast", "immediate"])
def test_build_watch_carries_on_once_the_server_is_back(
    server: PrivateServer, watcher: _Watcher, tmp_path: Path, restart: str
) -> None:
    ruling_id = _spree_ruling(server)
    out = tmp_path / "site"
    page = out / "de/cards/three-steps-ahead.html"
    before = page.read_bytes()
    server.stop(restart)
    error = _next_line(watcher.stderr, timeout=60)  # the watcher saw the server go
    time.sleep(1)  # some twenty looks at a server that is not there
    server.start()
    edited = _edit(server, ruling_id, "Edited once the server was back.")
    assert edited.returncode == 0, edited.stderr
    rebuilt = _next_line(watcher.stdout)
    assert " written" in rebuilt, rebuilt
    assert "Edited once the server was back." in page.read_text()
    assert page.read_bytes() != before
    _the_outage([error, *watcher.stop()])


def test_a_build_the_outage_broke_is_done_once_the_server_is_back(
    server: PrivateServer, watcher: _Watcher, tmp_path: Path
) -> None:
    """The server goes while the watcher builds after an edit: once it is back, the watcher
    builds the edit without waiting for another write."""
    ruling_id = _spree_ruling(server)
    page = tmp_path / "site/de/cards/three-steps-ahead.html"
    engine = make_engine(server.url)
    locker = engine.connect()
    # The watcher's build reads the cards' names; the edit does not: the build waits here.
    locker.execute(text("LOCK TABLE card_names IN ACCESS EXCLUSIVE MODE"))
    edited = _edit(server, ruling_id, "Edited before the server went.")
    assert edited.returncode == 0, edited.stderr
    waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
    deadline = time.monotonic() + 60
    while locker.execute(text(waiting)).scalar_one() == 0:
        assert time.monotonic() < deadline, "the watcher did not start its build"
        time.sleep(0.05)
    server.stop()  # the build fails: its connection is terminated
    locker.invalidate()
    engine.dispose()
    error = _next_line(watcher.stderr, timeout=60)
    assert "Edited before" not in page.read_text()
    server.start()
    assert " written" in _next_line(watcher.stdout)  # with no write since
    assert "Edited before the server went." in page.read_text()
    _the_outage([error, *watcher.stop()])


def iter_queue(lines: queue.Queue[str]) -> Iterator[str]:
    while True:
        try:
            yield lines.get_nowait()
        except queue.Empty:
            return
