"""`sim-mcp serve --workers N` (SIM_MCP_WORKERS): N processes on one port, sessions shared through Redis.

Through the real command, a real `redis-server` and SDK clients: calls of one session arriving at both
workers at once are each applied exactly once, in some order, never interleaved.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.servers import BUNDLED_SPECS, READY_TIMEOUT, ServerProcess, free_port, serve_command

pytest_plugins = ["tests.fixtures_redis"]

INITIAL_TICKETS = 5


def workers_command(port: int, *args: str, log_level: str = "WARNING") -> list[str]:
    return serve_command(
        *("--transport", "http", "--host", "127.0.0.1", "--port", str(port), "--specs", str(BUNDLED_SPECS)),
        *("--log-level", log_level, *args),
    )


@pytest.fixture
def two_workers(redis_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    """Two workers, both started (each logs uvicorn's start-up line, then tells the supervisor it serves)."""
    port = free_port()
    env = {**os.environ, "SIM_MCP_WORKERS": "2", "SIM_MCP_STORE": redis_url}
    log = tmp_path / "workers.log"
    server = ServerProcess(workers_command(port, log_level="INFO"), port, log, env=env)
    try:
        server.wait_ready()
        deadline = time.monotonic() + READY_TIMEOUT
        while log.read_text().count("Application startup complete") < 2:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield server
    finally:
        server.stop()


def worker_pids(supervisor: int) -> list[int]:
    """The supervisor's worker processes: its children that listen (not multiprocessing's resource tracker)."""
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
    return [int(pid) for pid in children if "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text()]


@pytest.mark.parametrize("mode", ["legacy", "modern"])
async def test_one_session_across_two_workers_applies_every_call_once(two_workers: ServerProcess, mode: str) -> None:
    session = f"workers-{mode}-{uuid.uuid4().hex[:8]}"
    url = f"{two_workers.url}/mcp/tickets?session={session}"
    clients, calls_each = 16, 4
    titles: list[str] = []
    served_by: list[str] = []

    async def note_worker(response: httpx2.Response) -> None:
        if response.request.method == "POST" and "x-sim-mcp-worker" in response.headers:
            served_by.append(response.headers["x-sim-mcp-worker"])

    async def client(n: int, ready: anyio.Event, go: anyio.Event, done: list[int]) -> None:
        # Each SDK client opens its own connections: the kernel spreads them over the two workers.
        http = create_mcp_http_client()
        http.event_hooks["response"].append(note_worker)
        transport = streamable_http_client(url, http_client=http)
        async with http, Client(transport, mode="legacy" if mode == "legacy" else "auto") as mcp:
            await mcp.list_tools()
            done.append(n)
            if len(done) == clients:
                ready.set()
            await go.wait()
            for k in range(calls_each):
                title = f"{session} client {n} call {k}"
                result = await mcp.call_tool(
                    "create_ticket", {"title": title, "description": "d", "customer_email": f"c{n}@example.com"}
                )
                assert not result.is_error, result
                titles.append(title)
            await go.wait()

    connected: list[int] = []
    ready, go = anyio.Event(), anyio.Event()
    async with anyio.create_task_group() as tasks:
        for n in range(clients):
            tasks.start_soon(client, n, ready, go, connected)
        with anyio.fail_after(60):
            await ready.wait()
        go.set()

    # Both workers served the session's calls (the kernel spread the clients' connections over them).
    assert set(served_by) == {"0", "1"}, served_by
    async with httpx.AsyncClient(base_url=two_workers.url) as http:
        record = (await http.get(f"/sessions/{session}")).json()
        events = (await http.get(f"/sessions/{session}/events")).json()
    tickets: dict[str, Any] = record["state"]["tickets"]
    made = sorted(t["title"] for t in tickets.values() if t["title"].startswith(session))
    # Every call applied once: no lost write (a call committed over another's state), no double.
    assert made == sorted(titles)
    assert len(made) == clients * calls_each
    assert len(tickets) == INITIAL_TICKETS + clients * calls_each
    calls = events["events"] if isinstance(events, dict) else events
    assert [e["seq"] for e in calls] == list(range(1, clients * calls_each + 1))


def test_workers_refuse_a_store_of_their_own(tmp_path: Path) -> None:
    env = {**os.environ, "SIM_MCP_WORKERS": "2", "SIM_MCP_STORE": "memory"}
    finished = subprocess.run(workers_command(free_port()), env=env, capture_output=True, text=True, timeout=60)
    assert finished.returncode != 0
    assert "--workers 2 needs a store every worker sees" in finished.stderr
    assert "redis://" in finished.stderr


def test_a_worker_that_dies_is_started_again(two_workers: ServerProcess) -> None:
    (first, second) = worker_pids(two_workers.process.pid)
    os.kill(first, 9)
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        # A supervisor that stopped (on its own, or sent a signal by something else on the machine) has no
        # children to list: say so with its log, not as "0 workers".
        assert two_workers.process.poll() is None, two_workers.log.read_text()
        pids = worker_pids(two_workers.process.pid)
        if len(pids) == 2 and first not in pids:
            break
        time.sleep(0.1)
    assert first not in pids, two_workers.log.read_text()
    assert len(pids) == 2, two_workers.log.read_text()
    assert second in pids
    two_workers.wait_ready()


def test_a_supervisor_sent_sigterm_says_so_and_stops_its_workers(two_workers: ServerProcess) -> None:
    workers = worker_pids(two_workers.process.pid)
    two_workers.process.send_signal(signal.SIGTERM)
    assert two_workers.process.wait(timeout=READY_TIMEOUT) == 0
    log = two_workers.log.read_text()
    assert "sim-mcp: SIGTERM received; stopping 2 workers" in log, log
    assert log.count("Application shutdown complete") == 2, log
    # The supervisor joins each worker before it exits: none is left running, nor waiting to be reaped.
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists()
