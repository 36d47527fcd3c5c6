"""Readers that turn a spec file, whatever its format, into `Environment`s.

Each reader is a function `(document, source) -> Environment`. `read_spec_file` parses the file
(YAML, JSON or JSON Lines), detects the format from the content (or takes the one it is given), and calls
the reader. The formats are the table `sim_mcp.plugins.SPEC_FORMATS`, in detection order: `native` (ours),
`openapi` (OpenAPI 3.0/3.1), `mcp` (MCP `tools/list` results), `openai` and `anthropic` (function-calling
tools of those APIs) and `bfcl` (BFCL function docs); each module's `FORMAT` (`base.SpecFormat`) says how to
tell its files and read one. A format of one's own is a module with a `FORMAT`, registered
(`register_spec_format`) or named in the `sim_mcp.spec_formats` entry-point group. A reader is given the
loader's `SchemaChecks`, so that a folder checks each distinct schema once.

YAML is parsed by libyaml where PyYAML was built with it, and plain data built from its nodes directly
(`specs/parsing.py`); a file libyaml refuses is parsed again by PyYAML's own loader, whose verdict and wording
stand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from sim_mcp.errors import ConfigError, NotRegistered, SpecError
from sim_mcp.plugins import SPEC_FORMATS
from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.model import Environment
from sim_mcp.specs.parsing import load_yaml
from sim_mcp.specs.schema import SchemaChecks

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

    `format` (a name of `SPEC_FORMATS`) skips detection, for files whose content is ambiguous. `checks`: schema
    checks to share with other files (a folder's loader), each distinct schema checked once.
    """
    source = str(path)
    document = parse_document(path)
    return read_document(document, source, format, checks)


def read_document(
    document: Any, source: str, format: str | None = None, checks: SchemaChecks | None = None
) -> Environment:
    checks = checks if checks is not None else SchemaChecks()
    if format is not None:
        try:
            chosen = spec_format(format)
        except NotRegistered as e:
            raise SpecError(source, f"unknown spec format {format!r}: expected one of {', '.join(e.known)}") from e
        return chosen.read(document, source, checks)
    found = _detected(document)
    if found is not None:
        return found.read(document, source, checks)
    for name in SPEC_FORMATS:
        # A document almost in a format (a native spec without its tools yet): say what it lacks.
        near = spec_format(name).near_miss
        if near is not None and (reason := near(document)) is not None:
            raise SpecError(source, reason)
    described = [spec_format(name).described for name in SPEC_FORMATS]
    expected = ", ".join(described[:-1]) + f" or {described[-1]}" if len(described) > 1 else described[0]
    raise SpecError(source, f"unrecognised spec format: expected {expected}")


def spec_format(name: str) -> SpecFormat:
    """The format `name` of the table of formats (`NotRegistered` naming them when it has none)."""
    found = SPEC_FORMATS.load(name)
    if not isinstance(found, SpecFormat):
        raise ConfigError(f"spec format {name!r}: {found!r} is not a SpecFormat")
    return found


def detect_format(document: Any) -> str | None:
    """The name of the format `document` is in, or None when no format recognises it."""
    found = _detected(document)
    return found.name if found is not None else None


def _detected(document: Any) -> SpecFormat | None:
    """The first format, in the table's order, that recognises `document`; the installed packages' formats
    are read only when none of the others does."""
    found = _first(document, SPEC_FORMATS)
    return found if found is not None else _first(document, SPEC_FORMATS.scan())


def _first(document: Any, names: Iterable[str]) -> SpecFormat | None:
    return next((spec_format(name) for name in names if spec_format(name).detect(document)), None)


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


FORMATS = SPEC_FORMATS.builtin()
"""The names of the formats sim-mcp reads itself, in detection order."""
