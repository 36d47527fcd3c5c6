"""Readers that turn a spec file, whatever its format, into `Environment`s.

Each reader is a function `(document, source) -> Environment`. `read_spec_file` parses the file
(YAML, JSON or JSON Lines), detects the format from the content (or takes the one it is given), and calls
the reader. Formats: `native` (ours), `openapi` (OpenAPI 3.0/3.1), `mcp` (MCP `tools/list` results),
`openai` and `anthropic` (function-calling tools of those APIs) and `bfcl` (BFCL function docs).

YAML is parsed by libyaml where PyYAML was built with it, and plain data built from its nodes directly
(`specs/parsing.py`); a file libyaml refuses is parsed again by PyYAML's own loader, whose verdict and wording
stand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats.anthropic import looks_anthropic, read_anthropic
from sim_mcp.specs.formats.bfcl import looks_bfcl, read_bfcl
from sim_mcp.specs.formats.mcp import looks_mcp, read_mcp
from sim_mcp.specs.formats.native import TOOLS_FROM, looks_native, read_native
from sim_mcp.specs.formats.openai import looks_openai, read_openai
from sim_mcp.specs.formats.openapi import looks_openapi, read_openapi
from sim_mcp.specs.model import Environment
from sim_mcp.specs.parsing import load_yaml
from sim_mcp.specs.schema import SchemaChecks

Reader = Callable[[Any, str, SchemaChecks], Environment]

SPEC_SUFFIXES = frozenset({".yaml", ".yml", ".json", ".jsonl"})


def visible_files(folder: Path) -> list[Path]:
    """The files with a spec suffix under `folder`, recursively and sorted; hidden files and folders
    (editors' swap files, `.git`) are left out."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix in SPEC_SUFFIXES
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    )


def read_spec_file(path: Path, format: str | None = None, checks: SchemaChecks | None = None) -> Environment:
    """Read one spec file into an environment; raises `SpecError` naming the file, place and reason.

    `format` (one of `FORMATS`) skips detection, for files whose content is ambiguous. `checks`: schema checks
    to share with other files (a folder's loader), each distinct schema checked once.
    """
    source = str(path)
    document = parse_document(path)
    return read_document(document, source, format, checks)


def read_document(
    document: Any, source: str, format: str | None = None, checks: SchemaChecks | None = None
) -> Environment:
    checks = checks if checks is not None else SchemaChecks()
    if format is not None:
        for name, _detect, reader in _READERS:
            if name == format:
                return reader(document, source, checks)
        raise SpecError(source, f"unknown spec format {format!r}: expected one of {', '.join(FORMATS)}")
    for _name, detect, reader in _READERS:
        if detect(document):
            return reader(document, source, checks)
    reason = (
        "unrecognised spec format: expected a native environment (a mapping with name and tools), an OpenAPI "
        "document, or a list of MCP, OpenAI, Anthropic or BFCL tools"
    )
    raise SpecError(source, reason)


def _read_included(path: Path, format: str | None, checks: SchemaChecks) -> Environment:
    """A file a native spec's `tools_from` names; it may not name more files itself."""
    document = parse_document(path)
    if isinstance(document, dict) and TOOLS_FROM in document and format in (None, "native"):
        raise SpecError(str(path), f"a file named in {TOOLS_FROM} cannot have a {TOOLS_FROM} itself")
    return read_document(document, str(path), format, checks)


def detect_format(document: Any) -> str | None:
    """The name of the format `document` is in, or None when no reader recognises it."""
    return next((name for name, detect, _reader in _READERS if detect(document)), None)


def parse_document(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SpecError(str(path), f"cannot read the file: {e}") from e
    return parse_bytes(raw, path)


def parse_bytes(raw: bytes, path: Path, strings: dict[str, str] | None = None) -> Any:
    """A spec file's content (read by the caller, who may have kept its digest) parsed as its suffix says;
    `strings`: a folder's table of strings, so that its files share the strings they repeat (YAML files)."""
    source = str(path)
    try:
        # As `read_text` reads it: UTF-8, and universal newlines.
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as e:
        raise SpecError(source, f"cannot read the file: {e}") from e
    if not text.strip():
        raise SpecError(source, "the file is empty")
    if path.suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            if _is_json_lines(text):
                return _parse_json_lines(text, source)
            raise SpecError(source, f"invalid JSON: {e.msg}", f"line {e.lineno}, column {e.colno}") from e
    if path.suffix == ".jsonl":
        return _parse_json_lines(text, source)
    return _parse_yaml(text, source, strings)


def _parse_yaml(text: str, source: str, strings: dict[str, str] | None = None) -> Any:
    try:
        return load_yaml(text, strings)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        reason = getattr(e, "problem", None) or str(e)
        raise SpecError(source, f"invalid YAML: {reason}", place) from e


def _is_json_lines(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines)


def _parse_json_lines(text: str, source: str) -> list[Any]:
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise SpecError(source, f"invalid JSON Lines: {e.msg}", f"line {number}") from e
    return items


# In detection order. The detectors look for shapes that do not overlap, so none takes another's files:
# native files are mappings with `name` and `tools`/`initial_state`; OpenAPI ones have `openapi`; MCP
# tools have camelCase `inputSchema`; OpenAI tools have `type: function`; Anthropic ones snake_case
# `input_schema` (and none of the other formats' keys); BFCL functions have `parameters` and no `type`.
_READERS: tuple[tuple[str, Callable[[Any], bool], Reader], ...] = (
    (
        "native",
        looks_native,
        lambda document, source, checks: read_native(
            document, source, lambda path, format: _read_included(path, format, checks), checks
        ),
    ),
    ("openapi", looks_openapi, read_openapi),
    ("mcp", looks_mcp, read_mcp),
    ("openai", looks_openai, read_openai),
    ("anthropic", looks_anthropic, read_anthropic),
    ("bfcl", looks_bfcl, read_bfcl),
)
FORMATS = tuple(name for name, _detect, _reader in _READERS)
