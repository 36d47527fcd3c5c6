"""Anthropic tools, as passed in the `tools` parameter of the Messages API.

`[{"name", "description", "input_schema"}]`, also under `{"tools": [...]}` or one alone. Server tools
(`{"type": "web_search_20250305", ...}`, `bash_...`, `text_editor_...`) run on Anthropic's side with
schemas of their own, so any entry whose `type` is set and is not `custom` is skipped. Other API-only keys
(`cache_control`) are dropped.
"""

from __future__ import annotations

from typing import Any

from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.formats.building import ToolDraft, build_environment, entries, input_schema, join, tool_objects
from sim_mcp.specs.model import Environment
from sim_mcp.specs.schema import SchemaChecks

# Keys of other formats' tools (and of native tools, which share `input_schema`) that the API refuses.
_FOREIGN_KEYS = ("inputSchema", "parameters", "function", "output_schema", "examples", "annotations")


def looks_anthropic(document: Any) -> bool:
    found = entries(document)
    if not found:
        return False
    items = [item for _, item in found]
    if not all(isinstance(item, dict) and "name" in item for item in items):
        return False
    return any("input_schema" in item for item in items) and not any(
        item.get("type") == "function" or any(key in item for key in _FOREIGN_KEYS) for item in items
    )


def read_anthropic(document: Any, source: str, checks: SchemaChecks | None = None) -> Environment:
    drafts = []
    for place, item in tool_objects(document, source, kind="Anthropic", shape="an object with name and input_schema"):
        if item.get("type", "custom") != "custom":
            continue
        fields = {
            "name": item.get("name"),
            "description": item.get("description") or "",
            "input_schema": input_schema(item.get("input_schema", {"type": "object", "properties": {}})),
        }
        drafts.append(ToolDraft(place, fields, {"input_schema": join(place, "input_schema")}))
    return build_environment(source, drafts, checks=checks)


FORMAT = SpecFormat("anthropic", looks_anthropic, read_anthropic, "a list of Anthropic tools (input_schema)")
