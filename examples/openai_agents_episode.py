"""An OpenAI Agents SDK agent does a sim-mcp task through the SDK's MCP support; the task's checks give the reward.

    python examples/openai_agents_episode.py                       # offline: a scripted model on 127.0.0.1
    python examples/openai_agents_episode.py --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B

The agent gets the session's tools from `MCPServerStreamableHttp` at the session's `mcp_url` (its own
world); its model is any OpenAI-compatible endpoint. Without `--base-url`, a scripted endpoint plays the
task's reference solution, so the example runs with no model and no network.
"""

from __future__ import annotations

from contextlib import nullcontext

import anyio
from _common import check_model, parser, sim_server
from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp, MCPServerStreamableHttpParams
from openai import AsyncOpenAI

from sim_mcp.client import SimClient
from sim_mcp.integrations.scripted_model import ScriptedModel

INSTRUCTIONS = "You are a support agent. Use the tools to do the task, then say briefly what you did."


async def episode(url: str, task_name: str, seed: int, base_url: str | None, model: str, api_key: str) -> float:
    async with SimClient(url) as sim:
        task = await sim.task(task_name)
        session = await sim.create_session(task=task_name, seed=seed)
        scripted = ScriptedModel.from_solution(task.solution) if base_url is None else None
        with scripted or nullcontext():
            client = AsyncOpenAI(base_url=scripted.base_url if scripted else base_url, api_key=api_key)
            params = MCPServerStreamableHttpParams(url=session.mcp_url, timeout=60)
            async with MCPServerStreamableHttp(params=params, name="sim-mcp", cache_tools_list=True) as tools:
                agent = Agent(
                    name="agent",
                    instructions=INSTRUCTIONS,
                    mcp_servers=[tools],
                    model=OpenAIChatCompletionsModel(model=model, openai_client=client),
                )
                result = await Runner.run(agent, task.description, max_turns=20)
        print(f"agent: {result.final_output}")
        evaluation = await session.evaluate()
        for check in evaluation.checks:
            print(f"  {'ok    ' if check.passed else 'failed'} {check.name}")
        return evaluation.reward


def main() -> None:
    args = parser(__doc__ or "", model=True).parse_args()
    check_model(args.base_url, args.api_key)
    set_tracing_disabled(True)  # no trace export to OpenAI's servers
    with sim_server(args.server) as url:
        reward = anyio.run(episode, url, args.task, args.seed, args.base_url, args.model, args.api_key)
    print(f"reward: {reward:.3f}")


if __name__ == "__main__":
    main()
