"""What every tool must satisfy once read, whatever format it came from, and how problems are worded."""

from __future__ import annotations

from typing import Any

from sim_mcp.errors import SpecError, SpecErrors
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import SchemaChecks


def tool_schema_problem(tool: ToolSpec, checks: SchemaChecks | None = None) -> tuple[str, str] | None:
    """`(field, reason)` when a schema of `tool` is unusable, else None (`checks`: the loader's, each distinct
    schema checked once).

    Schemas must be valid JSON Schema, and MCP needs input schemas to be objects. Returning the field
    (rather than raising) lets each reader name the place in its own file format.
    """
    checks = checks if checks is not None else SchemaChecks()
    if problem := checks.problem(tool.input_schema):
        return "input_schema", problem
    if tool.input_schema.get("type") != "object":
        reason = (
            f'expected "type": "object" (MCP tools take an object of arguments), got {tool.input_schema.get("type")!r}'
        )
        return "input_schema.type", reason
    if tool.output_schema is not None and (problem := checks.problem(tool.output_schema)):
        return "output_schema", problem
    return None


def check_tool_schemas(environment: Environment, source: str, checks: SchemaChecks | None = None) -> None:
    """Each schema must be valid JSON Schema; MCP also needs input schemas to be objects. Every problem is
    reported (a `SpecErrors` when there are several)."""
    seen: set[str] = set()
    problems: list[SpecError] = []
    for index, tool in enumerate(environment.tools):
        place = f"tools[{index}]"
        if tool.name in seen:
            problems.append(SpecError(source, f"tool {tool.name!r} is defined twice in this file", f"{place}.name"))
        seen.add(tool.name)
        if found := tool_schema_problem(tool, checks):
            field, reason = found
            problems.append(SpecError(source, reason, f"{place}.{field}"))
    if problems:
        raise problems[0] if len(problems) == 1 else SpecErrors(problems)


def pydantic_reason(error: Any) -> str:
    """One pydantic error dict as a short reason (the place is reported separately)."""
    kind = error["type"]
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return f"unknown field (got {error['input']!r:.60})"
    return f"{error['msg']} (got {error['input']!r:.60})"
