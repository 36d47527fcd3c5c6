"""Settings per concern: `Settings` composes one object per concern, every setting in exactly one, and each
part of the program is handed the objects of the concerns it reads."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from sim_mcp.config import (
    CONCERN_CONFIGS,
    CONCERNS,
    EngineConfig,
    EpisodesConfig,
    FaultsConfig,
    LlmConfig,
    ServerConfig,
    Settings,
    StoreConfig,
)
from sim_mcp.errors import ConfigError
from sim_mcp.llm.providers.openai import OpenAIBackend
from sim_mcp.rules import Limits
from sim_mcp.runtime import Runtime
from sim_mcp.specs.model import Latency
from tests.servers import BUNDLED_SPECS


def test_every_setting_is_about_exactly_one_concern() -> None:
    named = [name for fields in CONCERNS.values() for name in fields]
    assert sorted(named) == sorted(Settings.model_fields), "a setting in no concern, or in two"
    assert list(CONCERNS) == ["specs", "server", "store", "engine", "llm", "faults", "episodes"]
    # The fields (so the flags and their help) come in the order of the concerns.
    assert list(Settings.model_fields) == named


def test_a_setting_is_defined_once_by_its_concern() -> None:
    for config in CONCERN_CONFIGS.values():
        for name, info in config.model_fields.items():
            setting = Settings.model_fields[name]
            assert (setting.description, setting.annotation) == (info.description, info.annotation), name


def test_a_concern_is_the_part_of_the_settings_it_names() -> None:
    settings = Settings(seed=7, rules_max_steps=5000, max_attempts=5, port=0, fault_error_rate=0.5, store="memory")
    engine = EngineConfig.of(settings)
    assert type(engine) is EngineConfig
    assert (engine.seed, engine.rules_max_steps) == (7, 5000)
    assert not hasattr(engine, "port")
    assert LlmConfig.of(settings).max_attempts == 5
    assert FaultsConfig.of(settings).fault_error_rate == 0.5
    assert ServerConfig.of(settings).port == 0
    assert StoreConfig.of(settings).store == "memory"
    assert EngineConfig.of(engine) is engine
    with pytest.raises(TypeError, match="expected Settings or EngineConfig, got LlmConfig"):
        EngineConfig.of(LlmConfig())


def test_flags_and_variables_keep_their_names_and_errors() -> None:
    settings = Settings.load({"max_attempts": 4}, environ={"SIM_MCP_RULES_MAX_STEPS": "3000"})
    assert EngineConfig.of(settings).rules_max_steps == 3000
    assert LlmConfig.of(settings).max_attempts == 4
    with pytest.raises(ConfigError, match=r"--rules-max-steps / SIM_MCP_RULES_MAX_STEPS: .*1000"):
        Settings.load(environ={"SIM_MCP_RULES_MAX_STEPS": "10"})
    # A concern validates its own fields as the settings do.
    faults = FaultsConfig.model_validate({"fault_latency_ms": "uniform:1:2"})
    assert faults.fault_latency_ms == Latency.of("uniform:1:2")
    with pytest.raises(ValueError, match="max_attempts"):
        LlmConfig(max_attempts=0)


def test_the_runtime_hands_each_part_its_concerns_only(tmp_path: Path) -> None:
    settings = Settings(
        specs=[BUNDLED_SPECS],
        seed=11,
        max_state_bytes=50_000,
        rules_max_steps=9000,
        max_attempts=2,
        history_events=1,
        max_sessions=3,
        curriculum_window=2,
        trajectories=tmp_path,
        watch=False,
    )

    async def build() -> Runtime:
        async with Runtime(settings) as runtime:
            return runtime

    simulator = anyio.run(build).simulator
    assert type(simulator.engine) is EngineConfig
    assert simulator.engine == EngineConfig.of(settings)
    assert type(simulator.llm) is LlmConfig
    assert (simulator.llm.max_attempts, simulator.llm.history_events, simulator.max_sessions) == (2, 1, 3)
    # A rehearsal simulator keeps the engine's and the LLM's settings, and holds no session limit.
    rehearsal = simulator.sandbox()
    assert (rehearsal.engine, rehearsal.llm, rehearsal.max_sessions) == (simulator.engine, simulator.llm, None)
    assert EpisodesConfig.of(settings).trajectories == tmp_path


def test_an_llm_backend_holds_its_config_and_the_engines_limits() -> None:
    settings = Settings(backend="openai", model="m", base_url="http://127.0.0.1:9/v1", rules_max_steps=9000)
    limits = Limits.of(EngineConfig.of(settings))
    backend = OpenAIBackend(settings, limits=limits)
    plain = OpenAIBackend(LlmConfig(model="m", base_url="http://127.0.0.1:9/v1"))
    try:
        assert type(backend.config) is LlmConfig
        assert backend.config == LlmConfig.of(settings)
        assert backend.limits == limits
        assert backend.limits.max_steps == 9000
        assert plain.limits == Limits()
    finally:
        for each in (backend, plain):
            anyio.run(each.aclose)
