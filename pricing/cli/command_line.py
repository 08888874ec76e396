"""The ``pricing`` command line's top: the program, ``--version`` and the commands, each
command's parser added by the module that runs it (``reads``, ``simulate``, ``journal``,
``analyze``), so that a flag is declared beside the code that reads it."""

from __future__ import annotations

import argparse

from pricing import __version__
from pricing.cli.analyze import add_analyze
from pricing.cli.common import Commands
from pricing.cli.journal import add_journal_commands
from pricing.cli.reads import (
    add_health,
    add_quote,
    add_settle,
    add_settle_position,
    add_table,
    add_tables,
    add_watch,
)
from pricing.cli.simulate import add_simulate

__all__ = ["build_parser"]


def build_parser(description: str | None) -> argparse.ArgumentParser:
    """The parser of ``pricing``'s whole command line, headed by ``description``; ``--help``
    lists the commands in the order they are added here."""
    p = argparse.ArgumentParser(
        prog="pricing",
        description=description,
        epilog="Run 'pricing COMMAND --help' for each command's options.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub: Commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # 'serve' is handed to pricing.server.process before parsing (see pricing.cli.main); listed
    # here for --help.
    sub.add_parser("serve", help="run the gRPC service ('pricing serve --help' for its flags)")

    for add in (
        add_quote,
        add_watch,
        add_simulate,
        add_settle,
        add_settle_position,
        add_table,
        add_tables,
        add_journal_commands,
        add_analyze,
        add_health,
    ):
        add(sub)
    return p
