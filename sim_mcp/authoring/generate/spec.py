"""The first gate's step: the model's design and world made into a native spec, read by the project's reader.

A design is refused (and quoted back) when it is no spec the reader takes, or lacks what the later steps
need: tools within the bounds asked, each with an input schema of type object and an output schema. A world
is refused when the state holds no collection of records keyed by id, fewer records than asked, or examples
that name no tool, break the tool's input schema, or give a success that breaks its output schema; every
tool needs an example. The assembled document then goes through `read_document`, the reader every native
spec goes through, so a spec that passes here loads.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sim_mcp.engine.intent import collections_in
from sim_mcp.errors import SpecError
from sim_mcp.specs.formats import read_document
from sim_mcp.specs.model import Environment
from sim_mcp.specs.schema import compile_schema, schema_problem, value_problem
from sim_mcp.text import shorten

__all__ = ["Bounds", "assemble", "design_problem", "environment_name", "spec_error_text", "world_problem"]

_NAME = re.compile(r"[^a-z0-9]+")
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
_DESIGN_KEYS = ("name", "description", "instructions", "now", "tools")
_TOOL_KEYS = ("name", "description", "input_schema", "output_schema")


@dataclass(frozen=True, slots=True)
class Bounds:
    """What an environment must have: tools per environment, records per collection."""

    min_tools: int = 3
    max_tools: int = 6
    min_records: int = 3
    max_records: int = 8


def environment_name(proposed: Any, description: str) -> str:
    """A valid environment name: the model's, in kebab case, else words of the description."""
    text = proposed if isinstance(proposed, str) and proposed.strip() else description
    name = _NAME.sub("-", text.lower()).strip("-")[:40].strip("-")
    return name or "environment"


def design_problem(design: dict[str, Any], bounds: Bounds) -> str | None:
    """Why `design` cannot be used (None: it can)."""
    tools = design.get("tools")
    if not isinstance(tools, list) or not tools:
        return '"tools" must be a list of tools'
    if not bounds.min_tools <= len(tools) <= bounds.max_tools:
        return f"write {bounds.min_tools} to {bounds.max_tools} tools, not {len(tools)}"
    if not isinstance(design.get("instructions"), str) or not design["instructions"].strip():
        return '"instructions" must state the rules of the world'
    names: set[str] = set()
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            return f"tools[{index}] must be an object"
        name = tool.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.match(name):
            return f"tools[{index}].name must be a snake_case name, got {_show(name)}"
        if name in names:
            return f"two tools are named {name}"
        names.add(name)
        for key in ("input_schema", "output_schema"):
            schema = tool.get(key)
            if not isinstance(schema, dict) or schema.get("type") != "object":
                return f'tools[{index}] ({name}).{key} must be a JSON Schema with "type": "object", got {_show(schema)}'
            if not isinstance(schema.get("properties", {}), dict):
                return f"tools[{index}] ({name}).{key}.properties must be an object of property schemas"
            if (problem := schema_problem(schema)) is not None:
                return f"tools[{index}] ({name}).{key}: {problem}"
    return None


def world_problem(world: dict[str, Any], design: dict[str, Any], bounds: Bounds) -> str | None:
    """Why `world` cannot be used with `design` (None: it can)."""
    state = world.get("initial_state")
    if not isinstance(state, dict) or not state:
        return '"initial_state" must be an object of collections'
    collections = [(path, records) for path, records in collections_in(state) if isinstance(records, dict)]
    if not collections:
        return 'the state holds no collection of records keyed by id (e.g. {"books": {"B-1": {"id": "B-1", ...}}})'
    for path, records in collections:
        if len(records) < bounds.min_records:
            wanted = f"{bounds.min_records} to {bounds.max_records}"
            return f"collection {'/'.join(path)} holds {len(records)} records: write {wanted}"
        for key, record in records.items():
            if isinstance(record, dict) and "id" in record and str(record["id"]) != str(key):
                return f"record {'/'.join(path)}/{key} has id {_show(record['id'])}: a record's key is its id"
    tools = {tool["name"]: tool for tool in design["tools"]}
    examples = world.get("examples")
    if not isinstance(examples, list):
        return '"examples" must be a list of example calls'
    covered: set[str] = set()
    for index, example in enumerate(examples):
        if not isinstance(example, dict) or example.get("tool") not in tools:
            return f"examples[{index}] names no tool of the design ({', '.join(tools)})"
        tool = tools[example["tool"]]
        arguments = example.get("arguments")
        if not isinstance(arguments, dict):
            return f"examples[{index}] ({tool['name']}).arguments must be an object"
        if problem := value_problem(arguments, compile_schema(tool["input_schema"]), "arguments"):
            return f"examples[{index}] ({tool['name']}): {problem}"
        is_error = example.get("is_error") is True
        if is_error and not isinstance(example.get("result"), str):
            return f"examples[{index}] ({tool['name']}): an error's result is its message, a string"
        if not is_error and (problem := value_problem(example.get("result"), compile_schema(tool["output_schema"]))):
            return f"examples[{index}] ({tool['name']}): the result breaks the tool's output_schema: {problem}"
        covered.add(tool["name"])
    missing = [name for name in tools if name not in covered]
    if missing:
        return f"no example for {', '.join(missing)}: write one per tool"
    return None


def assemble(design: dict[str, Any], world: dict[str, Any], description: str, name: str) -> Environment:
    """The native spec of `design` and `world`, read by the project's reader (`SpecError` when it refuses)."""
    tools = []
    for tool in design["tools"]:
        entry = {key: tool[key] for key in _TOOL_KEYS if key in tool}
        entry["examples"] = [
            {
                "arguments": example["arguments"],
                "result": example.get("result"),
                **({"is_error": True} if example.get("is_error") is True else {}),
            }
            for example in world["examples"]
            if example.get("tool") == tool["name"]
        ]
        tools.append(entry)
    document: dict[str, Any] = {
        "name": name,
        "description": str(design.get("description") or description).strip(),
        "instructions": str(design["instructions"]).strip(),
        "initial_state": world["initial_state"],
        "tools": tools,
    }
    if isinstance(design.get("now"), str) and design["now"].strip():
        document["now"] = design["now"].strip()
    return read_document(document, f"{name}.yaml")


def spec_error_text(error: SpecError) -> str:
    """A reader's refusal as the model is shown it (the place and the reason, not our file name)."""
    return f"{error.place}: {error.reason}" if error.place else error.reason


def _show(value: Any) -> str:
    return shorten(json.dumps(value, ensure_ascii=False, default=str), 160)
