"""Clients nobody on this team wrote, from npm: the MCP conformance suite, the MCP Inspector's CLI, and the
TypeScript SDK. `.ci/run` installs them (`npm ci` in tests/node); without them these tests skip, except in CI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import BUNDLED_SPECS, REPO, ServerProcess, running_server

NODE_DIR = REPO / "tests" / "node"
NODE_BIN = NODE_DIR / "node_modules" / ".bin"

pytestmark = pytest.mark.skipif(
    not (NODE_BIN / "mcp-inspector").exists() and not os.environ.get("CI"),
    reason="node clients not installed (cd tests/node && npm ci)",
)


def run_node(*command: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    # node_modules/.bin first: its `node` is the Node 22 that the conformance suite needs.
    path = f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}"
    environment = {**os.environ, "PATH": path, **env}
    return subprocess.run(command, cwd=NODE_DIR, env=environment, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server(tmp_path_factory.mktemp("node")) as server:
        yield server


def test_conformance_suite_passes_every_scenario_that_applies(server: ServerProcess, tmp_path: Path) -> None:
    result = run_node(
        "conformance", "server", "--url", f"{server.url}/mcp",
        "--expected-failures", str(NODE_DIR / "conformance-baseline.yaml"), "-o", str(tmp_path),
        timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    for scenario in ("server-initialize", "tools-list", "tools-call-error", "dns-rebinding-protection"):
        assert f"✓ {scenario}:" in result.stdout


def test_inspector_cli_over_http(server: ServerProcess) -> None:
    url = f"{server.url}/mcp?session=inspector"
    listed = run_node("mcp-inspector", "--cli", url, "--transport", "http", "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert "create_ticket" in {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    called = run_node(
        "mcp-inspector", "--cli", url, "--transport", "http", "--method", "tools/call",
        "--tool-name", "get_ticket", "--tool-arg", "ticket_id=T-1001",
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert result["isError"] is False
    assert result["structuredContent"]["id"] == "T-1001"


def test_inspector_cli_over_stdio() -> None:
    # The transport goes in the server's environment (`-e`): the Inspector takes `--transport` for its own.
    serve = [
        "-e",
        "SIM_MCP_TRANSPORT=stdio",
        sys.executable,
        "-m",
        "sim_mcp.cli",
        "serve",
        "--specs",
        str(BUNDLED_SPECS),
    ]
    listed = run_node("mcp-inspector", "--cli", *serve, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["tools"]) >= 15
    called = run_node(
        "mcp-inspector", "--cli", *serve, "--method", "tools/call",
        "--tool-name", "get_account", "--tool-arg", "account_id=ACC-1001",
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["structuredContent"]["id"] == "ACC-1001"


def test_typescript_sdk_client(server: ServerProcess) -> None:
    result = run_node("node", "client.mjs", f"{server.url}/mcp?session=typescript")
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["title"] == "From TypeScript"
    assert summary["tools"] >= 15
