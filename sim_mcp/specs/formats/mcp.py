"""MCP tool definitions: a `tools/list` result, a bare list of tools, or a single tool.

Accepted shapes: `{"tools": [...]}` (optionally with `server_info`/`serverInfo` and `nextCursor`, as when a
server's answer is captured to a file), `[tool, ...]`, or one `{"name", "inputSchema", ...}` object. Tools
use MCP's camelCase keys (`inputSchema`, `outputSchema`, `annotations` with `readOnlyHint` etc.). Keys we do
not model (`execution`, `icons`, `_meta`) and unknown annotation hints are dropped rather than refused: the
file was written for MCP clients, which ignore what they do not know.
"""

from __future__ import annotations

from typing import Any

from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.formats.building import (
    ToolDraft,
    build_environment,
    entries,
    input_schema,
    join,
    output_schema,
    tool_objects,
)
from sim_mcp.specs.model import Environment, ToolAnnotations
from sim_mcp.specs.schema import SchemaChecks

_LIST_RESULT_KEYS = ("server_info", "serverInfo", "nextCursor")
# Annotation keys we model, camelCase (MCP) and snake_case.
_HINTS = frozenset(
    {name for name in ToolAnnotations.model_fields}
    | {field.alias for field in ToolAnnotations.model_fields.values() if field.alias}
)


def looks_mcp(document: Any) -> bool:
    is_list_result = isinstance(document, dict) and isinstance(document.get("tools"), list)
    if is_list_result and any(key in document for key in _LIST_RESULT_KEYS):
        return True
    found = entries(document)
    return bool(found) and all(isinstance(item, dict) and "inputSchema" in item for _, item in found or ())


def read_mcp(document: Any, source: str, checks: SchemaChecks | None = None) -> Environment:
    found = tool_objects(document, source, kind="MCP", shape="an object with name and inputSchema")
    drafts = [_draft(item, place) for place, item in found]
    return build_environment(source, drafts, _description(document), checks)


def _draft(item: dict[str, Any], place: str) -> ToolDraft:
    fields: dict[str, Any] = {
        "name": item.get("name"),
        "title": item.get("title"),
        "description": item.get("description") or "",
        "input_schema": input_schema(item.get("inputSchema", {"type": "object", "properties": {}})),
    }
    if isinstance(schema := item.get("outputSchema"), dict):
        fields["output_schema"] = output_schema(schema)
    elif schema is not None:
        fields["output_schema"] = schema  # not an object: let validation name the place
    if (annotations := item.get("annotations")) is not None:
        if isinstance(annotations, dict):
            annotations = {key: value for key, value in annotations.items() if key in _HINTS}
        fields["annotations"] = annotations
    origins = {
        "input_schema": join(place, "inputSchema"),
        "output_schema": join(place, "outputSchema"),
    }
    return ToolDraft(place, fields, origins)


def _description(document: Any) -> str:
    """`server_info` of a captured `tools/list` answer, e.g. `memory-server 0.6.3`."""
    if not isinstance(document, dict):
        return ""
    info = document.get("server_info", document.get("serverInfo"))
    if not isinstance(info, dict):
        return ""
    name = info.get("title") or info.get("name") or ""
    version = info.get("version") or ""
    text = f"MCP server {name} {version}".strip() if name else ""
    if isinstance(description := info.get("description"), str) and description:
        text = f"{text}: {description}" if text else description
    return text


FORMAT = SpecFormat("mcp", looks_mcp, read_mcp, "a list of MCP tools (inputSchema)")
