"""OpenAI function-calling tools, as passed in the `tools` parameter of the API.

Both shapes: Chat Completions `{"type": "function", "function": {"name", "description", "parameters",
"strict"}}` and the Responses API's flat `{"type": "function", "name", "description", "parameters"}`, in a
list, under `{"tools": [...]}`, or one alone. Built-in tools (`web_search`, `file_search`, `custom` free-form
tools...) have no JSON arguments to simulate, so entries whose `type` is not `function` are skipped.
`strict` only steers the provider's decoding and is dropped. A missing `parameters` means no arguments.
"""

from __future__ import annotations

from typing import Any

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.formats.building import ToolDraft, build_environment, entries, input_schema, join, tool_objects
from sim_mcp.specs.model import Environment
from sim_mcp.specs.schema import SchemaChecks, type_name


def looks_openai(document: Any) -> bool:
    found = entries(document)
    if not found:
        return False
    items = [item for _, item in found]
    return all(isinstance(item, dict) and isinstance(item.get("type"), str) for item in items) and any(
        item["type"] == "function" for item in items
    )


def read_openai(document: Any, source: str, checks: SchemaChecks | None = None) -> Environment:
    found = tool_objects(document, source, kind="OpenAI", shape='{"type": "function", ...}')
    drafts = [_draft(item, place, source) for place, item in found if item.get("type") == "function"]
    return build_environment(source, drafts, checks=checks)


def _draft(item: dict[str, Any], place: str, source: str) -> ToolDraft:
    function, at = (item["function"], join(place, "function")) if "function" in item else (item, place)
    if not isinstance(function, dict):
        raise SpecError(source, f"expected an object with name and parameters, got {type_name(function)}", at)
    fields = {
        "name": function.get("name"),
        "description": function.get("description") or "",
        "input_schema": input_schema(function.get("parameters", {"type": "object", "properties": {}})),
    }
    origins = {"name": join(at, "name"), "description": join(at, "description"), "input_schema": join(at, "parameters")}
    return ToolDraft(place, fields, origins)


FORMAT = SpecFormat("openai", looks_openai, read_openai, "a list of OpenAI tools (type: function)")
