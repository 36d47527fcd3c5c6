"""`sim-mcp record`: the recording proxy in front of a real MCP server (tests/twins_upstream.py, a small
server on the SDK's low-level `Server`, started over stdio), reached by the SDK client over stdio and over
HTTP in both protocol eras; and the recordings file it writes, read back by `read_calls`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import StdioServerParameters
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from sim_mcp.authoring.twins.recordings import RecordingsWriter, read_calls
from sim_mcp.cli import main
from tests.servers import REPO, free_port

UPSTREAM = [sys.executable, str(REPO / "tests" / "twins_upstream.py")]


def proxy(out: Path, *flags: str, upstream: list[str] | None = None) -> StdioServerParameters:
    command = ["-m", "sim_mcp.cli", "record", "-o", str(out), *flags, "--", *(upstream or UPSTREAM)]
    return StdioServerParameters(command=sys.executable, args=command, cwd=str(REPO))


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "recordings.jsonl").read_text().splitlines()]


def test_answers_unchanged_records_each_call_and_captures_the_spec(tmp_path: Path) -> None:
    async def go() -> None:
        direct = StdioServerParameters(command=UPSTREAM[0], args=UPSTREAM[1:])
        async with Client(proxy(tmp_path, "--session", "one")) as via, Client(direct) as real:
            names = sorted(tool.name for tool in (await via.list_tools()).tools)
            assert names == sorted(tool.name for tool in (await real.list_tools()).tools)
            answers = [
                await via.call_tool("add_note", {"text": "milk"}),
                await via.call_tool("get_note", {"id": 7}),
                await via.call_tool("list_notes", {}),
            ]
            expected = [
                await real.call_tool("add_note", {"text": "milk"}),
                await real.call_tool("get_note", {"id": 7}),
                await real.call_tool("list_notes", {}),
            ]
            assert [a.model_dump() for a in answers] == [e.model_dump() for e in expected]

    anyio.run(go)
    recorded = lines(tmp_path)
    assert [(r["session"], r["seq"], r["tool"], r["is_error"]) for r in recorded] == [
        ("one", 1, "add_note", False),
        ("one", 2, "get_note", True),
        ("one", 3, "list_notes", False),
    ]
    assert json.loads(recorded[0]["result"]["content"][0]["text"]) == {"id": 1, "text": "milk"}
    assert recorded[1]["result"]["content"][0]["text"] == "Note 7 not found"
    assert all(r["latency_ms"] >= 0 for r in recorded)
    spec = yaml.safe_load((tmp_path / "spec.yaml").read_text())
    assert spec["name"] == "notes"
    assert len(spec["tools"]) == 7
    calls = read_calls(tmp_path)
    assert calls.problems == []
    assert next(c.value for c in calls.calls) == {"id": 1, "text": "milk"}


def test_a_crash_is_reported_naming_server_and_call_the_server_restarted_and_the_recording_kept(tmp_path: Path) -> None:
    async def go() -> None:
        async with Client(proxy(tmp_path, "--session", "s")) as client:
            await client.call_tool("add_note", {"text": "before"})
            with pytest.raises(MCPError) as crashed:
                await client.call_tool("crash", {})
            message = str(crashed.value)
            assert "twins_upstream.py" in message
            assert "'crash'" in message
            assert "restarted the server" in message
            after = await client.call_tool("list_notes", {})  # a new server: a new world
            assert json.loads(after.content[0].text) == {"notes": []}  # type: ignore[union-attr]

    anyio.run(go)
    recorded = lines(tmp_path)
    assert [r.get("tool", "restart") for r in recorded] == ["add_note", "restart", "list_notes"]
    sessions = read_calls(tmp_path).sessions()
    assert list(sessions) == ["s", "s~2"]  # after a restart the session's world starts anew


def test_a_hang_times_out_and_stop_mode_stops_forwarding(tmp_path: Path) -> None:
    async def go() -> None:
        async with Client(proxy(tmp_path, "--timeout", "2", "--on-failure", "stop")) as client:
            await client.call_tool("add_note", {"text": "kept"})
            with pytest.raises(MCPError) as hung:
                await client.call_tool("hang", {})
            assert "no answer within 2 s" in str(hung.value)
            assert "'hang'" in str(hung.value)
            assert "stopped forwarding" in str(hung.value)
            with pytest.raises(MCPError, match="stopped forwarding"):
                await client.call_tool("list_notes", {})

    anyio.run(go)
    assert [r["tool"] for r in lines(tmp_path)] == ["add_note"]


def test_garbage_on_stdout_and_a_refusal(tmp_path: Path) -> None:
    async def go() -> None:
        async with Client(proxy(tmp_path, "--timeout", "3")) as client:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("refuse", {})
            assert refused.value.code == -32602
            assert "always refuses" in str(refused.value)
            with pytest.raises(MCPError) as garbage:
                await client.call_tool("garbage", {})
            assert "twins_upstream.py" in str(garbage.value)
            assert "'garbage'" in str(garbage.value)
            assert json.loads((await client.call_tool("add_note", {"text": "x"})).content[0].text)["id"] == 1  # type: ignore[union-attr]

    anyio.run(go)
    recorded = lines(tmp_path)
    assert recorded[0]["rpc_error"]["code"] == -32602
    assert recorded[0]["is_error"] is True
    assert recorded[-1]["tool"] == "add_note"


def test_redact_masks_what_is_written_never_what_is_answered(tmp_path: Path) -> None:
    async def go() -> None:
        async with Client(proxy(tmp_path, "--redact", r"sk-[a-z0-9]+")) as client:
            answer = await client.call_tool("add_note", {"text": "key sk-abc123 here"})
            assert "sk-abc123" in answer.content[0].text  # type: ignore[union-attr]

    anyio.run(go)
    text = (tmp_path / "recordings.jsonl").read_text()
    assert "sk-abc123" not in text
    assert "key *** here" in text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_http_fresh_per_session_starts_each_session_in_its_own_world(tmp_path: Path, mode: str) -> None:
    port = free_port()
    out = tmp_path / "rec"
    upstream = [*UPSTREAM, "{tmp}/notes.json"]
    command = [
        sys.executable,
        "-m",
        "sim_mcp.cli",
        "record",
        "-o",
        str(out),
        "--transport",
        "http",
        "--port",
        str(port),
    ]
    process = subprocess.Popen([*command, "--fresh-per-session", "--", *upstream], cwd=REPO, stderr=subprocess.PIPE)
    try:
        _wait_port(port, process)

        async def go() -> None:
            for session in ("a", "b"):
                async with Client(f"http://127.0.0.1:{port}/mcp?session={session}", mode=mode) as client:
                    await client.call_tool("add_note", {"text": session})
                    listed = await client.call_tool("list_notes", {})
                    assert json.loads(listed.content[0].text) == {"notes": [{"id": 1, "text": session}]}  # type: ignore[union-attr]

        anyio.run(go)
    finally:
        process.terminate()
        process.wait(10)
    sessions = read_calls(out).sessions()
    assert sorted(sessions) == ["a", "b"]
    assert all(len(calls) == 2 for calls in sessions.values())


def _wait_port(port: int, process: subprocess.Popen[bytes]) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the proxy did not listen in 30 s")


def test_a_cut_off_or_malformed_recordings_file_names_file_and_line_and_keeps_the_rest(tmp_path: Path) -> None:
    file = tmp_path / "recordings.jsonl"
    writer = RecordingsWriter(file)
    writer.write({"session": "s", "seq": 1, "tool": "t", "arguments": {}, "result": {"content": []}, "is_error": False})
    writer.close()
    with file.open("a") as handle:
        handle.write('{"session": "s", "seq": 2}\n[1]\n{"session": "s", "seq": 3, "tool": "t", "argu')
    found = read_calls(file)
    assert len(found.calls) == 1
    assert [problem.split(": ")[0] for problem in found.problems] == [f"{file}:2", f"{file}:3", f"{file}:4"]
    assert "cut off" in found.problems[-1]


def test_bad_command_lines_are_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["record", "-o", str(tmp_path)]) == 2
    assert "--url URL or -- COMMAND" in capsys.readouterr().err
    assert main(["record", "-o", str(tmp_path), "--redact", "(", "--", *UPSTREAM]) == 2
    assert "--redact" in capsys.readouterr().err


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_http_fresh_per_session_stops_every_sessions_server_and_removes_its_folder(tmp_path: Path) -> None:
    # A server that ignores EOF and SIGTERM, with a child of its own: only killing its process group ends it.
    port, out, temp, pids = free_port(), tmp_path / "rec", tmp_path / "temp", tmp_path / "pids"
    temp.mkdir()
    upstream = [sys.executable, str(REPO / "tests" / "files_upstream.py"), "--ignore-eof"]
    command = [sys.executable, "-m", "sim_mcp.cli", "record", "-o", str(out), "--transport", "http"]
    command += ["--port", str(port), "--fresh-per-session", "--", *upstream]
    env = {**os.environ, "TMPDIR": str(temp), "FILES_UPSTREAM_PIDS": str(pids)}
    process = subprocess.Popen(command, cwd=REPO, stderr=subprocess.PIPE, env=env)
    try:
        _wait_port(port, process)

        async def go() -> None:
            for session in ("a", "b", "c"):
                async with Client(f"http://127.0.0.1:{port}/mcp?session={session}") as client:
                    answer = await client.call_tool("write_file", {"path": "{tmp}/x.txt", "content": session})
                    # {tmp} is the session's folder: the server wrote there, and its answer names it.
                    assert not answer.is_error
                    assert "sim-mcp-record-" in answer.content[0].text  # type: ignore[union-attr]

        anyio.run(go)
    finally:
        process.terminate()
        process.wait(60)
    started = [int(pid) for line in pids.read_text().splitlines() for pid in line.split()]
    assert len(started) == 8  # the first server (the tools listed) and one per session, each with a child
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in started if _alive(pid)]
    assert not list(temp.glob("sim-mcp-record-*"))
    assert [(call.arguments["path"], call.value) for call in read_calls(out).calls] == [
        ("{tmp}/x.txt", "Wrote {tmp}/x.txt")
    ] * 3
