"""The served-twin cost benchmark calls each tool with arguments the real server answered without an
error: a twin measured on calls the real server refused would be timed answering errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.twin_serve_cost import choose_calls, recorded_arguments


def write_recordings(folder: Path, lines: list[dict[str, object]]) -> None:
    (folder / "recordings.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def answer(is_error: bool) -> dict[str, object]:
    return {"content": [{"type": "text", "text": "x"}], "isError": is_error}


def test_each_tool_takes_its_first_call_answered_without_an_error(tmp_path: Path) -> None:
    write_recordings(
        tmp_path,
        [
            {"session": "s", "seq": 1, "tool": "add", "arguments": {"n": 1}, "result": answer(True), "is_error": True},
            {"session": "s", "seq": 2, "tool": "read", "arguments": {}, "rpc_error": {"code": -32602, "message": "m"}},
            {"session": "s", "seq": 3, "tool": "add", "arguments": {"n": 2}, "result": answer(False)},
            {"session": "s", "seq": 4, "tool": "add", "arguments": {"n": 3}, "result": answer(False)},
            {"session": "t", "seq": 1, "tool": "read", "arguments": {"q": "a"}, "result": answer(False)},
        ],
    )
    arguments = recorded_arguments(tmp_path)
    assert arguments == {"add": {"n": 2}, "read": {"q": "a"}}
    assert choose_calls(arguments, None) == [("add", {"n": 2}), ("read", {"q": "a"})]
    assert choose_calls(arguments, ["read", "add"]) == [("read", {"q": "a"}), ("add", {"n": 2})]


def test_a_tool_with_no_answered_call_is_named(tmp_path: Path) -> None:
    write_recordings(
        tmp_path,
        [{"session": "s", "seq": 1, "tool": "add", "arguments": {}, "result": answer(True), "is_error": True}],
    )
    with pytest.raises(SystemExit, match=r"--tools: add: no call answered without an error.*expected some of \(none\)"):
        choose_calls(recorded_arguments(tmp_path), ["add"])


def test_a_folder_without_recordings_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"no recordings.jsonl in it"):
        recorded_arguments(tmp_path)
