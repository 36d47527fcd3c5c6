"""JSON values as JSON sees them: equality that tells `true` from `1`, and JSON pointers to parts of a state."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

import orjson
from jsonpointer import escape, unescape

__all__ = ["json_bytes", "json_equal", "json_size", "json_type", "pointer", "pointer_parts", "strings_in"]


def json_bytes(value: Any) -> bytes:
    """`value` as compact JSON in UTF-8 (what JSON cannot hold, as its `str`). By orjson, about ten times the
    standard library's speed on a whole world, which the size check and a rules program's input encode on
    every call; what orjson refuses (an integer past 64 bits) by the standard library, to the same value."""
    try:
        return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def json_size(value: Any) -> int:
    """How many bytes `value` takes as compact JSON in UTF-8: what the state limit (`--max-state-bytes`) counts."""
    return len(json_bytes(value))


def json_type(value: Any) -> str:
    """The JSON Schema type word of a JSON value (`true` is a boolean, never an integer; `1.0` a number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, dict):
        return "object"
    return "array" if isinstance(value, list) else "string"


def json_equal(a: Any, b: Any, *, close_numbers: bool = False) -> bool:
    """Equal as JSON values: `true` is never `1`. Numbers are equal when of the same kind and value (`1` is
    not `1.0`: a state diff shows that change), or with `close_numbers` when within 1e-9 of each other
    whatever their kind (a reward check: 2418.37 - 100 equals 2318.37)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key], close_numbers=close_numbers) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            json_equal(x, y, close_numbers=close_numbers) for x, y in zip(a, b, strict=True)
        )
    if close_numbers and _is_number(a) and _is_number(b):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return type(a) is type(b) and bool(a == b)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def pointer(parts: Iterable[str | int]) -> str:
    """An RFC 6901 JSON pointer to `parts`."""
    return "".join("/" + escape(str(part)) for part in parts)


def pointer_parts(pointer: str) -> list[str]:
    """The parts an RFC 6901 JSON pointer names (the root: none)."""
    if pointer == "":
        return []
    return [unescape(part) for part in pointer[1:].split("/")]


def strings_in(value: Any) -> Iterator[str]:
    """Every string leaf of a JSON value, depth first, in the order its containers hold them."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)
