"""``pricing journal …``: a table's journaled events exported as JSON Lines or replayed
through the engines, and the operator's tools on a data directory (check, salvage, backup).

Each command imports the journal only when it runs: the other commands never load it. A path
argument that cannot be used (missing, of the wrong kind, unreadable) is a usage error naming
it and what is wrong (``ValueError``: exit 2), before the journal is touched."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final, TextIO

from pricing.cli.common import Commands, add_data_dir
from pricing.cli.format import format_state, watch_header
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import snapshot_to_proto

__all__ = [
    "ROUNDS_HEADER",
    "add_journal_commands",
    "run_backup",
    "run_check",
    "run_export",
    "run_replay",
    "run_salvage",
]

#: What ``pricing journal check`` says of a table a newer build of the service wrote, after
#: why.
_NEWER: Final = (
    "not damage: a server of this build holds it aside (not served, its events left as they "
    "are) until it is upgraded"
)

#: The head of ``pricing journal replay``'s round lines (the result, last, may hold spaces:
#: several cards).
ROUNDS_HEADER: Final = (
    "# each round that ended: the version that ended it, the round, which of the deck's results "
    "it decided (#), its result (void: stakes returned)",
    "ver    round  #    result",
)


def _why(exc: BaseException) -> str:
    """What went wrong with a file, in a few words (the OS's, without its errno)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)  # gzip's own: not a gzipped file, cut short


def _file_lines(name: str) -> Iterator[str]:
    """The lines of the file ``name`` (``-``: standard input); a file that cannot be read is a
    ``ValueError`` naming it and why, when it is first read."""
    from pricing.journal.tools import read_lines  # noqa: PLC0415

    if name == "-":
        yield from sys.stdin
        return
    try:
        yield from read_lines(Path(name))
    except (OSError, EOFError, UnicodeDecodeError) as exc:  # EOFError: a .gz cut short
        raise ValueError(f"cannot read {name}: {_why(exc)}") from None


def _data_dir(args: argparse.Namespace) -> Path:
    """``--data-dir``, checked: a directory whose journal, if there, can be opened. Its absence
    from an existing directory is the tools' to report ("no journal at …")."""
    from pricing.journal import MEMORY  # noqa: PLC0415
    from pricing.journal.sqlite_schema import FILE_NAME  # noqa: PLC0415

    path = Path(args.data_dir)
    if args.data_dir == MEMORY:
        return path
    try:
        if not path.exists():
            raise ValueError(f"--data-dir {path}: no such directory")
        if not path.is_dir():
            raise ValueError(f"--data-dir {path}: not a directory")
        journal = path / FILE_NAME
        if journal.exists():
            with journal.open("rb"):  # a directory, or unreadable: SQLite only says "I/O error"
                pass
    except OSError as exc:
        raise ValueError(f"--data-dir {path}: cannot read {exc.filename}: {_why(exc)}") from None
    return path


def _new_dir(args: argparse.Namespace) -> Path:
    """``--to``, checked: a directory, or one that can be made."""
    to = Path(args.to)
    try:
        if to.exists() and not to.is_dir():
            raise ValueError(f"--to {to}: not a directory")
        made_in = next(p for p in (to, *to.parents) if p.exists())
        if not made_in.is_dir():
            raise ValueError(f"--to {to}: {made_in} is not a directory")
        if not os.access(made_in, os.W_OK | os.X_OK):
            raise ValueError(f"--to {to}: cannot write in {made_in}: permission denied")
    except OSError as exc:
        raise ValueError(f"--to {to}: {_why(exc)}") from None
    return to


def _failure(exc: BaseException) -> str:
    """An error of the journal tools, one line: the file an ``OSError`` is about, and why."""
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {_why(exc)}"
    if isinstance(exc, sqlite3.Error):
        return f"the journal cannot be read: {exc}"
    return str(exc)


def run_export(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.codec import record_to_json  # noqa: PLC0415
    from pricing.journal.tools import export_records  # noqa: PLC0415

    data_dir = _data_dir(args)
    try:
        records = export_records(data_dir, args.table)
    except (LookupError, JournalError, OSError, sqlite3.Error) as exc:
        print(f"pricing: {_failure(exc)}", file=sys.stderr)
        return 1
    for record in records:
        print(json.dumps(record_to_json(record), separators=(",", ":")), file=out)
    return 0


def _round_line(state: pb.TableState) -> str:
    """A round that ended, under ``ROUNDS_HEADER``."""
    ended = state.ended_round
    result = "void" if ended.void else ended.result_card
    return f"v{state.version:<6}{ended.round_id:<7}{ended.result_index:<5}{result}"


def run_replay(args: argparse.Namespace, out: TextIO) -> int:
    """Each round that ended, under ``ROUNDS_HEADER``, then the final state under its own
    header (as ``pricing watch`` shows a state, naming the bets); with ``--at-version`` only
    the state at that version, under its header."""
    from pricing.journal.tools import replay_lines  # noqa: PLC0415

    final = None
    for step in replay_lines(_file_lines(args.file)):
        state = snapshot_to_proto(step.snapshot)
        if args.at_version and state.version == args.at_version:
            print(*watch_header(state, round_lines=False), format_state(state), sep="\n", file=out)
            return 0
        if not args.at_version:
            if final is None:  # once the file has been read: its errors come alone
                print(*ROUNDS_HEADER, sep="\n", file=out)
            if state.HasField("ended_round"):
                print(_round_line(state), file=out)
        final = step.snapshot
    if args.at_version:
        print(f"pricing: the journal ends before version {args.at_version}", file=sys.stderr)
        return 1
    assert final is not None
    state = snapshot_to_proto(final)
    print(
        f"# the final state, version {state.version}",
        *watch_header(state, round_lines=False),
        format_state(state),
        sep="\n",
        file=out,
    )
    return 0


def _print_checked(checked: Any, out: TextIO, *, salvaged: bool = False) -> None:
    """A journal check's report: SQLite's own check, then one line per table, then the count;
    a file damaged itself is said so first and last, whatever its tables' lines say."""
    problems = checked.sqlite_problems
    sqlite_says = "; ".join(problems[:3]) + (
        f"; and {len(problems) - 3} more" * (len(problems) > 3)
    )
    says = f"fails: {sqlite_says}" if problems else "ok"
    print(f"journal {checked.path}: SQLite quick_check {says}", file=out)
    if checked.unread:
        print(f"journal {checked.path}: its tables cannot be read: {checked.unread}", file=out)
    for t in checked.tables:
        if t.snapshot:
            print(f"table {t.table_id!r}: {t.snapshot}", file=out)
        if t.newer:
            print(f"table {t.table_id!r}: WRITTEN BY A NEWER BUILD ({t.newer}); {_NEWER}", file=out)
        if t.whole:
            print(f"table {t.table_id!r}: whole, versions 1-{t.recorded}", file=out)
        elif not salvaged:
            print(f"table {t.table_id!r}: DAMAGED: {t.problem}", file=out)
        elif t.good:
            print(
                f"table {t.table_id!r}: CUT SHORT at version {t.good}, its last good "
                f"version ({t.recorded} recorded): {t.problem}",
                file=out,
            )
        else:
            print(f"table {t.table_id!r}: DROPPED, no good version: {t.problem}", file=out)
    damaged = sum(not t.whole for t in checked.tables)
    newer = sum(bool(t.newer) for t in checked.tables)
    tables = f"{len(checked.tables)} table(s)"
    if checked.file_whole:
        held = f", {newer} written by a newer build (not damage)" * bool(newer)
        print(f"{tables}, {damaged} damaged{held}", file=out)
    else:  # its tables' events may look whole: the file they are read from is not
        read = "read before it failed" if checked.unread else "read from it"
        print(f"the file itself is DAMAGED; {tables} {read}, {damaged} of them damaged", file=out)


def _unmake(to: Path, made: bool) -> None:
    """After a failed salvage or backup (the tools remove the journal they began): the
    directory ``--to`` too if this command made it and it is empty, so nothing is left."""
    if made:
        with contextlib.suppress(OSError):  # not there, or holding something: left as it is
            to.rmdir()


def run_check(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import check  # noqa: PLC0415

    data_dir = _data_dir(args)
    try:
        checked = check(data_dir)
    except (JournalError, OSError, sqlite3.Error) as exc:
        print(f"pricing: {_failure(exc)}", file=sys.stderr)
        return 1
    _print_checked(checked, out)
    return 0 if checked.whole else 1


def run_salvage(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import salvage  # noqa: PLC0415

    data_dir, to = _data_dir(args), _new_dir(args)
    made = not to.exists()
    try:
        checked = salvage(data_dir, to)
    except (JournalError, OSError, sqlite3.Error) as exc:
        _unmake(to, made)
        print(f"pricing: {_failure(exc)}", file=sys.stderr)
        return 1
    _print_checked(checked, out, salvaged=True)
    kept = sum(t.good > 0 for t in checked.tables)
    print(
        f"salvaged {kept} table(s) into {args.to}: start a server with --data-dir {args.to}",
        file=out,
    )
    return 0


def run_backup(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import backup  # noqa: PLC0415

    data_dir, to = _data_dir(args), _new_dir(args)
    made = not to.exists()
    try:
        done = backup(data_dir, to)
    except (JournalError, OSError, sqlite3.Error) as exc:
        _unmake(to, made)
        print(f"pricing: {_failure(exc)}", file=sys.stderr)
        return 1
    print(
        f"backed up {done.tables} table(s), {done.events} event(s) to {done.path} and "
        f"{done.archived} archive file(s); restore: start a server with --data-dir {args.to}",
        file=out,
    )
    return 0


def add_journal_commands(sub: Commands) -> None:
    """``pricing journal`` and its actions, each bound to the function below that runs it."""
    j = sub.add_parser(
        "journal",
        help="export, replay, check, salvage or back up the journal",
        description="A table's accepted events, as the server journaled them: 'export' prints "
        "them as JSON Lines (seq, version, time accepted, event), 'replay' folds such a file "
        "through the engines and prints each round's result and the final state, or the state "
        "at one version (the prices a bet was accepted on). 'check' says what is damaged, "
        "'salvage' copies what is whole to a new directory, 'backup' takes a consistent copy "
        "while the server runs.",
    )
    jsub = j.add_subparsers(dest="journal_command", required=True, metavar="ACTION")
    e = jsub.add_parser(
        "export",
        help="print a table's events as JSON Lines",
        description="Print a table's events as JSON Lines. A table a newer build of the "
        "service wrote is not exported (exit 1, saying why): this build cannot read its "
        "events; export it with a build as new.",
    )
    e.add_argument("table", help="table id")
    add_data_dir(
        e,
        "read-only, safe while the server runs; a table gone from the journal is read from its "
        "archive",
    )
    e.set_defaults(run=run_export)
    r = jsub.add_parser("replay", help="fold exported events through the engines")
    r.add_argument("file", help="JSON Lines from 'pricing journal export' (.gz too; - for stdin)")
    r.add_argument(
        "--at-version",
        type=int,
        default=0,
        metavar="V",
        help="print only the state at version V (what a bet accepted at V was priced on)",
    )
    r.set_defaults(run=run_replay)
    # The operator's tools: (name, help, description, what --data-dir is to it, --to, run).
    tools: tuple[tuple[str, str, str, str, str, Callable[..., int]], ...] = (
        (
            "check",
            "what is damaged in the journal, table by table (exit 1 if anything is)",
            "SQLite's quick_check of journal.sqlite3, then every table: its events against its "
            "recorded last version, folded through the engines, and its snapshot against its "
            "checksum. A table a newer build of the service wrote (a game, a rules field or an "
            "event kind this build does not have) is named WRITTEN BY A NEWER BUILD: not "
            "damage, a server of this build holds it aside until it is upgraded. Exit 0 if all "
            "is whole (tables of a newer build included), 1 if anything is damaged.",
            "read-only, safe while the server runs",
            "",
            run_check,
        ),
        (
            "salvage",
            "copy the tables whose events are whole into a new data directory",
            "Copy every table whose events are whole, each other table up to its last good "
            "version (reported CUT SHORT), and the archive, into the new directory --to; a "
            "table with no good version is reported DROPPED. Start a server on --to to go on "
            "from what survived.",
            "only read",
            "NEWDIR",
            run_salvage,
        ),
        (
            "backup",
            "a consistent copy of the journal and its archive, while the server runs",
            "SQLite's online backup of journal.sqlite3 (the journal as of one moment: every "
            "event acknowledged before the backup began), checked whole, and the archive's "
            "files, into the new directory --to. Restore: start a server with --data-dir on "
            "it. Never back up by copying the files: journal.sqlite3 without its -wal misses "
            "the latest events.",
            "read-only, safe while the server runs",
            "BACKUPDIR",
            run_backup,
        ),
    )
    for name, short, description, reads, to, run in tools:
        tool = jsub.add_parser(name, help=short, description=description)
        add_data_dir(tool, reads)
        if to:
            tool.add_argument("--to", required=True, metavar=to, help="a new directory")
        tool.set_defaults(run=run)
