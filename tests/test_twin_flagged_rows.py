"""A field a listing shows only where a flag of the record is true: a note store whose listing shows a pinned
note's body and `null` for the others. Sessions of a Python model of it are compiled by the real learner, and the
twin's Starlark lists notes it never saw, pinned or not, as the server does."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules import CallContext, Limits, compile_program, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec
from sim_mcp.state.patch import apply_patch
from tests.twin_learning import compile_recorded, played

_TEXT = {"type": "string"}
TOOLS = [
    ToolSpec(
        name="save_note",
        input_schema={
            "type": "object",
            "properties": {"title": _TEXT, "body": _TEXT, "pinned": {"type": "boolean"}},
            "required": ["title", "body", "pinned"],
        },
    ),
    ToolSpec(name="list_notes", input_schema={"type": "object", "properties": {}}),
]
TITLES = ["groceries", "dentist", "rent", "garden", "passport"]
BODIES = ["buy milk and eggs", "tuesday at nine", "pay before the 5th", "water the roses", "renew by june"]


class NoteServer:
    def __init__(self) -> None:
        self.notes: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, args: dict[str, Any]) -> tuple[str, bool]:
        if tool == "save_note":
            self.notes[args["title"]] = {"body": args["body"], "pinned": args["pinned"]}
            return json.dumps({"saved": args["title"]}), False
        rows = [
            {"title": title, "pinned": note["pinned"], "body": note["body"] if note["pinned"] else None}
            for title, note in self.notes.items()
        ]
        return json.dumps({"notes": rows}), False


def sessions(seed: int, count: int) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    recorded = []
    for number in range(count):
        calls: list[tuple[str, dict[str, Any]]] = []
        for _ in range(8):
            if rng.random() < 0.6 or not calls:
                note = {"title": rng.choice(TITLES), "body": rng.choice(BODIES), "pinned": rng.random() < 0.4}
                calls.append(("save_note", note))
            else:
                calls.append(("list_notes", {}))
        recorded.append(played(NoteServer().call, f"s{number}", calls))
    return recorded


def test_a_listed_field_shown_only_where_a_flag_is_true_is_null_elsewhere(tmp_path: Path) -> None:
    report = compile_recorded(tmp_path, TOOLS, sessions(0, 16))
    assert report["list_notes"]["status"] in ("guarded", "exact"), report["list_notes"]
    program = compile_program((tmp_path / "spec.rules.star").read_text(), "<twin>", [tool.name for tool in TOOLS])
    state: dict[str, Any] = {"_twin": {"keys": {}}}
    server = NoteServer()

    def agree(tool: str, args: dict[str, Any]) -> None:
        nonlocal state
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool=tool)
        outcome = run_tool(program, tool, state, args, context, Limits(), handing_on=True)
        assert outcome.declined is None, f"{tool}({args}) was handed on: {outcome.declined}"
        real = server.call(tool, args)
        verdict = compare_answers(Answer(json.loads(real[0]), real[1]), Answer(outcome.result, outcome.is_error))
        assert verdict.agree, f"{tool}({args}): twin {outcome.result}, server {real[0]}"
        state = apply_patch(state, outcome.state_patch) if outcome.state_patch else state

    agree("save_note", {"title": "lighthouse", "body": "paint the door blue", "pinned": True})
    agree("save_note", {"title": "violin lessons", "body": "scales every morning", "pinned": False})
    agree("list_notes", {})
