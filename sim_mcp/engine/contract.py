"""The simulation contract: what a backend is given, and the outcome it must return."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jsonschema.protocols import Validator
from pydantic import BaseModel, ConfigDict, Field

from sim_mcp.errors import BackendError
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.state.session import Event, JsonPatch, TokenUsage

# The JSON Schema of an outcome, as LLM backends ask for it (structured output / forced tool call).
OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "result": {"description": "The tool's result, as the real tool would return it."},
        "is_error": {"type": "boolean", "description": "True when the call fails (not found, not permitted...)."},
        "state_patch": {
            "type": "array",
            "description": "RFC 6902 JSON Patch operations applied to the world state; [] for no change.",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["add", "remove", "replace", "move", "copy", "test"]},
                    "path": {"type": "string"},
                    "from": {"type": "string"},
                    "value": {},
                },
                "required": ["op", "path"],
            },
        },
    },
    "required": ["result", "is_error", "state_patch"],
}


class Outcome(BaseModel):
    """A backend's answer to one call."""

    model_config = ConfigDict(extra="ignore")

    result: Any = None
    is_error: bool = False
    state_patch: JsonPatch = Field(default_factory=list)
    # Not part of what the model writes: filled in by the backend.
    note: str | None = Field(default=None, exclude=True)
    usage: TokenUsage = Field(default_factory=TokenUsage, exclude=True)


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
    output_validator: Validator | None = None
    # On a retry: what was wrong with the previous answer, for the backend to correct.
    feedback: list[str] = field(default_factory=list)


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


class InvalidOutcome(BackendError):
    """A reply that breaks the contract (not JSON, wrong keys or types): the simulator asks again,
    feeding `reason` back to the backend. `usage` holds the tokens the rejected reply cost."""

    def __init__(
        self, backend: str, message: str, *, model: str | None = None, usage: TokenUsage | None = None
    ) -> None:
        super().__init__(backend, message, model=model)
        self.reason = message
        self.usage = usage if usage is not None else TokenUsage()
