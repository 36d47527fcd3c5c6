"""BFCL (Berkeley Function Calling Leaderboard) function docs.

One function per line (JSON Lines, usually in a `.json` file), also accepted as a JSON list, under
`{"tools": [...]}`, or one alone: `{"name", "description", "parameters", "response"?}`. OpenAI's legacy
`functions` list has the same shape and is read the same way.

BFCL writes Python-flavoured types, fixed at any depth (only in schema positions, so a property that
happens to be called `type` is left alone): `dict` -> `object`, `float` -> `number`, `tuple` -> `array`
(a list of `items` becomes `prefixItems`), `any` -> no `type` at all; `str`, `int`, `bool` and `list` are
mapped too. `response` becomes the output schema, wrapped under `result` when it is not an object.
"""

from __future__ import annotations

from typing import Any

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.formats.building import ToolDraft, build_environment, entries, input_schema, join, output_schema
from sim_mcp.specs.formats.walk import map_subschemas
from sim_mcp.specs.model import Environment
from sim_mcp.specs.schema import SchemaChecks, type_name

# BFCL type -> JSON Schema type (None: no constraint, so the keyword is dropped).
_TYPES: dict[str, str | None] = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": None,
    "str": "string",
    "int": "integer",
    "bool": "boolean",
    "list": "array",
}


def looks_bfcl(document: Any) -> bool:
    found = entries(document)
    return bool(found) and all(
        isinstance(item, dict) and "name" in item and "parameters" in item and "type" not in item
        for _, item in found or ()
    )


def read_bfcl(document: Any, source: str, checks: SchemaChecks | None = None) -> Environment:
    found = entries(document)
    if found is None:
        raise SpecError(source, f"expected BFCL functions (one JSON object per line), got {type_name(document)}")
    return build_environment(source, [_draft(item, place, source) for place, item in found], checks=checks)


def _draft(item: Any, place: str, source: str) -> ToolDraft:
    if not isinstance(item, dict):
        reason = f"expected a function (an object with name and parameters), got {type_name(item)}"
        raise SpecError(source, reason, place)
    fields: dict[str, Any] = {
        "name": item.get("name"),
        "description": item.get("description") or "",
        "input_schema": input_schema(convert_schema(item.get("parameters", {"type": "object", "properties": {}}))),
    }
    if (response := item.get("response")) is not None:
        converted = convert_schema(response)
        fields["output_schema"] = output_schema(converted) if isinstance(converted, dict) else converted
    origins = {"input_schema": join(place, "parameters"), "output_schema": join(place, "response")}
    return ToolDraft(place, fields, origins)


def convert_schema(schema: Any) -> Any:
    """A BFCL schema as standard JSON Schema (see the module docstring for the type mapping)."""
    if not isinstance(schema, dict):
        return schema
    out = map_subschemas(schema, lambda sub, _where: convert_schema(sub))
    kind = out.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        mapped = _TYPES[kind]
        if mapped is None:
            del out["type"]
        else:
            out["type"] = mapped
    elif isinstance(kind, list):
        if any(part in _TYPES and _TYPES[part] is None for part in kind if isinstance(part, str)):
            del out["type"]
        else:
            mapped_kinds = (_TYPES.get(part, part) if isinstance(part, str) else part for part in kind)
            out["type"] = list(dict.fromkeys(mapped_kinds))
    if isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")
    return out


FORMAT = SpecFormat("bfcl", looks_bfcl, read_bfcl, "a list of BFCL functions (parameters)")
