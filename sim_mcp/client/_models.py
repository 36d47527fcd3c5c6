"""Typed views of what the control API and the MCP endpoint answer: sessions, evaluations, events, tool results.

Each model keeps fields it does not know (`extra="allow"`), so a newer server's additions are still there
(`model.model_extra`) for a client that predates them.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sim_mcp.client._errors import ToolCallError

JSON = Any


"""A JSON value as the server sent it (object, array, string, number, boolean or null)."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Tokens(_Answer):
    """Tokens a backend (the simulator's model, the judge) used."""

    input: int = 0
    output: int = 0
    cached: int = 0


class SessionInfo(_Answer):
    """A session's summary: `POST /sessions`, `GET /sessions/{id}` (without its state)."""

    id: str
    env: str | None = None
    seed: int = 0
    created_at: float = 0.0
    last_used_at: float = 0.0
    events: int = 0
    errors: int = 0
    tokens: Tokens = Field(default_factory=Tokens)
    snapshots: list[str] = Field(default_factory=list)
    forked_from: str | None = None
    task: str | None = None
    reward: float | None = None
    mcp_url: str


class CheckResult(_Answer):
    """One check of a task on the final state."""

    name: str
    passed: bool
    detail: str = ""
    weight: float = 1.0


class JudgeResult(_Answer):
    """The LLM judge's part of an evaluation; `skipped` says why it did not run (e.g. the offline backend)."""

    score: float | None = None
    reasons: str = ""
    weight: float = 1.0
    passed: bool | None = None
    skipped: str | None = None
    tokens: Tokens = Field(default_factory=Tokens)


class Evaluation(_Answer):
    """`POST /sessions/{id}/evaluate`: the reward and its breakdown (docs/rewards.md)."""

    task: str | None = None
    env: str | None = None
    reward: float
    passed: bool
    checks: list[CheckResult] = Field(default_factory=list)
    judge: JudgeResult | None = None
    events: int = 0
    evaluated_at: float = 0.0
    curriculum: dict[str, JSON] | None = None

    @property
    def failed_checks(self) -> list[CheckResult]:
        """The checks that did not pass."""
        return [check for check in self.checks if not check.passed]


class Event(_Answer):
    """One entry of a session's event log: a tool call, or a message to or from the simulated user."""

    seq: int
    at: float = 0.0
    kind: str = "tool_call"
    environment: str | None = None
    tool: str = ""
    arguments: dict[str, JSON] = Field(default_factory=dict)
    result: JSON = None
    is_error: bool = False
    state_patch: list[dict[str, JSON]] = Field(default_factory=list)
    backend: str = ""
    latency_ms: float = 0.0
    tokens: Tokens = Field(default_factory=Tokens)
    note: str | None = None
    fault: str | None = None
    end: str | None = None


class UserReply(_Answer):
    """`POST /sessions/{id}/user`: the simulated user's answer; `done` when the conversation is over."""

    message: str
    done: bool = False
    turn: int = 0
    reason: str | None = None


class SolutionStep(_Answer):
    """One call of a task's reference solution."""

    tool: str
    arguments: dict[str, JSON] = Field(default_factory=dict)


class TaskInfo(_Answer):
    """A task: `GET /tasks` (summaries) or `GET /tasks/{name}` (the task as written, with its solution)."""

    name: str
    env: str
    description: str = ""
    difficulty: int | float | str | None = None
    solution: list[SolutionStep] | None = None


class ToolInfo(_Answer):
    """A tool the session's agent is offered (MCP `tools/list`)."""

    name: str
    description: str = ""
    input_schema: dict[str, JSON] = Field(default_factory=dict)
    output_schema: dict[str, JSON] | None = None

    def as_openai_function(self) -> dict[str, JSON]:
        """This tool in the OpenAI chat-completions `tools` shape."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema},
        }


class ToolResult(_Answer):
    """A tool call's answer: the text the agent sees, the structured result if the tool has an output schema."""

    tool: str
    is_error: bool
    text: str
    structured: JSON = None

    @property
    def value(self) -> JSON:
        """The result as JSON: the structured content, else the text parsed as JSON, else the text itself."""
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except ValueError:
            return self.text

    def raise_for_error(self) -> ToolResult:
        """Raise `ToolCallError` if the tool answered with an error; return the result otherwise."""
        if self.is_error:
            raise ToolCallError(self.tool, self.text)
        return self
