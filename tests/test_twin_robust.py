"""A compile never crashes on a server's answers: answers of a shape the learner did not expect are learned
around (a success-shaped refusal among a tool's listings), and where learning one tool still fails, that tool
alone falls back (handed on, the reason in the compile report) while the others keep their rules."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from sim_mcp.authoring.twins import build, keyed_world
from sim_mcp.authoring.twins.keyed_world import _root, infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import compile_recorded, played

ADD = ToolSpec(
    name="add_task",
    input_schema={"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
)
LIST = ToolSpec(name="list_tasks", input_schema={"type": "object", "properties": {"status": {"type": "string"}}})
TITLES = ["Send invites", "Book venue", "Pay rent", "Call plumber", "Water plants"]


class Tasks:
    """A to-do server that answers every call as a success, its refusals too (`{"ok": false, "error": ...}`),
    as servers that report errors in the answer's body do."""

    def __init__(self) -> None:
        self.tasks: list[dict[str, Any]] = []

    def __call__(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool == "add_task":
            task = {"id": len(self.tasks) + 1, "title": arguments["title"], "status": "pending"}
            self.tasks.append(task)
            return json.dumps({"ok": True, "task": task}), False
        status = arguments.get("status", "all")
        if status not in ("all", "pending"):
            return json.dumps({"ok": False, "error": "invalid_status", "message": f"unknown status {status!r}"}), False
        return json.dumps({"ok": True, "tasks": self.tasks, "count": len(self.tasks)}), False


def _sessions(count: int) -> list[list[RecordedCall]]:
    sessions = []
    for number in range(count):
        rng = random.Random(number)
        calls: list[tuple[str, dict[str, Any]]] = []
        for _ in range(8):
            if rng.random() < 0.5:
                calls.append(("add_task", {"title": rng.choice(TITLES)}))
            else:
                # Mostly a listing of every task; now and then a status the server refuses in the body.
                calls.append(("list_tasks", {} if rng.random() < 0.7 else {"status": "later"}))
        sessions.append(played(Tasks(), f"s{number}", calls))
    return sessions


def test_a_refusal_in_the_body_among_a_tools_listings_is_learned_beside_them() -> None:
    """A listing held under a field of most answers (`{"ok": true, "tasks": [...], "count": 2}`), the others a
    refusal without that field: both learned, the refusal under its own condition."""
    sessions = _sessions(6)
    inference = infer_guards([ADD, LIST], sessions, ["add_task", "list_tasks"])
    listings = sum(call.tool == "list_tasks" for session in sessions for call in session)
    assert inference.answered["list_tasks"] == listings
    assert inference.failed == {}
    state: dict[str, Any] = {}
    server = Tasks()
    for tool, arguments in [
        ("add_task", {"title": "Rake leaves"}),
        ("list_tasks", {}),
        ("list_tasks", {"status": "x"}),
    ]:
        answer = run_guard(inference.plans[tool], tool, state, arguments)
        assert answer == (json.loads(server(tool, arguments)[0]), False), (tool, arguments, answer)


def test_one_tool_whose_learning_fails_falls_back_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Learning the listing's rules fails: the compile ends, the listing is handed on with the reason in the
    report, and the create keeps its rules."""
    templates = keyed_world._Learner.templates

    def failing(self: keyed_world._Learner, tool: keyed_world._Tool, *args: Any, **kwargs: Any) -> Any:
        if tool.spec.name == "list_tasks":
            raise KeyError("tasks")
        return templates(self, tool, *args, **kwargs)

    monkeypatch.setattr(keyed_world._Learner, "templates", failing)
    report = compile_recorded(tmp_path, [ADD, LIST], _sessions(6))
    assert report["list_tasks"]["status"] == "llm"
    assert "learning its rules failed: KeyError" in report["list_tasks"]["reason"]
    assert report["add_task"]["status"] in ("exact", "guarded")


def test_a_failure_no_tool_is_named_for_costs_the_guards_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The keyed world's learning fails as a whole: the compile still ends, the report says why, and every
    tool it would have learned is handed on with that reason."""

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("no world")

    monkeypatch.setattr(build, "infer_guards", failing)
    report = compile_recorded(tmp_path, [ADD, LIST], _sessions(6))
    problems = json.loads((tmp_path / "compile.json").read_text())["problems"]
    assert any("ValueError: no world" in problem for problem in problems)
    assert all(entry["status"] in ("exact", "llm") for entry in report.values())
    assert any("ValueError: no world" in entry.get("reason", "") for entry in report.values())


def test_a_data_file_a_server_names_is_no_root() -> None:
    """A tool with no arguments that says where the server keeps its data (a file in its folder) names no root
    under which string arguments would be read as paths; one that lists its folder does."""

    def answering(text: str) -> list[list[RecordedCall]]:
        return [played(lambda tool, arguments: (text, False), f"s{n}", [("where", {})]) for n in range(2)]

    assert _root(answering(json.dumps({"ok": True, "path": "{tmp}/tasks.db"}))) is None
    assert _root(answering("Allowed directories:\n{tmp}")) == "{tmp}"


TAG_ADD = ToolSpec(
    name="add_note",
    input_schema={
        "type": "object",
        "properties": {"title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["title"],
    },
)
RETAG = ToolSpec(
    name="retag_note",
    input_schema={
        "type": "object",
        "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["id", "tags"],
    },
)


class Notes:
    """Notes under made-up ids whose tags a call replaces, `tags: []` clearing them."""

    def __init__(self) -> None:
        self.notes: dict[int, dict[str, Any]] = {}

    def __call__(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool == "add_note":
            note = {"id": len(self.notes) + 1, "title": arguments["title"], "tags": arguments.get("tags", [])}
            self.notes[note["id"]] = note
            return json.dumps(note), False
        note = self.notes[arguments["id"]]
        note["tags"] = arguments["tags"]
        return json.dumps(note), False


def test_an_empty_array_argument_costs_no_tool_its_rules() -> None:
    """A call that gives an array argument empty (tags cleared) writes no line per item: the learner reads no
    line template from it rather than failing on it (it once stopped there, and the tool lost every rule)."""
    sessions = []
    for number in range(6):
        rng = random.Random(number)
        calls: list[tuple[str, dict[str, Any]]] = []
        for made in range(1, 5):
            calls.append(("add_note", {"title": rng.choice(TITLES), "tags": rng.sample(["home", "work", "q1"], 2)}))
            calls.append(("retag_note", {"id": made, "tags": [] if made % 2 else [rng.choice(["red", "blue"])]}))
        sessions.append(played(Notes(), f"s{number}", calls))
    inference = infer_guards([TAG_ADD, RETAG], sessions, ["add_note", "retag_note"])
    assert inference.failed == {}
    assert inference.answered["retag_note"] == sum(c.tool == "retag_note" for s in sessions for c in s)
