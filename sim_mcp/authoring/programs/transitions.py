"""Recorded calls for `sim-mcp compile --from`: a cassette, or exported trajectories, as state transitions.

A cassette (`--record FILE`) holds each checked outcome with its session; a trajectory file or folder
(`--trajectories DIR`, `sim-mcp export`) holds each session's events. Either way, each session's calls are
replayed from the environment's initial state (a session's events count from 1 again after a reset), so
that every recorded call comes with the state before it and after it. Calls of other environments, and
injected faults, are left out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonpatch
import jsonpointer

from sim_mcp.errors import ConfigError
from sim_mcp.jsonl import json_lines
from sim_mcp.specs.model import Environment
from sim_mcp.state.patch import apply_patch, diff_patch

__all__ = ["Recording", "read_recordings"]


@dataclass(frozen=True, slots=True)
class Recording:
    """One recorded call: the state before it, the arguments, the answer and the state after it."""

    tool: str
    arguments: dict[str, Any]
    before: Any
    result: Any
    is_error: bool
    after: Any
    source: str  # "file:line"
    sequence: int = 0  # calls of its session before it

    def changes(self) -> list[dict[str, Any]]:
        """The call's change to the state, as an RFC 6902 patch."""
        return diff_patch(self.before, self.after)


def read_recordings(path: Path, environment: Environment) -> list[Recording]:
    """The recorded calls of `environment` in a cassette, a trajectory file, or a folder of them."""
    if not path.exists():
        raise ConfigError(f"--from {path}: no such file or folder (a cassette from --record, or trajectories)")
    files = sorted(p for p in path.rglob("*.jsonl") if p.is_file()) if path.is_dir() else [path]
    recordings: list[Recording] = []
    for file in files:
        recordings += _read_file(file, environment)
    return recordings


def _read_file(path: Path, environment: Environment) -> list[Recording]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"--from {path}: cannot read it: {e}") from e
    states: dict[str, Any] = {}
    counts: dict[str, int] = {}
    found: list[Recording] = []
    for read in json_lines(lines, path):
        where = read.where
        if read.error is not None:
            reason = read.error.msg if isinstance(read.error, json.JSONDecodeError) else str(read.error)
            raise ConfigError(f"--from {where}: not JSON ({reason})") from None
        call = _call_of(read.value, where)
        if call is None or call["environment"] != environment.name:
            continue
        session = str(call["session"])
        if call["restart"] or session not in states:
            states[session], counts[session] = environment.initial_state, 0
        before = states[session]
        try:
            after = apply_patch(before, call["patch"]) if call["patch"] else before
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError, KeyError, IndexError) as e:
            raise ConfigError(f"--from {where}: its state_patch does not apply to the replayed state: {e}") from None
        found.append(
            Recording(
                call["tool"], call["arguments"], before, call["result"], call["is_error"], after, where, counts[session]
            )
        )
        states[session], counts[session] = after, counts[session] + 1
    return found


def _call_of(entry: Any, where: str) -> dict[str, Any] | None:
    """A cassette entry or a trajectory event as one call; None for what is no call of the world."""
    if not isinstance(entry, dict):
        raise ConfigError(f"--from {where}: expected a JSON object per line")
    if isinstance(entry.get("outcome"), dict):  # a cassette entry
        outcome = entry["outcome"]
        fields = {
            "session": entry.get("session") or "",
            "restart": False,
            "result": outcome.get("result"),
            "is_error": bool(outcome.get("is_error", False)),
            "patch": outcome.get("state_patch") or [],
        }
    elif "seq" in entry:  # a trajectory event
        if entry.get("kind", "tool_call") != "tool_call" or entry.get("fault") is not None:
            return None
        fields = {
            "session": entry.get("session") or "",
            "restart": entry.get("seq") == 1,
            "result": entry.get("result"),
            "is_error": bool(entry.get("is_error", False)),
            "patch": entry.get("state_patch") or [],
        }
    else:
        raise ConfigError(f"--from {where}: neither a cassette entry (outcome) nor a trajectory event (seq)")
    if not isinstance(entry.get("tool"), str) or not isinstance(entry.get("arguments", {}), dict):
        raise ConfigError(f"--from {where}: expected a tool name and an arguments object")
    return {
        **fields,
        "environment": entry.get("environment"),
        "tool": entry["tool"],
        "arguments": entry.get("arguments", {}),
    }
