"""The native format: one environment per YAML or JSON file (see README, "Spec format")."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from sim_mcp.errors import SpecError
from sim_mcp.specs.model import Environment
from sim_mcp.specs.schema import json_path, schema_problem, type_name


def looks_native(document: Any) -> bool:
    return isinstance(document, dict) and "name" in document and ("tools" in document or "initial_state" in document)


def read_native(document: Any, source: str) -> Environment:
    if not isinstance(document, dict):
        raise SpecError(source, f"expected an environment (a mapping with name and tools), got {type_name(document)}")
    try:
        environment = Environment.model_validate({**document, "source": source})
    except ValidationError as e:
        first = e.errors()[0]
        place = json_path(first["loc"])
        raise SpecError(source, _pydantic_reason(first), place) from e
    check_tool_schemas(environment, source)
    return environment


def check_tool_schemas(environment: Environment, source: str) -> None:
    """Each schema must be valid JSON Schema; MCP also needs input schemas to be objects."""
    seen: set[str] = set()
    for index, tool in enumerate(environment.tools):
        place = f"tools[{index}]"
        if tool.name in seen:
            raise SpecError(source, f"tool {tool.name!r} is defined twice in this file", f"{place}.name")
        seen.add(tool.name)
        if problem := schema_problem(tool.input_schema):
            raise SpecError(source, problem, f"{place}.input_schema")
        if tool.input_schema.get("type") != "object":
            raise SpecError(
                source, f'expected "type": "object" (MCP tools take an object of arguments), '
                f"got {tool.input_schema.get('type')!r}", f"{place}.input_schema.type"
            )
        if tool.output_schema is not None and (problem := schema_problem(tool.output_schema)):
            raise SpecError(source, problem, f"{place}.output_schema")


def _pydantic_reason(error: Any) -> str:
    kind = error["type"]
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return f"unknown field (got {error['input']!r:.60})"
    return f"{error['msg']} (got {error['input']!r:.60})"
