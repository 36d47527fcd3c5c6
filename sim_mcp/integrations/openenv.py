"""sim-mcp as an OpenEnv environment (`openenv-core`): any environment or task sim-mcp loads, one session per episode.

    env = SimMcpEnvironment("http://127.0.0.1:8765", task="tickets-close-sso")
    observation = env.reset(seed=1)                      # a fresh session from the task
    observation = env.step(SimAction(tool="get_ticket", arguments={"ticket_id": "T-1004"}))
    observation = env.step(SimAction(finish=True))       # done; reward from the task's checks
    print(observation.reward, observation.evaluation)

`reset(seed, episode_id, task=..., env=...)` starts a session (from the task, or a bare environment);
`step` calls a tool (`SimAction(tool, arguments)`; OpenEnv's own `CallToolAction` works too), talks to
the task's simulated user (`SimAction(message=...)`) or ends the episode (`SimAction(finish=True)`).
The episode also ends when the user does, or after `max_steps` steps. The reward is the task's score
when the episode ends (0 before), or, with `dense_reward=True`, the change in score at every step.

`create_openenv_app(...)` serves it as an OpenEnv server (HTTP and WebSocket, one session per client),
for `openenv`'s `GenericEnvClient` and the training stacks built on it (TRL, torchforge, SkyRL...).
Needs `pip install "sim-mcp[integrations]"`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from openenv.core.env_server import create_fastapi_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
    from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError('sim_mcp.integrations.openenv needs openenv-core: pip install "sim-mcp[integrations]"') from e
from pydantic import Field

from sim_mcp.client import DEFAULT_URL, EpisodeError, SimClient, SimClientError, SimSession, SyncSimClient
from sim_mcp.integrations._episode import Episode, EpisodeAction, EpisodeStart, EpisodeStep


class SimAction(Action):
    """One step: a tool call, a message to the task's simulated user, or the end of the episode."""

    tool: str | None = Field(default=None, description="The tool to call (a tool of the session's environment).")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments.")
    message: str | None = Field(default=None, description="A message to the task's simulated user.")
    finish: bool = Field(default=False, description="End the episode now; the reward is computed.")


class SimObservation(Observation):
    """What the agent sees after a reset or a step; `text` is it as one string, for an LLM."""

    text: str = Field(default="", description="The observation as text: the task and tools, a result, a reply.")
    session_id: str | None = Field(default=None, description="The sim-mcp session of the episode.")
    task: str | None = Field(default=None, description="The task's name (None for a bare environment).")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="At reset: the tools, as OpenAI functions.")
    tool: str | None = Field(default=None, description="The tool this step called.")
    result: Any = Field(default=None, description="The tool's result (JSON).")
    is_error: bool = Field(default=False, description="Whether the tool answered with an error.")
    user_message: str | None = Field(default=None, description="The simulated user's reply.")
    evaluation: dict[str, Any] | None = Field(default=None, description="The task's evaluation, when scored.")


class SimState(State):
    """The episode's bookkeeping (`episode_id` is the sim-mcp session id); the world itself is on the server."""

    task: str | None = None
    env: str | None = None
    done: bool = False
    score: float = 0.0
    mcp_url: str | None = None


