"""Readers that turn a spec file, whatever its format, into `Environment`s.

Each reader is a function `(document, source) -> Environment`. `read_spec_file` parses the file
(YAML, JSON or JSON Lines), detects the format from the content, and calls the reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats.native import looks_native, read_native
from sim_mcp.specs.model import Environment

Reader = Callable[[Any, str], Environment]

SPEC_SUFFIXES = frozenset({".yaml", ".yml", ".json", ".jsonl"})


def read_spec_file(path: Path) -> Environment:
    """Read one spec file into an environment; raises `SpecError` naming the file, place and reason."""
    source = str(path)
    document = parse_document(path)
    return read_document(document, source)


def read_document(document: Any, source: str) -> Environment:
    for name, detect, reader in _READERS:
        if detect(document):
            return reader(document, source)
    raise SpecError(source, "unrecognised spec format: expected a native environment (a mapping with name and tools)")


def parse_document(path: Path) -> Any:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
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
    try:
        return yaml.safe_load(text)
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


_READERS: tuple[tuple[str, Callable[[Any], bool], Reader], ...] = (
    ("native", looks_native, read_native),
)
