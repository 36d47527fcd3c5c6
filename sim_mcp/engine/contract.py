"""The simulation contract: what a backend is given, and the outcome it must return."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sim_mcp.errors import UnusableReply
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import CompiledSchema
from sim_mcp.state.session import Event, JsonPatch, TokenUsage


class Outcome(BaseModel):
    """A backend's answer to one call."""

    model_config = ConfigDict(extra="ignore")

    result: Any = None
    is_error: bool = False
    state_patch: JsonPatch = Field(default_factory=list)
    # Program mode: the program the model answered with, which the LLM layer ran for the result and the patch
    # (kept out of dumps: what a cassette records is the result and the patch it came to).
    program: str | None = Field(default=None, exclude=True)
    # Not part of what the model writes: filled in by the backend.
    note: str | None = Field(default=None, exclude=True)
    usage: TokenUsage = Field(default_factory=TokenUsage, exclude=True)
    # `--llm-output auto`: answered in patch mode after program mode gave no valid answer (the event's
    # `fallback`).
    fallback: bool = Field(default=False, exclude=True)


@dataclass(frozen=True, slots=True)
class SimulationRequest:
    """Everything a backend may use to answer one call."""

    environment: Environment
    tool: ToolSpec
    arguments: dict[str, Any]
    state: Any
    recent_events: list[Event]
    session_id: str
    seed: int = 0
    # How many events the session had before this call (a clock for deterministic timestamps).
    sequence: int = 0
    # The tool's compiled output schema, when it has one (so backends need not compile it again).
    output_validator: CompiledSchema | None = None
    # The latest timestamp of the world the session was seeded with through the control API, when not the
    # spec's (its clock starts after it).
    seeded_stamp: datetime | None = None
    # On a retry: what was wrong with the previous answer, for the backend to correct.
    feedback: list[str] = field(default_factory=list)
    # Which attempt this is (0: the first) of the `attempts` the simulator makes at most (`--max-attempts`):
    # a backend may answer its last attempts another way (`--llm-output auto` falls back to patch mode).
    attempt: int = 0
    attempts: int = 1


@dataclass(frozen=True, slots=True)
class JsonRequest:
    """A free-form request to a backend's model for one JSON object (the reward judge uses it)."""

    system: str
    user: str
    # The JSON Schema the object must fit; `name` names it (a structured-output schema, a forced tool).
    schema: dict[str, Any]
    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class JsonReply:
    """The object a model answered with, and what it cost."""

    value: dict[str, Any]
    usage: TokenUsage = field(default_factory=TokenUsage)


def result_text(result: Any) -> str:
    """A result as the text an MCP client gets: strings as they are, anything else as JSON."""
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


class InvalidOutcome(UnusableReply):
    """A reply that breaks the contract (not JSON, wrong keys or types, a program that fails): the simulator
    asks again, feeding `reason` back to the backend. `usage` holds the tokens the rejected reply cost,
    `answer` the reply as the model wrote it (empty when there was none to read), for the trajectory;
    `fallback`: the reply was asked for in patch mode after program mode gave no valid answer (auto)."""

    def __init__(
        self,
        backend: str,
        message: str,
        *,
        model: str | None = None,
        usage: TokenUsage | None = None,
        answer: str = "",
        fallback: bool = False,
    ) -> None:
        super().__init__(backend, message, model=model, answer=answer)
        self.usage = usage if usage is not None else TokenUsage()
        self.fallback = fallback


def empty_message(result: Any) -> bool:
    """Whether an error's result says nothing: null, an empty or blank string, an empty object or array,
    or an object whose only message is blank."""
    if result is None or (isinstance(result, str) and not result.strip()):
        return True
    if isinstance(result, dict | list) and not result:
        return True
    if isinstance(result, dict):
        messages = [result[key] for key in ("error", "message", "detail") if key in result]
        return bool(messages) and len(result) == len(messages) and all(empty_message(m) for m in messages)
    return False
