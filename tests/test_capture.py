"""`sim-mcp import` (any format to native YAML) and `sim-mcp capture` (a live MCP server to a spec).

Capture runs against a server nobody on this team wrote: a small script on the MCP SDK's low-level
`Server`, started over stdio and over HTTP (under uvicorn). The captured spec is then served by
`sim-mcp serve` and called with the SDK client.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import anyio
import jsonschema
import pytest
import yaml
from mcp.client import Client

from sim_mcp.cli import main
from sim_mcp.specs.capture import environment_name_for
from sim_mcp.specs.formats import SPEC_SUFFIXES, detect_format, parse_document, read_spec_file
from sim_mcp.specs.model import Environment, ModelSettings, ToolAnnotations, ToolExample, ToolSpec
from sim_mcp.specs.writer import environment_yaml
from tests.servers import (
    BUNDLED_SPECS,
    CORPUS,
    CORPUS_MISSING,
    HAVE_CORPUS,
    ServerProcess,
    corpus_cases,
    free_port,
    running_server,
    stdio_parameters,
)

T = TypeVar("T")

CORPUS_FILES = (
    sorted(
        str(path.relative_to(CORPUS)) for path in CORPUS.rglob("*") if path.suffix in SPEC_SUFFIXES and path.is_file()
    )
    if HAVE_CORPUS
    else []
)
BUNDLED_FILES = sorted(path.name for path in BUNDLED_SPECS.glob("*.yaml"))

WEATHER_OUTPUT = {
    "type": "object",
    "properties": {
        "temperature_c": {"type": "number"},
        "conditions": {"type": "string", "enum": ["sunny", "cloudy", "rain", "snow"]},
    },
    "required": ["temperature_c", "conditions"],
    "additionalProperties": False,
}

# A third-party MCP server: two tools on two pages of tools/list, an output schema, annotations, unicode,
# instructions. `python server.py` speaks stdio; `python server.py http PORT` serves /mcp and /healthz.
SERVER_SCRIPT = f"""
import sys

import anyio
import mcp_types as types
import uvicorn
from mcp.server import Server
from mcp.server.stdio import stdio_server
from starlette.responses import PlainTextResponse
from starlette.routing import Route

TOOLS = [
    types.Tool(
        name="get_weather",
        title="Weather now",
        description="Current weather for a city (°C).",
        input_schema={{"type": "object", "properties": {{"city": {{"type": "string"}}}}, "required": ["city"]}},
        output_schema={WEATHER_OUTPUT!r},
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=True),
    ),
    types.Tool(
        name="add_note",
        description="Save a note.\\n\\nReturns the new note's id.",
        input_schema={{"type": "object", "properties": {{"text": {{"type": "string"}}}}, "required": ["text"]}},
    ),
]


async def list_tools(ctx, params):
    if params is None or params.cursor is None:
        return types.ListToolsResult(tools=TOOLS[:1], next_cursor="page-2")
    return types.ListToolsResult(tools=TOOLS[1:])


async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="real answer")])


