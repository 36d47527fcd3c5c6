"""JSON values as JSON sees them: equality that tells `true` from `1`, and JSON pointers to parts of a state."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from jsonpointer import escape, unescape

__all__ = ["json_equal", "pointer", "pointer_parts"]


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