class SimMcpEnvironment(Environment):
    """An OpenEnv `Environment` over a running sim-mcp server (`base_url`); see the module's docstring."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        task: str | None = None,
        env: str | None = None,
        token: str | None = None,
        max_steps: int = 30,
        dense_reward: bool = False,
        keep_sessions: bool = False,
        timeout: float = 60.0,
    ) -> None:
        super().__init__()
        self.base_url, self.token, self.timeout = base_url, token, timeout
        self.default_task, self.default_env = task, env
        self.episode = Episode(max_steps=max_steps, dense_reward=dense_reward, keep_sessions=keep_sessions)
        self._sync: SyncSimClient | None = None

    # -- async: what OpenEnv's server awaits -----------------------------------------------------------------

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any
    ) -> SimObservation:
        async with self._client() as client:
            start = await self.episode.start(client, seed=seed, episode_id=episode_id, **self._target(kwargs))
        return _start_observation(start)

    async def step_async(
        self, action: SimAction | CallToolAction | ListToolsAction, timeout_s: float | None = None, **kwargs: Any
    ) -> SimObservation:
        async with self._client() as client:
            if isinstance(action, ListToolsAction):
                return await self._list_tools(client)
            step = await self.episode.act(client, _episode_action(action))
        return _step_observation(step, self.episode.session.id if self.episode.session else None)

    # -- sync: for direct use, through a client with its own event loop ----------------------------------------

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> SimObservation:
        sim = self._sync_client()
        target = self._target(kwargs)
        start = sim.run(lambda: self.episode.start(sim.client, seed=seed, episode_id=episode_id, **target))
        return _start_observation(start)

    def step(
        self, action: SimAction | CallToolAction | ListToolsAction, timeout_s: float | None = None, **kwargs: Any
    ) -> SimObservation:
        sim = self._sync_client()
        if isinstance(action, ListToolsAction):
            return sim.run(lambda: self._list_tools(sim.client))
        step = sim.run(lambda: self.episode.act(sim.client, _episode_action(action)))
        return _step_observation(step, self.episode.session.id if self.episode.session else None)

    @property
    def state(self) -> SimState:
        session = self.episode.session
        return SimState(
            episode_id=session.id if session else None,
            step_count=self.episode.steps,
            task=session.task if session else None,
            env=session.env if session else None,
            done=self.episode.done,
            score=self.episode.score,
            mcp_url=session.mcp_url if session else None,
        )

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="sim-mcp",
            description=f"sim-mcp at {self.base_url}: simulated tools with per-session world state",
            version="0.1.0",
        )

    def close(self) -> None:
        """End the episode (deleting its session unless `keep_sessions`) and stop the sync client, if any.

        A server that has gone away is not an error here: there is nothing left to clean up.
        """
        sim, self._sync = self._sync, None
        try:
            if self.episode.session is not None:
                owner = sim or SyncSimClient(self.base_url, token=self.token, timeout=self.timeout)
                try:
                    owner.run(lambda: self.episode.discard(owner.client))
                except SimClientError:
                    pass
                finally:
                    if owner is not sim:
                        owner.close()
        finally:
            if sim is not None:
                sim.close()

    # -- helpers ----------------------------------------------------------------------------------------------------

    def _client(self) -> SimClient:
        return SimClient(self.base_url, token=self.token, timeout=self.timeout)

    def _sync_client(self) -> SyncSimClient:
        if self._sync is None:
            self._sync = SyncSimClient(self.base_url, token=self.token, timeout=self.timeout)
        return self._sync

    def _target(self, kwargs: dict[str, Any]) -> dict[str, str | None]:
        task, env = kwargs.pop("task", None), kwargs.pop("env", None)
        if task is None and env is None:
            task, env = self.default_task, self.default_env
        return {"task": task, "env": env}

    async def _list_tools(self, client: SimClient) -> SimObservation:
        if self.episode.session is None:
            raise EpisodeError("no episode is running: call reset() first")
        tools = await SimSession(client, self.episode.session).list_tools()
        return SimObservation(
            text="\n".join(f"- {tool.name}: {tool.description}" for tool in tools),
            session_id=self.episode.session.id,
            task=self.episode.session.task,
            tools=[tool.as_openai_function() for tool in tools],
        )


def create_openenv_app(base_url: str = DEFAULT_URL, *, max_concurrent_envs: int = 64, **environment: Any) -> Any:
    """An OpenEnv FastAPI app serving `SimMcpEnvironment(base_url, **environment)`, one per WebSocket client.

    Serve it with uvicorn (`uvicorn.run(create_openenv_app(...), port=8000)`) and connect with
    `openenv.GenericEnvClient(base_url="http://127.0.0.1:8000")`: `reset(task=...)`, `step({...})`.
    """
    factory: Callable[[], SimMcpEnvironment] = lambda: SimMcpEnvironment(base_url, **environment)  # noqa: E731
    return create_fastapi_app(factory, SimAction, SimObservation, max_concurrent_envs=max_concurrent_envs)


def _episode_action(action: SimAction | CallToolAction) -> EpisodeAction:
    if isinstance(action, CallToolAction):
        return EpisodeAction(tool=action.tool_name, arguments=dict(action.arguments))
    return EpisodeAction(
        tool=action.tool, arguments=dict(action.arguments), message=action.message, finish=action.finish
    )


def _start_observation(start: EpisodeStart) -> SimObservation:
    return SimObservation(
        text=start.text,
        session_id=start.session.id,
        task=start.session.task,
        tools=[tool.as_openai_function() for tool in start.tools],
        done=False,
        reward=None,
    )


def _step_observation(step: EpisodeStep, session_id: str | None) -> SimObservation:
    return SimObservation(
        text=step.text,
        session_id=session_id,
        tool=step.tool,
        result=step.result,
        is_error=step.is_error,
        user_message=step.user_message,
        evaluation=step.evaluation.model_dump() if step.evaluation is not None else None,
        done=step.done,
        reward=step.reward,
    )
