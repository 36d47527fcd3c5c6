"""Cassettes: recorded outcomes, so an evaluation can be run again with no LLM (`--record`, `--backend replay`).

A cassette is a JSON Lines file, one checked outcome per line::

    {"key": "9f2c…", "environment": "tickets", "version": "3a1e…", "tool": "get_ticket",
     "arguments": {"ticket_id": "T-1001"}, "session": "episode-1",
     "outcome": {"result": {...}, "is_error": false, "state_patch": []}}

`key` is `cache_key(request)`: the sha256 of (environment version, tool, canonical arguments, canonical
state before the call), so an entry answers exactly the situation it was recorded in. Only outcomes
that passed the simulator's checks and were committed are recorded (an `on_commit` hook: rejected
replies, failures and injected error or timeout faults never reach it). Every commit is appended, so a
situation met several times keeps each answer, in order; `ReplayBackend` gives them back in that order
within a session. One process writes a cassette at a time.

The recordings file of `sim-mcp record` (a real server's answers, docs/twins.md) reads as a cassette too:
a real server has no state we can see, so its entries are keyed by tool and arguments alone (`call_key`),
and the replay backend looks there when no entry matches the state.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from sim_mcp.engine.cache import cache_key
from sim_mcp.engine.contract import Outcome
from sim_mcp.engine.hooks import Change, Commit
from sim_mcp.errors import ConfigError
from sim_mcp.jsonl import JsonLinesWriter
from sim_mcp.state.compare import answer_value

__all__ = ["CassetteEntry", "CassetteRecorder", "call_key", "read_cassette"]

logger = logging.getLogger("sim_mcp")


class CassetteEntry(BaseModel):
    """One recorded outcome and the situation it answers."""

    model_config = ConfigDict(extra="ignore")

    key: str
    environment: str
    version: str
    tool: str
    arguments: dict[str, Any]
    session: str | None = None
    outcome: Outcome


def read_cassette(path: Path) -> list[CassetteEntry]:
    """Every entry of a cassette, in file order; `ConfigError` naming the file and line of a bad one."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"--cassette {path}: no such file (make one with sim-mcp serve --record FILE)") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"--cassette {path}: cannot read it: {e}") from e
    entries: list[CassetteEntry] = []
    real = False  # a recordings file of sim-mcp record: a torn line is skipped, as compile and twin-check do
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or _is_restart(line):
            continue
        try:
            recorded = _recorded_call(line)
            real = real or recorded is not None
            entries.append(recorded if recorded is not None else CassetteEntry.model_validate_json(line))
        except ValidationError as e:
            if real:
                logger.warning("--cassette %s: line %d is no recorded call (cut off?): left out", path, number)
                continue
            first = e.errors()[0]
            place = ".".join(str(part) for part in first["loc"])
            reason = f"{place}: {first['msg']}" if place else str(first["msg"])
            raise ConfigError(
                f"--cassette {path}: line {number}: {reason} (expected a JSON object with key, environment, "
                "version, tool, arguments and outcome, as --record writes)"
            ) from e
    return entries


def call_key(tool: str, arguments: dict[str, Any]) -> str:
    """The key of a recorded real call: sha256 of the tool and its canonical arguments (no state)."""
    canonical = json.dumps(["call", tool, arguments], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _is_restart(line: str) -> bool:
    """A recordings line saying the real server was started anew: no call, nothing to replay."""
    try:
        entry = json.loads(line)
    except ValueError:
        return False
    return isinstance(entry, dict) and "restarted" in entry and "tool" not in entry


def _recorded_call(line: str) -> CassetteEntry | None:
    """A line of `sim-mcp record`'s recordings file as an entry; None for any other line."""
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or "outcome" in entry or "seq" not in entry or "tool" not in entry:
        return None
    arguments = entry.get("arguments") or {}
    value = answer_value(entry.get("result"), entry.get("rpc_error"))
    return CassetteEntry(
        key=call_key(str(entry["tool"]), arguments),
        environment="",
        version="",
        tool=str(entry["tool"]),
        arguments=arguments,
        session=entry.get("session"),
        outcome=Outcome(result=value, is_error=bool(entry.get("is_error", False))),
    )


class CassetteRecorder:
    """An after-commit subscriber appending each committed backend outcome to a cassette (`--record FILE`).

    It writes from the event loop with no await between a line's write and its flush, so lines of
    sessions that commit at once never interleave (`JsonLinesWriter` says why the file stays open)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer = JsonLinesWriter(path, failure=f"--record {path}: cannot write it")

    def check(self) -> None:
        """Open the file for appending (its folder is created); `ConfigError` if it cannot be."""
        self._writer.open()

    def close(self) -> None:
        self._writer.close()

    async def __call__(self, commit: Change) -> None:
        if not isinstance(commit, Commit) or commit.outcome is None or commit.request is None:
            return
        request = commit.request
        entry = CassetteEntry(
            key=cache_key(request),
            environment=request.environment.name,
            version=request.environment.version,
            tool=request.tool.name,
            arguments=request.arguments,
            session=commit.record.id,
            outcome=commit.outcome,
        )
        self._writer.write(entry.model_dump(mode="json"))
