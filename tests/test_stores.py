"""Session stores: one contract on memory, SQLite and Redis; SQLite across kill -9; Redis across two replicas."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio
import anyio.lowlevel
import httpx
import pytest
from redis.asyncio import Redis

from sim_mcp.config import Settings
from sim_mcp.errors import ConfigError, StoreError
from sim_mcp.plugins import STORES as STORE_TABLE
from sim_mcp.runtime import Runtime
from sim_mcp.state.session import Event, SessionRecord
from sim_mcp.state.stores import SessionStore, open_store
from sim_mcp.state.stores.redis import RedisStore, redacted
from tests.helpers_server import mcp_client, ticket
from tests.servers import BUNDLED_SPECS, ServerProcess, free_port, serve_command

pytest_plugins = ["tests.fixtures_redis"]

# Every store of the table of stores, but the Redis store over TLS (the same store; no TLS server here).
STORES = [name for name in STORE_TABLE.builtin() if name != "rediss"]


def store_url(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    match kind:
        case "memory":
            return "memory"
        case "sqlite":
            return f"sqlite:///{tmp_path / 'sessions.db'}"
        case "redis":
            return str(request.getfixturevalue("redis_url"))
    raise AssertionError(f"store {kind!r} is in the table of stores: give it a URL here, to test it as the others")


@pytest.fixture(params=STORES)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionStore]:
    opened = open_store(store_url(request.param, request, tmp_path))
    await opened.start()
    try:
        yield opened
    finally:
        await opened.aclose()


@pytest.fixture(params=STORES)
async def runtime(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Runtime]:
    settings = Settings(specs=[BUNDLED_SPECS], store=store_url(request.param, request, tmp_path))
    async with Runtime(settings) as opened:
        yield opened


def event(seq: int, tool: str = "create_ticket") -> Event:
    return Event(
        seq=seq, at=time.time(), environment="tickets", tool=tool, arguments={"n": seq}, result={"ok": seq},
        is_error=False, backend="offline",
    )  # fmt: skip


# The contract, on every store.


async def test_records_and_event_logs_round_trip(store: SessionStore) -> None:
    record = SessionRecord(id="s-1", environment="tickets", worlds={"tickets": {"tickets": {}}})
    await store.put(record, [])
    assert await store.get("s-1") == record
    assert await store.get("missing") is None
    assert await store.count() == 1

    for seq in (1, 2, 3):
        record = record.model_copy(update={"event_count": seq})
        await store.commit(record, event(seq))
    assert (await store.get("s-1")) == record
    assert [e.seq for e in await store.events("s-1")] == [1, 2, 3]
    assert [e.seq for e in await store.events("s-1", last=2)] == [2, 3]
    assert await store.events("s-1", last=0) == []
    assert await store.events("missing") == []
    assert (await store.events("s-1"))[0] == event(1).model_copy(update={"at": (await store.events("s-1"))[0].at})

    await store.put(record)  # no events given: the log stays
    assert len(await store.events("s-1")) == 3
    await store.put(record, [event(1)])  # events given: the log is replaced
    assert [e.seq for e in await store.events("s-1")] == [1]

    await store.put(SessionRecord(id="s-2"))
    assert sorted(r.id for r in await store.list()) == ["s-1", "s-2"]
    assert await store.delete("s-1") is True
    assert await store.delete("s-1") is False
    assert await store.get("s-1") is None
    assert await store.events("s-1") == []
    assert await store.count() == 1


async def test_lock_serializes_read_modify_write(store: SessionStore) -> None:
    await store.put(SessionRecord(id="busy"), [])

    async def increment() -> None:
        async with store.lock("busy"):
            record = await store.get("busy")
            assert record is not None
            await anyio.lowlevel.checkpoint()  # let the others try to get in
            updated = record.model_copy(update={"event_count": record.event_count + 1})
            await store.commit(updated, event(updated.event_count))

    async with anyio.create_task_group() as tasks:
        for _ in range(20):
            tasks.start_soon(increment)
    record = await store.get("busy")
    assert record is not None
    assert record.event_count == 20
    assert [e.seq for e in await store.events("busy")] == list(range(1, 21))


async def test_session_operations_behave_the_same(runtime: Runtime) -> None:
    sessions, simulator = runtime.sessions, runtime.simulator
    created = await sessions.create(env="tickets", state={"tickets": {"T-1001": None}})
    assert "T-1001" not in sessions.state_of(created)["tickets"]

    first = await simulator.call(created.id, "create_ticket", ticket(1))
    assert not first.is_error
    await sessions.snapshot(created.id, "after-one")
    second = await simulator.call(created.id, "create_ticket", ticket(2))
    assert first.result["id"] != second.result["id"]

    fork = await sessions.fork(created.id)
    in_fork = await simulator.call(fork.id, "create_ticket", ticket(3))
    parent = await sessions.get(created.id)
    assert in_fork.result["id"] not in sessions.state_of(parent)["tickets"]
    assert parent.event_count == 2
    assert (await sessions.get(fork.id)).event_count == 3

    restored = await sessions.reset(created.id, snapshot="after-one")
    assert set(sessions.state_of(restored)["tickets"]) >= {first.result["id"]}
    assert second.result["id"] not in sessions.state_of(restored)["tickets"]
    assert [e.seq for e in await sessions.events(created.id)] == [1]

    again = await sessions.reset(created.id)
    assert again.event_count == 0
    assert await sessions.events(created.id) == []
    assert "T-1001" not in sessions.state_of(again)["tickets"]  # the creation state, not the spec's
    assert sessions.state_of(again)["tickets"].keys() == sessions.state_of(created)["tickets"].keys()

    await sessions.delete(fork.id)
    assert sorted(r.id for r in await sessions.list()) == [created.id]


async def test_concurrent_calls_to_one_session_apply_once_each(runtime: Runtime) -> None:
    results: list[str] = []

    async def create(n: int) -> None:
        outcome = await runtime.simulator.call("crowded", "create_ticket", ticket(n))
        assert not outcome.is_error, outcome.result
        results.append(outcome.result["id"])

    async with anyio.create_task_group() as tasks:
        for n in range(50):
            tasks.start_soon(create, n)
    assert len(set(results)) == 50
    events = await runtime.store.events("crowded")
    assert [e.seq for e in events] == list(range(1, 51))
    state = runtime.sessions.state_of(await runtime.sessions.get("crowded"))
    assert set(results) <= set(state["tickets"]["tickets"])  # an unbound session: state by environment


# Choosing a store.


@pytest.mark.parametrize(
    "url",
    ["sqlite://", "sqlite:///", "sqlite:///x.db?mode=ro", "redis://", "redis://host:port/0", "redis://h:1/db",
     "postgres://localhost/x", "mem", "redis://h:1/0?lease_s=0", "redis://h:1/0?lease_s=soon"],
)  # fmt: skip
def test_bad_store_urls_name_the_setting(url: str) -> None:
    with pytest.raises(ConfigError, match=r"--store / SIM_MCP_STORE"):
        open_store(url)


def test_store_urls_pick_the_store(tmp_path: Path) -> None:
    assert open_store("memory").name == "memory"
    assert open_store(f"sqlite:///{tmp_path / 'a.db'}").name == "sqlite"
    assert open_store("redis://127.0.0.1:6379/0").name == "redis"
    leased = open_store("redis://127.0.0.1:6379/0?lease_s=2.5")
    assert isinstance(leased, RedisStore)
    assert (leased.url, leased.lease_s) == ("redis://127.0.0.1:6379/0", 2.5)
    assert redacted("redis://user:hunter2@host:1/0") == "redis://user:***@host:1/0"


async def test_unreachable_redis_fails_at_start_naming_the_url() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(StoreError, match=rf"redis store {url}: cannot reach the server"):
        async with Runtime(Settings(specs=[BUNDLED_SPECS], store=url)):
            pass


def test_serve_refuses_to_start_on_an_unreachable_redis() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    command = serve_command("--port", str(free_port()), "--specs", str(BUNDLED_SPECS), "--store", url)
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert f"sim-mcp: error: redis store {url}: cannot reach the server (--store / SIM_MCP_STORE)" in done.stderr
    assert "Traceback" not in done.stderr


async def test_unwritable_sqlite_path_fails_at_start(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreError, match=r"cannot open the database"):
        async with Runtime(Settings(specs=[BUNDLED_SPECS], store=f"sqlite:///{blocker / 'x.db'}")):
            pass


# SQLite: what was acknowledged survives kill -9.


async def test_sqlite_keeps_acknowledged_calls_across_kill_9(tmp_path: Path) -> None:
    database = tmp_path / "sessions.db"

    def start() -> ServerProcess:
        port = free_port()
        command = serve_command("--port", str(port), "--specs", str(BUNDLED_SPECS), "--log-level", "WARNING")
        command += ["--store", f"sqlite:///{database}"]
        server = ServerProcess(command, port, tmp_path / f"server-{port}.log", env=dict(os.environ))
        server.wait_ready()
        return server

    server = start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            created = (await http.post("/sessions", json={"env": "tickets"})).json()
        ids = []
        async with mcp_client(created["mcp_url"]) as client:
            for n in range(20):
                result = await client.call_tool("create_ticket", ticket(n))
                assert not result.is_error
                assert result.structured_content is not None
                ids.append(result.structured_content["id"])
    finally:
        server.kill()

    server = start()
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            session = (await http.get(f"/sessions/{created['id']}")).json()
            events = (await http.get(f"/sessions/{created['id']}/events")).json()["events"]
        assert session["events"] == 20
        assert set(ids) <= set(session["state"]["tickets"])
        assert [e["seq"] for e in events] == list(range(1, 21))
        assert [e["result"]["id"] for e in events] == ids
    finally:
        server.stop()


# Redis: leases, fencing, and two replicas sharing sessions.


async def test_redis_lock_outlives_its_lease_while_held_and_frees_after_a_crash(redis_url: str) -> None:
    store = RedisStore(redis_url, lease_s=0.3)
    raw = Redis.from_url(redis_url)
    try:
        await store.put(SessionRecord(id="slow"), [])
        async with store.lock("slow"):
            await anyio.sleep(1.0)  # three leases: the holder keeps extending it
            await store.commit(SessionRecord(id="slow", event_count=1), event(1))

        # A holder that died: its lock is just a key with a lease; the next caller gets in after it.
        await raw.set(f"{store.prefix}:lock:slow", b"dead-holder", px=300)
        with anyio.fail_after(5):
            async with store.lock("slow"):
                pass
    finally:
        await raw.aclose()
        await store.aclose()


async def test_redis_writes_are_fenced_by_the_lock(redis_url: str) -> None:
    store = RedisStore(redis_url)
    raw = Redis.from_url(redis_url)
    try:
        await store.put(SessionRecord(id="fenced"), [])
        async with store.lock("fenced"):
            await raw.delete(f"{store.prefix}:lock:fenced")  # as if the lease ran out
            await raw.set(f"{store.prefix}:lock:fenced", b"someone-else")
            with pytest.raises(StoreError, match="expired while held"):
                await store.commit(SessionRecord(id="fenced", event_count=1), event(1))
        assert await store.events("fenced") == []
    finally:
        await raw.aclose()
        await store.aclose()


@pytest.mark.parametrize("events", [3, 2_500])
async def test_redis_fenced_writes_large_and_small(redis_url: str, events: int) -> None:
    """A fenced write of a few commands (one script) and one too large for a script (WATCH, MULTI/EXEC):
    both land whole while the lock is held, and both are refused once another holds it."""
    store = RedisStore(redis_url)
    raw = Redis.from_url(redis_url)
    log = [event(n) for n in range(1, events + 1)]
    try:
        async with store.lock("big"):
            await store.put(SessionRecord(id="big", event_count=events), log)
            assert [e.seq for e in await store.events("big")] == list(range(1, events + 1))
            await raw.set(f"{store.prefix}:lock:big", b"someone-else")
            with pytest.raises(StoreError, match="expired while held"):
                await store.put(SessionRecord(id="big"), log[:-1])
        assert len(await store.events("big")) == events
    finally:
        await store.delete("big")
        await raw.aclose()
        await store.aclose()


async def client_commands(raw: Redis, during: Callable[[], Awaitable[None]]) -> list[str]:
    """The commands clients send Redis while `during` runs: not what a script runs, nor a new connection's
    handshake (MONITOR sees both)."""
    seen: list[str] = []
    async with raw.monitor() as monitor:

        async def watch() -> None:
            while (command := await monitor.next_command())["command"] != "ECHO watched":
                if command["client_type"] != "lua" and not command["command"].startswith("HELLO"):
                    seen.append(command["command"].split(" ", 1)[0].upper())

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(watch)
            await anyio.sleep(0.2)
            await during()
            await raw.echo("watched")
    return seen


async def test_a_redis_call_takes_three_round_trips_and_reads_under_the_lock_follow_its_writes(redis_url: str) -> None:
    """Taking the lock reads the record and the newest events (one script); reads under the lock are answered
    from them and from this replica's own writes; the next holder, on another replica, sees those writes."""
    store, other = RedisStore(redis_url, prefetch_events=8), RedisStore(redis_url)  # two replicas
    raw = Redis.from_url(redis_url)
    try:
        await other.put(SessionRecord(id="trips", event_count=10), [event(n) for n in range(1, 11)])
        async with store.lock("warm-up"):  # the connection made and the scripts loaded before counting
            await store.commit(SessionRecord(id="warm-up", event_count=1), event(1))

        async def one_call() -> None:
            async with store.lock("trips"):  # one call, as the simulator makes it
                record = await store.get("trips")
                assert record is not None
                assert record.event_count == 10
                assert [e.seq for e in await store.events("trips", last=4)] == [7, 8, 9, 10]
                await store.commit(record.model_copy(update={"event_count": 11}), event(11))

        seen = await client_commands(raw, one_call)
        assert seen == ["EVALSHA", "EVALSHA", "EVALSHA"], seen  # lock and read, commit, release

        async with store.lock("trips"):
            # Past the 8 events read with the lock, and the whole log: from Redis, with this replica's write.
            assert [e.seq for e in await store.events("trips", last=9)] == list(range(3, 12))
            assert [e.seq for e in await store.events("trips")] == list(range(1, 12))
            await store.commit(SessionRecord(id="trips", event_count=12), event(12))
            assert [e.seq for e in await store.events("trips", last=2)] == [11, 12]
            assert await store.delete("trips")
            assert await store.get("trips") is None
            assert await store.events("trips") == []
        async with other.lock("trips"):
            assert await other.get("trips") is None
            await other.put(SessionRecord(id="trips", event_count=1), [event(1)])
        async with store.lock("trips"):
            record = await store.get("trips")
            assert record is not None
            assert record.event_count == 1  # the other replica's write, not a cached one
            assert [e.seq for e in await store.events("trips")] == [1]
    finally:
        await store.delete("trips")
        await store.delete("warm-up")
        await raw.aclose()
        await store.aclose()
        await other.aclose()


