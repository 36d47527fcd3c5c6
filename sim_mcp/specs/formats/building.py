"""Turning tools read from a foreign format into a checked `Environment`.

Foreign formats (MCP tool lists, OpenAI/Anthropic tools, OpenAPI, BFCL) carry tools but no environment, so
the environment is named after the file, and each tool keeps the place it came from so that errors point
into the foreign file (`paths./pets.get`, `tools[3].inputSchema`) rather than into our model.

MCP's shape rules live here too, because every foreign reader needs them: an input schema must be
`"type": "object"` (one without any `type` is taken as one), and an output schema must be an object at its
root (`structuredContent` is a JSON object), so any other output schema is wrapped as
`{"type": "object", "properties": {"result": <schema>}, "required": ["result"]}`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from pydantic import ValidationError

from sim_mcp.errors import SpecError, SpecErrors
from sim_mcp.specs.formats.checks import pydantic_reason, tool_schema_problem
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import SchemaChecks, json_path, type_name

_NOT_IN_ENVIRONMENT_NAME = re.compile(r"[^A-Za-z0-9_-]+")
# Keywords that say a schema is not (only) an object, so an untyped schema using them is not assumed one.
_NOT_OBJECT_HINTS = ("anyOf", "oneOf", "$ref", "enum", "const", "not", "items", "prefixItems")
# Root-only keywords that must stay at the root when a schema is wrapped (`#/$defs/...` is root-relative).
_ROOT_KEYWORDS = ("$schema", "$defs", "definitions")
RESULT_KEY = "result"


def environment_name(source: str) -> str:
    """Foreign files name no environment: use the file's stem, cut down to the allowed characters."""
    name = _NOT_IN_ENVIRONMENT_NAME.sub("_", PurePath(source).stem)[:64]
    return name or "environment"


def join(place: str, key: str) -> str:
    """`join("tools[0]", "inputSchema")` -> `tools[0].inputSchema`; an empty place is the document root."""
    if not place:
        return key
    if not key:
        return place
    return place + key if key.startswith("[") else f"{place}.{key}"


def entries(document: Any) -> list[tuple[str, Any]] | None:
    """The tool objects of a tool-list document with their places: a list, `{"tools": [...]}` or one tool."""
    if isinstance(document, list):
        return [(f"[{index}]", item) for index, item in enumerate(document)]
    if isinstance(document, dict):
        tools = document.get("tools")
        if isinstance(tools, list):
            return [(f"tools[{index}]", item) for index, item in enumerate(tools)]
        if "tools" not in document:
            return [("", document)]
    return None


def tool_objects(document: Any, source: str, *, kind: str, shape: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The tool objects of a `kind` tool-list document (a list, `{"tools": [...]}` or one tool), in order, each with
    its place; a document of another shape, or an entry that is no object, raises `SpecError` saying what a tool
    of that kind looks like (`shape`), when it is reached."""
    found = entries(document)
    if found is None:
        expected = f'expected {kind} tools (a list, {{"tools": [...]}} or one tool)'
        raise SpecError(source, f"{expected}, got {type_name(document)}")
    for place, item in found:
        if not isinstance(item, dict):
            raise SpecError(source, f"expected a tool ({shape}), got {type_name(item)}", place)
        yield place, item


@dataclass(frozen=True)
class ToolDraft:
    """A tool's `ToolSpec` fields as read, and where each came from in the foreign file."""

    place: str
    fields: dict[str, Any]
    origins: Mapping[str, str] = field(default_factory=dict)

    def where(self, dotted: str) -> str:
        """The place in the file of a `ToolSpec` field path such as `input_schema.type`."""
        head, _, rest = dotted.partition(".")
        base = self.origins.get(head, join(self.place, head))
        return join(base, rest)


def build_environment(
    source: str, drafts: Iterable[ToolDraft], description: str = "", checks: SchemaChecks | None = None
) -> Environment:
    """Validate each draft into a `ToolSpec` and check its schemas, raising `SpecError` at the foreign place:
    `SpecErrors` with every problem of every tool when there are several, so that one run of `sim-mcp check`
    lists all that a file needs fixed."""
    tools: list[ToolSpec] = []
    problems: list[SpecError] = []
    first_seen: dict[str, str] = {}
    for draft in drafts:
        try:
            tool = ToolSpec.model_validate(draft.fields)
        except ValidationError as e:
            for error in e.errors():
                loc = [str(part) if not isinstance(part, int) else part for part in error["loc"]]
                place = draft.where(str(loc[0]) if loc else "")
                rest = json_path(loc[1:])
                problems.append(
                    SpecError(source, pydantic_reason(error, ToolSpec), join(place, rest) if rest else place)
                )
            continue
        if found := tool_schema_problem(tool, checks):
            dotted, reason = found
            problems.append(SpecError(source, reason, draft.where(dotted)))
            continue
        if tool.name in first_seen:
            first = first_seen[tool.name] or "the root"
            reason = f"tool {tool.name!r} is defined twice in this file (first at {first})"
            problems.append(SpecError(source, reason, draft.where("name")))
            continue
        first_seen[tool.name] = draft.place
        tools.append(tool)
    if problems:
        raise problems[0] if len(problems) == 1 else SpecErrors(problems)
    return Environment(name=environment_name(source), description=description, tools=tools, source=source)


def is_object_schema(schema: Any) -> bool:
    """Whether every value valid against `schema` is an object, as far as it says so without `$ref`s."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind is not None:
        return kind in ("object", ["object"])
    if any(is_object_schema(part) for part in _schemas(schema.get("allOf"))):
        return True
    for key in ("anyOf", "oneOf"):
        parts = _schemas(schema.get(key))
        if parts and all(is_object_schema(part) for part in parts):
            return True
    return False


def input_schema(schema: Any) -> Any:
    """MCP input schemas are objects: an untyped schema that says nothing else is taken as one."""
    untyped = isinstance(schema, dict) and "type" not in schema
    if untyped and (is_object_schema(schema) or not any(key in schema for key in _NOT_OBJECT_HINTS)):
        return {"type": "object", **schema}
    return schema


def output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with `"type": "object"` at its root, wrapping it under `result` when it is not an object."""
    if schema.get("type") == "object":
        return schema
    if "type" not in schema and (is_object_schema(schema) or _has_object_keywords(schema)):
        return {"type": "object", **schema}
    inner = {key: value for key, value in schema.items() if key not in _ROOT_KEYWORDS}
    wrapper: dict[str, Any] = {key: schema[key] for key in _ROOT_KEYWORDS if key in schema}
    wrapper.update(
        {
            "type": "object",
            "description": f"The whole result is under `{RESULT_KEY}` (MCP structured results are objects).",
            "properties": {RESULT_KEY: inner},
            "required": [RESULT_KEY],
            "additionalProperties": False,
        }
    )
    return wrapper


def _has_object_keywords(schema: dict[str, Any]) -> bool:
    says_object = any(key in schema for key in ("properties", "required", "additionalProperties"))
    return says_object and not any(key in schema for key in _NOT_OBJECT_HINTS)


def _schemas(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
