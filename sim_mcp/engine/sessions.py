"""Session operations beside tool calls: create, list, inspect, reset, snapshot, fork, delete, expire.

They work on the same records as `Simulator.call` (sessions that MCP clients open implicitly included),
each under the session's lock, so they never interleave with a call to the same session.

Rules:
- **Initial state.** A session's state of an environment starts as the environment's `initial_state`.
  `create(state=...)` changes that: with `state_mode="merge"` (the default) `state` is an RFC 7386 JSON
  merge patch over `initial_state` (objects merge key by key, a `null` deletes a key, anything else
  replaces); with `"replace"` it is the whole state. For a session bound to an environment, `state` is
  that environment's state; for an unbound one, an object keyed by environment name. The result is
  the session's *creation state*, which reset returns to.
- **Reset** to the creation state clears the event log, the counters (events, errors, tokens) and the
  latest evaluation; the session keeps its id, environment, seed, task and snapshots. **Reset to a
  snapshot** restores the worlds, counters and event log saved in it, so the next call is event
  `n + 1` for a snapshot taken after `n`.
- **Snapshot** saves the worlds, counters and event log under a name; a name taken is overwritten.
- **Fork** copies everything (worlds, creation state, snapshots, event log) under a new id; the copy
  then lives on its own: calls to either never touch the other.
- **Expiry**: with a TTL, sessions whose last call (or create, reset, snapshot, fork) is older than
  the TTL are deleted by `expire_idle`, which the HTTP server runs periodically.
"""

from __future__ import annotations

import builtins
import copy
import re
import time
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, TypedDict

from sim_mcp.engine.hooks import Lifecycle, LifecycleAction
from sim_mcp.engine.simulator import Simulator
from sim_mcp.errors import InvalidSessionInput, SessionExists, SessionLimitExceeded, SessionNotFound
from sim_mcp.specs.stamps import latest_timestamp
from sim_mcp.state.session import Event, SessionRecord, Snapshot, TokenUsage, new_session_id
from sim_mcp.state.values import json_size

StateMode = Literal["merge", "replace"]


class SessionOptions(TypedDict, total=False):
    """What a new session may be given (`SessionService.create`), for callers that pass it on."""

    env: str | None
    seed: int | None
    state: Any
    state_mode: StateMode
    session_id: str | None


SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")


