"""kb measured as installed: its modules' bytecode compiled, as its libraries' is.

pip compiles a wheel's modules when it installs them, and an editable install (the README's)
writes each module's bytecode at its first import. A machine that sets
``PYTHONDONTWRITEBYTECODE`` (this sandbox does) never writes kb's: every ``kb`` process of a
benchmark would then compile kb's modules from source (about 0.1 s of a small site build's
start, in each new process), while the libraries it is compared with and its floor (Babel,
click, Jinja2, SQLAlchemy) load compiled. The benchmarks that start kb in new processes
compile its modules first, once, as an install would.
"""

from __future__ import annotations

import compileall
from pathlib import Path

KB = Path(__file__).resolve().parents[1] / "kb"


def compile_kb() -> None:
    """Write the bytecode of every module of kb (``__pycache__``, ignored by git)."""
    if not compileall.compile_dir(KB, quiet=1):
        raise SystemExit(f"compiling {KB} failed")
