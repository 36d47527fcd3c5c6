"""The decision list's last rule: where a rare variant of a tool's answer follows from nothing the learner can
ask (a flag a server adds now and then), the common answer is still the twin's, marked `lenient`, rather than
every call of the tool handed on to a replay that answers an error where the common answer was right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import assert_guard_agrees, compile_recorded, played

NOTE_TOOLS = [
    ToolSpec(
        name="save_note",
        input_schema={
            "type": "object",
            "properties": {"topic": {"type": "string"}, "content": {"type": "string"}},
            "required": ["topic", "content"],
        },
    ),
]
# The contents that make the server add a review flag: a rule of its own, which no condition of the learner's
# language tells (each is a word, as every other content is).
_FLAGGED = {"lorem"}


class Notes:
    """Notes saved under a number the server counts; a content it flags answers one more field."""

    def __init__(self) -> None:
        self.saved = 0

    def answer(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        self.saved += 1
        answer: dict[str, Any] = {"status": "saved", "id": self.saved, "topic": arguments["topic"]}
        if arguments["content"] in _FLAGGED:
            answer["review"] = True
        return json.dumps(answer), False


_WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def _sessions() -> list[list[RecordedCall]]:
    sessions = []
    for number in range(5):
        calls = [
            ("save_note", {"topic": f"{_WORDS[(number + i) % 10]} plan", "content": _WORDS[(number * 3 + i) % 10]})
            for i in range(4)
        ]
        if number == 2:
            calls.append(("save_note", {"topic": "kilo plan", "content": "lorem"}))
        sessions.append(played(Notes().answer, f"s{number}", calls))
    return sessions


def test_a_rare_variant_no_condition_tells_leaves_the_common_answer_to_a_lenient_last_rule() -> None:
    plans = infer_guards(NOTE_TOOLS, _sessions(), ["save_note"]).plans
    rules = plans["save_note"]["rules"]
    assert rules[-1].get("lenient") is True
    # Names never recorded are answered as the server answers them, the number counted on.
    state: dict[str, Any] = {}
    server = Notes()
    for topic, content in [("zulu notes", "yankee"), ("xray notes", "whiskey")]:
        text, _ = server.answer("save_note", {"topic": topic, "content": content})
        assert_guard_agrees(plans, "save_note", state, {"topic": topic, "content": content}, json.loads(text))


def test_compile_keeps_the_lenient_rule_that_answers_a_recorded_variant_wrongly(tmp_path: Path) -> None:
    report = compile_recorded(tmp_path, NOTE_TOOLS, _sessions())
    entry = report["save_note"]
    assert entry["status"] == "guarded", entry
    assert entry["plan"]["rules"][-1].get("lenient") is True


READ_TOOLS = [
    *NOTE_TOOLS,
    ToolSpec(
        name="get_note",
        input_schema={"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    ),
]


class Refusing:
    """Notes saved under a number the server counts, read back by it; a content it refuses is answered as a
    success that saves nothing and uses no number up."""

    def __init__(self) -> None:
        self.notes: dict[int, str] = {}

    def answer(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool == "get_note":
            topic = self.notes.get(arguments["id"])
            found = {"id": arguments["id"], "topic": topic} if topic else {"error": f"Note {arguments['id']} not found"}
            return json.dumps(found), False
        if arguments["content"] in _FLAGGED:
            return json.dumps({"error": "Content refused"}), False
        number = len(self.notes) + 1
        self.notes[number] = arguments["topic"]
        return json.dumps({"status": "saved", "id": number, "topic": arguments["topic"]}), False


def _refusing_sessions() -> list[list[RecordedCall]]:
    sessions = []
    for number in range(5):
        calls: list[tuple[str, dict[str, Any]]] = []
        if number == 2:
            calls.append(("save_note", {"topic": "kilo plan", "content": "lorem"}))
        calls += [
            ("save_note", {"topic": f"{_WORDS[(number + i) % 10]} plan", "content": _WORDS[(number * 3 + i) % 10]})
            for i in range(4)
        ]
        calls += [("get_note", {"id": 1}), ("get_note", {"id": 9})]
        sessions.append(played(Refusing().answer, f"s{number}", calls))
    return sessions


def test_a_lenient_answer_that_was_wrong_leaves_the_checked_world_as_the_server_left_it(tmp_path: Path) -> None:
    # The refusal is answered as a save by the lenient rule; compile's check goes on from the world the
    # server's refusal left (nothing saved), so the read's rules, checked after it, keep their numbers.
    report = compile_recorded(tmp_path, READ_TOOLS, _refusing_sessions())
    assert report["save_note"]["plan"]["rules"][-1].get("lenient") is True
    assert "its rules answer 10 of its 10 recorded calls" in report["get_note"]["reason"], report["get_note"]
