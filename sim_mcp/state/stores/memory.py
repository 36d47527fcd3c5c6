"""Sessions kept in this process's memory: fast, and gone when it exits."""

from __future__ import annotations

import builtins
import copy
from contextlib import AbstractAsyncContextManager
from typing import Any, Self

from sim_mcp.state.session import Event, SessionRecord
from sim_mcp.state.stores.base import ProcessLocks


class MemoryStore:
    name = "memory"
    shared = False

    @classmethod
    def from_url(cls, url: str) -> Self:
        """`memory` (or `memory://`): every store its own sessions."""
        return cls()

    def __init__(self) -> None:
        self._records: dict[str, SessionRecord] = {}
        self._events: dict[str, builtins.list[Event]] = {}
        self._meta: dict[str, dict[str, Any]] = {}
        # Locks live only while someone holds or waits on them, so idle sessions cost no lock.
        self._locks = ProcessLocks()

    async def start(self) -> None:
        return None

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        return self._locks.hold(session_id)

    async def get(self, session_id: str) -> SessionRecord | None:
        return self._records.get(session_id)

    async def list(self) -> builtins.list[SessionRecord]:
        return list(self._records.values())

    async def count(self) -> int:
        return len(self._records)

    async def put(self, record: SessionRecord, events: builtins.list[Event] | None = None) -> None:
        self._records[record.id] = record
        if events is not None or record.id not in self._events:
            self._events[record.id] = list(events or [])

    async def commit(self, record: SessionRecord, event: Event, *, last: bool = False) -> None:
        self._records[record.id] = record
        self._events.setdefault(record.id, []).append(event)

    async def events(self, session_id: str, *, last: int | None = None) -> builtins.list[Event]:
        log = self._events.get(session_id, [])
        if last is None:
            return list(log)
        return log[max(len(log) - last, 0) :] if last > 0 else []

    async def delete(self, session_id: str) -> bool:
        self._events.pop(session_id, None)
        return self._records.pop(session_id, None) is not None

    async def get_meta(self, key: str) -> dict[str, Any] | None:
        value = self._meta.get(key)
        return copy.deepcopy(value) if value is not None else None

    async def put_meta(self, key: str, value: dict[str, Any]) -> None:
        self._meta[key] = copy.deepcopy(value)

    async def aclose(self) -> None:
        self._records.clear()
        self._events.clear()
        self._meta.clear()
