"""The native format: one environment per YAML or JSON file (see README, "Spec format").

A native file may also take tools from files in any other format, to add `instructions` and an
`initial_state` to tools written by someone else::

    name: petstore
    instructions: Pets have unique names.
    initial_state: {pets: []}
    tools_from: [petstore_openapi.yaml, {path: tools.json, format: bfcl}]

Paths are relative to the native file. Their tools come after the file's own `tools`. The registry does
not load a file named in a `tools_from` as an environment of its own. A file named there cannot have a
`tools_from` itself (no chains, hence no cycles).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sim_mcp.errors import SpecError, SpecErrors
from sim_mcp.specs.formats import parse_document, read_document
from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.formats.checks import check_tool_schemas, pydantic_reason, tool_schema_problem
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import SchemaChecks, json_path, type_name

TOOLS_FROM = "tools_from"

IncludedReader = Callable[[Path, "str | None"], Environment]
"""Reads a file that `tools_from` names, in the format given (None: detected)."""

__all__ = ["FORMAT", "TOOLS_FROM", "check_tool_schemas", "looks_native", "read_native", "tools_from_paths"]


def looks_native(document: Any) -> bool:
    return isinstance(document, dict) and "name" in document and ("tools" in document or "initial_state" in document)


def read_native(
    document: Any, source: str, read_included: IncludedReader, checks: SchemaChecks | None = None
) -> Environment:
    """A native environment; the files its `tools_from` names are read by `read_included` (any format).
    `checks`: the loader's schema checks (each distinct schema checked once)."""
    checks = checks if checks is not None else SchemaChecks()
    if not isinstance(document, dict):
        raise SpecError(source, f"expected an environment (a mapping with name and tools), got {type_name(document)}")
    # `tools_from` is how the file is read, not part of the environment: keep it out of the model.
    fields = {key: value for key, value in document.items() if key != TOOLS_FROM}
    try:
        environment = Environment.model_validate({**fields, "source": source})
    except ValidationError as e:
        problems = [
            SpecError(source, pydantic_reason(error, Environment), json_path(error["loc"])) for error in e.errors()
        ]
        problems += _schema_problems_of_valid_tools(fields.get("tools"), source, checks)
        raise (problems[0] if len(problems) == 1 else SpecErrors(problems)) from e
    check_tool_schemas(environment, source, checks)
    if TOOLS_FROM in document:
        environment = _with_tools_from(environment, _includes(document[TOOLS_FROM], source), source, read_included)
    return environment


def _schema_problems_of_valid_tools(tools: Any, source: str, checks: SchemaChecks) -> list[SpecError]:
    """With the file refused for other reasons, the schema problems of the tools that are otherwise valid,
    so that one run of `sim-mcp check` names them too."""
    if not isinstance(tools, list):
        return []
    problems: list[SpecError] = []
    for index, entry in enumerate(tools):
        try:
            tool = ToolSpec.model_validate(entry)
        except ValidationError:
            continue  # already reported, with the rest of the file's validation errors
        if found := tool_schema_problem(tool, checks):
            field, reason = found
            problems.append(SpecError(source, reason, f"tools[{index}].{field}"))
    return problems


def tools_from_paths(document: Any, source: str) -> list[Path]:
    """The files a native document takes tools from, so the registry does not also load them on their own.

    Lenient: malformed entries are skipped here; `read_native` reports them.
    """
    if not looks_native(document):
        return []
    try:
        return [include.path for include in _includes(document.get(TOOLS_FROM, []), source)]
    except SpecError:
        return []


@dataclass(frozen=True)
class _Include:
    path: Path
    format: str | None
    place: str


def _includes(value: Any, source: str) -> list[_Include]:
    folder = Path(source).parent
    items = [value] if isinstance(value, (str, dict)) else value
    if not isinstance(items, list):
        raise SpecError(source, f"expected a list of file paths, got {type_name(value)}", TOOLS_FROM)
    includes = []
    for index, item in enumerate(items):
        place = f"{TOOLS_FROM}[{index}]"
        path, format_ = (item.get("path"), item.get("format")) if isinstance(item, dict) else (item, None)
        if isinstance(item, dict) and (extra := set(item) - {"path", "format"}):
            raise SpecError(source, f"unknown field {sorted(extra)[0]!r} (expected path and format)", place)
        if not isinstance(path, str) or not path:
            raise SpecError(source, f"expected a file path (or {{path, format}}), got {type_name(item)}", place)
        if format_ is not None and not isinstance(format_, str):
            raise SpecError(source, f"expected a format name, got {type_name(format_)}", f"{place}.format")
        includes.append(_Include(folder / path, format_, place))
    return includes


def _with_tools_from(
    environment: Environment, includes: list[_Include], source: str, read_included: IncludedReader
) -> Environment:
    tools: list[ToolSpec] = list(environment.tools)
    origins = {tool.name: f"tools[{index}]" for index, tool in enumerate(tools)}
    for include in includes:
        if not include.path.is_file():
            raise SpecError(source, f"no such file: {include.path}", include.place)
        try:
            included = read_included(include.path, include.format)
        except SpecError as e:
            raise SpecError(source, f"cannot take tools from {e}", include.place) from e
        for tool in included.tools:
            if (first := origins.get(tool.name)) is not None:
                reason = f"tool {tool.name!r} from {include.path} is already defined at {first}"
                raise SpecError(source, reason, include.place)
            origins[tool.name] = f"{include.place} ({include.path.name})"
            tools.append(tool)
    return environment.model_copy(update={"tools": tools})


def read_included(path: Path, format: str | None, checks: SchemaChecks | None = None) -> Environment:
    """A file a native spec's `tools_from` names, in `format` (None: detected); it may not name more files."""
    document = parse_document(path)
    if isinstance(document, dict) and TOOLS_FROM in document and format in (None, "native"):
        raise SpecError(str(path), f"a file named in {TOOLS_FROM} cannot have a {TOOLS_FROM} itself")
    return read_document(document, str(path), format, checks)


def _without_tools(document: Any) -> str | None:
    """A native environment that has not said its tools yet: say that, not that the format is unknown."""
    if not (isinstance(document, dict) and "name" in document and not {"tools", TOOLS_FROM} & document.keys()):
        return None
    close = difflib.get_close_matches("tools", [str(key) for key in document], n=1, cutoff=0.6)
    hint = f" (did you mean tools, not {close[0]}?)" if close else ""
    return f"missing tools: a native spec lists its tools under tools (or names files in tools_from){hint}"


FORMAT = SpecFormat(
    "native",
    looks_native,
    lambda document, source, checks: read_native(
        document, source, lambda path, format: read_included(path, format, checks), checks
    ),
    "a native environment (a mapping with name and tools)",
    _without_tools,
)
