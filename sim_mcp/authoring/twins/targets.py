"""The servers `twin-check` drives, each given as a command line, a URL, or a twin's spec folder.

A command is started anew for each session, in a new temporary folder (`{tmp}` in its arguments and
environment values is replaced by it), so every session starts from the same world. A URL is one running
server: each session names itself with `?session=NAME` (sim-mcp keeps sessions apart by it; another
server has one world, which the report must then be read with). A spec folder is served by `sim-mcp serve`
on 127.0.0.1 (a subprocess, for the check's whole run), with `--backend replay` answering from the
folder's recordings what its programs do not, so that a call the twin cannot answer is an error naming
the tool, never a made-up success.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

import httpx2

from sim_mcp.authoring.twins.build import REPLAY_SUFFIX
from sim_mcp.authoring.twins.recordings import RECORDINGS_NAME
from sim_mcp.authoring.twins.upstream import fresh_server
from sim_mcp.errors import ConfigError
from sim_mcp.specs.capture import HttpServer, LiveServer, StdioServer

__all__ = ["Target", "parse_target", "recording", "serving"]

_LAUNCH = "import sys; from sim_mcp.cli import main; sys.exit(main())"
_START_SECONDS = 60.0


@dataclass(frozen=True)
class Target:
    """One side of a check: how to reach it, and how to give each session a world of its own."""

    text: str  # as the user gave it
    server: LiveServer | None = None  # a command or a URL (None for a spec folder until served)
    spec_folder: Path | None = None
    serve_args: tuple[str, ...] = field(default=())

    @property
    def fresh(self) -> bool:
        return isinstance(self.server, StdioServer)

    def for_session(self, name: str, folder: Path) -> LiveServer:
        """The server one session talks to: a command started in `folder`, or the URL naming the session."""
        if self.server is None:
            raise ConfigError(f"{self.text}: a spec folder must be served first (targets.serving)")
        if isinstance(self.server, StdioServer):
            return fresh_server(self.server, folder)
        separator = "&" if "?" in self.server.url else "?"
        return replace(self.server, url=f"{self.server.url}{separator}session={name}")


def parse_target(text: str, env: dict[str, str] | None = None, serve_args: tuple[str, ...] = ()) -> Target:
    """`http(s)://...` a URL; an existing folder a twin's spec folder; anything else a command line."""
    if text.startswith(("http://", "https://")):
        return Target(text, HttpServer(text))
    path = Path(text)
    if path.is_dir():
        if not any(path.glob("*.yaml")) and not any(path.glob("*.json")):
            raise ConfigError(f"{text}: a folder with no spec in it (expected spec.yaml, as sim-mcp record writes)")
        return Target(text, spec_folder=path, serve_args=serve_args)
    command = shlex.split(text)
    if not command:
        raise ConfigError("twin-check: an empty server: expected a command line, a URL or a spec folder")
    if shutil.which(command[0]) is None and not Path(command[0]).is_file():
        raise ConfigError(f"{text}: {command[0]!r} is no program on PATH, no URL and no folder")
    if "/" in command[0] and not Path(command[0]).is_absolute():
        # The server starts in its session's own folder: a program named relative to here is found from there.
        command[0] = str(Path(command[0]).resolve())
    return Target(text, StdioServer(tuple(command), env={**os.environ, **(env or {})}))


@contextmanager
def serving(target: Target) -> Iterator[Target]:
    """`target` ready to drive: a spec folder served by `sim-mcp serve` (stopped on exit); others as they are."""
    if target.spec_folder is None:
        yield target
        return
    folder = target.spec_folder
    args = list(target.serve_args)
    # The twin's own cassette (its recorded answers keyed by the world it had reached) where compile wrote
    # one, else the recordings (keyed by the arguments alone).
    cassettes = sorted(folder.glob("*" + REPLAY_SUFFIX)) or [folder / RECORDINGS_NAME]
    if "--backend" not in args and cassettes[0].is_file():
        args += ["--backend", "replay", "--cassette", str(cassettes[0])]
    port = _free_port()
    command = [sys.executable, "-c", _LAUNCH, "serve", "--specs", str(folder), "--transport", "http"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "WARNING", *args]
    with tempfile.TemporaryFile("w+b") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_ready(process, f"http://127.0.0.1:{port}", log, target.text)
            yield replace(target, server=HttpServer(f"http://127.0.0.1:{port}/mcp"))
        finally:
            _stop(process)


@contextmanager
def recording(command: list[str], output: Path, env: dict[str, str] | None = None) -> Iterator[Target]:
    """`sim-mcp record --fresh-per-session` in front of `command`, over HTTP on 127.0.0.1, as a target whose
    sessions are recorded into `output` (stopped on exit)."""
    port = _free_port()
    launch = [sys.executable, "-c", _LAUNCH, "record", "-o", str(output), "--transport", "http"]
    launch += ["--port", str(port), "--fresh-per-session", "--log-level", "WARNING", "--", *command]
    with tempfile.TemporaryFile("w+b") as log:
        process = subprocess.Popen(launch, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
        try:
            _wait_ready(process, f"http://127.0.0.1:{port}", log, "sim-mcp record", path="/mcp")
            yield Target(f"record {shlex.join(command)}", HttpServer(f"http://127.0.0.1:{port}/mcp"))
        finally:
            _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate, and kill if it has not stopped in a minute: a recording proxy stops the servers of all
    its sessions first (each within seconds, all at once)."""
    process.terminate()
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def _wait_ready(process: subprocess.Popen[bytes], base: str, log: IO[bytes], what: str, path: str = "/healthz") -> None:
    deadline = time.monotonic() + _START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            tail = log.read().decode(errors="replace").strip().splitlines()[-8:]
            raise ConfigError(f"{what}: the process exited ({process.returncode}): " + " | ".join(tail))
        try:
            if httpx2.get(f"{base}{path}", timeout=1.0).status_code < 500:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.2)
    raise ConfigError(f"{what}: did not answer {path} within {_START_SECONDS:g} s")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
