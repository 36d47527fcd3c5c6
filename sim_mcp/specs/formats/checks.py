"""What every tool must satisfy once read, whatever format it came from, and how problems are worded."""

from __future__ import annotations

import difflib
from typing import Any, get_args

from pydantic import BaseModel

from sim_mcp.errors import SpecError, SpecErrors
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import SchemaChecks
from sim_mcp.text import clip_words


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


def pydantic_reason(error: Any, model: type[BaseModel] | None = None) -> str:
    """One pydantic error dict as a short reason (the place is reported separately). `model`: the model
    validated, whose fields an unknown field's name is compared with ("did you mean input_schema?")."""
    kind = error["type"]
    if kind == "missing":
        return "is required"
    got = clip_words(repr(error["input"]), 80)
    if kind == "extra_forbidden":
        loc = tuple(error["loc"])
        known = _fields_at(model, loc[:-1]) if model is not None and loc else []
        close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6) if loc else []
        hint = f", did you mean {close[0]}?" if close else ""
        return f"unknown field{hint} (got {got})"
    return f"{error['msg']} (got {got})"


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The field names (and aliases) of the model found at `loc` inside `model` (none when it is no model)."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return []
        if isinstance(part, int):
            continue  # an item of a list: the list's model
        field = current.model_fields.get(str(part)) or next(
            (found for found in current.model_fields.values() if found.alias == part), None
        )
        current = _model_in(field.annotation) if field is not None else None
    if current is None:
        return []
    return [name for field_name, field in current.model_fields.items() for name in (field.alias or field_name,)]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (`list[ToolSpec]`, `Faults | None`), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((found for arg in get_args(annotation) if (found := _model_in(arg)) is not None), None)
