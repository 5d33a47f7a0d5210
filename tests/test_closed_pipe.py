"""A reader that stops reading (``kb export | head``) stops kb quietly, with status 141 as git's:
no traceback, no "Exception ignored", no ``kb: error``. Real pipes, real processes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from realdata import DATA

from kb.cli import cli
from kb.pipes import CLOSED_PIPE_STATUS

KB = [sys.executable, "-m", "kb"]
ORACLE_ID = "282dfeaa-6243-4f92-838a-5cb54fa85184"  # Three Steps Ahead

COMMANDS = {
    "sql": ["sql", "SELECT code FROM locales ORDER BY code"],
    "query": ["query", "most_shared_rulings"],
    "query --list": ["query", "--list"],
    "history": ["history"],
    "card": ["card", "Three Steps Ahead", "--locale", "de"],
    "sources": ["sources"],
    "export csv": ["export", "--format", "csv"],
    "export mtgjson": ["export", "--format", "mtgjson"],
    "export scryfall-rulings": ["export", "--format", "scryfall-rulings"],
    "schema": ["schema"],
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The demo data and 5,000 rulings more: exports far larger than a pipe holds (64 KiB)."""
    folder = tmp_path_factory.mktemp("pipe")
    rulings = folder / "rulings.json"
    many = [
        {"object": "ruling", "oracle_id": ORACLE_ID, "source": "wotc"}
        | {"published_at": "2024-04-12", "comment": f"Ruling number {n} of a long list."}
        for n in range(5000)
    ]
    rulings.write_text(json.dumps(many), "utf-8")
    url = f"sqlite:///{folder / 'kb.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", url, "import", str(DATA), str(rulings)])
    assert result.exit_code == 0, result.output
    return url


def run_into_closed_pipe(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """kb with a standard output whose reader is gone before kb writes a byte."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(args, stdout=write_end, stderr=subprocess.PIPE, check=False)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_pipe_stops_a_command_quietly(store: str, name: str) -> None:
    done = run_into_closed_pipe([*KB, "--db", store, *COMMANDS[name]])
    assert done.stderr == b""
    assert done.returncode == CLOSED_PIPE_STATUS


def test_an_export_into_head_stops_quietly(store: str) -> None:
    command = f"{shlex.join([*KB, '--db', store, 'export', '--format', 'csv'])} | head -1"
    done = subprocess.run(
        ["bash", "-c", f'{command}; echo "kb: ${{PIPESTATUS[0]}}" >&2'],
        capture_output=True,
        check=True,
    )
    assert done.stdout == b"card,oracle_id,published_on,position,origin,mechanics,text\n"
    assert done.stderr == f"kb: {CLOSED_PIPE_STATUS}\n".encode()


def test_an_export_read_whole_is_no_closed_pipe(store: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [*KB, "--db", store, "export", "--format", "csv"], capture_output=True, check=True
    )
    assert done.stderr == b""
    assert done.stdout.count(b"\n") == 1 + 33 + 5000


def test_no_standard_output_at_all_is_no_crash(store: str) -> None:
    """kb started with its standard output closed (``>&-``): Python gives it none."""
    command = shlex.join([*KB, "--db", store, "sources"])
    done = subprocess.run(["bash", "-c", f"{command} >&-"], capture_output=True, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
