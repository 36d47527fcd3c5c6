"""The recordings file that `sim-mcp record` writes: one JSON line per call answered by a real MCP server.

    {"session": "s-1", "seq": 1, "tool": "create_entities", "arguments": {...},
     "result": {"content": [...], "structuredContent": {...}, "isError": false},
     "is_error": false, "latency_ms": 12.5}

`result` is the real `CallToolResult` as the server sent it (the MCP wire form). A call the server
refused with a JSON-RPC error is kept with `"rpc_error": {"code": ..., "message": ...}` instead of a
result. A line `{"session": S, "restarted": "why"}` says that the server was started anew in the middle
of session S: what follows in S ran against a fresh world, so readers treat it as a new session
(`S~2`). Lines are appended and flushed one call at a time, so a proxy that is killed leaves every
answered call behind it, and at worst one cut-off last line.

Reading (`read_calls`) never gives up on a bad line: each is named by file and line in `problems`
and the rest is used, because a recording made over an hour should not be lost to one torn write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim_mcp.errors import ConfigError
from sim_mcp.jsonl import JsonLinesWriter, json_lines
from sim_mcp.state.compare import answer_value

__all__ = [
    "RECORDINGS_NAME",
    "RecordedCall",
    "Recordings",
    "RecordingsWriter",
    "read_calls",
    "sessions_of",
    "texts_of",
]

RECORDINGS_NAME = "recordings.jsonl"
_MASK = "***"


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One call of a recorded session, and what the real server answered."""

    session: str
    seq: int
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None  # the CallToolResult in wire form; None for a JSON-RPC error
    is_error: bool
    latency_ms: float = 0.0
    rpc_error: dict[str, Any] | None = None
    where: str = ""  # "file:line"

    @property
    def value(self) -> Any:
        """What the call answered, in the form two servers are compared by (`answer_value`)."""
        return answer_value(self.result, self.rpc_error)


@dataclass
class Recordings:
    """The calls read from one or more files, and what could not be read (file:line: reason)."""

    calls: list[RecordedCall] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def sessions(self) -> dict[str, list[RecordedCall]]:
        return sessions_of(self.calls)


def sessions_of(calls: list[RecordedCall]) -> dict[str, list[RecordedCall]]:
    """Calls grouped by session, each session in call order, sessions in order of first appearance."""
    grouped: dict[str, list[RecordedCall]] = {}
    for call in calls:
        grouped.setdefault(call.session, []).append(call)
    for session in grouped.values():
        session.sort(key=lambda call: call.seq)
    return grouped


def read_calls(path: Path) -> Recordings:
    """Every call in a recordings file, or in the `recordings.jsonl` of a recording folder.

    A missing or unreadable file is a `ConfigError`; a bad line is a problem named by file and line,
    and the other lines are used."""
    file = path / RECORDINGS_NAME if path.is_dir() else path
    if not file.is_file():
        raise ConfigError(f"{file}: no such recordings file (sim-mcp record -o DIR writes DIR/{RECORDINGS_NAME})")
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ConfigError(f"{file}: cannot read it: {e.strerror or e}") from e
    found = Recordings()
    restarts: dict[str, int] = {}
    lines = text.split("\n")
    for read in json_lines(lines, file):
        where, entry = read.where, read.value
        if read.error is not None:
            cut = " (cut off: the recording stopped mid-line)" if read.number == len(lines) else ""
            found.problems.append(f"{where}: not JSON{cut}: {read.error}; the line is left out")
            continue
        if not isinstance(entry, dict):
            found.problems.append(f"{where}: expected a JSON object, got {type(entry).__name__}; left out")
            continue
        session = entry.get("session")
        if isinstance(session, str) and "restarted" in entry:
            restarts[session] = restarts.get(session, 1) + 1
            continue
        problem = _problem(entry)
        if problem is not None:
            found.problems.append(f"{where}: {problem}; the line is left out")
            continue
        name = str(session) if restarts.get(str(session), 1) == 1 else f"{session}~{restarts[str(session)]}"
        found.calls.append(
            RecordedCall(
                session=name,
                seq=int(entry["seq"]),
                tool=entry["tool"],
                arguments=entry.get("arguments") or {},
                result=entry.get("result"),
                is_error=bool(entry.get("is_error", False)),
                latency_ms=float(entry.get("latency_ms", 0.0)),
                rpc_error=entry.get("rpc_error"),
                where=where,
            )
        )
    return found


def _problem(entry: dict[str, Any]) -> str | None:
    if not isinstance(entry.get("session"), str):
        return "expected a 'session' string"
    if not isinstance(entry.get("seq"), int) or isinstance(entry.get("seq"), bool):
        return "expected a 'seq' integer"
    if not isinstance(entry.get("tool"), str):
        return "expected a 'tool' name"
    if not isinstance(entry.get("arguments", {}), dict):
        return "expected 'arguments' to be an object"
    if entry.get("rpc_error") is None and not isinstance(entry.get("result"), dict):
        return "expected a 'result' object (a CallToolResult) or an 'rpc_error'"
    return None


class RecordingsWriter(JsonLinesWriter):
    """Appends calls to a recordings file, one line per call, flushed at once; `redact` masks what it
    matches in every string written (never in what the client is answered)."""

    def __init__(self, path: Path, redact: list[str] | None = None) -> None:
        super().__init__(path, failure=f"{path}: cannot write the recordings")
        try:
            self.patterns = [re.compile(pattern) for pattern in redact or []]
        except re.error as e:
            raise ConfigError(f"--redact: not a regular expression ({e}): expected e.g. 'sk-[A-Za-z0-9]+'") from e

    def write(self, value: Any) -> None:
        super().write(self._redacted(value))

    def _redacted(self, value: Any) -> Any:
        if not self.patterns:
            return value
        if isinstance(value, str):
            for pattern in self.patterns:
                value = pattern.sub(_MASK, value)
            return value
        if isinstance(value, dict):
            return {self._redacted(key): self._redacted(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._redacted(item) for item in value]
        return value


def texts_of(value: Any) -> list[str]:
    """Every text of an answer (a JSON value), in document order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for inner in value.values() for text in texts_of(inner)]
    if isinstance(value, list):
        return [text for inner in value for text in texts_of(inner)]
    return []
