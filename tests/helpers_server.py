"""Servers and clients for the session tests: the app under uvicorn in a thread, `redis-server`, MCP clients."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult, TextContent

from sim_mcp.client._server import stop_process
from sim_mcp.config import Settings
from sim_mcp.server.http import create_app
from sim_mcp.server.live import KEEP_ALIVE_S, ShutdownAwareServer
from tests.servers import BUNDLED_SPECS, READY_TIMEOUT, free_port

ERAS = ["legacy", "auto"]
NEW_TICKET = {"title": "Printer on fire", "description": "Smoke from tray 2.", "customer_email": "ops@acme.example"}


def ticket(n: int) -> dict[str, str]:
    return {"title": f"Issue {n}", "description": f"Something broke ({n}).", "customer_email": f"c{n}@acme.example"}


def text_of(result: CallToolResult) -> str:
    """The text of a result's first block, which these servers always answer as text."""
    block = result.content[0]
    assert isinstance(block, TextContent), block
    return block.text


def payload(result: Any) -> Any:
    return json.loads(text_of(result))


@contextmanager
def app_server(**overrides: Any) -> Iterator[str]:
    """`create_app(Settings(...))` served by uvicorn on 127.0.0.1 in a thread; yields the base URL."""
    port = free_port()
    settings = Settings(**{"specs": [BUNDLED_SPECS], "port": port, **overrides})
    app = create_app(settings)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_keep_alive=KEEP_ALIVE_S
    )
    # As `sim-mcp serve` runs it: open event streams of the web UI end when the server shuts down.
    server = ShutdownAwareServer(config, on_shutdown=app.state.server.changes.live.close)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + READY_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the test server on port {port} did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


@asynccontextmanager
async def mcp_client(url: str, mode: str = "auto", token: str | None = None, **kwargs: Any) -> AsyncIterator[Client]:
    """An SDK client for `url`, sending `Authorization: Bearer <token>` when given one."""
    if token is None:
        client = Client(url, mode=mode, **kwargs)
    else:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        client = Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs)
    async with client:
        yield client


class RedisServer:
    """A throwaway `redis-server` on a free port: no persistence, or with `durable` an append-only file
    fsynced at every write (so that `restart` after `kill -9` finds every write acknowledged before it)."""

    def __init__(self, tmp_path: Path, *, durable: bool = False) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = tmp_path / f"redis-{self.port}.log"
        self.folder = tmp_path
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if durable else ["--appendonly", "no"]
        self.command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *persistence]
        self._start()

    def _start(self) -> None:
        self._log_file = self.log.open("a")
        self.process = subprocess.Popen(self.command, cwd=self.folder, stdout=self._log_file, stderr=subprocess.STDOUT)
        self._wait_ready()

    def restart(self) -> None:
        """kill -9, then the same server again (same port, same folder)."""
        self.process.kill()
        self.process.wait()
        self._log_file.close()
        self._start()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited:\n{self.log.read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.02)
        raise RuntimeError(f"redis-server not ready:\n{self.log.read_text()}")

    def flush(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(b"FLUSHALL\r\n")
            sock.recv(64)

    def stop(self) -> None:
        stop_process(self.process)
        self._log_file.close()
