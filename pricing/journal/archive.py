"""A table's journal archived as gzipped JSON Lines (``pricing journal export``'s format): what a
server writes to ``DATA_DIR/archive/`` before a closed table leaves its journal."""

from __future__ import annotations

import gzip
import json
import os
import time
from pathlib import Path

from pricing.journal import Record
from pricing.journal.codec import archive_name, record_to_json

__all__ = ["write_archive"]


def write_archive(folder: Path, table_id: str, records: list[Record]) -> Path | None:
    """Write ``records`` to a new file in ``folder``, durably (the file and the folder synced,
    so the journal may forget the table once this returns); the file, or None for no records."""
    if not records:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(records[-1].accepted_at))
    path = folder / archive_name(table_id, stamp)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record_to_json(record), separators=(",", ":")) + "\n")
    with tmp.open("rb") as f:
        os.fsync(f.fileno())
    tmp.replace(path)
    # The rename is durable only once the folder is: before the journal forgets the table.
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return path