async def test_a_redis_commit_that_is_the_last_write_frees_the_session_with_it(redis_url: str) -> None:
    """`commit(..., last=True)` deletes the lock in the fenced commit script: two round trips a call, another
    replica can take the session while this scope still runs, and this replica can write no more in it."""
    store, other = RedisStore(redis_url), RedisStore(redis_url, wait_s=1.0)  # two replicas
    raw = Redis.from_url(redis_url)
    try:
        await other.put(SessionRecord(id="last", event_count=1), [event(1)])
        async with store.lock("warm-up"):  # the connection made and the scripts loaded before counting
            await store.commit(SessionRecord(id="warm-up", event_count=1), event(1), last=True)

        async def last_commit() -> None:
            async with store.lock("last"):
                record = await store.get("last")
                assert record is not None
                await store.commit(record.model_copy(update={"event_count": 2}), event(2), last=True)
                assert await raw.exists(f"{store.prefix}:lock:last") == 0
                # Another replica gets in at once (`wait_s` is 1 s), while this scope still runs.
                async with other.lock("last"):
                    assert [e.seq for e in await other.events("last")] == [1, 2]
                    await other.commit(SessionRecord(id="last", event_count=3), event(3))
                # Reads here go to Redis again, not to what was read with the lock.
                assert [e.seq for e in await store.events("last")] == [1, 2, 3]
                with pytest.raises(StoreError, match="released with its last commit"):
                    await store.commit(SessionRecord(id="last", event_count=4), event(4))
                async with other.lock("last"):
                    pass
                await raw.set(f"{store.prefix}:lock:last", b"someone-else")

        seen = await client_commands(raw, last_commit)
        assert seen[:2] == ["EVALSHA", "EVALSHA"], seen  # lock and read, commit and release: no release after
        assert await raw.get(f"{store.prefix}:lock:last") == b"someone-else"  # leaving the scope freed nothing
        assert [e.seq for e in await store.events("last")] == [1, 2, 3]
    finally:
        await store.delete("last")
        await store.delete("warm-up")
        await raw.aclose()
        await store.aclose()
        await other.aclose()


