"""Each extension point is a table (`sim_mcp.plugins`): a toy entry of each, added at run time by this file
alone, is served as sim-mcp's own are, and the names, help and errors that come from the tables name it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import pytest
from mcp.client import Client

from sim_mcp.config import LlmConfig, Settings, StoreConfig
from sim_mcp.engine.backends import Backend, load_backend
from sim_mcp.engine.contract import Outcome, SimulationRequest
from sim_mcp.episodes.checks import CheckKind, Found
from sim_mcp.episodes.rewards import evaluate
from sim_mcp.episodes.tasks import parse_task
from sim_mcp.errors import ConfigError, NotRegistered, SimMcpError
from sim_mcp.llm.modes import answering
from sim_mcp.llm.modes.base import Answering, ModeChooser
from sim_mcp.llm.modes.patch import PATCH
from sim_mcp.plugins import (
    BACKENDS,
    CHECK_KINDS,
    OUTPUT_MODES,
    SPEC_FORMATS,
    STORES,
    Registry,
    register_backend,
    register_check_kind,
    register_output_mode,
    register_spec_format,
    register_store,
)
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.server.workers import check_workers
from sim_mcp.specs.formats import read_spec_file
from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import SchemaChecks
from sim_mcp.state.stores import MemoryStore, open_store

# --- the toys: each one module's worth, as a package would ship it ---------------------------------------


def _looks_toy(document: Any) -> bool:
    return isinstance(document, dict) and "toy_world" in document


def _read_toy(document: Any, source: str, checks: SchemaChecks | None = None) -> Environment:
    tools = [ToolSpec(name=name, input_schema={"type": "object"}) for name in document["verbs"]]
    return Environment(name=document["toy_world"], tools=tools, initial_state={"said": []}, source=source)


TOY_FORMAT = SpecFormat("toy", _looks_toy, _read_toy, "a toy world (toy_world, verbs)")


class ToyStore(MemoryStore):
    """Sessions in memory, claiming every process sees them (so --workers takes it)."""

    name = "toy"
    shared = True

    @classmethod
    def from_url(cls, url: str) -> Self:
        return cls()


class ToyBackend(Backend):
    """A provider whose model says the tool's name back, and stores it."""

    name = "toy"

    def __init__(self, model: str | None) -> None:
        self.model = model

    @classmethod
    def from_config(cls, settings: LlmConfig, limits: object = None) -> Self:
        return cls(settings.model)

    async def simulate(self, request: SimulationRequest) -> Outcome:
        said = f"{self.model} says {request.tool.name}"
        return Outcome(result=said, state_patch=[{"op": "add", "path": "/said/-", "value": said}])


def _matches(pattern: Any, found: Found) -> tuple[bool, str]:
    passed = bool(found.values) and all(re.search(pattern, str(value)) for value in found.values)
    return passed, found.described()


def _pattern(pattern: Any) -> str:
    try:
        return str(re.compile(pattern).pattern)
    except (re.error, TypeError) as e:
        raise ValueError(f"expected a regular expression, got {pattern!r} ({e})") from None


TOY_KIND = CheckKind(
    "matches",
    _matches,
    prompt='"matches": a regular expression',
    parse=_pattern,
    label=lambda pattern: f"matches /{pattern}/",
)


class ToyMode(ModeChooser):
    name = "toy"

    def answering(self, request: SimulationRequest) -> Answering:
        return Answering(PATCH, request)


@pytest.fixture
def toys() -> Iterator[None]:
    register_spec_format("toy", TOY_FORMAT)
    register_store("toy", ToyStore, help="toy://")
    register_backend("toy", ToyBackend, help="a toy provider")
    register_check_kind("matches", TOY_KIND)
    register_output_mode("toy", ToyMode())
    yield
    for table, name in ((SPEC_FORMATS, "toy"), (STORES, "toy"), (BACKENDS, "toy"), (CHECK_KINDS, "matches")):
        table.unregister(name)
    OUTPUT_MODES.unregister("toy")


# --- served as sim-mcp's own are ----------------------------------------------------------------------


