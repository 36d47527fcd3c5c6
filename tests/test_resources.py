"""A session's state and events as MCP resources, and their change notifications, in both protocol eras."""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.session import IncomingMessage
from mcp.server.subscriptions import ResourceUpdated
from mcp.shared.exceptions import MCPError

from sim_mcp.config import Settings
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.server.resources import EVENTS_URI, STATE_URI
from tests.helpers_server import ERAS, NEW_TICKET, mcp_client, ticket
from tests.servers import BUNDLED_SPECS, READY_TIMEOUT


@asynccontextmanager
async def in_memory_client(mode: str) -> AsyncIterator[Client]:
    async with Runtime(Settings(specs=[BUNDLED_SPECS])) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="memory"))
        async with Client(server, mode=mode) as client:
            yield client


async def read_json(client: Client, uri: str) -> Any:
    result = await client.read_resource(uri)
    content = result.contents[0]
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == "application/json"
    return json.loads(content.text)


@pytest.mark.parametrize("mode", ERAS)
async def test_resources_are_listed_and_read_in_memory(mode: str) -> None:
    async with in_memory_client(mode) as client:
        listed = await client.list_resources()
        assert [r.uri for r in listed.resources] == [STATE_URI, EVENTS_URI]
        assert await read_json(client, STATE_URI) == {}  # an unbound session that touched nothing yet
        assert await read_json(client, EVENTS_URI) == []

        made = await client.call_tool("create_ticket", NEW_TICKET)
        assert made.structured_content is not None
        state = await read_json(client, STATE_URI)
        assert made.structured_content["id"] in state["tickets"]["tickets"]
        events = await read_json(client, EVENTS_URI)
        assert [(e["seq"], e["tool"], e["arguments"]) for e in events] == [(1, "create_ticket", NEW_TICKET)]

        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("sim://session/nope")


@pytest.mark.parametrize("mode", ERAS)
async def test_resources_over_http_match_the_control_api(base_url: str, mode: str) -> None:
    async with httpx.AsyncClient(base_url=base_url) as http:
        created = (await http.post("/sessions", json={"env": "tickets"})).json()
        async with mcp_client(created["mcp_url"], mode) as client:
            before = await read_json(client, STATE_URI)
            assert "T-1001" in before["tickets"]  # bound: the environment's state, from its initial_state
            await client.call_tool("create_ticket", NEW_TICKET)
            after = await read_json(client, STATE_URI)
            events = await read_json(client, EVENTS_URI)
        session = (await http.get(f"/sessions/{created['id']}")).json()
        log = (await http.get(f"/sessions/{created['id']}/events")).json()["events"]
    assert after == session["state"]
    assert events == log


async def test_reading_a_session_does_not_create_it(base_url: str) -> None:
    async with mcp_client(f"{base_url}/mcp/tickets?session=just-looking") as client:
        state = await read_json(client, STATE_URI)
    assert "T-1001" in state["tickets"]
    async with httpx.AsyncClient(base_url=base_url) as http:
        assert (await http.get("/sessions/just-looking")).status_code == 404


async def test_a_legacy_subscriber_hears_about_calls_and_resets(base_url: str) -> None:
    updates: list[str] = []
    arrived = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(message.params.uri)
            arrived.set()

    async with httpx.AsyncClient(base_url=base_url) as http:
        created = (await http.post("/sessions", json={"env": "tickets"})).json()
        url = created["mcp_url"]
        async with mcp_client(url, "legacy", message_handler=on_message) as watcher:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # subscribe_resource is deprecated for the 2026 era only
                await watcher.subscribe_resource(STATE_URI)
            # Another client's call to the same session.
            async with mcp_client(url, "auto") as agent:
                await agent.call_tool("create_ticket", ticket(1))
            with anyio.fail_after(READY_TIMEOUT):
                await arrived.wait()
            assert updates == [STATE_URI]

            arrived = anyio.Event()
            await http.post(f"/sessions/{created['id']}/reset")
            with anyio.fail_after(READY_TIMEOUT):
                await arrived.wait()
            assert updates == [STATE_URI, STATE_URI]


async def test_a_listener_hears_about_its_session_only(base_url: str) -> None:
    async with httpx.AsyncClient(base_url=base_url) as http:
        mine = (await http.post("/sessions", json={"env": "tickets"})).json()
        other = (await http.post("/sessions", json={"env": "tickets"})).json()
    events: list[str] = []

    async with (
        mcp_client(mine["mcp_url"]) as listener,
        listener.listen(resource_subscriptions=[STATE_URI, EVENTS_URI]) as subscription,
    ):
        assert subscription.honored.resource_subscriptions == [STATE_URI, EVENTS_URI]
        async with mcp_client(other["mcp_url"]) as agent:
            await agent.call_tool("create_ticket", ticket(1))  # another session: nothing for us
        async with mcp_client(mine["mcp_url"]) as agent:
            await agent.call_tool("create_ticket", ticket(2))
        with anyio.fail_after(READY_TIMEOUT):
            async for event in subscription:
                assert isinstance(event, ResourceUpdated)
                events.append(event.uri)
                if len(events) == 2:
                    break
        assert sorted(events) == [EVENTS_URI, STATE_URI]
        with anyio.move_on_after(0.3):  # and nothing more arrives (the other session's call was earlier)
            async for event in subscription:
                events.append(str(event))
        assert len(events) == 2
