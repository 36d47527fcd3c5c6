"""The world clock of a session answered without a program: where its time starts and how it moves.

A session's time starts at the spec's own "now" (its `now` field, else the current date its instructions
name), else just after the latest timestamp of its seeded world (the spec's, and the session's own), so a
new record is never older than the records it joins; each
call moves it one step forward. Created and updated timestamps of the generic offline engine read it;
the LLM backends state it in each call's prompt, and a program the model writes for one call reads it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sim_mcp.rules import clock_of
from sim_mcp.rules.helpers import CLOCK_STEP, DEFAULT_CLOCK, parse_clock
from sim_mcp.specs.model import Environment

# How far after the seeded world's latest timestamp a session's time starts.
_AFTER_SEED = timedelta(hours=1)


def world_start(environment: Environment, seeded: datetime | None = None) -> datetime:
    """When a session starts: its environment's `now`, else its instructions' current date, else an hour
    after the latest timestamp of its seeded world (on the hour): the environment's initial state and
    `seeded`, the latest timestamp of the world the session itself was seeded with (control API); else the
    default clock."""
    named = clock_of(environment)
    if named is not None:
        return parse_clock(named)
    stamps = [moment for moment in (environment.latest_stamp, seeded) if moment]
    if not stamps:
        return DEFAULT_CLOCK
    return (max(stamps) + _AFTER_SEED).replace(minute=0, second=0, microsecond=0)


def world_now(environment: Environment, sequence: int, seeded: datetime | None = None) -> datetime:
    """The time of a session's call after `sequence` earlier calls: one step later per call."""
    return world_start(environment, seeded) + CLOCK_STEP * (sequence + 1)


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
