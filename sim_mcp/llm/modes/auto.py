"""`--llm-output auto`: each call answered in the mode that suits it, patch or program.

A program earns its cost where the interpreter does what a model does badly: arithmetic on stored
numbers (a balance, a stock count, a cart's total). Everywhere else a patch is shorter to write, and a
small model writes one right more often: a read changes nothing, and a status change or a new record with
the arguments' text is copying, not computing. So a call goes to program mode when its tool changes the
state (not a read by its name's intent, nor marked read-only) and its schemas carry a number, in an
argument or in the result; any other call goes to patch mode. The choice reads the tool's spec and the
state only, so a tool's calls are answered one way, and its static prompt is built once.
"""

from __future__ import annotations

from typing import Any

from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.engine.intent import Action, read_intent
from sim_mcp.specs.model import LlmOutput, ToolSpec

__all__ = ["chosen_mode"]

_NUMERIC = frozenset({"number", "integer"})
# How deep into nested objects and arrays a result's schema is searched for a number.
_DEPTH = 4


def chosen_mode(request: SimulationRequest) -> LlmOutput:
    """`program` for a call that changes the state and whose tool's schemas hold a number; else `patch`."""
    tool = request.tool
    if tool.annotations is not None and tool.annotations.read_only_hint:
        return "patch"
    if read_intent(tool.name, request.state).action in (Action.GET, Action.LIST):
        return "patch"
    return "program" if _computes(tool) else "patch"


def _computes(tool: ToolSpec) -> bool:
    """Whether an argument or the result of `tool` is a number (its schemas say so)."""
    properties = tool.input_schema.get("properties")
    arguments = properties.values() if isinstance(properties, dict) else ()
    if any(_has_number(schema, depth=0) for schema in arguments):
        return True
    return tool.output_schema is not None and _has_number(tool.output_schema, depth=0)


def _has_number(schema: Any, depth: int) -> bool:
    if not isinstance(schema, dict) or depth > _DEPTH:
        return False
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if kinds & _NUMERIC:
        return True
    inner: list[Any] = []
    properties = schema.get("properties")
    if isinstance(properties, dict):
        inner += properties.values()
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            inner.append(schema[key])
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list):
            inner += schema[key]
    return any(_has_number(item, depth + 1) for item in inner)
