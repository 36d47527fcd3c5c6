"""`sim-mcp serve --backend openai|anthropic` end to end: a server process, a real MCP client, and the fake
provider (sim_mcp/testing/fake_provider.py) standing in for the LLM API on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp.client import Client

from sim_mcp.testing import FakeProvider, reply_outcome, reply_text
from tests.servers import NOTES_SPEC as NOTES
from tests.servers import ServerProcess, free_port, serve_command


def serve(tmp_path: Path, backend: str, base_url: str | None, env: dict[str, str]) -> ServerProcess:
    (tmp_path / "notes.yaml").write_text(NOTES)
    port = free_port()
    command = serve_command("--port", str(port), "--specs", str(tmp_path), "--backend", backend, "--model", "sim-1")
    if base_url is not None:
        command += ["--base-url", base_url]
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "ANTHROPIC_"))}
    server = ServerProcess(command, port, tmp_path / "server.log", env={**clean, **env})
    try:
        server.wait_ready()
    except BaseException:
        # The caller never gets the process to stop, so a server that did not come up must not outlive the test.
        server.stop()
        raise
    return server


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
async def test_serve_with_an_llm_backend(tmp_path: Path, fake: FakeProvider, backend: str) -> None:
    fake.reset()
    if backend == "openai":
        server = serve(tmp_path, "openai", fake.openai_url, {})
    else:  # the Anthropic SDK's own variable, as users set it
        server = serve(tmp_path, "anthropic", None, {"ANTHROPIC_BASE_URL": fake.anthropic_url})
    note = {"id": "n1", "text": "buy milk"}
    fake.script(
        reply_text("Sure! Here is the outcome you asked for: not json at all"),  # garbage: asked again
        reply_outcome(note, state_patch=[{"op": "add", "path": "/notes/n1", "value": note}]),
        reply_outcome(note),
    )
    try:
        async with Client(f"{server.url}/mcp?session=llm") as client:
            created = await client.call_tool("create_note", {"text": "buy milk"})
            assert not created.is_error, created.content
            assert created.structured_content == note
            fetched = await client.call_tool("get_note", {"note_id": "n1"})
            assert not fetched.is_error
        path = "/v1/chat/completions" if backend == "openai" else "/v1/messages"
        prompts = [str(request.body) for request in fake.posts(path)]
        assert len(prompts) == 3
        assert "could not" in prompts[1] or "not valid" in prompts[1] or "JSON" in prompts[1]
        assert '"n1"' in prompts[2], "the state left by the first call's patch is in the next prompt"
    finally:
        server.stop()


def test_missing_key_is_a_clear_startup_error(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text(NOTES)
    port = free_port()
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "ANTHROPIC_"))}
    command = serve_command("--port", str(port), "--specs", str(tmp_path), "--backend", "anthropic", "--model", "m")
    server = ServerProcess(command, port, tmp_path / "server.log", env=clean)
    assert server.process.wait(timeout=60) == 2
    server.stop()
    assert "ANTHROPIC_API_KEY" in server.log.read_text()


def test_unreachable_base_url_is_a_clear_startup_error(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text(NOTES)
    port = free_port()
    dead = f"http://127.0.0.1:{free_port()}/v1"
    command = serve_command("--port", str(port), "--specs", str(tmp_path), "--backend", "openai", "--model", "m")
    server = ServerProcess([*command, "--base-url", dead], port, tmp_path / "server.log")
    assert server.process.wait(timeout=60) == 2
    server.stop()
    assert dead in server.log.read_text()
