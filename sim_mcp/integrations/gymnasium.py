"""sim-mcp as a Gymnasium environment with text spaces: the observation and the action are strings.

    import gymnasium as gym
    import sim_mcp.integrations.gymnasium  # registers sim_mcp/SimMcp-v0

    env = gym.make("sim_mcp/SimMcp-v0", base_url="http://127.0.0.1:8765", task="tickets-close-sso")
    observation, info = env.reset(seed=1)                 # the task and the tools, as text
    observation, reward, terminated, truncated, info = env.step(
        '{"tool": "get_ticket", "arguments": {"ticket_id": "T-1004"}}'
    )

An action is JSON: `{"tool": NAME, "arguments": {...}}` (also `{"name": ..., "arguments": "<JSON>"}`, the
OpenAI tool-call shape), `{"message": TEXT}` for the task's simulated user, or `{"finish": true}`. An
action that is not one of these is answered with an observation saying so, and counts as a step.
`terminated` when the agent finishes or the user ends the conversation; `truncated` after `max_steps`.
The reward is the task's score at the end (0 before), or its change at every step (`dense_reward`).
`reset`'s `info` holds the session's id and MCP URL and the tools; `step`'s the tool's result (JSON) and,
when scored, the evaluation.

`register_tasks(base_url)` also registers one id per task of a server: `sim_mcp/<task>-v0`.
Needs `pip install "sim-mcp[integrations]"`.
"""

from __future__ import annotations

import json
from typing import Any, SupportsFloat

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError('sim_mcp.integrations.gymnasium needs gymnasium: pip install "sim-mcp[integrations]"') from e

from sim_mcp.client import DEFAULT_URL, SyncSimClient
from sim_mcp.integrations._episode import ACTION_HELP, Episode, EpisodeAction, EpisodeStep

ENV_ID = "sim_mcp/SimMcp-v0"
ENTRY_POINT = "sim_mcp.integrations.gymnasium:SimMcpEnv"
MAX_TEXT = 100_000
# Printable ASCII, tab and newline, and the Latin, Greek, Cyrillic, punctuation and symbol blocks up to U+2FFF.
CHARSET = frozenset("\t\n" + "".join(map(chr, range(0x20, 0x7F))) + "".join(map(chr, range(0xA0, 0x3000))))


