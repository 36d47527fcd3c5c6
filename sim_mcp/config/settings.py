"""Settings, from flags and `SIM_MCP_*` environment variables (flags win): every concern's settings in one
flat object (`concerns.py`), so that a flag and its variable keep one name whatever object reads them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from sim_mcp.config.concerns import (
    EngineConfig,
    EpisodesConfig,
    FaultsConfig,
    LlmConfig,
    ServerConfig,
    SpecsConfig,
    StoreConfig,
)
from sim_mcp.errors import ConfigError

ENV_PREFIX = "SIM_MCP_"


# The bases are listed last concern first: pydantic lays out the fields of the last base first, so the
# fields (and `--help`) go in the order of `CONCERNS`.
class Settings(EpisodesConfig, FaultsConfig, LlmConfig, EngineConfig, StoreConfig, ServerConfig, SpecsConfig):
    """All the settings; `XConfig.of(settings)` is the part one concern reads."""

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then `SIM_MCP_*` variables, then `overrides` (flags); None values are ignored."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            raw = environ.get(ENV_PREFIX + name.upper())
            if raw is None or raw == "":
                continue
            origin = getattr(field.annotation, "__origin__", None)
            values[name] = [part for part in raw.split(",") if part] if origin is list else raw
        values.update({key: value for key, value in (overrides or {}).items() if value is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as e:
            first = e.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else "?"
            source = f"--{name.replace('_', '-')} / {ENV_PREFIX}{name.upper()}"
            message = str(first["msg"]).removeprefix("Value error, ")
            raise ConfigError(f"{source}: {message} (got {first.get('input')!r})") from e
