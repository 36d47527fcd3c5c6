"""Write an `Environment` as a native spec file, YAML (for people to read and edit) or JSON.

The output reads back (`read_spec_file`) as an equal environment. Keys come in the documented order
(name, description, instructions, now, initial_state, model_settings, faults, tools; each tool's name, title,
description, input_schema, output_schema, annotations, examples, faults); unset fields are left out
rather than written as `null`; annotation hints keep MCP's camelCase (`readOnlyHint`); text keeps its
unicode; text with line breaks is written as a `|` block and long one-line text as a folded `>` block.
Schemas and state keep their own key order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from sim_mcp.specs.model import Environment, ToolExample, ToolSpec

__all__ = ["SPEC_FILE_FORMATS", "environment_document", "environment_json", "environment_text", "environment_yaml"]

# The form a spec file's name asks for: what `sim-mcp check` and the registry read it as.
SPEC_FILE_FORMATS = {".json": "json", ".yaml": "yaml", ".yml": "yaml"}

_WIDTH = 100
"""Line width YAML folds long text at."""
_FOLD_AFTER = 80
"""One-line text longer than this is written as a folded block."""
_FLOW_LIST_WIDTH = 60
"""A list of plain values this short or shorter (as text) is written on one line: `required: [id, name]`."""
_UNICODE_BREAKS = ("\x85", "\u2028", "\u2029")
"""Line breaks to YAML 1.1 that PyYAML writes unescaped in every style but double-quoted, so they would not
read back: text holding one is written double-quoted, where they are escaped."""


def environment_yaml(environment: Environment, *, header: str = "") -> str:
    """The native YAML text of `environment`; `header` (any number of lines) is written first, as comments."""
    text = yaml.dump(
        environment_document(environment),
        Dumper=_dumper(),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=_WIDTH,
        indent=2,
    )
    comments = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    return comments + text


def environment_json(environment: Environment) -> str:
    """The native JSON text of `environment` (JSON has no comments: no header)."""
    return json.dumps(environment_document(environment), indent=2, ensure_ascii=False) + "\n"


def environment_text(environment: Environment, path: Path | None, *, header: str = "") -> str:
    """The text of a spec file at `path` in the form its name asks for: JSON for `.json`, YAML for `.yaml`
    and `.yml` and for standard output (None). ValueError for any other name, which no reader would take."""
    if path is None:
        return environment_yaml(environment, header=header)
    form = SPEC_FILE_FORMATS.get(path.suffix.lower())
    if form is None:
        expected = ", ".join(SPEC_FILE_FORMATS)
        raise ValueError(f"{path}: expected a spec file name ending in {expected} (the form it is written in)")
    return environment_json(environment) if form == "json" else environment_yaml(environment, header=header)


def environment_document(environment: Environment) -> dict[str, Any]:
    """`environment` as the mapping a native file holds: documented key order, unset fields left out."""
    document: dict[str, Any] = {"name": environment.name}
    if environment.description:
        document["description"] = environment.description
    if environment.instructions:
        document["instructions"] = environment.instructions
    if environment.now is not None:
        document["now"] = environment.now
    # Always written, even empty: it is the first thing to fill in when making a stateful twin.
    document["initial_state"] = environment.initial_state
    if environment.model_settings is not None:
        document["model_settings"] = environment.model_settings.model_dump(mode="json", exclude_none=True)
    if environment.faults is not None:
        document["faults"] = environment.faults.model_dump(mode="json", exclude_unset=True)
    if environment.user_tool:
        document["user_tool"] = True
    document["tools"] = [_tool_document(tool) for tool in environment.tools]
    return document


def _tool_document(tool: ToolSpec) -> dict[str, Any]:
    document: dict[str, Any] = {"name": tool.name}
    if tool.title is not None:
        document["title"] = tool.title
    if tool.description:
        document["description"] = tool.description
    document["input_schema"] = tool.input_schema
    if tool.output_schema is not None:
        document["output_schema"] = tool.output_schema
    if tool.annotations is not None:
        # Written even when empty: `annotations: {}` and no annotations are different specs.
        document["annotations"] = tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
    if tool.examples:
        document["examples"] = [_example_document(example) for example in tool.examples]
    if tool.faults is not None:
        document["faults"] = tool.faults.model_dump(mode="json", exclude_unset=True)
    return document


def _example_document(example: ToolExample) -> dict[str, Any]:
    document: dict[str, Any] = {}
    if example.description is not None:
        document["description"] = example.description
    document["arguments"] = example.arguments
    if example.result is not None:
        document["result"] = example.result
    if example.is_error:
        document["is_error"] = True
    return document


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    """Multi-line text as a `|` block, long one-line text as a `>` block; PyYAML falls back to a quoted
    style by itself wherever a block cannot hold the text exactly (trailing spaces, control characters)."""
    style: str | None = None
    if any(char in text for char in _UNICODE_BREAKS):
        style = '"'
    elif "\n" in text:
        style = "|"
    elif len(text) > _FOLD_AFTER and "  " not in text and text == text.strip():
        style = ">"
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


def _represent_list(dumper: yaml.SafeDumper, items: list[Any]) -> yaml.SequenceNode:
    """Short lists of plain values on one line (`[id, name]`), others one item a line."""
    scalars = all(isinstance(item, (str, int, float)) and "\n" not in str(item) for item in items)
    flow = scalars and sum(len(str(item)) + 2 for item in items) <= _FLOW_LIST_WIDTH
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)


def _dumper() -> type[yaml.SafeDumper]:
    """A dumper class of our own per call, so the representers we add stay off PyYAML's shared classes."""

    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True  # a schema used twice is written twice, not as an `&anchor`/`*alias` pair

        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)  # indent list items under their key, as our own specs do

    Dumper.add_representer(str, _represent_str)
    Dumper.add_representer(list, _represent_list)
    return Dumper