class SimMcpEnv(gymnasium.Env[str, str]):
    """A Gymnasium `Env` over a running sim-mcp server: one session per episode; see the module's docstring."""

    metadata = {"render_modes": ["ansi", "human"]}  # noqa: RUF012 - gymnasium's class attribute

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
        max_text: int = MAX_TEXT,
        timeout: float = 60.0,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {self.metadata['render_modes']} or None")
        self.base_url, self.token, self.timeout = base_url, token, timeout
        self.task, self.env = task, env
        self.render_mode = render_mode
        self.max_text = max_text
        self.observation_space = spaces.Text(max_length=max_text, min_length=0, charset=CHARSET)
        self.action_space = spaces.Text(max_length=max_text, min_length=0, charset=CHARSET)
        self.episode = Episode(max_steps=max_steps, dense_reward=dense_reward, keep_sessions=keep_sessions)
        self._sim: SyncSimClient | None = None
        self._last = ""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """A fresh session. `options` may name another `task` or `env`, and an `episode_id` (the session id).

        The session's seed is `seed`, or, when none is given, drawn from the env's seeded generator, so
        that `reset(seed=s)` followed by plain resets gives the same sequence of sessions every run.
        """
        super().reset(seed=seed)
        options = dict(options or {})
        task, env = options.pop("task", None), options.pop("env", None)
        if task is None and env is None:
            task, env = self.task, self.env
        session_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        sim = self._client()
        start = sim.run(
            lambda: self.episode.start(
                sim.client, task=task, env=env, seed=session_seed, episode_id=options.pop("episode_id", None)
            )
        )
        self._last = self._fit(start.text)
        info = {
            "session": start.session.id,
            "mcp_url": start.session.mcp_url,
            "task": start.session.task,
            "tools": [tool.as_openai_function() for tool in start.tools],
        }
        return self._last, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        sim = self._client()
        parsed = parse_action(action)
        if isinstance(parsed, str):
            step = sim.run(lambda: self.episode.act(sim.client, EpisodeAction()))
            step = EpisodeStep(
                text=f"Error: {parsed}",
                reward=step.reward,
                terminated=step.terminated,
                truncated=step.truncated,
                evaluation=step.evaluation,
            )
        else:
            step = sim.run(lambda: self.episode.act(sim.client, parsed))
        self._last = self._fit(step.text)
        info: dict[str, Any] = {"tool": step.tool, "result": step.result, "is_error": step.is_error}
        info["user_message"] = step.user_message
        if step.evaluation is not None:
            info["evaluation"] = step.evaluation.model_dump()
        if self.render_mode == "human":
            print(self._last)
        return self._last, step.reward, step.terminated, step.truncated, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last
        if self.render_mode == "human":
            print(self._last)
        return None

    def close(self) -> None:
        """End the episode (deleting its session unless `keep_sessions`) and stop the client's thread."""
        sim, self._sim = self._sim, None
        if sim is not None:
            try:
                sim.run(lambda: self.episode.discard(sim.client))
            finally:
                sim.close()
        super().close()

    def _client(self) -> SyncSimClient:
        if self._sim is None:
            self._sim = SyncSimClient(self.base_url, token=self.token, timeout=self.timeout)
        return self._sim

    def _fit(self, text: str) -> str:
        fitted = "".join(char if char in CHARSET else "?" for char in text)
        return fitted if len(fitted) <= self.max_text else fitted[: self.max_text - 15] + "\n[... cut off]"


def parse_action(text: str) -> EpisodeAction | str:
    """An action from its JSON text, or a message saying what is wrong with it."""
    stripped = text.strip()
    if stripped.lower() in {"finish", "done"}:
        return EpisodeAction(finish=True)
    try:
        value = json.loads(stripped)
    except ValueError as e:
        return f"the action is not JSON ({e}). {ACTION_HELP}"
    if not isinstance(value, dict):
        return f"the action is a JSON {type(value).__name__}, not an object. {ACTION_HELP}"
    if value.get("finish") is True:
        return EpisodeAction(finish=True)
    if isinstance(value.get("message"), str):
        return EpisodeAction(message=value["message"])
    tool = value.get("tool", value.get("name"))
    arguments = value.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError as e:
            return f"the arguments are a string that is not JSON ({e}). {ACTION_HELP}"
    if not isinstance(tool, str) or not tool:
        return f"the action names no tool, message or finish. {ACTION_HELP}"
    if not isinstance(arguments, dict):
        return f"the arguments of {tool!r} must be a JSON object, got {type(arguments).__name__}. {ACTION_HELP}"
    return EpisodeAction(tool=tool, arguments=arguments)


def register_envs() -> None:
    """Register `sim_mcp/SimMcp-v0` (done when this module is imported; again is a no-op)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=ENTRY_POINT)


def register_tasks(base_url: str = DEFAULT_URL, *, token: str | None = None, **kwargs: Any) -> list[str]:
    """Register `sim_mcp/<task>-v0` for each task of the server at `base_url`; returns the ids.

    `kwargs` (e.g. `max_steps`, `dense_reward`) become the defaults of `gymnasium.make` for those ids.
    """
    with SyncSimClient(base_url, token=token) as sim:
        tasks = sim.tasks()
    ids = []
    for task in tasks:
        env_id = f"sim_mcp/{task.name}-v0"
        if env_id not in gymnasium.registry:
            defaults = {"base_url": base_url, "token": token, "task": task.name, **kwargs}
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs=defaults)
        ids.append(env_id)
    return ids


register_envs()
