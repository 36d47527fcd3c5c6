"""Configuration: `Settings` (flags and `SIM_MCP_*` variables) and the object of each concern it composes."""

from sim_mcp.config import concerns
from sim_mcp.config.concerns import *  # noqa: F403 - the concerns' own __all__ is the one list of their names
from sim_mcp.config.settings import ENV_PREFIX, Settings

__all__ = [*concerns.__all__, "ENV_PREFIX", "Settings"]
