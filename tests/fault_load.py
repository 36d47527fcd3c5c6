"""The load, the checks and the durable Redis fixture of the fault tests (tests/test_fault_kill.py and
tests/test_fault_redis_restart.py).

Clients keep calling `create_ticket` in several sessions at once, each call with a title of its own; a call
is acknowledged when its result came back. After the faults, the final state holds every acknowledged
ticket, each once; no title is in the state or the event log twice; state and event log agree (a call cut
off by the fault is in both or in neither). `SIM_MCP_FAULT_CALLS` sets the acknowledged calls between
faults (default 30, sized for CI); `benchmarks/reliability.py` runs more and writes RELIABILITY.md.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.fixtures_redis import require_redis_server
from tests.helpers_server import RedisServer, ticket
from tests.jsonrpc_corpus import MODERN_VERSION, call
from tests.servers import BUNDLED_SPECS, ServerProcess, free_port, serve_command

CALLS_BETWEEN_FAULTS = int(os.environ.get("SIM_MCP_FAULT_CALLS", "30"))
SESSIONS = 6
_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": "tools/call",
    "mcp-name": "create_ticket",
}


@dataclass
class Load:
    """Clients calling `create_ticket` in `SESSIONS` sessions, one call in flight each, until stopped."""

    base: str
    acknowledged: dict[str, dict[str, str]] = field(default_factory=dict)  # session -> title -> ticket id
    failed: int = 0
    stopped: anyio.Event = field(default_factory=anyio.Event)
    acked: anyio.Event = field(default_factory=anyio.Event)  # set (and replaced) at each acknowledged call

    @property
    def count(self) -> int:
        return sum(len(titles) for titles in self.acknowledged.values())

    async def run(self) -> None:
        async with anyio.create_task_group() as tasks:
            for n in range(SESSIONS):
                tasks.start_soon(self._client, f"load-{n}")

    async def _client(self, session: str) -> None:
        titles = self.acknowledged.setdefault(session, {})
        async with httpx.AsyncClient(timeout=15) as http:
            n = 0
            while not self.stopped.is_set():
                arguments = {**ticket(n), "title": f"{session} call {n}"}
                n += 1
                try:
                    response = await http.post(
                        f"{self.base}/mcp/tickets?session={session}",
                        json=call(arguments, name="create_ticket", id=n),
                        headers=_HEADERS,
                    )
                    result = response.json().get("result") if response.status_code == 200 else None
                except (httpx.HTTPError, ValueError):
                    result = None
                if result is None or result.get("isError"):
                    self.failed += 1
                    await anyio.sleep(0.05)  # the server or its store is down: try again shortly
                    continue
                titles[arguments["title"]] = result["structuredContent"]["id"]
                self.acked.set()
                self.acked = anyio.Event()

    async def until(self, count: int) -> None:
        """Wait until `count` calls in all were acknowledged (two minutes at most)."""
        with anyio.fail_after(120):
            while self.count < count:
                await self.acked.wait()


class Server:
    """`sim-mcp serve` on one port for the whole test, restarted after each kill -9."""

    def __init__(self, tmp_path: Path, store: str) -> None:
        self.tmp_path = tmp_path
        self.port = free_port()
        self.command = serve_command("--port", str(self.port), "--specs", str(BUNDLED_SPECS), "--log-level", "WARNING")
        self.command += ["--store", store, "--no-watch"]
        self.process: ServerProcess | None = None
        self.base = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = self.tmp_path / f"server-{time.monotonic_ns()}.log"
        self.process = ServerProcess(self.command, self.port, log, env=dict(os.environ))
        self.process.wait_ready()

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


def check_final_state(base: str, load: Load) -> dict[str, int]:
    """Every acknowledged call in the final state, none twice, state and events in agreement; the figures."""
    found = duplicates = committed_unacknowledged = 0
    with httpx.Client(base_url=base, timeout=30) as http:
        for session, acknowledged in load.acknowledged.items():
            record = http.get(f"/sessions/{session}")
            assert record.status_code == 200, record.text
            tickets: dict[str, Any] = record.json()["state"]["tickets"]
            events = http.get(f"/sessions/{session}/events").json()["events"]
            state_titles = Counter(
                ticket["title"] for ticket in tickets.values() if ticket["title"].startswith(session)
            )
            event_titles = Counter(event["arguments"]["title"] for event in events if not event["is_error"])
            duplicates += sum(count - 1 for count in [*state_titles.values(), *event_titles.values()] if count > 1)
            assert all(count == 1 for count in state_titles.values()), state_titles.most_common(3)
            assert all(count == 1 for count in event_titles.values()), event_titles.most_common(3)
            assert set(state_titles) == set(event_titles), "state and event log disagree"
            assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
            for title, ticket_id in acknowledged.items():
                assert tickets.get(ticket_id, {}).get("title") == title, (session, title, ticket_id)
                found += 1
            committed_unacknowledged += len(set(state_titles) - set(acknowledged))
    return {
        "acknowledged": load.count,
        "found": found,
        "duplicates": duplicates,
        "committed, not acknowledged (cut off by a fault)": committed_unacknowledged,
        "failed attempts (server or store down)": load.failed,
    }


async def run_with_faults(server: Server, faults: list[Callable[[], None]]) -> Load:
    """Load the server; after every `CALLS_BETWEEN_FAULTS` acknowledged calls, one fault; then as many more."""
    load = Load(server.base)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(load.run)
        for n, fault in enumerate(faults, start=1):
            await load.until(n * CALLS_BETWEEN_FAULTS)
            await anyio.to_thread.run_sync(fault)
        await load.until((len(faults) + 1) * CALLS_BETWEEN_FAULTS)
        load.stopped.set()
    return load


@contextmanager
def serving(tmp_path: Path, store: str) -> Iterator[Server]:
    server = Server(tmp_path, store)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def kill_and_restart(server: Server) -> Callable[[], None]:
    def fault() -> None:
        server.kill()
        server.start()

    return fault


@pytest.fixture
def durable_redis(tmp_path: Path) -> Iterator[RedisServer]:
    require_redis_server()
    folder = tmp_path / "redis"
    folder.mkdir()
    redis = RedisServer(folder, durable=True)
    try:
        yield redis
    finally:
        redis.stop()
