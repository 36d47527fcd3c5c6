"""Trajectories: from real sessions driven by an SDK client, through the control API, `--trajectories DIR`
and `sim-mcp export`, in our event schema and as OpenAI chat messages accepted by the `openai` types."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import pytest
from mcp.client import Client
from openai.types.chat import (
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageParam,
    ChatCompletionToolParam,
)
from pydantic import TypeAdapter

from sim_mcp.cli import main
from sim_mcp.episodes.trajectory import AgentTool, openai_episode
from sim_mcp.specs.model import ToolSpec
from sim_mcp.state.session import Event
from tests.helpers_server import NEW_TICKET, app_server

MESSAGES = TypeAdapter(list[ChatCompletionMessageParam])
TOOLS = TypeAdapter(list[ChatCompletionToolParam])


def jsonl(text: str) -> list[Any]:
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("trajectories")
    with app_server(watch=False, trajectories=folder) as base:
        yield base, folder


async def episode(base: str, session: str, env: str | None = "tickets") -> list[str]:
    """A short episode: create, read back, a failing read; the texts the agent got."""
    async with httpx.AsyncClient(base_url=base) as http:
        body = {"id": session, **({"env": env} if env else {})}
        assert (await http.post("/sessions", json=body)).status_code == 201
    path = f"/mcp/{env}" if env else "/mcp"
    async with Client(f"{base}{path}?session={session}") as client:
        created = await client.call_tool("create_ticket", NEW_TICKET)
        assert created.structured_content is not None
        fetched = await client.call_tool("get_ticket", {"ticket_id": created.structured_content["id"]})
        missing = await client.call_tool("get_ticket", {"ticket_id": "T-9999"})
    return [result.content[0].text for result in (created, fetched, missing)]  # type: ignore[union-attr]


async def test_events_format(server: tuple[str, Path]) -> None:
    base, _ = server
    await episode(base, "traj-events")
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.get("/sessions/traj-events/trajectory")
        events = (await http.get("/sessions/traj-events/events")).json()["events"]
        explicit = await http.get("/sessions/traj-events/trajectory", params={"format": "events"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert explicit.text == response.text
    lines = jsonl(response.text)
    assert [{key: value for key, value in line.items() if key != "session"} for line in lines] == events
    assert {line["session"] for line in lines} == {"traj-events"}
    assert [line["seq"] for line in lines] == [1, 2, 3]
    assert [line["is_error"] for line in lines] == [False, False, True]


async def test_openai_format_is_accepted_by_the_openai_types(server: tuple[str, Path]) -> None:
    base, _ = server
    texts = await episode(base, "traj-openai")
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.get("/sessions/traj-openai/trajectory", params={"format": "openai"})
        events = (await http.get("/sessions/traj-openai/events")).json()["events"]
    assert response.headers["content-type"].startswith("application/x-ndjson")
    (line,) = jsonl(response.text)
    assert set(line) == {"messages", "tools"}
    messages = MESSAGES.validate_python(line["messages"])
    tools = TOOLS.validate_python(line["tools"])
    assert len(messages) == 2 * len(events)

    names = {tool["function"]["name"] for tool in tools}
    assert "create_ticket" in names
    assert "get_ticket" in names
    create = next(tool for tool in line["tools"] if tool["function"]["name"] == "create_ticket")
    assert create["type"] == "function"
    assert create["function"]["parameters"]["required"]

    for n, event in enumerate(events):
        call, answer = line["messages"][2 * n], line["messages"][2 * n + 1]
        assert call["role"] == "assistant"
        assert call["content"] is None
        (tool_call,) = call["tool_calls"]
        parsed = ChatCompletionMessageFunctionToolCall.model_validate(tool_call)
        assert parsed.function.name == event["tool"]
        assert json.loads(parsed.function.arguments) == event["arguments"]
        assert answer == {"role": "tool", "tool_call_id": parsed.id, "content": texts[n]}
    assert len({message["tool_call_id"] for message in line["messages"] if message["role"] == "tool"}) == 3


async def test_unbound_session_offers_every_tool_under_its_served_name(server: tuple[str, Path]) -> None:
    base, _ = server
    await episode(base, "traj-all", env=None)
    async with httpx.AsyncClient(base_url=base) as http:
        (line,) = jsonl((await http.get("/sessions/traj-all/trajectory", params={"format": "openai"})).text)
        async with Client(f"{base}/mcp?session=traj-all") as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
    assert {tool["function"]["name"] for tool in line["tools"]} == listed
    called = {message["tool_calls"][0]["function"]["name"] for message in line["messages"] if "tool_calls" in message}
    assert called <= listed


async def test_trajectory_errors(server: tuple[str, Path]) -> None:
    base, _ = server
    await episode(base, "traj-errors")
    async with httpx.AsyncClient(base_url=base) as http:
        missing = await http.get("/sessions/nope/trajectory")
        bad = await http.get("/sessions/traj-errors/trajectory", params={"format": "sharegpt"})
    assert missing.status_code == 404
    assert missing.json()["id"] == "nope"
    assert bad.status_code == 422
    assert bad.json() == {"error": "format: expected one of events, openai, got 'sharegpt'", "field": "format"}


async def test_trajectories_folder_gets_every_event_as_it_is_committed(server: tuple[str, Path]) -> None:
    base, folder = server
    await episode(base, "traj-file")
    async with httpx.AsyncClient(base_url=base) as http:
        exported = (await http.get("/sessions/traj-file/trajectory")).text
        await http.post("/sessions/traj-file/reset")
    assert (folder / "traj-file.jsonl").read_text() == exported
    async with Client(f"{base}/mcp/tickets?session=traj-file") as client:
        await client.call_tool("get_ticket", {"ticket_id": "T-1001"})
    lines = jsonl((folder / "traj-file.jsonl").read_text())
    assert [line["seq"] for line in lines] == [1, 2, 3, 1], "an append-only log: after a reset, seq starts again"


async def test_export_from_a_running_server(server: tuple[str, Path], tmp_path: Path) -> None:
    base, _ = server
    await episode(base, "traj-export-1")
    await episode(base, "traj-export-2")
    out = tmp_path / "sft.jsonl"
    argv = ["export", "--url", base, "--session", "traj-export-1", "--session", "traj-export-2"]
    assert main([*argv, "--format", "openai", "-o", str(out)]) == 0
    lines = jsonl(out.read_text())
    assert len(lines) == 2
    for line in lines:
        MESSAGES.validate_python(line["messages"])
    assert main([*argv, "-o", str(out)]) == 0
    assert [line["session"] for line in jsonl(out.read_text())] == ["traj-export-1"] * 3 + ["traj-export-2"] * 3
    assert main(["export", "--url", base, "--all", "-o", str(out)]) == 0
    assert {"traj-export-1", "traj-export-2"} <= {line["session"] for line in jsonl(out.read_text())}
    assert main(["export", "--url", base, "--session", "nope"]) == 2
    assert main(["export", "--url", base]) == 2  # neither --session nor --all


async def test_export_from_a_store_with_the_server_stopped(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'runs.db'}".replace("sqlite:///", "sqlite:////", 1)
    with app_server(watch=False, store=store) as base:
        texts = await episode(base, "stored")
        async with httpx.AsyncClient(base_url=base) as http:
            served = (await http.get("/sessions/stored/trajectory", params={"format": "openai"})).text
    out = tmp_path / "out.jsonl"
    # `main` runs its own event loop: off this test's loop, in a thread.
    assert (
        await anyio.to_thread.run_sync(
            main, ["export", "--store", store, "--all", "--format", "openai", "-o", str(out)]
        )
        == 0
    )
    assert out.read_text() == served
    assert [m["content"] for m in jsonl(out.read_text())[0]["messages"] if m["role"] == "tool"] == texts
    assert await anyio.to_thread.run_sync(main, ["export", "--store", store, "--session", "nope"]) == 2


def test_message_events_map_to_user_and_assistant_messages() -> None:
    """Events that are messages (a simulated user's, the agent's) become chat messages in log order."""
    tool = AgentTool("get_ticket", "tickets", ToolSpec(name="get_ticket", description="Fetch one ticket."))
    common: dict[str, Any] = {"at": 0.0, "environment": "tickets", "backend": "offline", "is_error": False}
    events = [
        Event.model_construct(seq=1, kind="user_message", tool="", arguments={}, result="Where is T-1?", **common),
        Event(seq=2, tool="get_ticket", arguments={"ticket_id": "T-1"}, result={"id": "T-1"}, **common),
        Event.model_construct(seq=3, kind="agent_message", tool="", arguments={}, result="It is open.", **common),
    ]
    episode = openai_episode(events, [tool])
    assert [message["role"] for message in episode["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert episode["messages"][0]["content"] == "Where is T-1?"
    assert episode["messages"][2] == {"role": "tool", "tool_call_id": "call_2", "content": '{"id": "T-1"}'}
    assert episode["messages"][3] == {"role": "assistant", "content": "It is open."}
    MESSAGES.validate_python(episode["messages"])
    assert episode["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_ticket",
                "description": "Fetch one ticket.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
