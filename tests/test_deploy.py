"""The Docker image's own install and start commands, replayed outside Docker (no engine runs here):
build the wheel as the build stage does, install it into a fresh virtual environment as the final
stage does, start the image's CMD with the image's ENV, then check /healthz and one tool call."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client import Client

from tests.servers import REPO, ServerProcess, free_port

DOCKERFILE = REPO / "Dockerfile"


def instructions(stage: int) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of one build stage, with line continuations joined."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    stages: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.upper() == "FROM":
            stages.append([])
        stages[-1].append((keyword.upper(), rest.strip()))
    return stages[stage]


def image_environment() -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, rest in instructions(-1):
        if keyword == "ENV":
            for pair in shlex.split(rest):
                name, _, value = pair.partition("=")
                env[name] = value
    return env


def image_command() -> list[str]:
    (cmd,) = [rest for keyword, rest in instructions(-1) if keyword == "CMD"]
    command: list[str] = json.loads(cmd)
    return command


def test_dockerfile_runs_as_non_root_with_healthcheck_and_http_on_all_interfaces() -> None:
    final = instructions(-1)
    keywords = [keyword for keyword, _ in final]
    assert "HEALTHCHECK" in keywords
    (user,) = [rest for keyword, rest in final if keyword == "USER"]
    assert user not in ("root", "0")
    env = image_environment()
    assert env["SIM_MCP_HOST"] == "0.0.0.0"
    assert env["SIM_MCP_TRANSPORT"] == "http"
    assert ("VOLUME", '["/specs"]') in final
    assert env["SIM_MCP_SPECS"] == "/specs"


@pytest.mark.skipif(shutil.which("hadolint") is None and not os.environ.get("CI"), reason="hadolint not installed")
def test_hadolint_passes() -> None:
    result = subprocess.run(["hadolint", str(DOCKERFILE)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def installed_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built as the image's build stage does (from the files its COPY lines name), installed into
    a fresh virtual environment as the final stage does; the environment's folder."""
    tmp_path = tmp_path_factory.mktemp("image")
    source = tmp_path / "src"
    source.mkdir()
    build = instructions(0)
    copied = [name for keyword, rest in build if keyword == "COPY" for name in rest.split()[:-1]]
    assert "sim_mcp" in copied
    for name in copied:
        copy = shutil.copytree if (REPO / name).is_dir() else shutil.copy
        copy(REPO / name, source / name)
    assert any("python -m build --wheel" in rest for keyword, rest in build if keyword == "RUN")
    dist = tmp_path / "dist"
    wheel_command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(dist), str(source)]
    subprocess.run(wheel_command, check=True, capture_output=True, timeout=300)
    (wheel,) = dist.glob("sim_mcp-*.whl")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    # The image says --no-cache-dir to keep its layer small; here pip's cache serves the dependencies, which
    # installs the same packages minutes sooner than downloading them all again. --no-compile skips writing
    # bytecode for every dependency (a quarter of the install's time), which changes nothing the tests see:
    # the image runs with PYTHONDONTWRITEBYTECODE and Python compiles each module as it is imported anyway.
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--no-compile", str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    return venv


def _venv_environment(venv: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, **image_environment(), **extra}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env.pop("PYTHONPATH", None)  # the installed wheel, not a checkout
    return env


@pytest.fixture
def image_server(installed_venv: Path, tmp_path: Path) -> Iterator[ServerProcess]:
    """The image, replayed: started with the image's CMD and ENV (port and specs folder moved)."""
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "tool_specs", specs)
    port = free_port()
    env = _venv_environment(installed_venv, SIM_MCP_SPECS=str(specs), SIM_MCP_PORT=str(port))
    server = ServerProcess(image_command(), port, tmp_path / "image.log", env=env, cwd=tmp_path)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


async def test_the_wheel_serves_its_bundled_environments_from_any_folder(installed_venv: Path, tmp_path: Path) -> None:
    """No --specs, no SIM_MCP_SPECS, no ./tool_specs: the examples inside the installed package are served."""
    port = free_port()
    env = _venv_environment(installed_venv, SIM_MCP_PORT=str(port))
    env.pop("SIM_MCP_SPECS")
    server = ServerProcess(image_command(), port, tmp_path / "bundled.log", env=env, cwd=tmp_path)
    try:
        server.wait_ready()
        async with Client(f"{server.url}/mcp?session=bundled") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"create_ticket", "get_ticket"} <= names
    finally:
        server.stop()
    assert "4 environments" in server.log.read_text(), server.log.read_text()


def test_no_environment_loaded_is_an_error_exit(installed_venv: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env = _venv_environment(installed_venv, SIM_MCP_SPECS=str(empty), SIM_MCP_PORT=str(free_port()))
    result = subprocess.run(image_command(), env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"sim-mcp: error: --specs / SIM_MCP_SPECS: no environment loaded from {empty}")
    assert "Traceback" not in result.stderr


async def test_image_install_and_start_commands_work_in_a_fresh_virtualenv(image_server: ServerProcess) -> None:
    async with Client(f"{image_server.url}/mcp?session=docker") as client:
        result = await client.call_tool("get_ticket", {"ticket_id": "T-1001"})
        assert not result.is_error
        assert result.structured_content is not None
        assert result.structured_content["id"] == "T-1001"
