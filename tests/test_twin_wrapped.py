"""Wrapped arguments: a note store whose every tool takes its arguments as one input model (`params: {"$ref":
"#/$defs/SaveInput"}`), as a Python server of pydantic models serves them. Sessions of a Python model of it are
compiled by the real learner, and the twin's Starlark answers titles it never saw: a note read back after it was
saved, a note never saved refused, a removed one gone."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.build import _generalises_better
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.authoring.twins.wrapped import find_wrappers, unwrapped
from sim_mcp.rules import CallContext, Limits, compile_program, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.state.patch import apply_patch
from tests.twin_learning import compile_recorded, played


def _wrapped(model: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "$defs": {model: {"type": "object", "properties": properties, "required": required}},
        "properties": {"params": {"$ref": f"#/$defs/{model}"}},
        "required": ["params"],
    }


_TITLE = {"type": "string", "minLength": 1}
TOOLS = [
    ToolSpec(name="save_note", input_schema=_wrapped("SaveInput", {"title": _TITLE, "body": {"type": "string"}}, [])),
    ToolSpec(name="read_note", input_schema=_wrapped("ReadInput", {"title": _TITLE}, ["title"])),
    ToolSpec(name="remove_note", input_schema=_wrapped("RemoveInput", {"title": _TITLE}, ["title"])),
]
TITLES = ["groceries", "dentist", "rent", "garden", "passport", "car"]
BODIES = ["buy milk and eggs", "tuesday at nine", "pay before the 5th", "water the roses", "renew by june"]
UNSEEN_TITLES = ["lighthouse", "violin lessons"]
UNSEEN_BODIES = ["paint the door blue", "scales every morning"]


class NoteServer:
    def __init__(self) -> None:
        self.notes: dict[str, str] = {}

    def call(self, tool: str, args: dict[str, Any]) -> tuple[str, bool]:
        params = args["params"]
        title = params["title"]
        if tool == "save_note":
            self.notes[title] = params["body"]
            return f"Saved note '{title}'", False
        if title not in self.notes:
            return f"No note titled '{title}'", True
        if tool == "read_note":
            return f"{title}: {self.notes[title]}", False
        del self.notes[title]
        return f"Removed note '{title}'", False


def sessions(seed: int, count: int) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    recorded = []
    for number in range(count):
        saved: list[str] = []
        calls: list[tuple[str, dict[str, Any]]] = []
        for _ in range(10):
            pick = rng.random()
            if pick < 0.4 or not saved:
                title = rng.choice(TITLES)
                saved.append(title)
                calls.append(("save_note", {"params": {"title": title, "body": rng.choice(BODIES)}}))
            else:
                title = rng.choice(saved) if rng.random() < 0.8 else rng.choice(TITLES)
                calls.append(("read_note" if pick < 0.8 else "remove_note", {"params": {"title": title}}))
        server = NoteServer()
        recorded.append(played(server.call, f"s{number}", calls))
    return recorded


def test_a_tool_whose_arguments_come_wrapped_in_one_model_is_learned_on_its_fields(tmp_path: Path) -> None:
    report = compile_recorded(tmp_path, TOOLS, sessions(0, 16))
    for name in ("save_note", "read_note", "remove_note"):
        assert report[name]["status"] in ("guarded", "exact"), report[name]
        assert report[name]["plan"]["wrapper"] == "params"
    program = compile_program((tmp_path / "spec.rules.star").read_text(), "<twin>", [tool.name for tool in TOOLS])
    state: dict[str, Any] = {"_twin": {"keys": {}}}
    server = NoteServer()

    def agree(tool: str, params: dict[str, Any]) -> None:
        nonlocal state
        args = {"params": params}
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool=tool)
        outcome = run_tool(program, tool, state, args, context, Limits(), handing_on=True)
        assert outcome.declined is None, f"{tool}({args}) was handed on: {outcome.declined}"
        real = server.call(tool, args)
        verdict = compare_answers(Answer(*real), Answer(outcome.result, outcome.is_error))
        assert verdict.agree, f"{tool}({args}): twin {outcome.result}, server {real[0]}"
        state = apply_patch(state, outcome.state_patch) if outcome.state_patch else state

    agree("save_note", {"title": UNSEEN_TITLES[0], "body": UNSEEN_BODIES[0]})
    agree("read_note", {"title": UNSEEN_TITLES[0]})
    agree("read_note", {"title": UNSEEN_TITLES[1]})
    agree("save_note", {"title": UNSEEN_TITLES[1], "body": UNSEEN_BODIES[1]})
    agree("remove_note", {"title": UNSEEN_TITLES[0]})
    agree("read_note", {"title": UNSEEN_TITLES[0]})
    agree("read_note", {"title": UNSEEN_TITLES[1]})


def test_only_a_lone_object_argument_of_declared_fields_given_alone_is_a_wrapper() -> None:
    free_form = ToolSpec(name="free_form", input_schema={"type": "object", "properties": {"data": {"type": "object"}}})
    two = ToolSpec(
        name="two",
        input_schema={
            "type": "object",
            "properties": {"params": {"type": "object", "properties": {"a": {"type": "string"}}}, "b": {}},
        },
    )
    tools = [*TOOLS, free_form, two]
    calls = [
        RecordedCall("s", 1, "save_note", {"params": {"title": "a", "body": "b"}}, {"content": []}, False),
        RecordedCall("s", 2, "read_note", {"params": {"title": "a"}, "extra": 1}, {"content": []}, False),
        RecordedCall("s", 3, "free_form", {"data": {"x": 1}}, {"content": []}, False),
        RecordedCall("s", 4, "two", {"params": {"a": "x"}}, {"content": []}, False),
    ]
    assert find_wrappers(tools, [calls]) == {"save_note": "params"}
    view_tools, view_sessions = unwrapped(tools, [calls], {"save_note": "params"})
    assert view_tools[0].input_schema["properties"]["title"] == _TITLE
    assert view_sessions[0][0].arguments == {"title": "a", "body": "b"}
    assert view_sessions[0][1].arguments == calls[1].arguments


def test_the_wrapped_way_is_kept_only_where_it_answers_more_sessions_it_did_not_learn_from() -> None:
    # A store whose every answer is a fact of a fixed catalogue, the same for the same arguments whatever was
    # called before: rules on the unwrapped fields learn only what the recorded titles showed, while the
    # replay of the recorded answers answers every title asked before, as the server does.
    catalogue = {title: f"{title}: shelf {number}" for number, title in enumerate(TITLES)}
    rng = random.Random(3)
    recorded = []
    for number in range(12):
        calls = [("read_note", {"params": {"title": rng.choice(TITLES)}}) for _ in range(6)]
        recorded.append(played(lambda tool, args: (catalogue[args["params"]["title"]], False), f"s{number}", calls))
    environment = Environment(name="shelves", tools=[TOOLS[1]])
    assert not _generalises_better(environment, recorded, 200, {"read_note": "params"})
    assert _generalises_better(
        Environment(name="notes", tools=TOOLS), sessions(0, 12), 200, {t.name: "params" for t in TOOLS}
    )
