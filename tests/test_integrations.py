"""The adapters of `sim-mcp[integrations]` (Gymnasium, OpenEnv, the scripted model) and the examples, for real."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sim_mcp.client import EpisodeError, SolutionStep, SyncSimClient
from tests.servers import REPO, ServerProcess

TASK = "tickets-close-sso"
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module")
def solution(http_server: ServerProcess) -> list[SolutionStep]:
    with SyncSimClient(http_server.url) as sim:
        return sim.task(TASK).solution or []


def _actions(solution: list[SolutionStep]) -> list[str]:
    return [json.dumps({"tool": step.tool, "arguments": step.arguments}) for step in solution]


# -- Gymnasium ---------------------------------------------------------------------------------------------------


def test_gymnasium_episode_by_id(http_server: ServerProcess, solution: list[SolutionStep]) -> None:
    gym = pytest.importorskip("gymnasium")
    import sim_mcp.integrations.gymnasium  # noqa: F401  (registers the id)

    env = gym.make("sim_mcp/SimMcp-v0", base_url=http_server.url, task=TASK)
    try:
        observation, info = env.reset(seed=4)
        assert observation in env.observation_space
        assert "T-1004" in observation
        assert "close_ticket" in observation
        assert info["task"] == TASK
        assert info["mcp_url"].endswith(info["session"])
        rewards = []
        for action in _actions(solution):
            observation, reward, terminated, truncated, info = env.step(action)
            assert (terminated, truncated, info["is_error"]) == (False, False, False)
            rewards.append(reward)
        observation, reward, terminated, truncated, info = env.step('{"finish": true}')
        assert (reward, terminated, truncated) == (1.0, True, False)
        assert rewards == [0.0, 0.0]
        assert info["evaluation"]["passed"] is True
        assert "Reward: 1.000" in observation
        with pytest.raises(EpisodeError, match="has ended"):
            env.unwrapped.step('{"finish": true}')
        session = env.unwrapped.episode.session.id
    finally:
        env.close()
    with SyncSimClient(http_server.url) as sim:
        assert session not in {info.id for info in sim.sessions()}  # its session was deleted


def test_gymnasium_bad_actions_truncation_and_dense_rewards(
    http_server: ServerProcess, solution: list[SolutionStep]
) -> None:
    pytest.importorskip("gymnasium")
    from sim_mcp.integrations.gymnasium import SimMcpEnv

    env = SimMcpEnv(http_server.url, task=TASK, max_steps=3, dense_reward=True)
    try:
        env.reset(seed=1)
        observation, reward, terminated, truncated, _ = env.step("close the ticket please")
        assert observation.startswith("Error: the action is not JSON")
        assert '{"tool": NAME' in observation
        assert (terminated, truncated) == (False, False)
        total = float(reward)
        for action in _actions(solution):
            _, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
        assert (terminated, truncated) == (False, True)  # 3 steps: out of steps
        assert total == pytest.approx(info["evaluation"]["reward"]) == pytest.approx(1.0)
        observation, info = env.reset(options={"env": "bank"})
        assert info["task"] is None
        assert "Environment: bank" in observation
        observation, *_ = env.step('{"name": "get_account", "arguments": "{\\"account_id\\": \\"ACC-1002\\"}"}')
        assert "ACC-1002" in observation
    finally:
        env.close()


def test_gymnasium_ids_per_task(http_server: ServerProcess) -> None:
    gym = pytest.importorskip("gymnasium")
    from sim_mcp.integrations.gymnasium import register_tasks

    ids = register_tasks(http_server.url, max_steps=1)
    assert f"sim_mcp/{TASK}-v0" in ids
    env = gym.make(f"sim_mcp/{TASK}-v0")
    try:
        env.reset()
        _, _, terminated, truncated, info = env.step('{"message": "Hello, what do you need?"}')
        assert (terminated, truncated) == (False, True)
        assert "SSO" in info["user_message"]
    finally:
        env.close()


def test_gymnasium_env_checker_passes(http_server: ServerProcess) -> None:
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from sim_mcp.integrations.gymnasium import SimMcpEnv

    env = SimMcpEnv(http_server.url, task=TASK, max_text=4000)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


# -- OpenEnv -------------------------------------------------------------------------------------------------------


def test_openenv_environment_sync_and_async(http_server: ServerProcess, solution: list[SolutionStep]) -> None:
    pytest.importorskip("openenv")
    import anyio
    from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction

    from sim_mcp.integrations.openenv import SimAction, SimMcpEnvironment

    env = SimMcpEnvironment(http_server.url, task=TASK)
    try:
        observation = env.reset(seed=2, episode_id="openenv-sync-episode")
        assert observation.session_id == "openenv-sync-episode"
        assert observation.done is False
        assert "close_ticket" in {tool["function"]["name"] for tool in observation.tools}
        assert "add_comment" in env.step(ListToolsAction()).text
        first, second = solution
        observation = env.step(CallToolAction(tool_name=first.tool, arguments=first.arguments))
        assert (observation.is_error, observation.reward, observation.done) == (False, 0.0, False)
        env.step(SimAction(tool=second.tool, arguments=second.arguments))
        observation = env.step(SimAction(finish=True))
        assert (observation.done, observation.reward) == (True, 1.0)
        assert observation.evaluation is not None
        assert observation.evaluation["passed"] is True
        assert env.state.episode_id == "openenv-sync-episode"
        assert env.state.step_count == 3
        assert env.state.done
    finally:
        env.close()

    async def episode() -> list[float]:
        env = SimMcpEnvironment(http_server.url, dense_reward=True)
        try:
            await env.reset_async(seed=2, task=TASK)
            return [(await env.step_async(SimAction(tool=s.tool, arguments=s.arguments))).reward for s in solution]
        finally:
            env.close()

    assert sum(anyio.run(episode)) == pytest.approx(1.0)


def test_openenv_step_before_reset_says_so(http_server: ServerProcess) -> None:
    pytest.importorskip("openenv")
    from sim_mcp.integrations.openenv import SimAction, SimMcpEnvironment

    env = SimMcpEnvironment(http_server.url, task=TASK)
    with pytest.raises(EpisodeError, match=r"call reset\(\) first"):
        env.step(SimAction(finish=True))
    with pytest.raises(EpisodeError, match="needs a task"):
        SimMcpEnvironment(http_server.url).reset()
    env.close()


@contextmanager
def _uvicorn(app: Any) -> Iterator[str]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def test_openenv_server_with_openenvs_client(http_server: ServerProcess, solution: list[SolutionStep]) -> None:
    openenv = pytest.importorskip("openenv")
    from sim_mcp.integrations.openenv import create_openenv_app

    with _uvicorn(create_openenv_app(http_server.url, task=TASK)) as url:
        async with openenv.GenericEnvClient(base_url=url) as env:
            result = await env.reset(seed=5)
            assert result.observation["task"] == TASK
            assert not result.done
            for step in solution:
                result = await env.step({"tool": step.tool, "arguments": step.arguments})
            result = await env.step({"finish": True})
            assert (result.done, result.reward) == (True, 1.0)
            state = await env.state()
            assert state["step_count"] == 3
            assert state["score"] == 1.0


# -- the scripted model ---------------------------------------------------------------------------------------------


def test_scripted_model_plays_its_calls_then_answers() -> None:
    openai = pytest.importorskip("openai")
    from sim_mcp.integrations.scripted_model import ScriptedCall, ScriptedModel

    tools = [{"type": "function", "function": {"name": "sim__close_ticket", "parameters": {"type": "object"}}}]
    with ScriptedModel([ScriptedCall("close_ticket", {"ticket_id": "T-1"})], final="All done.") as model:
        client = openai.OpenAI(base_url=model.base_url, api_key="none")
        messages: list[dict[str, object]] = [{"role": "user", "content": "go"}]
        first = client.chat.completions.create(model="scripted", messages=messages, tools=tools)
        (call,) = first.choices[0].message.tool_calls or []
        assert (call.function.name, json.loads(call.function.arguments)) == ("sim__close_ticket", {"ticket_id": "T-1"})
        messages += [first.choices[0].message.model_dump(), {"role": "tool", "tool_call_id": call.id, "content": "{}"}]
        stream = client.chat.completions.create(model="scripted", messages=messages, stream=True)
        assert "".join(chunk.choices[0].delta.content or "" for chunk in stream) == "All done."
        assert len(model.requests) == 2


# -- the examples ---------------------------------------------------------------------------------------------------

EXAMPLE_FRAMEWORKS = {
    "gymnasium_episode.py": "gymnasium",
    "openenv_episode.py": "openenv",
    "openai_agents_episode.py": "agents",
    "pydantic_ai_episode.py": "pydantic_ai",
}


@pytest.mark.parametrize("script", sorted(EXAMPLE_FRAMEWORKS))
def test_example_runs_offline_and_prints_the_reward(script: str, tmp_path: Path) -> None:
    pytest.importorskip(EXAMPLE_FRAMEWORKS[script])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "reward: 1.000", done.stdout
