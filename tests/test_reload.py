"""Hot reload, seen by real SDK clients in both protocol eras: files added, broken and removed while serving."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.session import IncomingMessage
from mcp.client.subscriptions import ToolsListChanged

from tests.servers import BUNDLED_SPECS, READY_TIMEOUT, ServerProcess, running_server

NOTES = """
name: notes
initial_state: {notes: {}}
tools:
  - name: create_note
    input_schema: {type: object, properties: {text: {type: string}}, required: [text]}
  - name: get_note
    input_schema: {type: object, properties: {note_id: {type: string}}, required: [note_id]}
"""
TICKET = {"title": "Reload me", "description": "Still here after a reload?", "customer_email": "r@example.com"}


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    shutil.copy(BUNDLED_SPECS / "tickets.yaml", folder / "tickets.yaml")
    return folder


@pytest.fixture
def server(tmp_path: Path, specs: Path) -> Iterator[ServerProcess]:
    with running_server(tmp_path, specs=specs) as server:
        yield server


async def tool_names(client: Client) -> set[str]:
    return {tool.name for tool in (await client.list_tools()).tools}


async def test_added_changed_and_removed_files_reach_clients_of_both_eras(server: ServerProcess, specs: Path) -> None:
    url = f"{server.url}/mcp?session=reload"
    legacy_heard = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            legacy_heard.set()

    async with (
        Client(url, mode="legacy", message_handler=on_message) as legacy,
        Client(url) as modern,
        modern.listen(tools_list_changed=True) as subscription,
    ):
        assert legacy.server_capabilities.tools is not None
        assert legacy.server_capabilities.tools.list_changed is True
        assert "create_note" not in await tool_names(legacy)
        created = await legacy.call_tool("create_ticket", TICKET)
        assert created.structured_content is not None

        (specs / "notes.yaml").write_text(NOTES)
        with anyio.fail_after(READY_TIMEOUT):
            await legacy_heard.wait()
            event = await subscription.__anext__()
        assert isinstance(event, ToolsListChanged)
        assert "create_note" in await tool_names(legacy)
        assert "create_note" in await tool_names(modern)
        note = await modern.call_tool("create_note", {"text": "hot"})
        assert not note.is_error

        # A broken edit keeps the last good version served, and the session keeps its state.
        (specs / "tickets.yaml").write_text("name: tickets\ntools: [\n")
        await anyio.sleep(1.5)
        assert "get_ticket" in await tool_names(modern)
        fetched = await modern.call_tool("get_ticket", {"ticket_id": created.structured_content["id"]})
        assert fetched.structured_content == created.structured_content

        legacy_heard = anyio.Event()
        (specs / "notes.yaml").unlink()
        with anyio.fail_after(READY_TIMEOUT):
            await legacy_heard.wait()
        assert "create_note" not in await tool_names(legacy)
        gone = await legacy.call_tool("create_note", {"text": "cold"})
        assert gone.is_error
