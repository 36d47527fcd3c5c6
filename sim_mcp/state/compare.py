"""Comparing JSON values as a simulation is judged: results, and states after a call.

Two values agree when they are equal as JSON (an integer and a float of the same value are the same
number; `true` is no 1), except that two ISO 8601 date-times agree by form alone: the time a simulator
writes for "now" is its own. `subset=True` lets objects of `actual` hold keys `expected` does not name
(a result judged against a recorded one); states are compared with `subset=False`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sim_mcp.text import shown

__all__ = ["answer_value", "changed_fields", "first_difference"]

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")
_SHOWN_CHARS = 120


def first_difference(expected: Any, actual: Any, path: str = "", *, subset: bool = False) -> str | None:
    """Where `actual` first differs from `expected`, as "<path>: expected X, got Y" (None: they agree)."""
    where = path or "/"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object, got {_show(actual)}"
        for key, value in expected.items():
            child = f"{path}/{key}"
            if key not in actual:
                return f"{child}: expected {_show(value)}, got nothing"
            if (found := first_difference(value, actual[key], child, subset=subset)) is not None:
                return found
        extra = [key for key in actual if key not in expected]
        if extra and not subset:
            return f"{path}/{extra[0]}: expected nothing, got {_show(actual[extra[0]])}"
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: expected {_show(expected)}, got {_show(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            if (found := first_difference(want, got, f"{path}/{index}", subset=subset)) is not None:
                return found
        return None
    if (
        isinstance(expected, str)
        and isinstance(actual, str)
        and _DATE_TIME.match(expected)
        and _DATE_TIME.match(actual)
    ):
        return None
    same = expected == actual and isinstance(expected, bool) == isinstance(actual, bool)
    same = same and (expected is None) == (actual is None)
    return None if same else f"{where}: expected {_show(expected)}, got {_show(actual)}"


def changed_fields(before: Any, after: Any) -> int:
    """How many leaf fields differ between two states (added, removed or changed), as EnvSimBench counts
    a transition's size: a record created with 9 fields is 9, a balance moved is 1."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = set(before) | set(after)
        return sum(changed_fields(before.get(key, _MISSING), after.get(key, _MISSING)) for key in keys)
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return sum(changed_fields(old, new) for old, new in zip(before, after, strict=True))
    if before is _MISSING:
        return _leaves(after)
    if after is _MISSING:
        return _leaves(before)
    if before == after and isinstance(before, bool) == isinstance(after, bool):
        return 0
    if isinstance(before, dict | list) or isinstance(after, dict | list):
        return max(_leaves(before), _leaves(after))
    return 1


class _Missing:
    """The value of a key one side lacks."""


_MISSING = _Missing()


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_leaves(item) for item in value.values()) or 1
    if isinstance(value, list):
        return sum(_leaves(item) for item in value) or 1
    return 1


def _show(value: Any) -> str:
    return shown(value, _SHOWN_CHARS)


def answer_value(result: dict[str, Any] | None, rpc_error: dict[str, Any] | None = None) -> Any:
    """The answer of a call as one JSON value: the structured content when there is one, else the text
    content read as JSON when it is JSON, else the text; a JSON-RPC error as `{"rpc_error": code}`.

    Structured content first because it is what a client validates against the output schema; text is
    read as JSON so that two servers that format the same JSON differently (indentation) agree."""
    if rpc_error is not None:
        return {"rpc_error": rpc_error.get("code")}
    if result is None:
        return None
    structured = result.get("structuredContent", result.get("structured_content"))
    if structured is not None and not result.get("isError", result.get("is_error", False)):
        return structured
    texts = [
        str(item.get("text", ""))
        for item in result.get("content") or []
        if isinstance(item, dict) and item.get("type") == "text"
    ]
    others = [
        item for item in result.get("content") or [] if not (isinstance(item, dict) and item.get("type") == "text")
    ]
    text = "\n".join(texts)
    try:
        # `NaN` and `Infinity` are no JSON (RFC 8259), though Python reads them: a server's text "Infinity"
        # (a calculator's 9 / 0) stays that text, which every JSON reader downstream can carry.
        parsed: Any = json.loads(text, parse_constant=_not_json)
    except ValueError:
        parsed = text
    return parsed if not others else {"text": parsed, "other_content": others}


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is no JSON value")
