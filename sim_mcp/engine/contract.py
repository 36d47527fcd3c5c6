"""The simulation contract: what a backend is given, and the outcome it must return."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sim_mcp.errors import BackendError
from sim_mcp.specs.model import Environment, LlmOutput, ToolSpec
from sim_mcp.specs.schema import CompiledSchema
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

# The JSON Schema of an answer in program mode (`--llm-output program`): the engine runs the program.
PROGRAM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "program": {
            "type": "string",
            "minLength": 1,
            "description": "A Starlark program defining the tool's function (state, args): it changes state in "
            "place and returns the result, or error(message) when the call fails.",
        }
    },
    "required": ["program"],
}
_ERROR_RESULT: dict[str, Any] = {"type": "string", "minLength": 1, "description": "An error's message."}
_DEFINITIONS = ("$defs", "definitions")


def outcome_schema(request: SimulationRequest) -> dict[str, Any]:
    """The schema a model's answer to `request` must fit, for constrained decoding: in program mode the
    program; else the outcome, whose `result` is the tool's output schema (or an error's message) when the
    tool has one. The output schema's own definitions move to the root, where its `$ref`s point."""
    if request.llm_output == "program":
        return PROGRAM_SCHEMA
    output = request.tool.output_schema
    if output is None:
        return OUTCOME_SCHEMA
    inner = {key: value for key, value in output.items() if key not in _DEFINITIONS and key != "$schema"}
    result = {"description": OUTCOME_SCHEMA["properties"]["result"]["description"], "anyOf": [inner, _ERROR_RESULT]}
    schema: dict[str, Any] = {**OUTCOME_SCHEMA, "properties": {**OUTCOME_SCHEMA["properties"], "result": result}}
    for key in _DEFINITIONS:
        if key in output:
            schema[key] = output[key]
    return schema


class Outcome(BaseModel):
    """A backend's answer to one call."""

    model_config = ConfigDict(extra="ignore")

    result: Any = None
    is_error: bool = False
    state_patch: JsonPatch = Field(default_factory=list)
    # Program mode: the program the model answered with; the simulator runs it for the result and the patch
    # (kept out of dumps: what a cassette records is the result and the patch it came to).
    program: str | None = Field(default=None, exclude=True)
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
    output_validator: CompiledSchema | None = None
    # On a retry: what was wrong with the previous answer, for the backend to correct.
    feedback: list[str] = field(default_factory=list)
    # How an LLM answers: a patch of the state, or a program the engine runs (`--llm-output`).
    llm_output: LlmOutput = "patch"


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
    feeding `reason` back to the backend. `usage` holds the tokens the rejected reply cost, `answer` the
    reply as the model wrote it (empty when there was none to read), for the trajectory."""

    def __init__(
        self,
        backend: str,
        message: str,
        *,
        model: str | None = None,
        usage: TokenUsage | None = None,
        answer: str = "",
    ) -> None:
        super().__init__(backend, message, model=model)
        self.reason = message
        self.usage = usage if usage is not None else TokenUsage()
        self.answer = answer
