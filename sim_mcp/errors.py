"""Exceptions raised by sim-mcp.

The tree::

    SimMcpError                  root: catch this to catch anything of ours
    ├── SpecError                a spec file that cannot be read (path, place inside it, reason)
    │   └── SpecErrors           several problems of one file, each a SpecError (`problems`)
    ├── ConfigError              a bad setting (flag or SIM_MCP_* variable)
    │   └── NotRegistered        a name no table of `sim_mcp.plugins` knows (`known` lists those it does)
    ├── RulesError               a rules program that cannot be compiled or run (source, tool, line)
    ├── LiveServerError          a live MCP server that failed us (`target`, `reason`)
    │   ├── CaptureError         its tools could not be captured
    │   └── UpstreamFailure      it did not answer a call (`call`)
    ├── BackendError             a simulator backend failed (backend, model, status)
    │   ├── BackendTimeout       no reply within the deadline (--timeout-s), retries spent
    │   ├── BackendUnreachable   the provider could not be connected to
    │   ├── BackendHTTPError     the provider answered with an error status (`status`)
    │   ├── UnusableReply        a reply that breaks the contract (`reason`, `answer`): asked again
    │   │   └── InvalidOutcome   the same, as the simulator sees it (engine/contract.py: carries tokens)
    │   └── ReplayMiss           the cassette holds no outcome for the call
    ├── StoreError               a session store failed (which store, what operation)
    └── SessionError             misuse of sessions
        ├── SessionNotFound      no session with that id
        ├── SessionExists        a session id asked for is already taken
        ├── InvalidSessionInput  a session operation got a value it cannot use (names the field)
        ├── SessionLimitExceeded a cap on sessions or on state size was reached
        │   └── TooManyWatchers  the web UI's live feed serves its most watchers already
        ├── InvalidSessionName   a session named in a request that cannot be one
        └── ConversationOver     the simulated user has ended the conversation (goal met, or abandoned)

Every class has a `code`, a stable name for programs and logs: its class name in snake case
(`SessionNotFound.code == "session_not_found"`). The harness client's errors (`sim_mcp.client`) are
`SimMcpError`s too. Errors that reach an agent as a tool result are not exceptions: they are `is_error`
results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

_WORD = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class SimMcpError(Exception):
    """Root of every exception sim-mcp raises on purpose; `code` names its class for programs and logs."""

    code = "sim_mcp_error"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in cls.__dict__:
            cls.code = _WORD.sub("_", cls.__name__).lower()


class SpecError(SimMcpError):
    """A spec file (or an entry of one) that cannot be loaded.

    Rendered as ``path: place: reason``, e.g.
    ``tickets.yaml: tools[0].input_schema: expected an object, got an array``.
    """

    def __init__(self, path: str, reason: str, place: str = "") -> None:
        self.path = path
        self.place = place
        self.reason = reason
        super().__init__(f"{path}: {place}: {reason}" if place else f"{path}: {reason}")

    @property
    def problems(self) -> tuple[SpecError, ...]:
        """Every problem this error stands for, each with its place: itself, or those of a `SpecErrors`."""
        return (self,)


class SpecErrors(SpecError):
    """Every problem found in one file, so that a reader fixes them at once rather than one per run. Reads
    as the first, with how many more there are; `problems` lists them all (`sim-mcp check` prints each)."""

    def __init__(self, problems: list[SpecError]) -> None:
        if not problems:
            raise ValueError("SpecErrors needs at least one problem")
        self._problems = tuple(problems)
        first = problems[0]
        more = len(problems) - 1
        reason = first.reason + (f" (and {more} more problem{'s' if more > 1 else ''} in this file)" if more else "")
        super().__init__(first.path, reason, first.place)

    @property
    def problems(self) -> tuple[SpecError, ...]:
        return self._problems


class ConfigError(SimMcpError):
    """A setting with a value we cannot use; the message names the flag or variable."""


class NotRegistered(ConfigError):
    """A name that a table of extension points (`sim_mcp.plugins`) does not know; `known` lists those it does."""

    def __init__(self, what: str, name: str, known: Sequence[str], setting: str = "") -> None:
        self.what = what
        self.name = name
        self.known = tuple(known)
        where = f" ({setting})" if setting else ""
        super().__init__(f"unknown {what} {name!r}{where}: expected one of {', '.join(self.known)}")


class RulesError(SimMcpError):
    """A program that cannot be compiled or run: `source`, `tool` and `line` say where, `reason` what went
    wrong. Rendered as a `SpecError` is: ``bank.rules.star: create_transfer (line 35): reason``."""

    def __init__(self, source: str, reason: str, line: int | None = None, tool: str | None = None) -> None:
        self.source = source
        self.reason = reason
        self.line = line
        self.tool = tool
        super().__init__(f"{source}: {self.place}: {reason}" if self.place else f"{source}: {reason}")

    @property
    def place(self) -> str:
        """Where in the program: `tool (line N)`, `line N` or `tool` (empty when neither is known)."""
        line = f"line {self.line}" if self.line is not None else ""
        if self.tool and line:
            return f"{self.tool} ({line})"
        return self.tool or line


class LiveServerError(SimMcpError):
    """A live MCP server that failed us: `target` is its URL or command line, `reason` what went wrong."""

    def __init__(self, target: str, reason: str, message: str) -> None:
        self.target = target
        self.reason = reason
        super().__init__(message)


class CaptureError(LiveServerError):
    """A live server whose tools could not be captured."""

    def __init__(self, target: str, reason: str) -> None:
        super().__init__(target, reason, f"capture from {target}: {reason}")


class UpstreamFailure(LiveServerError):
    """The real server did not answer a call (`call`): it exited, hung past the time limit, or spoke no MCP."""

    def __init__(self, target: str, call: str, reason: str) -> None:
        self.call = call
        super().__init__(target, reason, f"{target}: {call}: {reason}")


class BackendError(SimMcpError):
    """A simulator backend failed to produce an answer (transport, provider status, bad reply)."""

    def __init__(self, backend: str, message: str, *, model: str | None = None, status: int | None = None) -> None:
        self.backend = backend
        self.model = model
        self.status = status
        where = f"{backend}:{model}" if model else backend
        code = f" (HTTP {status})" if status is not None else ""
        super().__init__(f"{where}{code}: {message}")


class BackendTimeout(BackendError):
    """No reply within the deadline, after the retries: the request was cancelled each time."""


class BackendUnreachable(BackendError):
    """The provider could not be connected to (refused, DNS, TLS), after the retries."""


class BackendHTTPError(BackendError):
    """The provider answered with an error status that retrying did not mend (`status` holds it)."""


class UnusableReply(BackendError):
    """A reply that cannot be used as an answer (not JSON, wrong keys or types, a program that fails):
    `reason` is written for the model to read on the next attempt, `answer` is the reply as it was written."""

    def __init__(self, backend: str, reason: str, *, model: str | None = None, answer: str = "") -> None:
        super().__init__(backend, reason, model=model)
        self.reason = reason
        self.answer = answer


class ReplayMiss(BackendError):
    """The cassette holds no outcome for this call in this state."""

    def __init__(self, cassette: Path, tool: str, environment: str, version: int | str) -> None:
        self.cassette = cassette
        self.tool = tool
        self.environment = environment
        super().__init__(
            "replay",
            f"the cassette {cassette} has no outcome for {tool!r} (environment {environment!r}, "
            f"version {version}) with these arguments in this state: record it with "
            "--record, or give --replay-fallback BACKEND to simulate what the cassette lacks",
        )


class StoreError(SimMcpError):
    """A session store could not complete an operation."""


class SessionError(SimMcpError):
    """Misuse of sessions."""


class _OfOneSession(SessionError):
    """An error about one session, `session_id`: the class's `said` with the id in it."""

    said: ClassVar[str]

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(self.said.format(session=repr(session_id)))


class SessionNotFound(_OfOneSession):
    said = "no session with id {session}"


class SessionExists(_OfOneSession):
    said = "a session with id {session} already exists: choose another id, or omit it for one"


class InvalidSessionInput(SessionError):
    """A value given to a session operation that cannot be used; `field` names it (e.g. ``state.tickets``)."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class SessionLimitExceeded(SessionError):
    """A cap (number of sessions, size of one session's state) was reached."""


class TooManyWatchers(SessionLimitExceeded):
    """The live feed already serves its maximum of watchers."""


class InvalidSessionName(SessionError, ValueError):
    """A session named in a request (URL, header) that cannot be a session's name."""


class ConversationOver(SessionError):
    """The session's simulated user ended the conversation; `reason` is `goal_met` or `abandoned`."""

    def __init__(self, session_id: str, reason: str) -> None:
        self.session_id = session_id
        self.reason = reason
        super().__init__(
            f"the user of session {session_id!r} has ended the conversation ({reason}): evaluate the session, "
            "or reset it to start the episode over"
        )
