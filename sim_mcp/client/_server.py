"""`LocalServer`: a `sim-mcp serve` subprocess on 127.0.0.1, for examples, tests and notebooks.

    with LocalServer() as server:                 # the bundled environments, offline simulator
        async with SimClient(server.url) as sim: ...

It picks a free port, waits until `/healthz` answers, and stops the process on exit (SIGTERM, then
SIGKILL). The server's output goes to a log file, whose tail is in the error if it fails to start.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import httpx

from sim_mcp.client._background import Background
from sim_mcp.client._errors import SimClientError

_LAUNCH = "import sys; from sim_mcp.cli import main; sys.exit(main())"
_ATTEMPTS = 3


class LocalServer(Background):
    """Run `sim-mcp serve --transport http` with `args` (flags such as `--backend`, `--token`) on 127.0.0.1.

    `specs` is a spec folder or several (default: the repository's bundled `tool_specs` when sim-mcp runs
    from a checkout, else the server's own default, `tool_specs` in the working directory); `port` a
    fixed port (default: a free one, chosen again if another process takes it first); `env` the
    subprocess's environment (default: this one's).
    """

    def __init__(
        self,
        *args: str,
        specs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
        port: int | None = None,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 30.0,
    ) -> None:
        self.args = list(args)
        folders = [specs] if isinstance(specs, str | os.PathLike) else list(specs or _bundled_specs())
        self.specs = [str(Path(folder)) for folder in folders]
        self.port = port or 0
        self.env = dict(env) if env is not None else None
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's base URL, `http://127.0.0.1:PORT` (for `SimClient`)."""
        if self.process is None:
            raise SimClientError("LocalServer is not running: call start() or use `with LocalServer() as server:`")
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        """The MCP endpoint, `http://127.0.0.1:PORT/mcp`."""
        return f"{self.url}/mcp"

    def command(self) -> list[str]:
        """The command line it runs (the installed `sim_mcp.cli.main`, under this Python)."""
        command = [sys.executable, "-c", _LAUNCH, "serve", "--transport", "http", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--log-level", "WARNING"]
        for folder in self.specs:
            command += ["--specs", folder]
        return command + self.args

    def start(self) -> LocalServer:
        """Start the server and wait until it answers; raises `SimClientError` with its output if it can't."""
        fixed = self.port != 0
        for attempt in range(1 if fixed else _ATTEMPTS):
            if not fixed:
                self.port = _free_port()
            self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
            self.process = subprocess.Popen(self.command(), env=self.env, stdout=self._log, stderr=subprocess.STDOUT)
            if self._wait_ready():
                return self
            output = self._output()
            self.stop()
            if fixed or "address already in use" not in output.lower() or attempt == _ATTEMPTS - 1:
                raise SimClientError(f"sim-mcp serve did not start (command: {' '.join(self.command())}):\n{output}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait_ready(self) -> bool:
        assert self.process is not None
        return wait_healthy(self.process, f"http://127.0.0.1:{self.port}", self.startup_timeout)

    def _output(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-4000:]

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        process, self.process = self.process, None
        if process is not None:
            stop_process(process)
        if self._log is not None:
            self._log.close()
            self._log = None


def _bundled_specs() -> list[Path]:
    folder = Path(__file__).resolve().parents[2] / "tool_specs"
    return [folder] if folder.is_dir() else []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_healthy(process: subprocess.Popen[bytes], url: str, timeout: float) -> bool:
    """Whether `url/healthz` answers 200 within `timeout` seconds (False as soon as `process` exits)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    return False


def stop_process(process: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if the process has not exited within `grace_s`; returns once it has."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
