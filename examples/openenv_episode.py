"""One OpenEnv episode against sim-mcp: sim-mcp served as an OpenEnv server, driven by OpenEnv's own client.

    python examples/openenv_episode.py [--task tickets-close-sso] [--server http://127.0.0.1:8765]

`create_openenv_app` serves `SimMcpEnvironment` over OpenEnv's HTTP/WebSocket protocol (one sim-mcp
session per client); `GenericEnvClient` is what OpenEnv-based trainers use. The policy replays the
task's reference solution.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import uvicorn
from _common import parser, sim_server
from openenv import GenericEnvClient

from sim_mcp.client import SimClient
from sim_mcp.integrations.openenv import create_openenv_app


@contextmanager
def openenv_server(sim_url: str) -> Iterator[str]:
    """The OpenEnv app for the sim-mcp server at `sim_url`, under uvicorn on 127.0.0.1; yields its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # "critical": openenv-core 0.3 logs a traceback when a client closes its WebSocket, which is harmless.
    server = uvicorn.Server(uvicorn.Config(create_openenv_app(sim_url), log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def episode(sim_url: str, env_url: str, task: str, seed: int) -> float:
    async with SimClient(sim_url) as sim:
        solution = (await sim.task(task)).solution or []
    async with GenericEnvClient(base_url=env_url) as env:
        result = await env.reset(task=task, seed=seed)
        print(f"session {result.observation['session_id']}\n{result.observation['text']}\n")
        actions = [{"tool": step.tool, "arguments": step.arguments} for step in solution]
        for action in [*actions, {"finish": True}]:
            result = await env.step(action)
            print(f"> {action}\n{result.observation['text']}\n")
            if result.done:
                break
    return float(result.reward or 0.0)


def main() -> None:
    args = parser(__doc__ or "").parse_args()
    with sim_server(args.server) as sim_url, openenv_server(sim_url) as env_url:
        reward = anyio.run(episode, sim_url, env_url, args.task, args.seed)
    print(f"reward: {reward:.3f}")


if __name__ == "__main__":
    main()
