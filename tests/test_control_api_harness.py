"""docs/control-api.md's harness example, on each session store, against a `sim-mcp serve` process.

A file of its own, apart from the rest of the control API's tests: it is the slowest of them (100 MCP
clients on each of three stores), and the test command distributes whole files to its workers, so here it
runs beside them instead of after them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.helpers_server import mcp_client, ticket
from tests.servers import running_server

pytest_plugins = ["tests.fixtures_redis"]


@pytest.fixture(params=["memory", "sqlite", "redis"])
def harness_store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'sessions.db'}"
    if request.param == "redis":
        return str(request.getfixturevalue("redis_url"))
    return "memory"


async def test_the_harness_example(harness_store: str, tmp_path: Path) -> None:
    """docs/control-api.md: 100 sessions, driven in parallel, final states read, one reset, one forked."""
    # A `sim-mcp serve` process, so that server and clients do not share one interpreter.
    with running_server(tmp_path, "--store", harness_store) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
            sessions = [(await http.post("/sessions", json={"env": "tickets", "seed": n})).json() for n in range(100)]

            async def episode(session: dict[str, Any], n: int) -> None:
                async with mcp_client(session["mcp_url"]) as client:
                    for step in range(n % 3 + 1):
                        await client.call_tool("create_ticket", ticket(step))

            async with anyio.create_task_group() as tasks:
                for n, session in enumerate(sessions):
                    tasks.start_soon(episode, session, n)

            finals = [(await http.get(f"/sessions/{s['id']}")).json() for s in sessions]
            assert [len(f["state"]["tickets"]) - 5 for f in finals] == [n % 3 + 1 for n in range(100)]
            assert [f["events"] for f in finals] == [n % 3 + 1 for n in range(100)]

            reset = (await http.post(f"/sessions/{sessions[0]['id']}/reset")).json()
            assert len(reset["state"]["tickets"]) == 5
            fork = (await http.post(f"/sessions/{sessions[2]['id']}/fork")).json()
            assert (await http.get(f"/sessions/{fork['id']}")).json()["state"] == finals[2]["state"]
            assert (await http.get("/sessions")).json()["count"] == 101