server = Server(
    "Weather & Notes/demo",
    version="1.2.0",
    description="Weather and notes, for testing.",
    instructions="Ask for the weather before writing notes about it.",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


async def healthz(request):
    return PlainTextResponse("ok")


async def serve_stdio():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if sys.argv[1:2] == ["http"]:
    app = server.streamable_http_app(custom_starlette_routes=[Route("/healthz", healthz)])
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
else:
    anyio.run(serve_stdio)
"""


def run_async(function: Callable[[], Awaitable[T]]) -> T:
    async def run() -> T:
        with anyio.fail_after(60):
            return await function()

    return anyio.run(run)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def same(written: Environment, original: Environment) -> bool:
    """Equal but for `source` (the file each was read from)."""
    return written == original.model_copy(update={"source": written.source})


@pytest.fixture
def server_script(tmp_path: Path) -> Path:
    path = tmp_path / "weather_server.py"
    path.write_text(SERVER_SCRIPT, encoding="utf-8")
    return path


# --- import -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", corpus_cases(CORPUS_FILES))
def test_import_corpus_file_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    source = CORPUS / name
    out = tmp_path / "imported.yaml"
    code, _, err = run_cli(capsys, "import", str(source), "-o", str(out))
    assert code == 0, err
    assert f"wrote {out}" in err
    original = read_spec_file(source)
    imported = read_spec_file(out)
    assert same(imported, original)
    assert detect_format(parse_document(out)) == "native"

    # Importing the written file again writes the same YAML (but for the header naming the source).
    again = tmp_path / "again.yaml"
    assert run_cli(capsys, "import", str(out), "-o", str(again))[0] == 0
    assert again.read_text().splitlines()[1:] == out.read_text().splitlines()[1:]


def test_corpus_is_present_or_skipped() -> None:
    if not CORPUS_FILES:
        pytest.skip(CORPUS_MISSING)
    assert len(CORPUS_FILES) >= 5


@pytest.mark.parametrize("name", BUNDLED_FILES)
def test_import_bundled_native_spec_round_trips(tmp_path: Path, name: str) -> None:
    original = read_spec_file(BUNDLED_SPECS / name)
    out = tmp_path / name
    out.write_text(environment_yaml(original), encoding="utf-8")
    assert same(read_spec_file(out), original)


def test_written_yaml_is_readable(tmp_path: Path) -> None:
    environment = Environment(
        name="cafe",
        description="Un café à Zürich ☕ with a description long enough to be folded over two or more lines of text.",
        instructions="Line one.\nLine two, with `code`: and a colon.\n",
        initial_state={"orders": {}, "menu": ["espresso", "crème brûlée"]},
        model_settings=ModelSettings(temperature=0.2),
        tools=[
            ToolSpec(
                name="order",
                title="Order",
                description="Order a drink.\n\nReturns the order.",
                input_schema={"type": "object", "properties": {"drink": {"type": "string"}}, "required": ["drink"]},
                output_schema={"type": "object", "properties": {"id": {"type": "string"}}},
                annotations=ToolAnnotations(readOnlyHint=False, idempotentHint=True),
                examples=[ToolExample(arguments={"drink": "espresso"}, result={"id": "O-1"}, description="one")],
            ),
            ToolSpec(name="ping", annotations=ToolAnnotations()),
        ],
    )
    text = environment_yaml(environment, header="Imported from café.json\nby a test.")
    path = tmp_path / "cafe.yaml"
    path.write_text(text, encoding="utf-8")

    assert text.startswith("# Imported from café.json\n# by a test.\nname: cafe\n")
    assert "null" not in text
    assert "crème brûlée" in text
    assert "☕" in text
    assert "instructions: |\n  Line one.\n" in text
    assert "description: >-\n  Un café" in text
    assert "required: [drink]" in text
    document = yaml.safe_load(text)
    assert list(document) == ["name", "description", "instructions", "initial_state", "model_settings", "tools"]
    order = document["tools"][0]
    assert list(order) == ["name", "title", "description", "input_schema", "output_schema", "annotations", "examples"]
    assert order["annotations"] == {"readOnlyHint": False, "idempotentHint": True}
    assert document["tools"][1] == {
        "name": "ping",
        "input_schema": {"type": "object", "properties": {}},
        "annotations": {},
    }
    assert same(read_spec_file(path), environment)


@pytest.mark.parametrize(("suffix", "form"), [(".json", "json"), (".yaml", "yaml"), (".yml", "yaml")])
def test_import_writes_the_form_the_file_name_asks_for_and_check_passes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str, form: str
) -> None:
    source = BUNDLED_SPECS / "bank.yaml"
    out = tmp_path / f"bank{suffix}"
    code, _, err = run_cli(capsys, "import", str(source), "-o", str(out))
    assert code == 0, err
    text = out.read_text()
    if form == "json":
        assert json.loads(text)["name"] == "bank"
    else:
        assert text.startswith("# Imported from bank.yaml")
        assert yaml.safe_load(text)["name"] == "bank"
    assert same(read_spec_file(out), read_spec_file(source).model_copy(update={"rules": None}))
    assert run_cli(capsys, "check", str(out))[0] == 0


@pytest.mark.parametrize("name", ["bank.txt", "bank", "bank.jsonl"])
def test_import_to_a_name_no_reader_takes_is_refused_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    out = tmp_path / name
    code, _, err = run_cli(capsys, "import", str(BUNDLED_SPECS / "bank.yaml"), "-o", str(out))
    assert code == 2
    assert f"-o/--output: {out}: expected a spec file name ending in .json, .yaml, .yml" in err
    assert not out.exists()


def test_import_to_stdout_with_format_and_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "tools.json"
    # Anthropic tools: detection would take them as such anyway; --format must agree and be honoured.
    source.write_text(json.dumps([{"name": "lookup", "description": "Look up.", "input_schema": {"type": "object"}}]))
    code, out, err = run_cli(capsys, "import", str(source), "--format", "anthropic", "--name", "lookups")
    assert code == 0, err
    assert out.startswith("# Imported from tools.json by sim-mcp import.\nname: lookups\n")
    assert [tool["name"] for tool in yaml.safe_load(out)["tools"]] == ["lookup"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--name", "no spaces please"], ["--name", "'no spaces please'", "A-Z a-z 0-9 _ -"]),
        (["--format", "wsdl"], ["unknown spec format 'wsdl'", "openapi"]),
    ],
)
def test_import_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str]
) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([{"name": "lookup", "input_schema": {"type": "object"}}]))
    code, out, err = run_cli(capsys, "import", str(source), *argv)
    assert code == 2
    assert out == ""
    assert all(word in err for word in words), err


def test_import_missing_file_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.yaml"
    code, _, err = run_cli(capsys, "import", str(missing))
    assert code == 2
    assert str(missing) in err


# --- capture ----------------------------------------------------------------------------------------------


def check_captured(path: Path, target: str) -> Environment:
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"# Captured from {target} by sim-mcp capture")
    environment = read_spec_file(path)
    assert environment.name == "Weather_Notes_demo"
    assert environment.description == "MCP server Weather & Notes/demo 1.2.0: Weather and notes, for testing."
    assert environment.instructions == "Ask for the weather before writing notes about it."
    assert environment.initial_state == {}
    assert [tool.name for tool in environment.tools] == ["get_weather", "add_note"]  # both pages
    weather, note = environment.tools
    assert weather.title == "Weather now"
    assert weather.description == "Current weather for a city (°C)."
    assert weather.output_schema == WEATHER_OUTPUT
    assert weather.annotations == ToolAnnotations(readOnlyHint=True, openWorldHint=True)
    assert note.description == "Save a note.\n\nReturns the new note's id."
    assert note.output_schema is None
    return environment


async def call_weather(client: Client) -> None:
    names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["get_weather", "add_note"]
    result = await client.call_tool("get_weather", {"city": "Oslo"})
    assert not result.is_error, result
    assert result.structured_content is not None
    jsonschema.validate(result.structured_content, WEATHER_OUTPUT)


def test_capture_to_json_writes_json_that_check_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], server_script: Path
) -> None:
    out = tmp_path / "captured.json"
    code, _, err = run_cli(capsys, "capture", "-o", str(out), "--", sys.executable, str(server_script))
    assert code == 0, err
    document = json.loads(out.read_text())
    assert [tool["name"] for tool in document["tools"]] == ["get_weather", "add_note"]
    assert run_cli(capsys, "check", str(out))[0] == 0


def test_capture_over_stdio_then_serve_the_twin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], server_script: Path
) -> None:
    out = tmp_path / "twin.yaml"
    code, _, err = run_cli(capsys, "capture", "-o", str(out), "--", sys.executable, str(server_script))
    assert code == 0, err
    assert f"wrote {out}: 2 tools" in err
    check_captured(out, f"command `{sys.executable} {server_script}`")

    async def use_twin() -> None:
        async with Client(stdio_parameters(specs=out)) as client:
            await call_weather(client)

    run_async(use_twin)


def test_capture_over_http_then_serve_the_twin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], server_script: Path
) -> None:
    port = free_port()
    real = ServerProcess([sys.executable, str(server_script), "http", str(port)], port, tmp_path / "real.log")
    try:
        real.wait_ready()
        url = f"{real.url}/mcp"
        out = tmp_path / "twin.yaml"
        code, _, err = run_cli(capsys, "capture", "--url", url, "-o", str(out), "--name", "weather")
        assert code == 0, err
    finally:
        real.stop()
    environment = read_spec_file(out)
    assert environment.name == "weather"
    assert [tool.name for tool in environment.tools] == ["get_weather", "add_note"]

    with running_server(tmp_path, specs=out) as twin:

        async def use_twin() -> None:
            async with Client(f"{twin.url}/mcp") as client:
                await call_weather(client)

        run_async(use_twin)


def test_capture_with_an_auth_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with running_server(tmp_path, "--token", "s3cret") as server:
        url = f"{server.url}/mcp"
        code, _, err = run_cli(capsys, "capture", "--url", url)
        assert code == 2
        assert url in err
        assert "HTTP 401" in err

        out = tmp_path / "bundled.yaml"
        code, _, err = run_cli(
            capsys, "capture", "--url", url, "--header", "Authorization: Bearer s3cret", "-o", str(out)
        )
        assert code == 0, err
    environment = read_spec_file(out)
    assert environment.name == "sim-mcp"
    assert environment.tool("create_ticket") is not None


def test_capture_unreachable_url_exits_2_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    code, out, err = run_cli(capsys, "capture", "--url", url, "--timeout", "10")
    assert code == 2
    assert out == ""
    assert f"capture from {url}: cannot connect" in err


def test_capture_command_that_exits_names_it_and_quotes_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    script = "import sys; print('config file missing', file=sys.stderr); sys.exit(3)"
    code, _, err = run_cli(capsys, "capture", "--", sys.executable, "-c", script)
    assert code == 2
    assert f"command `{sys.executable} -c" in err
    assert "exited or closed its stdout before answering" in err
    assert "config file missing" in err


def test_capture_missing_program_names_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    program = str(tmp_path / "no-such-server")
    code, _, err = run_cli(capsys, "capture", "--", program, "--stdio")
    assert code == 2
    assert "cannot start the command" in err
    assert program in err


def test_capture_times_out(capsys: pytest.CaptureFixture[str]) -> None:
    silent = "import time; time.sleep(60)"
    begin = time.monotonic()
    code, _, err = run_cli(capsys, "capture", "--timeout", "1", "--", sys.executable, "-c", silent)
    assert code == 2
    assert "no complete answer within 1 s" in err
    assert time.monotonic() - begin < 15


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([], ["--url URL or -- COMMAND"]),
        (["--url", "http://127.0.0.1:9/mcp", "--", "server"], ["exactly one"]),
        (["--header", "X-Key: 1", "--", "server"], ["--header", "only used with --url"]),
        (["--url", "http://127.0.0.1:9/mcp", "--header", "no colon"], ["--header", "'Name: value'"]),
        (["--url", "http://127.0.0.1:9/mcp", "--name", "a/b"], ["--name", "'a/b'"]),
    ],
)
def test_capture_usage_errors(capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str]) -> None:
    code, _, err = run_cli(capsys, "capture", *argv)
    assert code == 2
    assert all(word in err for word in words), err


@pytest.mark.parametrize(
    ("server_name", "expected"),
    [
        ("@modelcontextprotocol/server-memory", "modelcontextprotocol_server-memory"),
        ("Weather & Notes/demo", "Weather_Notes_demo"),
        ("mcp-server-fetch", "mcp-server-fetch"),
        ("!!!", "captured"),
        ("x" * 100, "x" * 64),
    ],
)
def test_environment_name_for(server_name: str, expected: str) -> None:
    assert environment_name_for(server_name) == expected
