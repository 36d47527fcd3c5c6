"""Ids a server makes up in a call the twin hands on: the twin's program is shown that call's answer
(`sim_mcp_handed_on`), in compile's check as in the served twin, so that its own next id is past them and the
tool that makes ids up keeps its rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from sim_mcp.cli import main
from tests.test_rules import client_on, last_event, text_of

ITEMS = {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}}}}
PLANNER = {
    "name": "planner",
    "tools": [
        {
            "name": "plan",
            "input_schema": {
                "type": "object",
                "properties": {"goal": {"type": "string"}, "tasks": ITEMS},
                "required": ["goal", "tasks"],
            },
        },
        {
            "name": "add_task",
            "input_schema": {
                "type": "object",
                "properties": {"requestId": {"type": "string"}, "title": {"type": "string"}},
                "required": ["requestId", "title"],
            },
        },
    ],
}
# What add_task answers beside the id it made up: a word the server draws per call, which no rule of the
# recordings can write, so every add_task call is handed on to the replay.
DRAWN = ["qzkfpw", "mrvtxb", "hjwlcd", "pgnsoy", "fkbrue", "xtwmaz"]


def planned(request: int, first_task: int, goal: str, titles: list[str]) -> dict[str, Any]:
    tasks = [{"id": f"task-{first_task + i}", "title": title} for i, title in enumerate(titles)]
    return {"status": "planned", "requestId": f"req-{request}", "goal": goal, "tasks": tasks}


def sessions() -> list[list[tuple[str, dict[str, Any], Any]]]:
    """Each session plans, adds a task (ids under the same prefix), and plans again."""
    found: list[list[tuple[str, dict[str, Any], Any]]] = []
    goals = [("paint", "sand"), ("cook", "serve"), ("fly", "land"), ("read", "write")]
    for number, (first, second) in enumerate(goals):
        titles = [f"{first} walls", f"{first} doors"]
        added = {"added": "task-3", "code": DRAWN[number]}
        found.append(
            [
                ("plan", {"goal": first, "tasks": [{"title": t} for t in titles]}, planned(1, 1, first, titles)),
                ("add_task", {"requestId": "req-1", "title": f"{first} floor"}, added),
                (
                    "plan",
                    {"goal": second, "tasks": [{"title": f"{second} it"}]},
                    planned(2, 4, second, [f"{second} it"]),
                ),
            ]
        )
    return found


def write_recordings(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.yaml").write_text(yaml.safe_dump(PLANNER))
    lines = []
    for number, session in enumerate(sessions()):
        for seq, (tool, arguments, answer) in enumerate(session, start=1):
            result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
            entry = {"session": f"s{number}", "seq": seq, "tool": tool, "arguments": arguments, "result": result}
            lines.append(json.dumps(entry | {"is_error": False, "latency_ms": 1.0}))
    (folder / "recordings.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_ids_a_handed_on_call_made_up_reach_the_twins_counters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_recordings(tmp_path / "planner")
    report = folder / "compile.json"
    main(["compile", str(folder / "spec.yaml"), "--from", str(folder), "--report", str(report)])
    tools = json.loads(report.read_text())["tools"]
    # add_task is handed on; plan keeps its rules: its second plan's first task is task-4, past add_task's
    # task-3, which only the handed-on answer showed (without it, the twin would say task-3 again).
    assert tools["add_task"]["status"] != "guarded" or "answer 0 of" in tools["add_task"]["reason"]
    assert tools["plan"]["status"] == "guarded", tools["plan"]
    assert tools["plan"]["reason"].startswith("its rules answer 8 of its 8 recorded calls"), tools["plan"]
    assert "def sim_mcp_handed_on(state, call):" in (folder / "spec.rules.star").read_text()
    capsys.readouterr()
    anyio.run(served_twin_counts_past_a_replayed_id, folder)


async def served_twin_counts_past_a_replayed_id(folder: Path) -> None:
    async with client_on(folder, backend="replay", cassette=folder / "spec.cassette") as (client, runtime):
        # The first recorded session's calls, so that the twin's world is the one the replay has an answer for.
        first = await client.call_tool(
            "plan", {"goal": "paint", "tasks": [{"title": "paint walls"}, {"title": "paint doors"}]}
        )
        assert json.loads(text_of(first)) == planned(1, 1, "paint", ["paint walls", "paint doors"])
        assert (await last_event(runtime)).backend == "rules"
        # add_task, answered by the replay: it made up task-3.
        added = await client.call_tool("add_task", {"requestId": "req-1", "title": "paint floor"})
        assert json.loads(text_of(added)) == {"added": "task-3", "code": DRAWN[0]}
        assert (await last_event(runtime)).backend == "replay"
        world = (await runtime.store.get("memory")).worlds["planner"]  # type: ignore[union-attr]
        assert world["_twin"]["counters"] == {"req-": 1, "task-": 3}
        second = await client.call_tool("plan", {"goal": "dry", "tasks": [{"title": "towel"}]})
        assert json.loads(text_of(second)) == planned(2, 4, "dry", ["towel"])
        assert (await last_event(runtime)).backend == "rules"
