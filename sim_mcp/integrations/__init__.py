"""Adapters from sim-mcp sessions to the harnesses people train with (`pip install "sim-mcp[integrations]"`).

- `sim_mcp.integrations.openenv`: an OpenEnv `Environment` (`SimMcpEnvironment`) and server app;
- `sim_mcp.integrations.gymnasium`: a `gymnasium.Env` with text spaces (`SimMcpEnv`), registered as
  `sim_mcp/SimMcp-v0`;
- `sim_mcp.integrations.scripted_model`: a scripted OpenAI-compatible chat endpoint on 127.0.0.1, to run
  agent SDKs (OpenAI Agents, Pydantic AI) against sim-mcp offline.

Each module imports its framework on import: import the one you use. See docs/integrations.md.
"""
