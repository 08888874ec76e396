"""``pricing journal …``: a table's journaled events exported as JSON Lines or replayed
through the engines, and the operator's tools on a data directory (check, salvage, backup).

Each command imports the journal only when it runs: the other commands never load it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from pricing.cli.format import format_state
from pricing.wire import snapshot_to_proto

__all__ = ["run_backup", "run_check", "run_export", "run_replay", "run_salvage"]


def run_export(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.codec import record_to_json  # noqa: PLC0415
    from pricing.journal.tools import export_records  # noqa: PLC0415

    try:
        records = export_records(Path(args.data_dir), args.table)
    except (LookupError, JournalError) as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    for record in records:
        print(json.dumps(record_to_json(record), separators=(",", ":")), file=out)
    return 0


def run_replay(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal.tools import read_lines, replay_lines  # noqa: PLC0415

    lines = sys.stdin if args.file == "-" else read_lines(Path(args.file))
    final = None
    for step in replay_lines(lines):
        final = step.snapshot
        state = snapshot_to_proto(step.snapshot)
        if args.at_version and state.version == args.at_version:
            print(format_state(state), file=out)
            return 0
        if not args.at_version and state.HasField("ended_round"):
            ended = state.ended_round
            result = "void" if ended.void else f"result {ended.result_card}"
            print(
                f"v{state.version:<5} round {ended.round_id:<4} #{ended.result_index:<2} {result}",
                file=out,
            )
    if args.at_version:
        print(f"pricing: the journal ends before version {args.at_version}", file=sys.stderr)
        return 1
    assert final is not None
    print(f"final: {format_state(snapshot_to_proto(final))}", file=out)
    return 0


def _print_checked(checked: Any, out: TextIO, *, salvaged: bool = False) -> None:
    """A journal check's report: SQLite's own check, then one line per table."""
    problems = checked.sqlite_problems
    sqlite_says = "; ".join(problems[:3]) + (
        f"; and {len(problems) - 3} more" * (len(problems) > 3)
    )
    print(f"journal {checked.path}: SQLite quick_check {sqlite_says or 'ok'}", file=out)
    for t in checked.tables:
        if t.snapshot:
            print(f"table {t.table_id!r}: {t.snapshot}", file=out)
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
    print(f"{len(checked.tables)} table(s), {damaged} damaged", file=out)


def run_check(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import check  # noqa: PLC0415

    try:
        checked = check(Path(args.data_dir))
    except JournalError as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    _print_checked(checked, out)
    return 0 if checked.whole else 1


def run_salvage(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import salvage  # noqa: PLC0415

    try:
        checked = salvage(Path(args.data_dir), Path(args.to))
    except JournalError as exc:
        print(f"pricing: {exc}", file=sys.stderr)
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

    try:
        done = backup(Path(args.data_dir), Path(args.to))
    except (JournalError, OSError) as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    print(
        f"backed up {done.tables} table(s), {done.events} event(s) to {done.path} and "
        f"{done.archived} archive file(s); restore: start a server with --data-dir {args.to}",
        file=out,
    )
    return 0