async def test_a_toy_format_store_and_backend_are_served_over_mcp(tmp_path: Path, toys: None) -> None:
    (tmp_path / "parrot.json").write_text('{"toy_world": "parrot", "verbs": ["squawk"]}')
    settings = Settings(specs=[tmp_path], watch=False, store="toy://anywhere", backend="toy", model="polly")
    async with Runtime(settings) as runtime:
        assert isinstance(runtime.store, ToyStore)
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="s1"))
        async with Client(server) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["squawk"]
            result = await client.call_tool("squawk", {})
        assert not result.is_error, result.content
        record = await runtime.sessions.get("s1")
        assert runtime.simulator.world_of(record, "parrot") == {"said": ["polly says squawk"]}


async def test_a_toy_check_kind_scores_and_is_written_back(toys: None) -> None:
    document = {"env": "parrot", "checks": [{"path": "/said/0", "matches": "^polly"}]}
    task = parse_task(document, "toy.yaml", default_name="toy")
    assert task.checks[0].kind == "matches"
    assert task.checks[0].label == "/said/0 matches /^polly/"
    assert task.checks[0].model_dump(exclude_unset=True) == {"path": "/said/0", "matches": "^polly"}
    assert (await evaluate(task, {"said": ["polly says squawk"]}, [])).reward == 1.0
    assert (await evaluate(task, {"said": ["crow"]}, [])).reward == 0.0
    with pytest.raises(SimMcpError, match=r"checks\[0\]: matches: "):
        parse_task({"env": "parrot", "checks": [{"path": "/x", "matches": "("}]}, "bad.yaml", default_name="bad")


def test_a_toy_output_mode_is_a_setting_and_chosen(toys: None) -> None:
    assert LlmConfig(llm_output="toy").llm_output == "toy"
    environment = Environment(name="e", tools=[ToolSpec(name="t", input_schema={"type": "object"})])
    request = SimulationRequest(
        environment=environment, tool=environment.tools[0], arguments={}, state={}, recent_events=[], session_id="s"
    )
    assert answering(request, "toy").mode is PATCH


def test_workers_take_any_store_that_says_it_is_shared(toys: None) -> None:
    server = Settings(workers=2)
    check_workers(server, StoreConfig(store="toy://x"), server)
    with pytest.raises(ConfigError, match=r"needs a store every worker sees: give --store redis://"):
        check_workers(server, StoreConfig(store="memory"), server)


# --- names, help and errors come from the tables -----------------------------------------------------------


def test_errors_name_what_the_tables_know(toys: None, tmp_path: Path) -> None:
    with pytest.raises(NotRegistered, match=r"unknown backend 'nope' \(--backend / SIM_MCP_BACKEND\): .*toy"):
        load_backend(LlmConfig(backend="nope"))
    with pytest.raises(ConfigError, match=r"unsupported store 'nope://x': .*toy://"):
        open_store("nope://x")
    (tmp_path / "odd.json").write_text('{"nothing": "known"}')
    with pytest.raises(SimMcpError, match=r"unrecognised spec format: .*a toy world"):
        read_spec_file(tmp_path / "odd.json")
    with pytest.raises(SimMcpError, match=r"expected exactly one of equals, .*, matches"):
        parse_task({"env": "parrot", "checks": [{"path": "/x"}]}, "t.yaml", default_name="t")


def test_the_help_lists_the_tables_own_names() -> None:
    help_of = {name: field.description or "" for name, field in Settings.model_fields.items()}
    for name in BACKENDS.builtin():
        assert name in help_of["backend"]
    for name in OUTPUT_MODES.builtin():
        assert name in help_of["llm_output"]
    assert "redis://HOST:PORT/DB" in help_of["store"]


def test_a_name_is_registered_once_and_sim_mcps_own_stay() -> None:
    table = Registry("widget", "sim_mcp.test_widgets", {})
    table.register("w", object())
    with pytest.raises(ConfigError, match="registered already"):
        table.register("w", object())
    with pytest.raises(ConfigError, match="one of sim-mcp's own"):
        BACKENDS.unregister("offline")


def test_a_missing_module_names_what_to_install() -> None:
    table = Registry("widget", "sim_mcp.test_widgets", {})
    table.register("gone", "no_such_module_here:Widget")
    with pytest.raises(ConfigError, match=r"widget 'gone' needs a module that cannot be imported"):
        table.load("gone")
