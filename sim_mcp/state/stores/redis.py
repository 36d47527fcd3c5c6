"""Sessions in Redis, shared by every `sim-mcp serve` process pointed at the same server and database.

Keys (under a prefix, `sim-mcp` by default): `session:{id}` holds the record as JSON, `events:{id}` the
event log as a list of JSON strings, `sessions` the set of ids, `lock:{id}` the session's lock,
`meta:{key}` a meta document (the curriculum's state).

Calls to one session are serialized across processes by a lock with a lease: `SET lock NX PX` with a
random token, kept alive by its holder while held, released by a compare-and-delete script; a process
that dies holding it loses it after one lease. Writes made under the lock are fenced: one script checks
the token and runs the writes (Redis runs a script atomically), so a holder whose lease ran out can
never overwrite the work of the next one; one round trip, where WATCH, GET and MULTI/EXEC take three.
(Writes too large for one script's arguments, e.g. a fork's whole event log, take that longer path.)
Within one process, a local lock queues callers first so that only one of them polls Redis per session.

A call costs two round trips: taking the lock also reads the record and the newest events (one script),
then the fenced commit, which also deletes the lock when the caller says it is its last write (`last`: the
simulator does when no after-commit subscriber needs other processes kept out until it has run). Otherwise a
third, the release, follows. While this process holds a session's lock nobody else can write it, so what was
read with the lock, and what this process wrote since, is that session's truth until the release; reads under
the lock are answered from it, and after a release with the commit from Redis again.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Self, TypeVar
from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit, urlunsplit

import anyio
from redis import exceptions as redis_errors
from redis.asyncio import BlockingConnectionPool, Redis

from sim_mcp.errors import StoreError
from sim_mcp.state.session import Event, SessionRecord
from sim_mcp.state.stores.base import ProcessLocks, bad_store_url, decode_meta, encode_meta

logger = logging.getLogger("sim_mcp")

_T = TypeVar("_T")

# KEYS[1] lock key; ARGV[1] token. Delete the lock only if we still hold it.
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"
# KEYS[1] lock key; ARGV[1] token, ARGV[2] lease in ms. Extend the lease only if we still hold it.
_EXTEND = (
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end"
)

# KEYS[1] lock key; ARGV[1] token; then each command as its argument count followed by its arguments (the
# keys it writes are the session's own, named in the arguments). Runs them only if we still hold the lock;
# false (nil) if not.
_FENCED = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return false end
local results = {}
local i = 2
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  results[#results + 1] = redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return results
"""
# KEYS[1] lock key, KEYS[2] record key, KEYS[3] events key; ARGV[1] token, ARGV[2] lease in ms, ARGV[3] how many
# of the newest events to read. Takes the lock if it is free and then reads the session: {found, record, events};
# false if the lock is taken.
_ACQUIRE = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
local record = redis.call('GET', KEYS[2])
if not record then return {0, '', {}} end
return {1, record, redis.call('LRANGE', KEYS[3], -tonumber(ARGV[3]), -1)}
"""
# Beyond this many script arguments (Lua's unpack has a stack limit), fenced writes use WATCH and MULTI/EXEC.
_SCRIPT_ARGUMENTS = 2_000
_Command = tuple[str | bytes | int, ...]


class RedisStore:
    name = "redis"
    # Its lock is a lease in Redis, writes fenced by the lock's token: one session's calls are serialized
    # across processes and machines.
    shared = True

    @classmethod
    def from_url(cls, url: str) -> Self:
        """`redis://HOST:PORT/DB` (or `rediss://`), with `?lease_s=SECONDS` (default 30) read here and the rest
        of the query left to redis-py."""
        parts = urlsplit(url)
        try:
            port = parts.port
        except ValueError as e:
            raise bad_store_url(url, str(e)) from e
        database = parts.path.strip("/")
        if not parts.hostname or (database and not database.isdigit()) or port == 0:
            raise bad_store_url(url, "need a host, an optional port and a database number")
        plain, lease_s = _lease(url, parts)
        return cls(plain, lease_s=lease_s)

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "sim-mcp",
        lease_s: float = 30.0,
        wait_s: float = 600.0,
        max_connections: int = 64,
        prefetch_events: int = 8,
    ) -> None:
        """`lease_s`: how long a lock outlives a holder that died; `wait_s`: how long a call waits for one;
        `prefetch_events`: how many of the newest events taking the lock reads (the simulator shows a few)."""
        self.url = url
        self.prefix = prefix
        self.lease_s = lease_s
        self.wait_s = wait_s
        self.prefetch_events = max(prefetch_events, 0)
        # Constructing the client does not connect; `start` checks that the server answers. A blocking pool:
        # a thousand sessions at once wait for one of its connections rather than fail (the default pool
        # raises past its maximum).
        pool = BlockingConnectionPool.from_url(
            url, max_connections=max_connections, timeout=wait_s, socket_connect_timeout=5.0, health_check_interval=30
        )
        self._redis: Redis = Redis.from_pool(pool)
        self._fenced = self._redis.register_script(_FENCED)
        self._acquire_script = self._redis.register_script(_ACQUIRE)
        self._release = self._redis.register_script(_RELEASE)
        self._local = ProcessLocks()
        # Tokens of the locks this process holds; the local lock makes the holder of a session unique here.
        self._held: dict[str, bytes] = {}
        # What this process knows of each session it holds the lock of (see the module's doc).
        self._known: dict[str, _Known] = {}
        # Sessions whose lock a commit with `last` deleted, while their scope (and the local lock) lasts.
        self._released: set[str] = set()

    @property
    def where(self) -> str:
        """The URL without its password, for messages."""
        return redacted(self.url)

    async def start(self) -> None:
        try:
            await self._redis.ping()
        except (redis_errors.RedisError, OSError) as e:
            raise StoreError(f"redis store {self.where}: cannot reach the server (--store / SIM_MCP_STORE): {e}") from e

    def _key(self, kind: str, session_id: str = "") -> str:
        return f"{self.prefix}:{kind}:{session_id}" if session_id else f"{self.prefix}:{kind}"

    async def _io(self, operation: str, awaitable: Awaitable[_T]) -> _T:
        try:
            return await awaitable
        except redis_errors.RedisError as e:
            raise StoreError(f"redis store {self.where}: {operation} failed: {e}") from e

    @asynccontextmanager
    async def lock(self, session_id: str) -> AsyncIterator[None]:
        async with self._local.hold(session_id):
            key = self._key("lock", session_id)
            token = await self._acquire(key, session_id)
            self._held[session_id] = token
            # The lease is renewed by a timer of the event loop, not by a task started for every call: nearly
            # every call ends long before its first renewal is due, and arming and cancelling a timer costs a
            # small fraction of a task group with a task in it.
            renewal = _Renewal(lambda: self._extend(key, token, session_id), self.lease_s / 3)
            try:
                yield
            finally:
                renewal.cancel()
                self._held.pop(session_id, None)
                self._known.pop(session_id, None)
                # Freed by the last commit already (which saved the round trip of this release).
                released = session_id in self._released
                self._released.discard(session_id)
                if not released:
                    with anyio.CancelScope(shield=True):
                        try:
                            await self._release(keys=[key], args=[token])
                        except redis_errors.RedisError as e:
                            # The lease frees it anyway; the next caller waits at most that long.
                            logger.warning(
                                "redis store %s: releasing the lock of %r failed: %s", self.where, session_id, e
                            )

    async def _acquire(self, key: str, session_id: str) -> bytes:
        """Take the lock (waiting for it), reading the session in the same round trip."""
        token = secrets.token_hex(16).encode()
        lease_ms = int(self.lease_s * 1000)
        deadline = anyio.current_time() + self.wait_s
        delay = 0.002
        keys = [key, self._key("session", session_id), self._key("events", session_id)]
        while True:
            taken = await self._io(
                f"locking session {session_id!r}",
                self._acquire_script(keys=keys, args=[token, lease_ms, max(self.prefetch_events, 1)]),
            )
            if taken:
                found, record, events = taken
                # Fewer events than asked for: that is the whole log.
                complete = len(events) < max(self.prefetch_events, 1)
                self._known[session_id] = (
                    _Known(record, self._newest(events), complete) if found else _Known(None, [], True)
                )
                return token
            if anyio.current_time() >= deadline:
                raise StoreError(
                    f"redis store {self.where}: session {session_id!r} stayed locked by another call for "
                    f"{self.wait_s:g}s; gave up waiting"
                )
            await anyio.sleep(delay)
            delay = min(delay * 2, 0.05)

    async def _extend(self, key: str, token: bytes, session_id: str) -> bool:
        """Extend the lease of the lock held with `token`; False once it is lost (no more renewals)."""
        if session_id in self._released:
            return False  # freed with the last commit: nothing to keep alive
        try:
            held = await self._redis.eval(_EXTEND, 1, key, token, int(self.lease_s * 1000))
        except redis_errors.RedisError as e:
            logger.warning("redis store %s: extending the lock of %r failed: %s", self.where, session_id, e)
            return True  # tried again at the next renewal, while the lease still runs
        if not held:
            # Writes are fenced, so a holder that lost its lease fails its commit instead of clobbering.
            logger.warning("redis store %s: lost the lock of session %r (lease expired)", self.where, session_id)
        return bool(held)

    async def _write(self, session_id: str, operation: str, commands: builtins.list[_Command]) -> builtins.list[Any]:
        """Run `commands` all or none, fenced by this process's lock token when it holds one."""
        if session_id in self._released:
            # Unfenced, it could overwrite another process's newer commit: refuse, naming the misuse.
            raise StoreError(
                f"redis store {self.where}: {operation} refused: the lock of session {session_id!r} was "
                "released with its last commit (commit(..., last=True)); write before that commit"
            )
        token = self._held.get(session_id)
        lock_key = self._key("lock", session_id)
        arguments: builtins.list[str | bytes | int] = []
        for command in commands:
            arguments += [len(command), *command]
        if token is not None and len(arguments) <= _SCRIPT_ARGUMENTS:
            results = await self._io(operation, self._fenced(keys=[lock_key], args=[token, *arguments]))
            if results is None:
                raise self._expired(session_id, operation)
            return list(results)
        for _ in range(10):
            try:
                async with self._redis.pipeline(transaction=True) as pipe:
                    if token is not None:
                        await pipe.watch(lock_key)
                        if await pipe.get(lock_key) != token:
                            raise self._expired(session_id, operation)
                        pipe.multi()  # type: ignore[no-untyped-call]
                    for command in commands:
                        pipe.execute_command(*command)
                    result: list[Any] = await pipe.execute()
                    return result
            except redis_errors.WatchError:
                continue  # the keep-alive touched the lock key between WATCH and EXEC: check again
            except redis_errors.RedisError as e:
                raise StoreError(f"redis store {self.where}: {operation} failed: {e}") from e
        raise StoreError(f"redis store {self.where}: {operation} failed: the lock key kept changing")

    def _expired(self, session_id: str, operation: str) -> StoreError:
        return StoreError(
            f"redis store {self.where}: {operation} refused: the lock of session "
            f"{session_id!r} expired while held (the call took over {self.lease_s:g}s)"
        )

    def _newest(self, events: Sequence[Event | bytes | str]) -> builtins.list[Event | bytes | str]:
        """The events a lock holder keeps: the newest `prefetch_events` of `events`, oldest first."""
        return list(events[len(events) - self.prefetch_events :]) if self.prefetch_events else []

    async def get(self, session_id: str) -> SessionRecord | None:
        if (known := self._known.get(session_id)) is not None:
            return known.parsed_record()
        body = await self._io(f"reading session {session_id!r}", self._redis.get(self._key("session", session_id)))
        return None if body is None else SessionRecord.model_validate_json(body)

    async def list(self) -> builtins.list[SessionRecord]:
        ids = sorted(await self._io("listing sessions", self._redis.smembers(self._key("sessions"))))
        records: list[SessionRecord] = []
        for start in range(0, len(ids), 500):
            keys = [self._key("session", _text(raw)) for raw in ids[start : start + 500]]
            bodies = await self._io("listing sessions", self._redis.mget(keys))
            # An id whose record is gone (deleted between the two reads) is skipped.
            records += [SessionRecord.model_validate_json(body) for body in bodies if body is not None]
        return records

    async def count(self) -> int:
        return int(await self._io("counting sessions", self._redis.scard(self._key("sessions"))))

    async def put(self, record: SessionRecord, events: builtins.list[Event] | None = None) -> None:
        commands: list[_Command] = [
            ("SET", self._key("session", record.id), record.model_dump_json()),
            ("SADD", self._key("sessions"), record.id),
        ]
        if events is not None:
            commands.append(("DEL", self._key("events", record.id)))
            if events:
                commands.append(
                    ("RPUSH", self._key("events", record.id), *(event.model_dump_json() for event in events))
                )
        await self._write(record.id, f"saving session {record.id!r}", commands)
        if (known := self._known.get(record.id)) is not None:
            known.record = record
            if events is not None:
                known.events, known.complete = self._newest(events), len(events) <= self.prefetch_events

    async def commit(self, record: SessionRecord, event: Event, *, last: bool = False) -> None:
        commands: list[_Command] = [
            ("SET", self._key("session", record.id), record.model_dump_json()),
            ("RPUSH", self._key("events", record.id), event.model_dump_json()),
            ("SADD", self._key("sessions"), record.id),
        ]
        release = last and record.id in self._held
        if release:
            # In the fenced script, after the token's check: the release costs no round trip of its own.
            commands.append(("DEL", self._key("lock", record.id)))
        await self._write(record.id, f"committing event {event.seq} of session {record.id!r}", commands)
        if release:
            # Another process may write the session from now on: nothing read under the lock holds any more.
            self._released.add(record.id)
            self._known.pop(record.id, None)
            return
        if (known := self._known.get(record.id)) is not None:
            known.record = record
            known.events.append(event)
            if len(known.events) > self.prefetch_events:
                known.events, known.complete = self._newest(known.events), False

    async def events(self, session_id: str, *, last: int | None = None) -> builtins.list[Event]:
        if last is not None and last <= 0:
            return []
        known = self._known.get(session_id)
        if known is not None and (known.complete or (last is not None and last <= len(known.events))):
            return known.parsed_events(last)
        start = 0 if last is None else -last
        bodies = await self._io(
            f"reading the events of session {session_id!r}",
            self._redis.lrange(self._key("events", session_id), start, -1),
        )
        return [Event.model_validate_json(body) for body in bodies]

    async def delete(self, session_id: str) -> bool:
        commands: list[_Command] = [
            ("DEL", self._key("session", session_id)),
            ("DEL", self._key("events", session_id)),
            ("SREM", self._key("sessions"), session_id),
        ]
        results = await self._write(session_id, f"deleting session {session_id!r}", commands)
        if session_id in self._known:
            self._known[session_id] = _Known(None, [], True)
        return bool(results[0])

    async def get_meta(self, key: str) -> dict[str, Any] | None:
        return decode_meta(await self._io(f"reading meta {key!r}", self._redis.get(self._key("meta", key))))

    async def put_meta(self, key: str, value: dict[str, Any]) -> None:
        body = encode_meta(value)
        await self._io(f"saving meta {key!r}", self._redis.set(self._key("meta", key), body))

    async def aclose(self) -> None:
        await self._redis.aclose()