class SessionService:
    """Session lifecycle over the simulator's store and catalog."""

    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator
        self._store = simulator.store

    def lock(self, session_id: str) -> AbstractAsyncContextManager[None]:
        """The session's lock, which every call and operation on it takes: hold it to read a record and its
        log as one, or to write a record read under it. Not reentrant: inside it, use `find`, `get`, `log`."""
        return self._store.lock(session_id)

    async def find(self, session_id: str) -> SessionRecord | None:
        """The session's record, or None when there is no such session (`get` raises instead)."""
        return await self._store.get(session_id)

    async def count(self) -> int:
        """How many sessions the store holds (a store that does not answer raises `StoreError`)."""
        return await self._store.count()

    async def create(
        self,
        *,
        env: str | None = None,
        seed: int | None = None,
        state: Any = None,
        state_mode: StateMode = "merge",
        session_id: str | None = None,
        task: str | None = None,
    ) -> SessionRecord:
        """A new, empty session; `session_id` names it (else an unguessable id is generated); `task` records
        the task it runs (its env and state are given by the caller: see `rewards.task_session_arguments`)."""
        catalog = self.simulator.catalog
        if env is not None and catalog.environment(env) is None:
            raise InvalidSessionInput(
                "env", f"unknown environment {env!r}: expected one of {sorted(catalog.environments)}"
            )
        if session_id is not None and not SESSION_ID_PATTERN.match(session_id):
            raise InvalidSessionInput("id", "expected 1-128 characters of letters, digits and _ . : -")
        initial = self._creation_state(env, state, state_mode) if state is not None else {}
        session_id = session_id if session_id is not None else new_session_id()
        engine = self.simulator.engine
        async with self._store.lock(session_id):
            if await self._store.get(session_id) is not None:
                raise SessionExists(session_id)
            await self._check_room(session_id)
            now = time.time()
            record = SessionRecord(
                id=session_id,
                environment=env,
                seed=engine.seed if seed is None else seed,
                created_at=now,
                updated_at=now,
                initial_worlds=initial,
                seeded_stamps={name: latest_timestamp(world) for name, world in initial.items()},
                task=task,
            )
            await self._store.put(record, [])
            await self._emit(session_id, "created", record)
        return record

    async def list(self) -> builtins.list[SessionRecord]:
        return sorted(await self._store.list(), key=lambda record: (record.created_at, record.id))

    async def get(self, session_id: str) -> SessionRecord:
        record = await self._store.get(session_id)
        if record is None:
            raise SessionNotFound(session_id)
        return record

    async def events(self, session_id: str, *, last: int | None = None) -> builtins.list[Event]:
        await self.get(session_id)
        return await self._store.events(session_id, last=last)

    async def log(self, session_id: str, *, last: int | None = None) -> builtins.list[Event]:
        """The session's events (the `last` ones), with no look at the record first: for a caller that has
        read it already (`events` checks the session exists)."""
        return await self._store.events(session_id, last=last)

    async def set_world(self, session_id: str, env: str, world: Any) -> SessionRecord:
        """Set the session's world of `env` to a copy of `world`, its events and counters kept, so that the next
        call starts from it (fidelity scoring puts each step on the reference's state). The caller holds the
        lock. No lifecycle change is emitted: the session's log, which subscribers follow, is unchanged."""
        record = await self.get(session_id)
        updated = record.model_copy(update={"worlds": {**record.worlds, env: copy.deepcopy(world)}})
        await self._store.put(updated)  # with no events given, the log stays as it is
        return updated

    def state_of(self, record: SessionRecord) -> Any:
        """The world state as clients see it: the environment's state for a bound session, else an
        object keyed by the environments the session has touched or was created with."""
        if record.environment is not None:
            return self.simulator.world_of(record, record.environment)
        names = sorted(set(record.worlds) | set(record.initial_worlds))
        return {name: self.simulator.world_of(record, name) for name in names}

    def preview_state(self, session_id: str, env: str | None) -> Any:
        """The state a session that does not exist yet would start with (for readers that must not create it)."""
        return self.state_of(SessionRecord(id=session_id, environment=env))

    async def reset(self, session_id: str, *, snapshot: str | None = None) -> SessionRecord:
        async with self._store.lock(session_id):
            record = await self.get(session_id)
            now = time.time()
            if snapshot is None:
                updated = record.model_copy(
                    update={
                        "worlds": {},
                        "event_count": 0,
                        "error_count": 0,
                        "tokens": TokenUsage(),
                        "updated_at": now,
                        "evaluation": None,
                    }
                )
                await self._store.put(updated, [])
                await self._emit(session_id, "reset", updated)
                return updated
            if snapshot not in record.snapshots:
                raise InvalidSessionInput(
                    "snapshot",
                    f"no snapshot named {snapshot!r} in session {session_id!r}: "
                    f"expected one of {sorted(record.snapshots)}",
                )
            saved = Snapshot.model_validate(record.snapshots[snapshot])
            updated = record.model_copy(
                update={
                    "worlds": copy.deepcopy(saved.worlds),
                    "event_count": saved.event_count,
                    "error_count": saved.error_count,
                    "tokens": saved.tokens,
                    "updated_at": now,
                    "evaluation": None,
                }
            )
            await self._store.put(updated, saved.events)
            await self._emit(session_id, "reset", updated)
            return updated

    async def snapshot(self, session_id: str, name: str) -> SessionRecord:
        if not name:
            raise InvalidSessionInput("name", "expected a non-empty snapshot name")
        async with self._store.lock(session_id):
            record = await self.get(session_id)
            events = await self._store.events(session_id)
            saved = Snapshot(
                worlds=copy.deepcopy(record.worlds),
                event_count=record.event_count,
                error_count=record.error_count,
                tokens=record.tokens,
                events=events,
            )
            updated = record.model_copy(
                update={
                    "snapshots": {**record.snapshots, name: saved.model_dump(mode="json")},
                    "updated_at": saved.taken_at,
                }
            )
            await self._store.put(updated)
            await self._emit(session_id, "snapshot", updated)
            return updated

    async def fork(self, session_id: str, *, new_id: str | None = None) -> SessionRecord:
        """A copy of the session under a new id, which then lives on its own."""
        if new_id is not None and not SESSION_ID_PATTERN.match(new_id):
            raise InvalidSessionInput("id", "expected 1-128 characters of letters, digits and _ . : -")
        # Read the source under its lock (a consistent record and log), then write the copy under the
        # copy's lock: never both at once, so two forks in opposite directions cannot deadlock.
        async with self._store.lock(session_id):
            source = await self.get(session_id)
            events = await self._store.events(session_id)
        new_id = new_id if new_id is not None else new_session_id()
        async with self._store.lock(new_id):
            if await self._store.get(new_id) is not None:
                raise SessionExists(new_id)
            await self._check_room(new_id)
            now = time.time()
            fork = source.model_copy(
                update={"id": new_id, "forked_from": source.id, "created_at": now, "updated_at": now}, deep=True
            )
            await self._store.put(fork, events)
            await self._emit(new_id, "forked", fork)
        return fork

    async def delete(self, session_id: str) -> None:
        async with self._store.lock(session_id):
            if not await self._store.delete(session_id):
                raise SessionNotFound(session_id)
            await self._emit(session_id, "deleted", None)

    async def expire_idle(self, ttl: float, *, now: float | None = None) -> builtins.list[str]:
        """Delete sessions unused for more than `ttl` seconds; the ids deleted."""
        now = time.time() if now is None else now
        expired: list[str] = []
        for record in await self._store.list():
            if now - record.updated_at <= ttl:
                continue
            async with self._store.lock(record.id):
                # Look again under the lock: a call may have used it since the listing.
                current = await self._store.get(record.id)
                if current is not None and now - current.updated_at > ttl:
                    await self._store.delete(record.id)
                    await self._emit(record.id, "expired", None)
                    expired.append(record.id)
        return expired

    async def record_evaluation(self, record: SessionRecord, evaluation: dict[str, Any]) -> SessionRecord:
        """Store `evaluation` as the session's latest; the caller holds the lock and read `record` under it."""
        updated = record.model_copy(update={"evaluation": evaluation})
        await self._store.put(updated)
        await self._emit(record.id, "evaluated", updated)
        return updated

    async def _emit(self, session_id: str, action: LifecycleAction, record: SessionRecord | None) -> None:
        await self.simulator.hooks.emit(Lifecycle(session_id, action, record))

    async def _check_room(self, session_id: str) -> None:
        limit = self.simulator.max_sessions
        if limit is not None and await self._store.count() >= limit:
            raise SessionLimitExceeded(
                f"cannot create session {session_id!r}: the server holds its maximum of {limit} sessions "
                "(--max-sessions / SIM_MCP_MAX_SESSIONS); delete some first"
            )

    def _creation_state(self, env: str | None, state: Any, mode: StateMode) -> dict[str, Any]:
        """Environment name -> its creation state, from the `state` given to `create`."""
        catalog = self.simulator.catalog
        if env is not None:
            given: Mapping[str, Any] = {env: state}
        elif isinstance(state, dict):
            unknown = sorted(name for name in state if catalog.environment(name) is None)
            if unknown:
                raise InvalidSessionInput(
                    f"state.{unknown[0]}",
                    f"unknown environment {unknown[0]!r}: a session without env takes state keyed by environment "
                    f"name, one of {sorted(catalog.environments)}",
                )
            given = state
        else:
            raise InvalidSessionInput(
                "state", f"expected an object keyed by environment name (the session has no env), got {_kind(state)}"
            )
        limit = self.simulator.engine.max_state_bytes
        worlds: dict[str, Any] = {}
        for name, value in given.items():
            spec = catalog.environment(name)
            base = copy.deepcopy(spec.initial_state) if spec is not None else {}
            field = "state" if env is not None else f"state.{name}"
            if mode == "merge" and not isinstance(value, dict):
                raise InvalidSessionInput(
                    field,
                    f"expected an object to merge into the initial state, got {_kind(value)} "
                    "(or use state_mode 'replace')",
                )
            world = merge_patch(base, value) if mode == "merge" else copy.deepcopy(value)
            size = json_size(world)
            if size > limit:
                raise InvalidSessionInput(
                    field,
                    f"the state takes {size} bytes, over the limit of {limit} "
                    "(--max-state-bytes / SIM_MCP_MAX_STATE_BYTES)",
                )
            worlds[name] = world
        return worlds


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: `patch` applied to a copy of `target`."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _kind(value: Any) -> str:
    names = {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }
    return "null" if value is None else names.get(type(value), type(value).__name__)
