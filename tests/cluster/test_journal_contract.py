"""The journal contract (``tests/support/journal_contract.py``) run against every engine: the memory
journal, the SQLite journal on a real file, and the JetStream journal on a real ``nats-server``
(from the venv, on loopback, ready once its health endpoint answers)."""

from __future__ import annotations

import itertools
import json
import sqlite3
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from nats.js.errors import NotFoundError

from pricing.journal import Journal, JournalConflict
from pricing.journal.jetstream import JetStreamJournal
from pricing.journal.jetstream_admin import subject_token
from pricing.journal.memory import MemoryJournal
from pricing.journal.sqlite import SqliteJournal
from pricing.journal.sqlite_schema import FILE_NAME
from tests.support.journal_contract import T0, JournalContract
from tests.support.natsserver import NatsServer, nats_server


class TestMemoryJournal(JournalContract):
    keeps_records = False
    repeat_raises = None
    second_writer = "apart"
    closed_refuses_writes = False

    def make(self) -> Journal:
        return MemoryJournal()


class TestSqliteJournal(JournalContract):
    @pytest.fixture(autouse=True)
    def _data_dir(self, tmp_path: Path) -> None:
        self.data_dir = tmp_path

    def make(self) -> Journal:
        return SqliteJournal(self.data_dir)

    async def store_undecodable(self, journal: Journal, table_id: str, version: int) -> None:
        conn = sqlite3.connect(self.data_dir / FILE_NAME)
        try:
            with conn:
                conn.execute(
                    "INSERT INTO events VALUES (?, ?, ?, 0.0, 'ExposeCard', x'ffff')",
                    (table_id, version, version - 1),
                )
        finally:
            conn.close()

    async def store_damaged_image(self, journal: Journal, table_id: str, fmt: str | None) -> None:
        conn = sqlite3.connect(self.data_dir / FILE_NAME)
        try:
            with conn:
                conn.execute(
                    "UPDATE images SET body = x'00', format = coalesce(?, format) "
                    "WHERE table_id = ?",
                    (fmt, table_id),
                )
        finally:
            conn.close()

    async def store_raw(
        self, journal: Journal, table_id: str, version: int, kind: str, body: bytes
    ) -> None:
        conn = sqlite3.connect(self.data_dir / FILE_NAME)
        try:
            with conn:
                if version == 1:
                    conn.execute("INSERT INTO tables (table_id) VALUES (?)", (table_id,))
                conn.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                    (table_id, version, version - 1, T0 + version, kind, body),
                )
        finally:
            conn.close()

    async def stored(self, journal: Journal, table_id: str) -> object:
        conn = sqlite3.connect(self.data_dir / FILE_NAME)
        try:
            return [
                sorted(conn.execute(f"SELECT * FROM {name} WHERE table_id = ?", (table_id,)))
                for name in ("tables", "events", "images")
            ]
        finally:
            conn.close()


@pytest.fixture(scope="module")
def nats() -> Iterator[NatsServer]:
    with nats_server() as server:
        yield server


_streams = itertools.count(1)


class TestJetStreamJournal(JournalContract):
    repeat_raises = JournalConflict
    second_writer = "shared"
    images_raise = False

    @pytest.fixture(autouse=True)
    def _stream(self, nats: NatsServer) -> None:
        # A stream, bucket and subjects of its own for each test: one server serves them all.
        self.n = next(_streams)
        self.url = nats.url

    def make(self) -> Journal:
        n = self.n
        return JetStreamJournal(
            [self.url],
            stream=f"CONTRACT_{n}",
            bucket=f"CONTRACT_{n}",
            subject_prefix=f"contract.{n}.",
            write_timeout=2.0,
        )

    async def store_undecodable(self, journal: Journal, table_id: str, version: int) -> None:
        assert isinstance(journal, JetStreamJournal)
        headers = {
            "Pricing-Version": str(version),
            "Pricing-Seq": str(version - 1),
            "Pricing-At": "0.0",
            "Pricing-Kind": "ExposeCard",
        }
        await journal.js.publish(
            journal.prefix + subject_token(table_id), b"\xff\xff", headers=headers
        )

    async def store_raw(
        self, journal: Journal, table_id: str, version: int, kind: str, body: bytes
    ) -> None:
        assert isinstance(journal, JetStreamJournal)
        headers = {
            "Pricing-Version": str(version),
            "Pricing-Seq": str(version - 1),
            "Pricing-At": repr(T0 + version),
            "Pricing-Kind": kind,
        }
        await journal.js.publish(journal.prefix + subject_token(table_id), body, headers=headers)

    async def stored(self, journal: Journal, table_id: str) -> object:
        assert isinstance(journal, JetStreamJournal)
        token = subject_token(table_id)
        messages = await journal._read(journal.stream, journal.prefix + token)
        kv = await journal.js.key_value(journal.bucket)
        try:
            image = (await kv.get(token)).value
        except NotFoundError:
            image = None
        held = [(m.metadata.sequence.stream, m.data, dict(m.headers or {})) for m in messages]
        return held, image

    async def store_damaged_image(self, journal: Journal, table_id: str, fmt: str | None) -> None:
        assert isinstance(journal, JetStreamJournal)
        kv = await journal.js.key_value(journal.bucket)
        entry = await kv.get(subject_token(table_id))
        assert entry.value is not None
        (size,) = struct.unpack_from(">I", entry.value)
        meta = json.loads(entry.value[4 : 4 + size])
        meta["format"] = meta["format"] if fmt is None else fmt
        damaged = json.dumps(meta).encode()
        await kv.put(subject_token(table_id), struct.pack(">I", len(damaged)) + damaged + b"\0")
