"""The world clock of a session answered without a program: where its time starts and how it moves.

A session's time starts at the spec's own "now" (its `now` field, else the current date its instructions
name), else just after the latest timestamp of its seeded world (the spec's, and the session's own), so a
new record is never older than the records it joins; each
call moves it one step forward. Created and updated timestamps of the generic offline engine read it;
the LLM backends state it in each call's prompt, and a program the model writes for one call reads it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from sim_mcp.rules import clock_of
from sim_mcp.rules.helpers import CLOCK_STEP, DEFAULT_CLOCK, parse_clock
from sim_mcp.specs.model import Environment

# An ISO 8601 date or date-time, as a whole string value.
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
# How far after the seeded world's latest timestamp a session's time starts.
_AFTER_SEED = timedelta(hours=1)
# How many values of the seeded world are looked at (a huge world is not read in full on every call).
_MAX_VALUES = 20_000


def world_start(environment: Environment, seeded: Any = None) -> datetime:
    """When a session starts: its environment's `now`, else its instructions' current date, else an hour
    after the latest timestamp of its seeded world (on the hour): the environment's initial state and
    `seeded`, the world the session itself was seeded with (control API); else the default clock."""
    named = clock_of(environment)
    if named is not None:
        return parse_clock(named)
    stamps = [moment for moment in (latest_timestamp(environment.initial_state), latest_timestamp(seeded)) if moment]
    if not stamps:
        return DEFAULT_CLOCK
    return (max(stamps) + _AFTER_SEED).replace(minute=0, second=0, microsecond=0)


def world_now(environment: Environment, sequence: int, seeded: Any = None) -> datetime:
    """The time of a session's call after `sequence` earlier calls: one step later per call."""
    return world_start(environment, seeded) + CLOCK_STEP * (sequence + 1)


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
