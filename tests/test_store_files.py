"""The store as files: the main file complete after every writing command, and kb backup of a
SQLite store. tests/test_store_urls.py has database URLs and the stores they name."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

from store_helpers import EDITOR, dump, kb, ok

from kb.store import CHECKPOINT_WAIT_MS


def main_file_alone(store: Path, elsewhere: Path) -> Path:
    """A copy of the store's main file without its -wal and -shm, as a user would send it."""
    elsewhere.mkdir(exist_ok=True)
    copy = elsewhere / f"copy-{uuid.uuid4().hex[:6]}.sqlite"
    shutil.copyfile(store, copy)
    return copy


# §2 The store file holds everything when kb exits

WRITING_COMMANDS = [
    ["import", "data"],
    ["edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR],
    ["edit", "review", "17", "de", *EDITOR],
    ["edit", "ruling-text", "21", "A ruling, edited.", *EDITOR],
    ["edit", "card-name", "Three Steps Ahead", "it", "Tre Passi Avanti", *EDITOR],
    ["edit", "tag", "spree", "--ruling", "6", *EDITOR],
    ["edit", "untag", "spree", "--ruling", "6", *EDITOR],
    ["revert", "4", *EDITOR],
    ["db", "downgrade", "0007", "--yes"],
    ["db", "upgrade"],
    ["db", "downgrade", "0007", "--yes"],
    ["history"],  # it only reads, but first brings the store to the latest migration
    ["demo"],
]


def test_after_every_writing_command_the_main_file_alone_holds_every_row(workdir: Path) -> None:
    """Another editor holds a connection all along, so kb's is never the last to close (which
    would have SQLite checkpoint by itself): the command must checkpoint."""
    store = workdir / "kb.sqlite"
    ok("db", "upgrade")
    other_editor = sqlite3.connect(store)
    other_editor.execute("PRAGMA journal_mode = WAL")  # as the first edit leaves it
    other_editor.execute("SELECT count(*) FROM cards").fetchall()  # it opens the -wal file
    try:
        for command in WRITING_COMMANDS:
            ok(*command)
            wal = workdir / "kb.sqlite-wal"
            assert wal.stat().st_size == 0, command
            copy = main_file_alone(store, workdir / "copies")
            assert dump(copy) == list(other_editor.iterdump()), command
    finally:
        other_editor.close()
    revisions = sqlite3.connect(copy).execute("SELECT count(*) FROM revisions").fetchone()
    assert revisions == (7,)  # one for each edit and the revert


def test_the_last_command_leaves_no_wal_file(workdir: Path) -> None:
    ok("import", "data")
    ok("edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR)
    assert sorted(path.name for path in workdir.glob("kb.sqlite*")) == ["kb.sqlite"]


KILLED_AFTER_ITS_EDIT = """
import os, signal, sys
from kb import edits
from kb.engine import make_engine

edits.set_translation(make_engine(sys.argv[1]), "killed", 17, "de", "Bis hierher.")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_failed_edit_leaves_the_store_as_it_was_and_whole(workdir: Path) -> None:
    """A command that fails checkpoints too: here what a killed writer left in the log."""
    ok("import", "data")
    ok("edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_ITS_EDIT, f"sqlite:///{workdir / 'kb.sqlite'}"]
    )
    assert killed.returncode == -9 and (workdir / "kb.sqlite-wal").stat().st_size > 0
    before = dump(workdir / "kb.sqlite")  # with the log
    failed = kb("edit", "ruling-text", "999999", "Nothing.", *EDITOR)
    assert failed.exit_code == 1 and failed.stderr.startswith("kb: error: ")
    copy = main_file_alone(workdir / "kb.sqlite", workdir / "copies")
    assert dump(copy) == before
    assert "Bis hierher." in "\n".join(before)


def test_an_edit_while_another_program_reads_says_where_its_change_is(workdir: Path) -> None:
    """A reader in the middle of a transaction keeps the checkpoint from moving what it may
    still need: the edit succeeds anyway, in about the checkpoint's wait, and says where the
    change is; the next command to end once the reader is done moves it into the file."""
    ok("import", "data")
    ok("edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR)
    reader = sqlite3.connect(workdir / "kb.sqlite", isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM revisions").fetchone() == (1,)
    started = time.monotonic()
    edited = kb("edit", "review", "17", "de", *EDITOR)
    took = time.monotonic() - started
    assert (edited.exit_code, edited.stdout) == (0, "revision 2\n")
    assert edited.stderr == (
        "kb: note: kb.sqlite: the last changes are still only in kb.sqlite-wal, as another "
        "program is reading the store; the next kb command to end after it moves them into the "
        "file (kb backup copies the store whole meanwhile)\n"
    )
    assert CHECKPOINT_WAIT_MS / 1000 <= took < CHECKPOINT_WAIT_MS / 1000 + 5
    copy = main_file_alone(workdir / "kb.sqlite", workdir / "copies")
    assert sqlite3.connect(copy).execute("SELECT count(*) FROM revisions").fetchone() == (1,)
    assert reader.execute("SELECT count(*) FROM revisions").fetchone() == (1,)  # its snapshot
    reader.execute("COMMIT")
    reader.close()
    assert ok("sources").stderr == ""  # a command that only reads moves them too
    copy = main_file_alone(workdir / "kb.sqlite", workdir / "copies")
    assert sqlite3.connect(copy).execute("SELECT count(*) FROM revisions").fetchone() == (2,)


def test_what_a_killed_command_left_in_the_log_the_next_one_moves(workdir: Path) -> None:
    ok("import", "data")
    ok("edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_ITS_EDIT, f"sqlite:///{workdir / 'kb.sqlite'}"]
    )
    assert killed.returncode == -9
    assert (workdir / "kb.sqlite-wal").stat().st_size > 0  # its commit, only there
    ok("sources")
    copy = main_file_alone(workdir / "kb.sqlite", workdir / "copies")
    copied = sqlite3.connect(copy)
    assert copied.execute("SELECT editor FROM revisions ORDER BY id DESC").fetchone() == ("killed",)
    assert copied.execute(
        "SELECT text FROM ruling_translations WHERE ruling_id = 17 AND locale = 'de'"
    ).fetchone() == ("Bis hierher.",)
    copied.close()


def test_a_backup_is_one_consistent_file_that_opens_as_a_store(workdir: Path) -> None:
    ok("import", "data")
    ok("edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR)
    keep = sqlite3.connect(workdir / "kb.sqlite")  # so that kb.sqlite-wal stays while it runs
    try:
        result = ok("backup", "copy.sqlite")
    finally:
        keep.close()
    size = (workdir / "copy.sqlite").stat().st_size
    assert result.output == f"kb.sqlite copied to copy.sqlite ({size:,} bytes)\n"
    assert sorted(path.name for path in workdir.iterdir()) == ["copy.sqlite", "data", "kb.sqlite"]
    assert dump(workdir / "copy.sqlite") == dump(workdir / "kb.sqlite")
    copy = sqlite3.connect(workdir / "copy.sqlite")
    assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    copy.close()
    assert ok("db", "current", db="sqlite:///copy.sqlite").output == "0013 (latest)\n"
    ok("backup", "copy.sqlite")  # a second backup replaces the first
    assert not list(workdir.glob(".*.partial"))


WRITER = """
import sys, time
from pathlib import Path
from kb import edits
from kb.engine import make_engine

engine = make_engine(sys.argv[1])
stop = Path(sys.argv[2])
n = 0
while not stop.exists():
    n += 1
    edits.set_translation(engine, "writer", 17, "de", f"Fassung {n}.")
print(n)
"""


def test_a_backup_taken_while_another_process_writes_is_consistent(workdir: Path) -> None:
    """Each backup holds a state the store was in: its last revision is its translation."""
    ok("import", "data")
    ok("edit", "translation", "17", "de", "Fassung 0.", *EDITOR)  # the store in WAL mode
    stop = workdir / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, f"sqlite:///{workdir / 'kb.sqlite'}", str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    counts = [1]
    try:
        for attempt in range(4):
            wait_for_more_revisions(workdir / "kb.sqlite", than=counts[-1])
            ok("backup", f"backup-{attempt}.sqlite")
            backup = sqlite3.connect(workdir / f"backup-{attempt}.sqlite")
            assert backup.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            (text_now,) = backup.execute(
                "SELECT text FROM ruling_translations WHERE ruling_id = 17 AND locale = 'de'"
            ).fetchone()
            (revisions, last) = backup.execute(
                "SELECT count(*), (SELECT new_value FROM revisions ORDER BY id DESC LIMIT 1)"
                " FROM revisions"
            ).fetchone()
            backup.close()
            assert f'"text": "{text_now}"' in last
            assert text_now == f"Fassung {revisions - 1}."
            counts.append(revisions)
            history = ok("history", "--csv", db=f"sqlite:///backup-{attempt}.sqlite")
            assert history.output.count("\n") == 1 + revisions
    finally:
        stop.touch()
        written, _ = writer.communicate(timeout=60)
    assert writer.returncode == 0
    assert counts == sorted(set(counts)) and len(counts) == 5  # each taken as it wrote
    assert counts[-1] <= int(written) + 1


def wait_for_more_revisions(store: Path, than: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        connection = sqlite3.connect(store)
        try:
            (count,) = connection.execute("SELECT count(*) FROM revisions").fetchone()
        finally:
            connection.close()
        if count > than:
            return
        time.sleep(0.05)
    raise AssertionError(f"the writer wrote no revision after the {than}th")


def test_a_backup_never_goes_over_the_store_and_says_why_it_cannot(workdir: Path) -> None:
    ok("import", "data")
    ok("edit", "translation", "17", "de", "Ein Entwurf.", *EDITOR)
    before = (workdir / "kb.sqlite").read_bytes()
    for target, reason in [
        ("kb.sqlite", "kb.sqlite: is the store itself; back up to another file"),
        (
            "./data/../kb.sqlite",
            "data/../kb.sqlite: is the store itself; back up to another file",
        ),
        ("kb.sqlite-wal", "kb.sqlite-wal: is the store itself; back up to another file"),
        ("data", "data: is a folder; name the file to write"),
        ("nowhere/copy.sqlite", "nowhere: no such folder"),
    ]:
        result = kb("backup", target)
        assert (result.exit_code, result.stderr) == (1, f"kb: error: {reason}\n"), target
    assert (workdir / "kb.sqlite").read_bytes() == before
    assert sorted(path.name for path in workdir.iterdir()) == ["data", "kb.sqlite"]


def test_a_backup_of_another_name_for_the_store_is_refused(workdir: Path) -> None:
    ok("import", "data")
    (workdir / "link.sqlite").symlink_to(workdir / "kb.sqlite")
    result = kb("backup", "link.sqlite")
    assert result.stderr == "kb: error: link.sqlite: is the store itself; back up to another file\n"


def test_a_backup_left_half_written_by_a_killed_one_is_not_kept(workdir: Path) -> None:
    ok("import", "data")
    (workdir / ".copy.sqlite.partial").write_bytes(b"half a copy")
    ok("backup", "copy.sqlite")
    assert not (workdir / ".copy.sqlite.partial").exists()
    assert dump(workdir / "copy.sqlite") == dump(workdir / "kb.sqlite")
