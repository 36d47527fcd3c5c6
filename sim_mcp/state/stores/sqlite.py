"""Sessions in one SQLite file: they survive restarts, and a commit is on disk before a call is answered.

One connection, used by one worker thread at a time (`anyio.to_thread` with a limiter of 1), in WAL
mode with `synchronous=FULL`: each commit is fsynced, so an acknowledged call survives kill -9 and
power loss. Locks are in-process: one SQLite file serves one `sim-mcp` process (use Redis to share
sessions between replicas).
"""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from pathlib import Path
from typing import Any, Self, TypeVar

import anyio
import anyio.to_thread

from sim_mcp.errors import StoreError
from sim_mcp.state.session import Event, SessionRecord
from sim_mcp.state.stores.base import ProcessLocks, bad_store_url, decode_meta, encode_meta

_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    n INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_session ON events (session_id, n);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class SqliteStore:
    name = "sqlite"
    # Its session lock is held in one process.
    shared = False

    @classmethod
    def from_url(cls, url: str) -> Self:
        """As in SQLAlchemy: sqlite:///data/sessions.db is relative, sqlite:////var/lib/sessions.db absolute."""
        prefix = "sqlite:///"
        path = url[len(prefix) :] if url.lower().startswith(prefix) else ""
        if not path or "?" in path:
            raise bad_store_url(url, "sqlite needs a file path and no options")
        return cls(path)

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None
        self._limiter: anyio.CapacityLimiter | None = None
        self._locks = ProcessLocks()

    async def start(self) -> None:
        if self._db is None:
            # The limiter needs a running event loop, so it is made here rather than in __init__.
            self._limiter = self._limiter or anyio.CapacityLimiter(1)
            self._db = await anyio.to_thread.run_sync(self._open, limiter=self._limiter)

    def _open(self) -> sqlite3.Connection:
        try:
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT) below.
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA busy_timeout=10000")
            db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as e:
            raise StoreError(
                f"sqlite store {self.path}: cannot open the database (--store / SIM_MCP_STORE): {e}"
            ) from e
        return db

    async def _run(self, operation: str, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        await self.start()
        db, limiter = self._db, self._limiter
        assert db is not None
        assert limiter is not None

        def work() -> _T:
            try:
                return fn(db)
            except sqlite3.Error as e:
                raise StoreError(f"sqlite store {self.path}: {operation} failed: {e}") from e

        return await anyio.to_thread.run_sync(work, limiter=limiter)

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(session_id)

    async def get(self, session_id: str) -> SessionRecord | None:
        def read(db: sqlite3.Connection) -> str | None:
            row = db.execute("SELECT record FROM sessions WHERE id = ?", (session_id,)).fetchone()
            return None if row is None else str(row[0])

        body = await self._run(f"reading session {session_id!r}", read)
        return None if body is None else SessionRecord.model_validate_json(body)

    async def list(self) -> builtins.list[SessionRecord]:
        def read(db: sqlite3.Connection) -> builtins.list[str]:
            return [str(row[0]) for row in db.execute("SELECT record FROM sessions ORDER BY rowid")]

        return [SessionRecord.model_validate_json(body) for body in await self._run("listing sessions", read)]

    async def count(self) -> int:
        def read(db: sqlite3.Connection) -> int:
            return int(db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])

        return await self._run("counting sessions", read)

    async def put(self, record: SessionRecord, events: builtins.list[Event] | None = None) -> None:
        body = record.model_dump_json()
        bodies = None if events is None else [event.model_dump_json() for event in events]

        def write(db: sqlite3.Connection) -> None:
            with _transaction(db):
                _save_record(db, record.id, body)
                if bodies is not None:
                    db.execute("DELETE FROM events WHERE session_id = ?", (record.id,))
                    db.executemany(
                        "INSERT INTO events (session_id, body) VALUES (?, ?)", [(record.id, item) for item in bodies]
                    )

        await self._run(f"saving session {record.id!r}", write)

    async def commit(self, record: SessionRecord, event: Event, *, last: bool = False) -> None:
        body, event_body = record.model_dump_json(), event.model_dump_json()

        def write(db: sqlite3.Connection) -> None:
            with _transaction(db):
                _save_record(db, record.id, body)
                db.execute("INSERT INTO events (session_id, body) VALUES (?, ?)", (record.id, event_body))

        await self._run(f"committing event {event.seq} of session {record.id!r}", write)

    async def events(self, session_id: str, *, last: int | None = None) -> builtins.list[Event]:
        if last is not None and last <= 0:
            return []

        def read(db: sqlite3.Connection) -> builtins.list[str]:
            if last is None:
                rows = db.execute("SELECT body FROM events WHERE session_id = ? ORDER BY n", (session_id,))
                return [str(row[0]) for row in rows]
            rows = db.execute(
                "SELECT body FROM events WHERE session_id = ? ORDER BY n DESC LIMIT ?", (session_id, last)
            )
            return [str(row[0]) for row in rows][::-1]

        bodies = await self._run(f"reading the events of session {session_id!r}", read)
        return [Event.model_validate_json(body) for body in bodies]

    async def delete(self, session_id: str) -> bool:
        def write(db: sqlite3.Connection) -> bool:
            with _transaction(db):
                db.execute("DELETE FROM events WHERE session_id = ?", (session_id,))
                return db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0

        return await self._run(f"deleting session {session_id!r}", write)

    async def get_meta(self, key: str) -> dict[str, Any] | None:
        def read(db: sqlite3.Connection) -> str | None:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])

        return decode_meta(await self._run(f"reading meta {key!r}", read))

    async def put_meta(self, key: str, value: dict[str, Any]) -> None:
        body = encode_meta(value)

        def write(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, body),
                )

        await self._run(f"saving meta {key!r}", write)

    async def aclose(self) -> None:
        db, self._db = self._db, None
        if db is not None and self._limiter is not None:
            await anyio.to_thread.run_sync(db.close, limiter=self._limiter)


def _save_record(db: sqlite3.Connection, session_id: str, body: str) -> None:
    db.execute(
        "INSERT INTO sessions (id, record) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record",
        (session_id, body),
    )


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when the block raises: a write is all or nothing."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