@pytest.mark.parametrize("local", [True, False])
async def test_a_call_keeps_other_processes_out_until_a_subscriber_that_is_not_local_has_run(
    redis_url: str, local: bool
) -> None:
    """The simulator frees a Redis session with its commit only while every after-commit subscriber is `local`
    (its effects in this process); one that is not (a trajectory file) runs with the session still locked."""
    raw = Redis.from_url(redis_url)
    locked: list[int] = []

    async def subscriber(change: object) -> None:
        locked.append(int(await raw.exists("sim-mcp:lock:watched")))

    try:
        async with Runtime(Settings(specs=[BUNDLED_SPECS], store=redis_url)) as runtime:
            unsubscribe = runtime.hooks.subscribe(subscriber, local=local)
            assert runtime.hooks.needs_session_lock is not local
            for n in range(2):
                assert not (await runtime.simulator.call("watched", "create_ticket", ticket(n))).is_error
            unsubscribe()
            assert not runtime.hooks.needs_session_lock
            assert [e.seq for e in await runtime.store.events("watched")] == [1, 2]
        assert locked == ([0, 0] if local else [1, 1])
        assert await raw.exists("sim-mcp:lock:watched") == 0
    finally:
        await raw.aclose()


async def test_redis_sessions_beyond_the_connection_pool_wait_for_a_connection(redis_url: str) -> None:
    """More sessions at once than the pool has connections: they queue for one, none fails."""
    store = RedisStore(redis_url, max_connections=4)
    try:

        async def work(n: int) -> None:
            async with store.lock(f"crowd-{n}"):
                await store.put(SessionRecord(id=f"crowd-{n}"), [])
                await store.commit(SessionRecord(id=f"crowd-{n}", event_count=1), event(1))

        async with anyio.create_task_group() as tasks:
            for n in range(40):
                tasks.start_soon(work, n)
        for n in range(40):
            assert len(await store.events(f"crowd-{n}")) == 1
    finally:
        for n in range(40):
            await store.delete(f"crowd-{n}")
        await store.aclose()


