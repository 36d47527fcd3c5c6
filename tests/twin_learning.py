"""What the twin-learning tests share: recording a session on a fixture server, compiling recorded sessions
through `sim-mcp compile`, and playing a call on a learned guard against the answer a fixture server gave."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.cli import main
from sim_mcp.specs.model import ToolSpec


def played(
    answer: Callable[[str, dict[str, Any]], tuple[str, bool]], session: str, calls: list[tuple[str, dict[str, Any]]]
) -> list[RecordedCall]:
    """A session's calls as a fixture server answers them (`answer(tool, arguments) -> (text, is_error)`),
    recorded in order."""
    recorded = []
    for seq, (tool, arguments) in enumerate(calls, 1):
        text, is_error = answer(tool, arguments)
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        recorded.append(RecordedCall(session, seq, tool, arguments, result, is_error))
    return recorded


def compile_recorded(folder: Path, tools: list[ToolSpec], sessions: list[list[RecordedCall]]) -> dict[str, Any]:
    """Write a spec of `tools` and `sessions` as its recordings into `folder`, compile the twin there as a user
    would, and return the report's entry per tool."""
    spec = {"name": "tasks", "tools": [tool.model_dump(mode="json", exclude_none=True) for tool in tools]}
    (folder / "spec.yaml").write_text(yaml.safe_dump(spec))
    lines = [
        json.dumps(
            {"session": c.session, "seq": c.seq, "tool": c.tool, "arguments": c.arguments}
            | {"result": c.result, "is_error": c.is_error, "latency_ms": 1.0}
        )
        for s in sessions
        for c in s
    ]
    (folder / "recordings.jsonl").write_text("\n".join(lines) + "\n")
    report = folder / "compile.json"
    main(["compile", str(folder / "spec.yaml"), "--from", str(folder), "--report", str(report)])
    tools_report: dict[str, Any] = json.loads(report.read_text())["tools"]
    return tools_report


def assert_guard_agrees(
    plans: dict[str, Any], tool: str, state: dict[str, Any], arguments: dict[str, Any], expected: Any
) -> None:
    """The learned guard of `tool` answers the call (changing `state` as the twin would) as the server did."""
    answer = run_guard(plans[tool], tool, state, arguments)
    assert answer is not None, (tool, arguments)
    verdict = compare_answers(Answer(expected, False), Answer(answer[0], answer[1]))
    assert verdict.agree, (tool, arguments, verdict, answer[0], expected)


def guard_misses(
    plans: dict[str, Any],
    server: Callable[[str, dict[str, Any]], tuple[str, bool]],
    calls: list[tuple[str, dict[str, Any]]],
) -> list[tuple[str, dict[str, Any], Any, str]]:
    """Play `calls` in order on a fixture server (`server(tool, arguments) -> (JSON text, is_error)`) and on the
    learned guards from the first world; the calls whose guard declined or answered otherwise than the server."""
    state: dict[str, Any] = {}
    missed = []
    for tool, arguments in calls:
        text, is_error = server(tool, arguments)
        answer = run_guard(plans[tool], tool, state, arguments)
        if answer is None or not compare_answers(Answer(json.loads(text), is_error), Answer(*answer)).agree:
            missed.append((tool, arguments, answer, text))
    return missed
