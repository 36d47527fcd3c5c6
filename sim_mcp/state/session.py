"""What a session is: its world state (one JSON document per environment it touched) and its events."""

from __future__ import annotations

import secrets
import time
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from sim_mcp.specs.stamps import latest_timestamp

JsonPatch = list[dict[str, Any]]


class TokenUsage(BaseModel):
    input: int = 0
    output: int = 0
    cached: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input=self.input + other.input, output=self.output + other.output, cached=self.cached + other.cached
        )


EventKind = Literal["tool_call", "agent_message", "user_message"]
ConversationEnd = Literal["goal_met", "abandoned"]


class Event(BaseModel):
    """One entry of a session's log: a tool call and what it did, or a message of the conversation
    between the agent and the simulated user (`agent_message`, `user_message`: the text in `result`)."""

    seq: int
    at: float = Field(description="Unix time the call was committed.")
    kind: EventKind = "tool_call"
    environment: str
    tool: str
    arguments: dict[str, Any]
    result: Any
    is_error: bool
    state_patch: JsonPatch = Field(
        default_factory=list, description="RFC 6902 ops, relative to the environment's state."
    )
    backend: str
    latency_ms: float = 0.0
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    note: str | None = None
    fault: Literal["error", "timeout", "malformed"] | None = Field(
        default=None, description="An injected fault (see Faults): the result is the fault's, not the simulation's."
    )
    rejected: list[str] = Field(
        default_factory=list,
        description="Why each answer of the backend before the committed one was rejected (also when a retry "
        "succeeded): the reasons fed back to it.",
    )
    rejected_answers: list[str] = Field(
        default_factory=list,
        description="Those answers themselves, beside `rejected`, as the model wrote them (a program, the "
        "contract's JSON, or a reply cut off at the token limit), each cut to 4,000 characters; empty where "
        "there was no reply to keep (the provider failed).",
    )
    end: ConversationEnd | None = Field(
        default=None, description="A user_message that ended the conversation, and why (goal met, or abandoned)."
    )
    failed: bool = Field(
        default=False,
        description="No valid outcome could be had: the result is the simulator's own error, nothing was applied, "
        "and the simulator is not shown the call again.",
    )
    fallback: bool = Field(
        default=False,
        description="`--llm-output auto`: program mode gave no valid answer in the attempts it gets (`rejected` "
        "says why), and the call's last attempt was asked in patch mode; the outcome, or the failure, is "
        "patch mode's.",
    )


class SessionRecord(BaseModel):
    """Everything about a session but its event log, which stores keep beside it."""

    id: str
    environment: str | None = Field(default=None, description="Bound to one environment, or None for all of them.")
    seed: int = 0
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    worlds: dict[str, Any] = Field(default_factory=dict, description="Environment name -> its world state.")
    initial_worlds: dict[str, Any] = Field(
        default_factory=dict, description="States given at creation, which reset returns to (beside initial_state)."
    )
    seeded_stamps: dict[str, datetime | None] = Field(
        default_factory=dict,
        description="Environment name -> the latest timestamp of its world in initial_worlds (None: it has none), "
        "found once at creation: the session's clock starts after it.",
    )
    snapshots: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Name -> saved worlds, counters and event log (see Snapshot)."
    )
    forked_from: str | None = Field(default=None, description="The session this one was forked from.")
    task: str | None = Field(default=None, description="The task the session was created for, if any.")
    evaluation: dict[str, Any] | None = Field(
        default=None, description="The latest evaluation (POST /sessions/{id}/evaluate); cleared by reset."
    )
    event_count: int = 0
    error_count: int = 0
    tokens: TokenUsage = Field(default_factory=TokenUsage)

    def seeded_stamp(self, environment: str) -> datetime | None:
        """The latest timestamp of the world this session was seeded with for `environment` (None: none)."""
        if environment in self.seeded_stamps:
            return self.seeded_stamps[environment]
        # A record written before the stamps were kept: scan the world.
        return latest_timestamp(self.initial_worlds.get(environment))

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "env": self.environment,
            # The environments it holds state in: for an unbound session, the ones its calls went to.
            "worlds": sorted(set(self.worlds) | set(self.initial_worlds)),
            "seed": self.seed,
            "created_at": self.created_at,
            "last_used_at": self.updated_at,
            "events": self.event_count,
            "errors": self.error_count,
            "tokens": self.tokens.model_dump(),
            "snapshots": sorted(self.snapshots),
            "forked_from": self.forked_from,
            "task": self.task,
            "reward": self.evaluation.get("reward") if self.evaluation is not None else None,
        }


class Snapshot(BaseModel):
    """A named copy of a session's worlds, counters and event log, which reset can return to.

    Kept inside the record (as `snapshots[name]`, dumped to JSON) so that every store saves it with the
    record, atomically; the event log is copied in so that a restore is exact even after the session's
    own log was cleared by a reset.
    """

    taken_at: float = Field(default_factory=time.time)
    worlds: dict[str, Any] = Field(default_factory=dict)
    event_count: int = 0
    error_count: int = 0
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    events: list[Event] = Field(default_factory=list)


def new_session_id() -> str:
    """An unguessable id (128 bits of randomness, URL-safe)."""
    return secrets.token_urlsafe(16)
