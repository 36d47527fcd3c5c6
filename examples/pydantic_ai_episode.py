"""A Pydantic AI agent does a sim-mcp task through its MCP client (`MCPToolset`); the task's checks give the reward.

    python examples/pydantic_ai_episode.py                         # offline: a scripted model on 127.0.0.1
    python examples/pydantic_ai_episode.py --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B

The agent's toolset is the session's `mcp_url` (its own world); its model is any OpenAI-compatible
endpoint. Without `--base-url`, a scripted endpoint plays the task's reference solution.
"""

from __future__ import annotations

from contextlib import nullcontext

import anyio
from _common import check_model, parser, sim_server
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from sim_mcp.client import SimClient
from sim_mcp.integrations.scripted_model import ScriptedModel

INSTRUCTIONS = "You are a support agent. Use the tools to do the task, then say briefly what you did."


async def episode(url: str, task_name: str, seed: int, base_url: str | None, model: str, api_key: str) -> float:
    async with SimClient(url) as sim:
        task = await sim.task(task_name)
        session = await sim.create_session(task=task_name, seed=seed)
        scripted = ScriptedModel.from_solution(task.solution) if base_url is None else None
        with scripted or nullcontext():
            provider = OpenAIProvider(base_url=scripted.base_url if scripted else base_url, api_key=api_key)
            agent = Agent(
                OpenAIChatModel(model, provider=provider),
                instructions=INSTRUCTIONS,
                toolsets=[MCPToolset(session.mcp_url)],
            )
            async with agent:
                result = await agent.run(task.description)
        print(f"agent: {result.output}")
        evaluation = await session.evaluate()
        for check in evaluation.checks:
            print(f"  {'ok    ' if check.passed else 'failed'} {check.name}")
        return evaluation.reward


def main() -> None:
    args = parser(__doc__ or "", model=True).parse_args()
    check_model(args.base_url, args.api_key)
    with sim_server(args.server) as url:
        reward = anyio.run(episode, url, args.task, args.seed, args.base_url, args.model, args.api_key)
    print(f"reward: {reward:.3f}")


if __name__ == "__main__":
    main()