class _Renewal:
    """Runs `extend` every `every_s` seconds until cancelled or until it returns False: a timer of the event
    loop, with a task only while a renewal is under way."""

    def __init__(self, extend: Callable[[], Awaitable[bool]], every_s: float) -> None:
        self._extend = extend
        self._every_s = every_s
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = self._loop.call_later(every_s, self._due)
        self._task: asyncio.Task[None] | None = None

    def _due(self) -> None:
        self._timer = None
        self._task = self._loop.create_task(self._renew())

    async def _renew(self) -> None:
        if await self._extend():
            self._timer = self._loop.call_later(self._every_s, self._due)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()


@dataclass(slots=True)
class _Known:
    """A session as this process knows it while it holds the session's lock: its record (None: there is none)
    and its newest events, oldest first, each parsed when first asked for (`complete`: the whole log)."""

    record: SessionRecord | bytes | str | None
    events: builtins.list[Event | bytes | str]
    complete: bool

    def parsed_record(self) -> SessionRecord | None:
        if isinstance(self.record, bytes | str):
            self.record = SessionRecord.model_validate_json(self.record)
        return self.record

    def parsed_events(self, last: int | None) -> builtins.list[Event]:
        start = 0 if last is None else max(len(self.events) - last, 0)
        for index in range(start, len(self.events)):
            if isinstance(body := self.events[index], bytes | str):
                self.events[index] = Event.model_validate_json(body)
        return [event for event in self.events[start:] if isinstance(event, Event)]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def redacted(url: str) -> str:
    """`url` with any password replaced by `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def _lease(url: str, parts: SplitResult) -> tuple[str, float]:
    """`?lease_s=SECONDS` of a Redis URL (how long a lock outlives a process that died holding it; default
    30), and the URL without it (the rest of the query goes to redis-py)."""
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = [value for key, value in query if key == "lease_s"]
    if not given:
        return url, 30.0
    try:
        lease = float(given[-1])
    except ValueError:
        lease = 0.0
    if not lease > 0:
        raise bad_store_url(url, f"lease_s: expected seconds above 0, got {given[-1]!r}")
    rest = urlencode([(key, value) for key, value in query if key != "lease_s"])
    return parts._replace(query=rest).geturl(), lease
