"""Tolerant parsing of a model's reply into an `Outcome`.

Models with structured output return the object itself; others wrap it in code fences or prose. Either
mode's answer is read (a patch outcome, or a program: `{"program": ...}`, or code in a fence), so that a
model that answers in the other mode's form is still understood; the mode finishes what was read.
Anything that still isn't an outcome raises `InvalidOutcome`, whose reason is written for the model
to read on the next attempt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from sim_mcp.engine.contract import InvalidOutcome, Outcome, empty_message
from sim_mcp.specs.schema import type_name

__all__ = ["outcome_from_object", "parse_json_object", "parse_outcome"]

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_CODE_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
_DEF = re.compile(r"^def\s+[A-Za-z_][A-Za-z0-9_]*\s*\(", re.MULTILINE)
_OPS = ("add", "remove", "replace", "move", "copy", "test")
_PREVIEW_CHARS = 200
# Backends re-raise with their own name, model and token usage.
_SOURCE = "reply"


def parse_outcome(text: str) -> Outcome:
    """The outcome in `text`: plain JSON, JSON in code fences, or the outermost JSON object in prose; or,
    for a model asked for a program that wrote it bare or in a code fence, that program."""
    stripped = text.strip()
    if not stripped:
        raise InvalidOutcome(_SOURCE, "the reply was empty; expected one JSON object")
    try:
        found = _find_object(stripped, _is_outcome, "a JSON object with result, is_error and state_patch")
    except InvalidOutcome:
        if (program := _bare_program(stripped)) is not None:
            return Outcome(program=program)
        raise
    return outcome_from_object(found)


def parse_json_object(text: str, required: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON object in `text` (plain, in code fences, or the outermost object in prose) that has every
    key of `required`; `InvalidOutcome` with a reason written for the model otherwise."""
    stripped = text.strip()
    wanted = f"a JSON object with {', '.join(required)}" if required else "a JSON object"
    if not stripped:
        raise InvalidOutcome(_SOURCE, f"the reply was empty; expected {wanted}")

    def accept(value: dict[str, Any]) -> bool:
        return all(key in value for key in required)

    found = _find_object(stripped, accept, wanted)
    if not isinstance(found, dict):
        raise InvalidOutcome(_SOURCE, f"expected {wanted}; got {type_name(found)}")
    missing = [key for key in required if key not in found]
    if missing:
        keys = ", ".join(map(repr, found)) or "none"
        raise InvalidOutcome(_SOURCE, f"the object has no {', '.join(map(repr, missing))} (keys: {keys})")
    return found


def outcome_from_object(value: object) -> Outcome:
    """Check a decoded reply (e.g. a forced tool call's input) against the contract's keys and types."""
    if not isinstance(value, dict):
        raise InvalidOutcome(
            _SOURCE, f"expected a JSON object with result, is_error and state_patch; got {type_name(value)}"
        )
    if "program" in value and "result" not in value:
        return _program_outcome(value["program"])
    if "result" not in value:
        raise InvalidOutcome(_SOURCE, f"the object has no 'result' key (keys: {', '.join(map(repr, value)) or 'none'})")
    is_error = value.get("is_error", False)
    if not isinstance(is_error, bool):
        raise InvalidOutcome(_SOURCE, f"'is_error' must be true or false, got {type_name(is_error)}")
    if is_error and empty_message(value["result"]):
        raise InvalidOutcome(
            _SOURCE,
            f"an error result needs its message (got {json.dumps(value['result'])}): give the error the real tool "
            'would return as the result, e.g. "order 123 not found"',
        )
    patch = value.get("state_patch")
    if isinstance(patch, str):
        # Some models send nested arrays of a tool call's input as JSON text.
        try:
            patch = json.loads(patch)
        except json.JSONDecodeError:
            raise InvalidOutcome(
                _SOURCE, "'state_patch' must be an array of JSON Patch operations, got a string"
            ) from None
    return Outcome(result=value["result"], is_error=is_error, state_patch=_check_patch([] if patch is None else patch))


def _is_outcome(value: dict[str, Any]) -> bool:
    return "result" in value or "state_patch" in value or "program" in value


def _program_outcome(program: object) -> Outcome:
    if not isinstance(program, str) or not program.strip():
        found = "an empty string" if isinstance(program, str) else type_name(program)
        raise InvalidOutcome(_SOURCE, f"'program' must be the program's text, got {found}")
    return Outcome(program=_unfenced(program))


def _bare_program(text: str) -> str | None:
    """A program written as code (in a fence, or bare) instead of inside a JSON object."""
    candidate = _unfenced(text)
    return candidate if _DEF.search(candidate) else None


def _unfenced(text: str) -> str:
    """The code in `text`: the first fenced block, if it has one, else the text itself."""
    match = _CODE_FENCE.search(text)
    return (match.group(1) if match else text).strip("\n")


def _find_object(text: str, accept: Callable[[dict[str, Any]], bool], wanted: str) -> Any:
    try:
        # strict=False: a raw newline or tab inside a string (a program written unescaped) is still read.
        return json.loads(text, strict=False)
    except json.JSONDecodeError as e:
        error = e
    for block in _FENCE.findall(text):
        try:
            return json.loads(block, strict=False)
        except json.JSONDecodeError as e:
            error = e
    found = _outermost_object(text, accept)
    if found is None:
        raise InvalidOutcome(
            _SOURCE,
            f"the reply is not {wanted} "
            f"(JSON error: {error.msg} at line {error.lineno} column {error.colno}): {_preview(text)}",
        )
    return found


def _outermost_object(text: str, accept: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The first complete JSON object in `text` that `accept`s, if any."""
    decoder = json.JSONDecoder(strict=False)
    index = text.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict) and accept(value):
            return value
        # Objects nested in this one start before `end`: skipping them keeps the outermost.
        index = text.find("{", end)
    return None


def _check_patch(patch: object) -> list[dict[str, Any]]:
    if not isinstance(patch, list):
        found = type_name(patch)
        raise InvalidOutcome(_SOURCE, f"'state_patch' must be an array of JSON Patch operations, got {found}")
    for index, op in enumerate(patch):
        where = f"state_patch[{index}]"
        if not isinstance(op, dict):
            raise InvalidOutcome(_SOURCE, f"{where} must be an object like {{'op': 'add', 'path': ..., 'value': ...}}")
        if op.get("op") not in _OPS:
            raise InvalidOutcome(_SOURCE, f"{where}.op must be one of {', '.join(_OPS)}; got {op.get('op')!r}")
        if not isinstance(op.get("path"), str):
            found = type_name(op.get("path"))
            raise InvalidOutcome(_SOURCE, f"{where}.path must be a JSON Pointer string, got {found}")
        if op["op"] in ("add", "replace", "test") and "value" not in op:
            raise InvalidOutcome(_SOURCE, f"{where}: a {op['op']!r} operation needs a 'value'")
        if op["op"] in ("move", "copy") and not isinstance(op.get("from"), str):
            raise InvalidOutcome(_SOURCE, f"{where}: a {op['op']!r} operation needs a 'from' JSON Pointer string")
    return patch


def _preview(text: str) -> str:
    return json.dumps(text[:_PREVIEW_CHARS] + ("..." if len(text) > _PREVIEW_CHARS else ""))
