"""The one after-commit path: every effect of a change to a session subscribes here.

Two kinds of change reach the subscribers, in the order they were committed per session:
- `Commit`: a tool call (or a message of the conversation with the simulated user) was committed. The
  event log already holds it; trajectories, cassettes, metrics, resource notifications and the web UI's
  feed follow from it.
- `Lifecycle`: a session operation beside calls (created, reset, snapshot taken, forked, evaluated,
  deleted, expired) was committed; `state_changed` says whether the state or the event log moved.

Subscribers run under the session's lock (so in commit order per session) and after the store has the
change; an error in one is logged and the others still run: the change itself stands. A subscriber whose
effects stay in this process (metrics, notifications to this process's connections) subscribes `local`: it
needs the order of this process's commits only, which the process's own lock keeps. While every subscriber is
local, a store shared between processes may let the others take the session's lock with the commit itself
(`SessionStore.commit(..., last=True)`), which saves a call a round trip to Redis; a subscriber that is not
(a trajectory file, a cassette, which other processes may write too) keeps every process out until it has run.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from sim_mcp.engine.contract import Outcome, SimulationRequest
    from sim_mcp.state.session import Event, SessionRecord

logger = logging.getLogger("sim_mcp")

CallKind = Literal["ok", "error", "failed", "fault", "message"]
"""How a committed event ended: ok, a simulated failure, no valid outcome, an injected fault, or a message."""

LifecycleAction = Literal["created", "reset", "snapshot", "forked", "evaluated", "deleted", "expired"]

_STATE_CHANGING: frozenset[LifecycleAction] = frozenset({"reset", "deleted", "expired"})


@dataclass(frozen=True, slots=True)
class Commit:
    """A call (or a message) just committed."""

    record: SessionRecord  # the session after the call
    event: Event
    # What the backend was (or would have been) asked: the state before the call; None for a message.
    request: SimulationRequest | None
    # The outcome that passed the checks; None when the simulator answered by itself (no valid outcome, an
    # error or timeout fault) and for messages.
    outcome: Outcome | None
    kind: CallKind = "ok"

    @property
    def session_id(self) -> str:
        return self.record.id


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """A session operation beside calls, committed."""

    session_id: str
    action: LifecycleAction
    record: SessionRecord | None = None  # the session after it; None once deleted or expired

    @property
    def state_changed(self) -> bool:
        return self.action in _STATE_CHANGING


Change = Commit | Lifecycle
Subscriber = Callable[[Change], Awaitable[None]]


class AfterCommit:
    """The subscribers to committed changes; `emit` tells each of them, in the order they subscribed."""

    def __init__(self, subscribers: tuple[Subscriber, ...] | list[Subscriber] = ()) -> None:
        self._subscribers: list[Subscriber] = list(subscribers)
        # Those subscribed `local` (see the module's doc); the others need other processes kept out.
        self._local: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber, *, local: bool = False) -> Callable[[], None]:
        """Add `subscriber`; the function returned removes it again. `local`: its effects stay in this process,
        so it needs no other process kept out of the session while it runs."""
        self._subscribers.append(subscriber)
        if local:
            self._local.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)
            if subscriber in self._local:
                self._local.remove(subscriber)

        return unsubscribe

    @property
    def needs_session_lock(self) -> bool:
        """Whether a subscriber needs other processes kept out of the session until it has run."""
        return len(self._subscribers) > len(self._local)

    async def emit(self, change: Change) -> None:
        for subscriber in list(self._subscribers):
            try:
                await subscriber(change)
            except Exception as e:  # the change is committed: report, and let the others run
                logger.error(
                    "after-commit subscriber %s failed for session %r (%s): %s: %s",
                    _name(subscriber),
                    change.session_id,
                    _what(change),
                    type(e).__name__,
                    e,
                )


def _name(subscriber: Any) -> str:
    return str(getattr(subscriber, "__qualname__", type(subscriber).__name__))


def _what(change: Change) -> str:
    return f"event {change.event.seq}" if isinstance(change, Commit) else change.action
