"""One sim-mcp session driven as an RL episode: the loop that the OpenEnv and Gymnasium adapters share.

`Episode.start` makes a fresh session from a task (or a bare environment); `Episode.act` carries out
one action (a tool call, a message to the task's simulated user, or "finish") and says whether the
episode is over. At the end the task's checks score the final state (`POST /sessions/{id}/evaluate`)
and that is the reward; with `dense_reward`, every step is scored and rewarded by the change in score,
so the rewards of an episode still add up to its final score.

An `Episode` holds only ids and counters; each call takes the `SimClient` to use, so the same episode
can be driven from any event loop (a server's, a portal thread's).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field

from sim_mcp.client import (
    ConflictError,
    EpisodeError,
    Evaluation,
    NotFoundError,
    SessionInfo,
    SimClient,
    SimSession,
    TaskInfo,
    ToolInfo,
)
from sim_mcp.client._models import JSON

ACTION_HELP = (
    'An action is a tool call {"tool": NAME, "arguments": {...}}, a message to the user {"message": TEXT}, '
    'or {"finish": true} to end the episode.'
)


@dataclass(frozen=True)
class EpisodeAction:
    """What the agent does in one step: call `tool`, say `message` to the simulated user, or `finish`."""

    tool: str | None = None
    arguments: dict[str, JSON] = field(default_factory=dict)
    message: str | None = None
    finish: bool = False


@dataclass(frozen=True)
class EpisodeStart:
    """A new episode: its session, its task (if any), the tools the agent has, and the first observation."""

    session: SessionInfo
    task: TaskInfo | None
    tools: list[ToolInfo]
    text: str


@dataclass(frozen=True)
class EpisodeStep:
    """The outcome of one action."""

    text: str
    reward: float
    terminated: bool
    truncated: bool
    tool: str | None = None
    result: JSON = None
    is_error: bool = False
    user_message: str | None = None
    evaluation: Evaluation | None = None

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated


@dataclass
class Episode:
    """The state of one episode on the client side: which session, how many steps, whether it is over."""

    max_steps: int = 30
    dense_reward: bool = False
    keep_sessions: bool = False
    session: SessionInfo | None = None
    task: TaskInfo | None = None
    steps: int = 0
    done: bool = False
    score: float = 0.0
    evaluation: Evaluation | None = None

    async def start(
        self,
        client: SimClient,
        *,
        task: str | None = None,
        env: str | None = None,
        seed: int | None = None,
        episode_id: str | None = None,
    ) -> EpisodeStart:
        """End the previous episode (deleting its session unless `keep_sessions`) and start a new one."""
        if task is None and env is None:
            raise EpisodeError("an episode needs a task (task=NAME) or an environment (env=NAME) to run in")
        await self.discard(client)
        session = await client.create_session(task=task, env=env, seed=seed, id=episode_id)
        self.task = await client.task(task) if task else None
        self.session, self.steps, self.done, self.score, self.evaluation = session.info, 0, False, 0.0, None
        tools = await session.list_tools()
        return EpisodeStart(session.info, self.task, tools, _start_text(self.task, session.info, tools))

    async def act(self, client: SimClient, action: EpisodeAction) -> EpisodeStep:
        """Carry out one action; at the end of the episode, score it."""
        if self.session is None:
            raise EpisodeError("no episode is running: call reset() first")
        if self.done:
            raise EpisodeError(f"the episode in session {self.session.id} has ended: call reset() to start the next")
        session = SimSession(client, self.session)
        self.steps += 1
        step = await _carry_out(session, action)
        terminated = action.finish or step.terminated
        truncated = not terminated and self.steps >= self.max_steps
        self.done = terminated or truncated
        reward, evaluation = 0.0, None
        if self.task is not None and (self.done or self.dense_reward):
            evaluation = await session.evaluate()
            reward = evaluation.reward - self.score if self.dense_reward else evaluation.reward
            self.score, self.evaluation = evaluation.reward, evaluation
        text = step.text if evaluation is None or not self.done else f"{step.text}\n\n{_evaluation_text(evaluation)}"
        return EpisodeStep(
            text=text,
            reward=reward,
            terminated=terminated,
            truncated=truncated,
            tool=step.tool,
            result=step.result,
            is_error=step.is_error,
            user_message=step.user_message,
            evaluation=evaluation,
        )

    async def discard(self, client: SimClient) -> None:
        """Forget the current episode; delete its session on the server unless `keep_sessions`."""
        info, self.session = self.session, None
        if info is not None and not self.keep_sessions:
            with contextlib.suppress(NotFoundError):
                await SimSession(client, info).delete()


async def _carry_out(session: SimSession, action: EpisodeAction) -> EpisodeStep:
    if action.finish:
        return EpisodeStep(text="The episode is finished.", reward=0.0, terminated=True, truncated=False)
    if action.message is not None:
        try:
            reply = await session.say(action.message)
        except ConflictError as e:
            return EpisodeStep(text=f"The user has left: {e.message}", reward=0.0, terminated=True, truncated=False)
        ended = f"\n(The user ended the conversation: {reply.reason}.)" if reply.done else ""
        return EpisodeStep(
            text=f"User: {reply.message}{ended}",
            reward=0.0,
            terminated=reply.done,
            truncated=False,
            user_message=reply.message,
        )
    if not action.tool:
        return EpisodeStep(text=f"Error: nothing to do. {ACTION_HELP}", reward=0.0, terminated=False, truncated=False)
    result = await session.call_tool(action.tool, action.arguments)
    return EpisodeStep(
        text=f"Error: {result.text}" if result.is_error else result.text,
        reward=0.0,
        terminated=False,
        truncated=False,
        tool=action.tool,
        result=result.value,
        is_error=result.is_error,
    )


def _start_text(task: TaskInfo | None, session: SessionInfo, tools: list[ToolInfo]) -> str:
    goal = f"Task: {task.description}" if task is not None else f"Environment: {session.env}"
    listing = "\n".join(
        f"- {tool.name}: {tool.description} Arguments: {json.dumps(tool.input_schema.get('properties', {}))}"
        for tool in tools
    )
    return f"{goal}\n\nTools:\n{listing}\n\n{ACTION_HELP}"


def _evaluation_text(evaluation: Evaluation) -> str:
    lines = [f"Reward: {evaluation.reward:.3f} ({'passed' if evaluation.passed else 'not passed'})"]
    lines += [f"- {'ok' if check.passed else 'failed'}: {check.name}" for check in evaluation.checks]
    return "\n".join(lines)
