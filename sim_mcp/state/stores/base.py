"""The interface every session store implements (memory, SQLite, Redis), and what opens one from a URL.

A store's class is its entry in `sim_mcp.plugins.STORES`, by URL scheme: it says whether every process
that opens the same URL sees the same sessions (`shared`, which `--workers` needs) and opens a store for a
URL (`from_url`, which connects to nothing: `start` does).
"""

from __future__ import annotations

import builtins
import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, ClassVar, Protocol, runtime_checkable
from weakref import WeakValueDictionary

import anyio

from sim_mcp.errors import ConfigError
from sim_mcp.plugins import STORES
from sim_mcp.state.session import Event, SessionRecord


class SessionStore(Protocol):
    """Durable home of session records and their event logs.

    `lock(id)` serializes work on one session (across processes, for stores shared between
    replicas); every read-modify-write of a session happens inside it. `commit` must be durable
    before it returns: a call is acknowledged to the client only after it.

    Records are values: callers never change a record they got in place, they `put` or `commit`
    a new one (`model_copy(update=...)`), so a call that fails half-way leaves no trace.
    """

    name: str

    async def start(self) -> None:
        """Connect or open files; raises `StoreError` naming the store when it cannot. Idempotent."""

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]: ...

    async def get(self, session_id: str) -> SessionRecord | None: ...

    async def list(self) -> builtins.list[SessionRecord]: ...

    async def count(self) -> int: ...

    async def put(self, record: SessionRecord, events: builtins.list[Event] | None = None) -> None:
        """Create or replace a record; with `events`, replace its event log too (reset, fork)."""

    async def commit(self, record: SessionRecord, event: Event, *, last: bool = False) -> None:
        """Save the record and append its newest event, atomically. `last`: the caller writes nothing more
        under the session's lock, so a store whose lock spans processes may free it for the others in the same
        step; within this process the lock holds until its scope ends (a later write in it is refused)."""

    async def events(self, session_id: str, *, last: int | None = None) -> builtins.list[Event]:
        """The event log in order, or only its `last` entries."""

    async def delete(self, session_id: str) -> bool: ...

    async def get_meta(self, key: str) -> dict[str, Any] | None:
        """A small JSON document kept beside the sessions under `key` (the curriculum's state), or None.
        Meta documents are no sessions: `list`, `count` and `delete` never see them."""

    async def put_meta(self, key: str, value: dict[str, Any]) -> None:
        """Create or replace the meta document `key`; durable before it returns, like `commit`."""

    async def aclose(self) -> None: ...


@runtime_checkable
class StoreOpener(Protocol):
    """What an entry of `STORES` names (a store's class): `from_url` opens a store for a URL of its scheme;
    `shared`: every process that opens the same URL sees the same sessions, under one lock per session."""

    shared: ClassVar[bool]

    def from_url(self, url: str) -> SessionStore: ...


def bad_store_url(url: str, reason: str) -> ConfigError:
    """The error for a store URL that cannot be used, naming every store and the setting."""
    return ConfigError(f"bad store URL {url!r}: {reason}; {expected_stores()}")


def expected_stores() -> str:
    """`expected 'memory', 'sqlite:///PATH'... (--store / SIM_MCP_STORE)`, from the table of stores."""
    forms = [STORES.entry(name).help or f"{name}://..." for name in STORES]
    return f"expected one of {'; '.join(forms)} ({STORES.setting})"


class ProcessLocks:
    """One lock per session id within this process, kept only while someone holds or waits for it."""

    def __init__(self) -> None:
        self._locks: WeakValueDictionary[str, anyio.Lock] = WeakValueDictionary()

    @asynccontextmanager
    async def hold(self, session_id: str) -> AsyncIterator[None]:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = self._locks[session_id] = anyio.Lock()
        async with lock:
            yield


def encode_meta(value: dict[str, Any]) -> str:
    """A meta document as stored: compact JSON."""
    return json.dumps(value, separators=(",", ":"))


def decode_meta(body: str | bytes | None) -> dict[str, Any] | None:
    """A stored meta document, or None when there is none (or it is not an object)."""
    if body is None:
        return None
    value = json.loads(body)
    return value if isinstance(value, dict) else None
