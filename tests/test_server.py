"""The MCP server through real SDK clients: in memory, over stdio and over HTTP, in both protocol eras."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from tests.helpers_server import ERAS, NEW_TICKET, text_of
from tests.servers import BUNDLED_SPECS, ServerProcess, stdio_parameters


@asynccontextmanager
async def in_memory_client(mode: str) -> AsyncIterator[Client]:
    settings = Settings(specs=[BUNDLED_SPECS])
    async with Runtime(settings) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="memory"))
        async with Client(server, mode=mode) as client:
            yield client


async def crud_round_trip(client: Client) -> str:
    """create -> get -> update -> get -> delete-like -> get, as a real ticket service would behave."""
    created = await client.call_tool("create_ticket", NEW_TICKET)
    assert not created.is_error, created.content
    ticket = created.structured_content
    assert ticket is not None
    assert ticket["title"] == NEW_TICKET["title"]
    ticket_id = ticket["id"]

    fetched = await client.call_tool("get_ticket", {"ticket_id": ticket_id})
    assert not fetched.is_error
    assert fetched.structured_content == ticket

    updated = await client.call_tool("update_ticket", {"ticket_id": ticket_id, "priority": "urgent"})
    assert not updated.is_error, updated.content
    assert updated.structured_content is not None
    assert updated.structured_content["priority"] == "urgent"
    again = await client.call_tool("get_ticket", {"ticket_id": ticket_id})
    assert again.structured_content is not None
    assert again.structured_content["priority"] == "urgent"

    closed = await client.call_tool("close_ticket", {"ticket_id": ticket_id})
    assert not closed.is_error, closed.content
    assert closed.structured_content is not None
    assert closed.structured_content["status"] == "closed"
    # tickets.yaml: "Closing an already closed ticket returns it unchanged" (its rules program says so too).
    twice = await client.call_tool("close_ticket", {"ticket_id": ticket_id})
    assert not twice.is_error
    assert twice.structured_content == closed.structured_content
    reopened = await client.call_tool("update_ticket", {"ticket_id": ticket_id, "status": "open"})
    assert reopened.is_error
    assert "is closed" in text_of(reopened)
    return str(ticket_id)


@pytest.mark.parametrize("mode", ERAS)
async def test_in_memory_client_lists_and_calls(mode: str) -> None:
    async with in_memory_client(mode) as client:
        listed = await client.list_tools()
        names = {tool.name for tool in listed.tools}
        assert {"create_ticket", "get_order", "create_event", "create_transfer"} <= names
        get_ticket = next(tool for tool in listed.tools if tool.name == "get_ticket")
        assert get_ticket.input_schema["required"] == ["ticket_id"]
        assert get_ticket.output_schema is not None
        assert get_ticket.annotations is not None
        assert get_ticket.annotations.read_only_hint is True
        await crud_round_trip(client)


@pytest.mark.parametrize("mode", ERAS)
async def test_stdio_subprocess(mode: str) -> None:
    async with Client(stdio_parameters(), mode=mode) as client:
        assert len((await client.list_tools()).tools) >= 15
        await crud_round_trip(client)
        missing = await client.call_tool("get_ticket", {"ticket_id": "T-9999"})
        assert missing.is_error
        assert text_of(missing) == "Ticket T-9999 not found."


@pytest.mark.parametrize("mode", ERAS)
async def test_http_sessions_are_isolated(http_server: ServerProcess, mode: str) -> None:
    """Two sessions at once: what one creates, the other can't see; each sees its own records."""
    first, second = f"a-{uuid.uuid4().hex}", f"b-{uuid.uuid4().hex}"
    async with (
        Client(f"{http_server.url}/mcp?session={first}", mode=mode) as alice,
        Client(f"{http_server.url}/mcp?session={second}", mode=mode) as bob,
    ):
        ids: dict[str, str] = {}

        async def run(name: str, client: Client) -> None:
            ids[name] = await crud_round_trip(client)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run, "alice", alice)
            tasks.start_soon(run, "bob", bob)
        # Both sessions started from the same initial state, so both created the same next id...
        assert ids["alice"] == ids["bob"]
        # ...and each sees only its own ticket's history: bob never closed alice's, so its record is closed once.
        alice_list = await alice.call_tool("list_tickets", {"status": "closed"})
        bob_list = await bob.call_tool("list_tickets", {"status": "closed"})
        assert alice_list.structured_content == bob_list.structured_content
        extra = await alice.call_tool("create_ticket", {**NEW_TICKET, "title": "Only in alice"})
        assert extra.structured_content is not None
        seen_by_bob = await bob.call_tool("get_ticket", {"ticket_id": extra.structured_content["id"]})
        assert seen_by_bob.is_error
        assert "not found" in text_of(seen_by_bob)


async def test_same_session_name_is_shared_across_connections_and_eras(http_server: ServerProcess) -> None:
    name = f"shared-{uuid.uuid4().hex}"
    async with Client(f"{http_server.url}/mcp?session={name}", mode="legacy") as writer:
        created = await writer.call_tool("create_ticket", NEW_TICKET)
        assert created.structured_content is not None
    async with Client(f"{http_server.url}/mcp?session={name}") as reader:
        fetched = await reader.call_tool("get_ticket", {"ticket_id": created.structured_content["id"]})
        assert not fetched.is_error
        assert fetched.structured_content == created.structured_content


async def test_legacy_clients_without_a_name_get_a_session_each(http_server: ServerProcess) -> None:
    async with (
        Client(f"{http_server.url}/mcp", mode="legacy") as first,
        Client(f"{http_server.url}/mcp", mode="legacy") as second,
    ):
        created = await first.call_tool("create_ticket", NEW_TICKET)
        assert created.structured_content is not None
        other = await second.call_tool("get_ticket", {"ticket_id": created.structured_content["id"]})
        assert other.is_error


@pytest.mark.parametrize("mode", ERAS)
async def test_bad_arguments_name_the_path_and_leave_state_alone(http_server: ServerProcess, mode: str) -> None:
    url = f"{http_server.url}/mcp?session=bad-args-{mode}-{uuid.uuid4().hex}"
    async with Client(url, mode=mode) as client:
        before = await client.call_tool("list_tickets", {})
        wrong_type = await client.call_tool("get_ticket", {"ticket_id": 42})
        assert wrong_type.is_error
        assert "arguments.ticket_id: expected string, got an integer" in text_of(wrong_type)
        missing = await client.call_tool("create_ticket", {"title": "no description"})
        assert missing.is_error
        assert "'description' is required" in text_of(missing)
        enum = await client.call_tool("update_ticket", {"ticket_id": "T-1001", "priority": "whenever"})
        assert enum.is_error
        assert "arguments.priority" in text_of(enum)
        unknown = await client.call_tool("launch_rocket", {})
        assert unknown.is_error
        assert "unknown tool 'launch_rocket'" in text_of(unknown)
        after = await client.call_tool("list_tickets", {})
        assert after.structured_content == before.structured_content


async def test_environment_path_serves_one_environment(http_server: ServerProcess) -> None:
    async with Client(f"{http_server.url}/mcp/shop?session=scoped-{uuid.uuid4().hex}") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "get_order" in names
        assert "get_ticket" not in names
        other_env = await client.call_tool("get_ticket", {"ticket_id": "T-1001"})
        assert other_env.is_error
        assert "unknown tool 'get_ticket' in environment 'shop'" in text_of(other_env)
