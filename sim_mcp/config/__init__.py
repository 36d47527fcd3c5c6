"""Configuration: `Settings` (flags and `SIM_MCP_*` variables) and the object of each concern it composes."""

from sim_mcp.config.concerns import (
    CONCERN_CONFIGS,
    CONCERNS,
    Concern,
    EngineConfig,
    EpisodesConfig,
    FaultsConfig,
    LlmConfig,
    ServerConfig,
    SpecsConfig,
    StoreConfig,
)
from sim_mcp.config.settings import ENV_PREFIX, Settings

__all__ = [
    "CONCERNS",
    "CONCERN_CONFIGS",
    "ENV_PREFIX",
    "Concern",
    "EngineConfig",
    "EpisodesConfig",
    "FaultsConfig",
    "LlmConfig",
    "ServerConfig",
    "Settings",
    "SpecsConfig",
    "StoreConfig",
]
