"""Property tests (Hypothesis): spec loading, argument validation and patches hold for any input.

- Spec loaders: any document, shaped like one of the spec formats or any JSON value, written as JSON or
  YAML (or any text at all), gives a spec or a `SpecError`, never another exception; a loaded tool is
  one the MCP SDK can send (input schema an object schema that compiles).
- Argument validation, through the SDK client: any JSON values as arguments give an `is_error` result
  naming the arguments, or a simulated result; never a protocol error; refused calls leave no trace.
- Patches, through the SDK client with a backend scripted by Hypothesis: after a call whose outcome is
  refused (a patch that does not apply, a bad op), the state is byte-identical to the state before; after
  an accepted one, it is exactly the patch applied.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
import yaml
from hypothesis import event, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.engine.schema_data import generate
from sim_mcp.errors import SpecError
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.specs.formats import parse_document, read_spec_file
from sim_mcp.specs.registry import Catalog, load_catalog
from sim_mcp.specs.schema import compile_schema
from sim_mcp.testing import FunctionBackend
from tests.fuzzing import fuzz_settings, json_values, patch_operations, spec_documents
from tests.servers import BUNDLED_SPECS

SESSION = "fuzz"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(BUNDLED_SPECS)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-specs")


def _loads_cleanly(path: Path) -> None:
    """The file is a spec or a `SpecError`; a spec's tools can be served; a folder of it loads without raising."""
    try:
        environment = read_spec_file(path)
    except SpecError as e:
        event("spec error")
        error: SpecError | None = e
    else:
        error = None
        event(f"loaded, {min(len(environment.tools), 2)}+ tools")
        for tool in environment.tools:
            assert isinstance(tool.input_schema, dict)
            assert tool.input_schema.get("type") == "object", tool.input_schema
            compile_schema(tool.input_schema)
            if tool.output_schema is not None:
                compile_schema(tool.output_schema)
    assert error is None or str(error).startswith(str(path)), f"the error does not name the file: {error}"
    catalog = load_catalog(path)
    # One file: served, or refused with every problem it has (each naming the file), never both.
    assert (len(catalog.environments), len({problem.path for problem in catalog.errors})) in ((1, 0), (0, 1))


@fuzz_settings
@given(document=spec_documents, as_yaml=st.booleans())
def test_any_document_loads_or_fails_with_a_spec_error(folder: Path, document: Any, as_yaml: bool) -> None:
    path = folder / ("spec.yaml" if as_yaml else "spec.json")
    text = yaml.safe_dump(document, allow_unicode=True) if as_yaml else json.dumps(document)
    path.write_text(text, encoding="utf-8")
    _loads_cleanly(path)


@fuzz_settings
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode), suffix=st.sampled_from([".yaml", ".json"]))
def test_any_bytes_load_or_fail_with_a_spec_error(folder: Path, raw: bytes, suffix: str) -> None:
    path = folder / f"raw{suffix}"
    path.write_bytes(raw)
    with contextlib.suppress(SpecError):
        parse_document(path)  # a SpecError's message is checked below
    _loads_cleanly(path)


@st.composite
def _call(draw: st.DrawFn, catalog: Catalog) -> tuple[str, dict[str, Any]]:
    """A bundled tool and arguments: valid ones with some values replaced or dropped, or any values at all
    under its own property names and others."""
    tool = draw(st.sampled_from(sorted(catalog.tools)))
    schema = catalog.tools[tool].spec.input_schema
    names = sorted(schema.get("properties", {})) or ["x"]
    keys = st.sampled_from(names) | st.text(max_size=6)
    changed = draw(st.dictionaries(keys, json_values, max_size=2))
    if draw(st.booleans()):
        return tool, draw(st.dictionaries(keys, json_values, max_size=len(names) + 1))
    valid: dict[str, Any] = generate(schema, draw(st.integers(0, 1000)))
    dropped = draw(st.sets(st.sampled_from(names), max_size=1))
    return tool, {**{key: value for key, value in valid.items() if key not in dropped}, **changed}


@fuzz_settings
@given(data=st.data())
async def test_any_argument_values_are_validated_without_a_trace(catalog: Catalog, data: st.DataObject) -> None:
    tool_name, arguments = data.draw(_call(catalog))
    # The oracle: jsonschema itself, formats included (the server checks `format`, e.g. `email`, too).
    validator = Draft202012Validator(
        catalog.tools[tool_name].spec.input_schema, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    async with Runtime(Settings(specs=[BUNDLED_SPECS], watch=False), catalog=catalog) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session=SESSION))
        async with Client(server) as client:
            result = await client.call_tool(tool_name, arguments)
        text = result.content[0].text  # type: ignore[union-attr]
        record = await runtime.store.get(SESSION)
    event("valid arguments" if validator.is_valid(arguments) else "invalid arguments")
    if validator.is_valid(arguments):
        assert record is not None, text
        assert record.event_count == 1, text
    else:
        assert result.is_error
        assert text.startswith(f"invalid arguments for {tool_name}: arguments"), text
        assert record is None  # refused before the session was even opened


def _state_bytes(state: Any) -> bytes:
    return json.dumps(state, sort_keys=True, separators=(",", ":")).encode()


@fuzz_settings
@given(ops=patch_operations, is_error=st.booleans(), result=json_values)
async def test_a_refused_patch_leaves_the_state_byte_identical(
    catalog: Catalog, ops: list[dict[str, Any]], is_error: bool, result: Any
) -> None:
    # The backend answers every tool (the bundled ones have rules programs, which would answer instead).
    settings = Settings(specs=[BUNDLED_SPECS], watch=False, max_attempts=1, run_rules=False)
    reply = {"result": result, "is_error": is_error, "state_patch": ops}
    backend = FunctionBackend(lambda request: reply)
    async with Runtime(settings, catalog=catalog, backend=backend) as runtime:
        before = runtime.simulator.world_of(await runtime.sessions.create(session_id=SESSION), "tickets")
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session=SESSION))
        async with Client(server) as client:
            answer = await client.call_tool("get_ticket", {"ticket_id": "T-1001"})
        record = await runtime.sessions.get(SESSION)
        after = runtime.simulator.world_of(record, "tickets")
    text = answer.content[0].text  # type: ignore[union-attr]
    try:
        expected, applies = jsonpatch.apply_patch(before, ops), True  # `expected` may be null: a state of null
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, KeyError, IndexError):
        expected, applies = None, False
    refused = text.startswith("the simulator could not produce a valid result")
    event("outcome refused" if refused else "outcome committed" + (" (state changed)" if ops else ""))
    if refused:
        assert answer.is_error
        assert _state_bytes(after) == _state_bytes(before)
    else:
        assert applies, f"an accepted patch that jsonpatch cannot apply: {ops}"
        assert _state_bytes(after) == _state_bytes(expected)
        assert answer.is_error is is_error
