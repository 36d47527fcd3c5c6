"""The simulator's check and commit path, through the SDK client in memory, with scripted backend outcomes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import Outcome
from sim_mcp.engine.hooks import Change, Commit, Lifecycle
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.testing import scripted
from tests.helpers_server import text_of

SPEC = """
name: notes
initial_state: {notes: {}}
tools:
  - name: set_title
    description: Set the notebook's title.
    input_schema: {type: object, properties: {title: {type: string}}, required: [title]}
"""


@asynccontextmanager
async def serving(tmp_path: Path, backend: Backend) -> AsyncIterator[tuple[Runtime, Client]]:
    (tmp_path / "notes.yaml").write_text(SPEC)
    async with Runtime(Settings(specs=[tmp_path], watch=False), backend=backend) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="s1"))
        async with Client(server) as client:
            yield runtime, client


async def test_a_patch_that_replaces_the_root_with_a_string_is_a_state_not_an_error(tmp_path: Path) -> None:
    # A checked state used to share its type with the error message: a string state read as a rejection.
    backend = scripted(Outcome(result="done", state_patch=[{"op": "replace", "path": "", "value": "hello"}]))
    async with serving(tmp_path, backend) as (runtime, client):
        result = await client.call_tool("set_title", {"title": "x"})
        assert not result.is_error, result.content
        record = await runtime.sessions.get("s1")
        assert runtime.simulator.world_of(record, "notes") == "hello"
        assert len(backend.requests) == 1  # accepted at the first attempt


async def test_a_rejected_outcome_is_fed_back_and_never_committed(tmp_path: Path) -> None:
    bad = Outcome(result="ok", state_patch=[{"op": "remove", "path": "/missing"}])
    good = Outcome(result="ok", state_patch=[{"op": "add", "path": "/title", "value": "x"}])
    backend = scripted(bad, good)
    async with serving(tmp_path, backend) as (runtime, client):
        result = await client.call_tool("set_title", {"title": "x"})
        assert not result.is_error
        assert "state_patch does not apply" in backend.requests[1].feedback[0]
        events = await runtime.store.events("s1")
        assert [event.state_patch for event in events] == [good.state_patch]
        assert runtime.simulator.world_of(await runtime.sessions.get("s1"), "notes") == {"notes": {}, "title": "x"}


async def test_every_committed_change_reaches_the_one_after_commit_path(tmp_path: Path) -> None:
    backend = scripted(Outcome(result="ok", state_patch=[{"op": "add", "path": "/title", "value": "x"}]))
    seen: list[str] = []

    async def subscriber(change: Change) -> None:
        seen.append(f"call {change.kind}" if isinstance(change, Commit) else change.action)

    async with serving(tmp_path, backend) as (runtime, client):
        runtime.hooks.subscribe(subscriber)
        await client.call_tool("set_title", {"title": "x"})
        await runtime.sessions.snapshot("s1", "before")
        await runtime.sessions.fork("s1", new_id="s2")
        await runtime.sessions.reset("s1")
        await runtime.sessions.delete("s2")
        await client.call_tool("no_such_tool", {})  # refused before simulation: nothing committed
    assert seen == ["call ok", "snapshot", "forked", "reset", "deleted"]


async def test_a_failing_subscriber_does_not_undo_the_commit_or_stop_the_others(tmp_path: Path) -> None:
    backend = scripted(Outcome(result="ok", state_patch=[]))
    after: list[Any] = []

    async def broken(change: Change) -> None:
        raise RuntimeError("disk full")

    async def recorder(change: Change) -> None:
        after.append(change)

    async with serving(tmp_path, backend) as (runtime, client):
        runtime.hooks.subscribe(broken)
        runtime.hooks.subscribe(recorder)
        result = await client.call_tool("set_title", {"title": "x"})
        assert not result.is_error
        assert text_of(result) == "ok"
        assert len(await runtime.store.events("s1")) == 1
    assert len(after) == 1
    assert not isinstance(after[0], Lifecycle)
