"""JSON within a budget of characters: how long a value's compact JSON is, found without encoding more of it
than the budget; an outline of a value too large to show, its large parts summarized; a value cut to a
preview; a value in a fence that data cannot close. The prompt's context (`context.py`) uses them to keep
the state, the history and the feedback of a call within their bounds."""

from __future__ import annotations

import json
import re
from typing import Any

from sim_mcp.text import shorten

__all__ = [
    "OUTLINE_MAX_KEYS",
    "OUTLINE_VALUE_CHARS",
    "bounded",
    "compact",
    "fence",
    "fenced",
    "length_within",
    "outlined",
    "summarized",
]

# In an over-budget state's outline: values longer than this are summarized, not shown.
OUTLINE_VALUE_CHARS = 200
OUTLINE_MAX_KEYS = 50
# A string JSON writes as it is, between quotes (`compact` escapes no other character).
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*\Z')


def length_within(value: Any, room: int) -> int | None:
    """The length of `compact(value)` when it is at most `room`, else None: counted part by part and given up
    once past `room`, so that a large value is never encoded whole only to learn that it is large."""
    if isinstance(value, dict):
        # Each member takes at least `"":0` and a comma: no need to look inside to know a large one is large.
        if 5 * len(value) + 1 > room:
            return None
        if not all(isinstance(key, str) for key in value):
            return _length_of(value, room)
        total = 1 + max(len(value), 1)  # the braces and the commas between members
        for key, item in value.items():
            total += len(compact(key)) + 1
            inner = length_within(item, room - total) if total <= room else None
            if inner is None:
                return None
            total += inner
        return total if total <= room else None
    if isinstance(value, list):
        if 2 * len(value) + 1 > room:  # each item takes at least one character and a comma
            return None
        total = 1 + max(len(value), 1)  # the brackets and the commas between items
        for item in value:
            inner = length_within(item, room - total) if total <= room else None
            if inner is None:
                return None
            total += inner
        return total if total <= room else None
    return _length_of(value, room)


def _length_of(value: Any, room: int) -> int | None:
    if isinstance(value, str) and _PLAIN.match(value):
        length = len(value) + 2  # nothing in it is escaped: its characters and the quotes
    elif value is None or isinstance(value, bool):
        length = 4 if value is None or value is True else 5
    elif type(value) is int:
        length = len(str(value))
    else:
        length = len(compact(value))
    return length if length <= room else None


def outlined(value: Any, depth: int) -> Any:
    """`value` with anything large replaced by a one-line summary, down to `depth` levels of objects."""
    if length_within(value, OUTLINE_VALUE_CHARS) is not None:
        return value
    if isinstance(value, dict) and depth > 0 and len(value) <= OUTLINE_MAX_KEYS:
        return {key: outlined(item, depth - 1) for key, item in value.items()}
    return summarized(value)


def summarized(value: Any) -> str:
    if isinstance(value, dict):
        keys = list(value)
        last = f"; last key {keys[-1]!r}" if keys else ""
        return f"<omitted: object with {len(keys)} key(s){last}>"
    if isinstance(value, list):
        return f"<omitted: array of {len(value)} item(s); append with path ending in /->"
    return f"<omitted: {type(value).__name__} of {len(compact(value))} characters>"


def bounded(value: Any, limit: int) -> Any:
    """`value` itself if small, else a string preview of its JSON that says it was cut."""
    text = compact(value)
    return value if len(text) <= limit else shorten(text, limit)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def fenced(value: Any) -> str:
    return fence(compact(value))


def fence(json_text: str) -> str:
    # Backticks only occur inside JSON strings, where \u0060 means the same: data can't close the fence.
    return "```json\n" + json_text.replace("`", "\\u0060") + "\n```"
