"""What transports call: the operations of the application, with the rules that belong to no one transport.

`server/` (MCP, the control API, the web UI) turns a request into one of these calls, and the answer or the error
into a response; the rules sit here so that every transport keeps them alike and none has to know them:

- **A session made for a task** (`EpisodeService.create`) takes the task's environment and initial state; an
  `env` that differs, or a `state` beside the task, is refused.
- **Which evaluation a session keeps** (`EpisodeService.evaluate`): scored against its own task (named), the
  result is the session's reward; scored against any other task (an inline one too, whatever its name), it is
  answered and leaves the reward alone. A session made for no task keeps what it was last scored against.
- **What feeds the curriculum**: the first evaluation of an episode of a task's session, by its own task (a
  reset starts another episode), when the caller asks for it.
- **Where a tool call goes** (`CallService`): `ask_user`, in a session offered it (its task's user has
  `tool: true`, or its environment `user_tool: true`), to the simulated user; any other call to the simulator.

Session lifecycle itself (create, reset, fork...) is `engine/sessions.py`'s `SessionService`, which these use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Unpack

from sim_mcp.engine.sessions import SessionOptions, SessionService
from sim_mcp.engine.simulator import CallResult, Simulator, bound_scope, refusal
from sim_mcp.episodes.curriculum import Curriculum
from sim_mcp.episodes.judge import Judge
from sim_mcp.episodes.rewards import Evaluation, evaluate_session
from sim_mcp.episodes.tasks import Task, parse_task
from sim_mcp.episodes.user import ASK_USER, ASK_USER_INPUT_SCHEMA, UserSimulator, UserTurn
from sim_mcp.errors import InvalidSessionInput, SpecError
from sim_mcp.specs.schema import compile_schema, value_problem
from sim_mcp.state.session import SessionRecord

__all__ = ["CallService", "EpisodeService", "Scored"]


@dataclass(frozen=True, slots=True)
class Scored:
    """An evaluation, and the curriculum's answer when it fed the curriculum (its progress and move)."""

    evaluation: Evaluation
    curriculum: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {**self.evaluation.model_dump(mode="json"), "curriculum": self.curriculum}


@dataclass(frozen=True, slots=True)
class EpisodeService:
    """Sessions as episodes of tasks: made for a task, scored, talked to by their simulated user. `tasks` gives
    the tasks loaded now (a reload replaces them)."""

    sessions: SessionService
    tasks: Callable[[], Mapping[str, Task]]
    judge: Judge | None
    users: UserSimulator
    curriculum: Curriculum

    def task(self, given: str | dict[str, Any]) -> Task:
        """A task by name (from the task files), or one given inline, checked like a task file."""
        if isinstance(given, str):
            tasks = self.tasks()
            task = tasks.get(given)
            if task is None:
                known = ", ".join(sorted(tasks)) or "none loaded"
                raise InvalidSessionInput("task", f"unknown task {given!r}: expected one of {known}")
            return task
        try:
            return parse_task(given, "task", default_name="inline", place="task")
        except SpecError as e:
            raise InvalidSessionInput(e.place, e.reason) from e

    async def create(self, *, task: str | None = None, **options: Unpack[SessionOptions]) -> SessionRecord:
        """A new session (`SessionService.create`); with `task`, in the task's environment and initial state."""
        found = self.task(task) if task is not None else None
        if found is None:
            return await self.sessions.create(**options)
        env = options.get("env")
        if env is not None and env != found.env:
            raise InvalidSessionInput("env", f"task {found.name!r} runs in {found.env!r}, not {env!r}")
        if options.get("state") is not None:
            message = "the task brings its own initial state: give task or state, not both"
            raise InvalidSessionInput("state", message)
        options["env"], options["state"], options["state_mode"] = found.env, found.initial_state, found.state_mode
        return await self.sessions.create(**options, task=found.name)

    async def evaluate(
        self, session_id: str, given: str | dict[str, Any] | None = None, *, feed_curriculum: bool = True
    ) -> Scored:
        """Score the session against `given` (default: the task it was made for); see the module for which
        evaluations the session keeps and which feed the curriculum."""
        record = await self.sessions.get(session_id)
        if given is None:
            given = record.task
            if given is None:
                raise InvalidSessionInput(
                    "task", "expected a task name or a task inline (this session was not created for a task)"
                )
        task = self.task(given)
        own = isinstance(given, str) and given == record.task
        keep = own or record.task is None
        evaluation = await evaluate_session(self.sessions, session_id, task, self.judge, keep=keep)
        fed: dict[str, Any] | None = None
        if feed_curriculum and own and record.evaluation is None and task.name in self.tasks():
            fed = await self.curriculum.report(task.name, evaluation.reward)
        return Scored(evaluation, fed)

    async def reply(self, session_id: str, message: str) -> UserTurn:
        """The simulated user's answer to what the agent says (`episodes/user.py`)."""
        return await self.users.reply(session_id, message)


class CallService:
    """What a session's MCP client is offered, and where each of its calls goes."""

    def __init__(self, simulator: Simulator, sessions: SessionService, users: UserSimulator) -> None:
        self.simulator = simulator
        self.sessions = sessions
        self.users = users
        self._ask_user_arguments = compile_schema(ASK_USER_INPUT_SCHEMA)

    async def binding(self, session_id: str, scope: str | None) -> tuple[SessionRecord | None, str | None]:
        """The session (None before its first call) and the environment a request in it works in: `scope`
        (the one a request names), else the session's own, else all of them (None)."""
        record = await self.sessions.find(session_id)
        return record, bound_scope(record, scope)

    async def offered(self, session_id: str, scope: str | None) -> tuple[str | None, bool]:
        """The environment whose tools the session is offered, and whether `ask_user` is offered beside them."""
        record, bound = await self.binding(session_id, scope)
        return bound, self.users.offers_tool(record, bound)

    async def call(
        self, session_id: str, name: str, arguments: dict[str, Any] | None, scope: str | None
    ) -> tuple[CallResult, str | None]:
        """Answer one call; with it, the environment it worked in where that had to be worked out (`ask_user`).

        Only `ask_user` reads the record first: any other call costs the store one read, the simulator's own
        under the session's lock, which also resolves the session's binding."""
        if name == ASK_USER:
            record, scope = await self.binding(session_id, scope)
            if self.users.offers_tool(record, scope):
                given = arguments or {}
                if (problem := value_problem(given, self._ask_user_arguments, "arguments")) is not None:
                    return refusal("invalid_arguments", f"invalid arguments for {ASK_USER}: {problem}"), scope
                return await self.users.ask(session_id, str(given["message"])), scope
        return await self.simulator.call(session_id, name, arguments, scope=scope), scope
