"""One Gymnasium episode against sim-mcp: text observations, JSON actions, the task's reward at the end.

    python examples/gymnasium_episode.py [--task tickets-close-sso] [--server http://127.0.0.1:8765]

The policy here replays the task's reference solution; a trained policy would write the actions.
"""

from __future__ import annotations

import json

import gymnasium as gym
from _common import parser, sim_server

import sim_mcp.integrations.gymnasium  # noqa: F401  (registers sim_mcp/SimMcp-v0)
from sim_mcp.client import SyncSimClient


def main() -> None:
    args = parser(__doc__ or "").parse_args()
    with sim_server(args.server) as url:
        with SyncSimClient(url) as sim:
            solution = sim.task(args.task).solution or []
        env = gym.make("sim_mcp/SimMcp-v0", base_url=url, task=args.task, max_steps=10)
        try:
            observation, info = env.reset(seed=args.seed)
            print(f"session {info['session']}\n{observation}\n")
            actions = [json.dumps({"tool": step.tool, "arguments": step.arguments}) for step in solution]
            for action in [*actions, '{"finish": true}']:
                observation, reward, terminated, truncated, info = env.step(action)
                print(f"> {action}\n{observation}\n")
                if terminated or truncated:
                    break
        finally:
            env.close()
    print(f"reward: {float(reward):.3f}")


if __name__ == "__main__":
    main()
