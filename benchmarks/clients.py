"""Load generators: the SDK `Client` (what agents and harnesses use) and the lean client of `wire.py`
(2026-07-28 era JSON-RPC, for loads the SDK client is too heavy to drive from 2 cores).

Every load runs a warm-up call per client first (connect, handshake or discover, the tool listing the
SDK client fetches to check results), then starts all clients at once and times only their calls.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import StdioServerParameters
from mcp.client import Client
from mcp_types import CallToolResult

from benchmarks.report import percentile
from benchmarks.servers import children_of, cpu_seconds
from benchmarks.wire import CallFailed, Connection

# (tool name, arguments) of the i-th call a client makes.
CallPlan = Callable[[int], tuple[str, dict[str, Any]]]


@dataclass
class LoadResult:
    """Per-call latencies (seconds) and totals of one timed load."""

    latencies: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    client_cpu_s: float = 0.0
    server_cpu_s: float = 0.0

    @property
    def calls(self) -> int:
        return len(self.latencies)

    @property
    def calls_per_s(self) -> float:
        return self.calls / self.wall_s if self.wall_s > 0 else 0.0

    def percentile(self, q: float) -> float:
        return percentile(self.latencies, q)

    def error(self, message: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(message[:300])


class _Timer:
    """Wall and CPU time (this process and the server's) around the timed part of a load."""

    def __init__(self, result: LoadResult, server_pid: int | None) -> None:
        self.result = result
        self.server_pid = server_pid
        self._wall = self._cpu = self._server = 0.0

    def start(self) -> None:
        self._wall = time.perf_counter()
        self._cpu = time.process_time()
        self._server = cpu_seconds(self.server_pid) if self.server_pid else 0.0

    def stop(self) -> None:
        self.result.wall_s = time.perf_counter() - self._wall
        self.result.client_cpu_s = time.process_time() - self._cpu
        if self.server_pid:
            self.result.server_cpu_s = cpu_seconds(self.server_pid) - self._server

    def __enter__(self) -> None:
        self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _check(result: LoadResult, outcome: CallToolResult) -> None:
    if outcome.is_error:
        text = getattr(outcome.content[0], "text", "") if outcome.content else ""
        result.error(f"is_error: {text}")


async def sdk_http_load(
    mcp_url: str,
    *,
    mode: str,
    clients: int,
    calls: int,
    plan: CallPlan,
    session_prefix: str,
    server_pid: int | None,
) -> LoadResult:
    """`clients` SDK clients, each its own session on `mcp_url`, each making `calls` calls in turn."""
    result = LoadResult()
    timer = _Timer(result, server_pid)
    connected, finished = _Countdown(clients), _Countdown(clients)
    go = anyio.Event()

    async def one(index: int) -> None:
        url = f"{mcp_url}?session={session_prefix}-{index}"
        async with Client(url, mode=mode) as client:
            name, arguments = plan(0)
            _check(result, await client.call_tool(name, arguments))
            connected.done()
            await go.wait()
            for i in range(1, calls + 1):
                name, arguments = plan(i)
                started = time.perf_counter()
                outcome = await client.call_tool(name, arguments)
                result.latencies.append(time.perf_counter() - started)
                _check(result, outcome)
            finished.done()
            # Closing the connections (legacy: DELETE of the session) is not part of the timing.

    async with anyio.create_task_group() as tasks:
        for index in range(clients):
            tasks.start_soon(one, index)
        await connected.wait()
        timer.start()
        go.set()
        await finished.wait()
        timer.stop()
    return result


class _Countdown:
    """An event set once `count` tasks have called `done()`."""

    def __init__(self, count: int) -> None:
        self._left = count
        self._event = anyio.Event()

    def done(self) -> None:
        self._left -= 1
        if self._left <= 0:
            self._event.set()

    async def wait(self) -> None:
        await self._event.wait()


async def sdk_stdio_load(
    parameters: StdioServerParameters, *, concurrency: int, calls: int, plan: CallPlan
) -> LoadResult:
    """One SDK client over stdio (the server is its subprocess: one process, one session) with
    `concurrency` calls in flight, `calls` calls per in-flight slot."""
    result = LoadResult()
    before = set(children_of(os.getpid()))
    async with Client(parameters) as client:
        name, arguments = plan(0)
        _check(result, await client.call_tool(name, arguments))
        spawned = set(children_of(os.getpid())) - before
        server_pid = spawned.pop() if len(spawned) == 1 else None

        async def lane(lane_index: int) -> None:
            for i in range(1, calls + 1):
                name, arguments = plan(lane_index * calls + i)
                started = time.perf_counter()
                outcome = await client.call_tool(name, arguments)
                result.latencies.append(time.perf_counter() - started)
                _check(result, outcome)

        with _Timer(result, server_pid):
            async with anyio.create_task_group() as tasks:
                for lane_index in range(concurrency):
                    tasks.start_soon(lane, lane_index)
    return result


async def lean_http_load(
    base_url: str,
    *,
    path: str,
    clients: int,
    calls: int,
    plan: CallPlan,
    session_prefix: str,
    server_pid: int | None,
) -> LoadResult:
    """Like `sdk_http_load`, through the lean client (`wire.Connection`, 2026-07-28 era only): one
    connection per client."""
    result = LoadResult()
    connections = [Connection(base_url) for _ in range(clients)]
    try:

        async def warm(index: int) -> None:
            name, arguments = plan(0)
            await _lean_call(
                connections[index], result, path, f"{session_prefix}-{index}", name, arguments, timed=False
            )

        async def one(index: int) -> None:
            for i in range(1, calls + 1):
                name, arguments = plan(i)
                await _lean_call(
                    connections[index], result, path, f"{session_prefix}-{index}", name, arguments, timed=True
                )

        async with anyio.create_task_group() as tasks:
            for index in range(clients):
                tasks.start_soon(warm, index)
        with _Timer(result, server_pid):
            async with anyio.create_task_group() as tasks:
                for index in range(clients):
                    tasks.start_soon(one, index)
    finally:
        for connection in connections:
            await connection.aclose()
    return result


async def _lean_call(
    connection: Connection,
    result: LoadResult,
    path: str,
    session: str,
    tool: str,
    arguments: dict[str, Any],
    *,
    timed: bool,
) -> None:
    started = time.perf_counter()
    try:
        outcome = await connection.call(path, session, tool, arguments)
    except CallFailed as e:
        result.error(str(e))
        return
    if timed:
        result.latencies.append(time.perf_counter() - started)
    if outcome.get("isError"):
        result.error(f"is_error: {json.dumps(outcome)[:200]}")
