"""Exceptions raised by sim-mcp.

The tree::

    SimMcpError                  root: catch this to catch anything of ours
    ├── SpecError                a spec file that cannot be read (path, place inside it, reason)
    │   └── SpecErrors           several problems of one file, each a SpecError (`problems`)
    ├── ConfigError              a bad setting (flag or SIM_MCP_* variable)
    ├── BackendError             a simulator backend failed (backend, model, status)
    │   ├── BackendTimeout       no reply within the deadline (--timeout-s), retries spent
    │   ├── BackendUnreachable   the provider could not be connected to
    │   ├── BackendHTTPError     the provider answered with an error status (`status`)
    │   └── UnusableReply        a reply that breaks the contract (`reason`, `answer`): asked again
    ├── StoreError               a session store failed (which store, what operation)
    └── SessionError             misuse of sessions
        ├── SessionNotFound      no session with that id
        ├── SessionExists        a session id asked for is already taken
        ├── InvalidSessionInput  a session operation got a value it cannot use (names the field)
        ├── SessionLimitExceeded a cap on sessions or on state size was reached
        └── ConversationOver     the simulated user has ended the conversation (goal met, or abandoned)

Errors that reach an agent as a tool result are not exceptions: they are `is_error` results.
"""

from __future__ import annotations


class SimMcpError(Exception):
    """Root of every exception sim-mcp raises on purpose."""


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


class StoreError(SimMcpError):
    """A session store could not complete an operation."""


class SessionError(SimMcpError):
    """Misuse of sessions."""


class SessionNotFound(SessionError):
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"no session with id {session_id!r}")


class SessionExists(SessionError):
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"a session with id {session_id!r} already exists: choose another id, or omit it for one")


class InvalidSessionInput(SessionError):
    """A value given to a session operation that cannot be used; `field` names it (e.g. ``state.tickets``)."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class SessionLimitExceeded(SessionError):
    """A cap (number of sessions, size of one session's state) was reached."""


class ConversationOver(SessionError):
    """The session's simulated user ended the conversation; `reason` is `goal_met` or `abandoned`."""

    def __init__(self, session_id: str, reason: str) -> None:
        self.session_id = session_id
        self.reason = reason
        super().__init__(
            f"the user of session {session_id!r} has ended the conversation ({reason}): evaluate the session, "
            "or reset it to start the episode over"
        )
