"""The ``kb`` command (also ``python -m kb``): kb.cli, loaded with the garbage collector paused."""

from __future__ import annotations

from kb import collector


def main() -> None:
    # Loading kb's modules and their libraries (SQLAlchemy above all) makes some 100,000 objects
    # that live as long as the process: the collector would pass over them again and again while
    # they load (~50 ms, a tenth of the start). They are set aside as permanent instead, as a
    # command's own modules are when kb.cli.lazy_group loads them.
    with collector.set_aside():
        from kb.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
