"""ISO 8601 timestamps found in JSON values: where a world's clock starts (`engine/clock.py`) reads them.

Scanning a world is linear in its size (8 ms for 5,000 records), so what is scanned once is kept: the spec's
initial state by its `Environment` (`latest_stamp`), a world a session was seeded with by its record.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

__all__ = ["latest_timestamp"]

# An ISO 8601 date or date-time, as a whole string value.
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
# How many values of a world are looked at (a huge world is not read in full).
_MAX_VALUES = 20_000


def latest_timestamp(value: Any) -> datetime | None:
    """The latest ISO 8601 date or date-time among the string values of `value` (None: there is none)."""
    latest: datetime | None = None
    stack = [value]
    seen = 0
    while stack and seen < _MAX_VALUES:
        node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and _STAMP.fullmatch(node) and (moment := _parse(node)) is not None:
            latest = moment if latest is None or moment > latest else latest
    return latest


def _parse(text: str) -> datetime | None:
    """`text` as an aware datetime (UTC when it names no zone), or None when it is no ISO 8601 date-time."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
