"""The input schema a twin serves, and whether it refuses a call's arguments before its rules run: one
definition for compile (which writes the served spec and replays the recordings against it) and for the
learner (which leaves to the schema the errors it answers anyway)."""

from __future__ import annotations

from typing import Any

import jsonschema

from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from sim_mcp.specs.schema import CompiledSchema

__all__ = ["refuses", "served_schema"]


def served_schema(tool: ToolSpec, calls: list[RecordedCall]) -> tuple[dict[str, Any], list[str]]:
    """The tool's input schema as the server serves it, and the arguments relaxed: one the captured schema
    requires but that a recorded call of the tool left out, which the server answered successfully, is not
    required of the twin either (it answers such a call as the server did, rather than refusing it)."""
    required = tool.input_schema.get("required")
    if not isinstance(required, list):
        return tool.input_schema, []
    left_out = sorted(
        {
            name
            for call in calls
            if call.tool == tool.name and not call.is_error
            for name in required
            if isinstance(name, str) and name not in call.arguments
        }
    )
    if not left_out:
        return tool.input_schema, []
    return {**tool.input_schema, "required": [name for name in required if name not in left_out]}, left_out


def refuses(schema: CompiledSchema, arguments: dict[str, Any]) -> bool:
    """Whether a served input schema refuses a call's arguments (as given: without the learner's `view` items,
    whose names hold a `/`), as the twin does before its rules run."""
    given = {name: value for name, value in arguments.items() if "/" not in name}
    try:
        return not schema.is_valid(given)
    except (jsonschema.exceptions.SchemaError, ValueError, TypeError):
        return False  # a schema the engine cannot use refuses nothing here