async def test_two_replicas_on_redis_share_sessions_and_serialize_calls(tmp_path: Path, redis_url: str) -> None:
    replicas: list[ServerProcess] = []
    try:
        for _ in range(2):
            port = free_port()
            command = serve_command("--port", str(port), "--specs", str(BUNDLED_SPECS), "--log-level", "WARNING")
            command += ["--store", redis_url]
            replicas.append(ServerProcess(command, port, tmp_path / f"replica-{port}.log", env=dict(os.environ)))
        for replica in replicas:
            replica.wait_ready()
        async with httpx.AsyncClient(base_url=replicas[0].url) as http:
            session_id = (await http.post("/sessions", json={"env": "tickets"})).json()["id"]
        urls = [f"{replica.url}/mcp/tickets?session={session_id}" for replica in replicas]

        # Alternate: each replica sees what the other did.
        async with mcp_client(urls[0]) as first, mcp_client(urls[1], mode="legacy") as second:
            clients = [first, second]
            previous: str | None = None
            for n in range(6):
                client = clients[n % 2]
                if previous is not None:
                    seen = await client.call_tool("get_ticket", {"ticket_id": previous})
                    assert not seen.is_error, seen.content
                created = await client.call_tool("create_ticket", ticket(n))
                assert created.structured_content is not None
                previous = created.structured_content["id"]

            # 50 at once, spread over both: each applied exactly once, in some serial order.
            created_ids: list[str] = []

            async def create(n: int) -> None:
                result = await clients[n % 2].call_tool("create_ticket", ticket(100 + n))
                assert not result.is_error, result.content
                assert result.structured_content is not None
                created_ids.append(result.structured_content["id"])

            async with anyio.create_task_group() as tasks:
                for n in range(50):
                    tasks.start_soon(create, n)

        assert len(set(created_ids)) == 50
        async with httpx.AsyncClient(base_url=replicas[1].url) as http:
            session = (await http.get(f"/sessions/{session_id}")).json()
            events = (await http.get(f"/sessions/{session_id}/events")).json()["events"]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert len(events) == 5 + 6 + 50  # get_ticket, create_ticket, then the 50
        assert set(created_ids) <= set(session["state"]["tickets"])
        assert sorted(e["result"]["id"] for e in events[-50:]) == sorted(created_ids)
    finally:
        for replica in replicas:
            replica.stop()
