"""Wrapped arguments: a tool whose one argument is an object of declared fields (`params: {"name": ..., "status":
...}`), learned as if its fields were its arguments.

Many servers take their arguments as one input model: a Python server whose tool is `def log(params: LogInput)`
is served with the schema `{"properties": {"params": {"$ref": "#/$defs/LogInput"}}}`, and every call carries
its arguments one level down. The learners read keys, texts and numbers from a tool's own arguments, by the
types its schema declares: such a tool offers them one argument, an object, and no rule of the keyed world or
of the record stores reads anything from it. So it is learned through a view: its schema the object's (each
field's `$ref` written out, so that its type shows), and each recorded call's arguments the object's fields.
The twin answers a call by unwrapping its arguments the same way before its rules run (`twin_unwrapped`), and
a call the twin hands on changes its world through the same unwrapped arguments. A tool is wrapped where its
schema declares exactly one argument, an object (or a reference to one) with declared fields, and every
recorded call gives that argument as an object and nothing beside it. Whether the twin learns the tools so or
as they are is decided by the recordings (`build.py`: whichever answers more of the recorded sessions it did
not learn from).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

__all__ = ["WRAPPED", "find_wrappers", "unwrapped"]

WRAPPED = """
def twin_unwrapped(wrapper, args):
    # A tool whose one argument is an object of fields (`wrapped.py`): its rules read the fields as arguments.
    inner = args.get(wrapper)
    if type(inner) != "dict":
        return args
    return {k: v for k, v in inner.items()}
"""

# How deep a schema's references are written out: an input model's fields refer to enums and small models,
# seldom deeper; a model that refers to itself stops here.
_DEPTH = 4


def find_wrappers(tools: list[ToolSpec], sessions: list[list[RecordedCall]]) -> dict[str, str]:
    """By tool, the one object argument its calls wrap their arguments in (module docstring)."""
    calls = [call for session in sessions for call in session]
    found: dict[str, str] = {}
    for tool in tools:
        properties = tool.input_schema.get("properties")
        if not isinstance(properties, dict) or len(properties) != 1:
            continue
        ((name, schema),) = properties.items()
        inner = _resolved(schema, tool.input_schema.get("$defs") or {}, _DEPTH)
        if not isinstance(inner, dict) or not isinstance(inner.get("properties"), dict) or not inner["properties"]:
            continue
        own = [call for call in calls if call.tool == tool.name]
        if own and all(set(call.arguments) == {name} and isinstance(call.arguments[name], dict) for call in own):
            found[tool.name] = name
    return found


def unwrapped(
    tools: list[ToolSpec], sessions: list[list[RecordedCall]], wrappers: dict[str, str]
) -> tuple[list[ToolSpec], list[list[RecordedCall]]]:
    """The tools with their wrapped object's schema, and the sessions with each such call's arguments its
    object's fields; the other tools and calls as they are."""
    view_tools = [_inner_tool(tool, wrappers[tool.name]) if tool.name in wrappers else tool for tool in tools]
    view_sessions = [
        [
            replace(call, arguments=dict(call.arguments[wrappers[call.tool]])) if call.tool in wrappers else call
            for call in session
        ]
        for session in sessions
    ]
    return view_tools, view_sessions


def _inner_tool(tool: ToolSpec, wrapper: str) -> ToolSpec:
    defs = tool.input_schema.get("$defs") or {}
    inner = _resolved(tool.input_schema["properties"][wrapper], defs, _DEPTH)
    schema: dict[str, Any] = {"type": "object", "properties": inner.get("properties") or {}}
    if isinstance(inner.get("required"), list):
        schema["required"] = list(inner["required"])
    return tool.model_copy(update={"input_schema": schema})


def _resolved(schema: Any, defs: dict[str, Any], depth: int) -> Any:
    """`schema` with each local reference (`#/$defs/Name`) written out, `depth` levels deep: a reference's own
    keys (a description, a default) kept beside what it refers to."""
    if isinstance(schema, list):
        return [_resolved(item, defs, depth) for item in schema]
    if not isinstance(schema, dict):
        return schema
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/") and depth > 0:
        target = defs.get(reference.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            rest = {key: value for key, value in schema.items() if key != "$ref"}
            return _resolved({**target, **rest}, defs, depth - 1)
    return {key: _resolved(value, defs, depth) for key, value in schema.items()}
