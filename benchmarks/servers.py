"""The processes a benchmark talks to, each a subprocess on 127.0.0.1: `sim-mcp serve`, the bare echo
server, the fake LLM provider and `redis-server`; plus what /proc says about a process (RSS, CPU time).

Every process started here is registered and stopped by `stop_all()` (which `run.py` calls on exit,
including on Ctrl-C), so a failed benchmark leaves nothing running.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
from mcp import StdioServerParameters

REPO = Path(__file__).resolve().parents[1]
BUNDLED_SPECS = REPO / "tool_specs"
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_RUNNING: list[Process] = []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def log_dir() -> Path:
    path = Path(tempfile.gettempdir()) / "sim-mcp-bench"
    path.mkdir(exist_ok=True)
    return path


class Process:
    """A subprocess with its output in a log file; `ready` says when it is up."""

    def __init__(self, name: str, command: Sequence[str], env: dict[str, str] | None = None, cwd: Path = REPO) -> None:
        """`cwd`: where it runs; `python -m sim_mcp.cli` there runs that checkout's sim-mcp."""
        self.name = name
        self.log = log_dir() / f"{name}-{os.getpid()}-{time.monotonic_ns()}.log"
        self._log_file = self.log.open("w")
        self.process = subprocess.Popen(
            list(command), cwd=cwd, env=env, stdout=self._log_file, stderr=subprocess.STDOUT
        )
        _RUNNING.append(self)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_until(self, ready: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
        """Poll `ready()` until it is true; fail if the process exits first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.tail()}")
            if ready():
                return
            time.sleep(0.05)
        raise RuntimeError(f"{self.name}: {what} not ready after {timeout:g}s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        self._log_file.flush()
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log_file.close()
        if self in _RUNNING:
            _RUNNING.remove(self)


def stop_all() -> None:
    for process in list(reversed(_RUNNING)):
        process.stop()


class HttpServer(Process):
    """An HTTP server answering `GET /healthz`; `url` is its base URL."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        port: int,
        env: dict[str, str] | None = None,
        timeout: float = 30.0,
        cwd: Path = REPO,
    ) -> None:
        super().__init__(name, command, env, cwd)
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.wait_until(self._healthy, f"{self.url}/healthz", timeout)

    def _healthy(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200
        except httpx.TransportError:
            return False


def sim_command(*args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sim_mcp.cli",
        "serve",
        "--specs",
        str(BUNDLED_SPECS),
        "--log-level",
        "WARNING",
        *args,
    ]


def bare_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "benchmarks.bare_server", *args]


def server_env(**variables: str) -> dict[str, str]:
    return {**os.environ, **variables}


def start_sim_http(
    *args: str, env: dict[str, str] | None = None, timeout: float = 30.0, cwd: Path = REPO
) -> HttpServer:
    """`sim-mcp serve --transport http` on a free port; `RuntimeError` (with its output) if it won't start
    within `timeout` seconds. `cwd`: another checkout, to run its sim-mcp (an A/B comparison)."""
    port = free_port()
    command = sim_command("--transport", "http", "--port", str(port), *args)
    return HttpServer("sim-mcp", command, port, env, timeout, cwd)


@contextmanager
def sim_http(*args: str, env: dict[str, str] | None = None, timeout: float = 30.0) -> Iterator[HttpServer]:
    """`sim-mcp serve --transport http` on a free port, stopped on exit."""
    server = start_sim_http(*args, env=env, timeout=timeout)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def bare_http(*args: str) -> Iterator[HttpServer]:
    """The bare echo server over Streamable HTTP on a free port, stopped on exit."""
    port = free_port()
    server = HttpServer("bare", bare_command("--transport", "http", "--port", str(port), *args), port)
    try:
        yield server
    finally:
        server.stop()


def sim_stdio(*args: str) -> StdioServerParameters:
    command = sim_command("--transport", "stdio", *args)
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ), cwd=str(REPO))


def bare_stdio() -> StdioServerParameters:
    command = bare_command("--transport", "stdio")
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ), cwd=str(REPO))


@contextmanager
def fake_llm(latency_ms: float) -> Iterator[HttpServer]:
    """The fake OpenAI-compatible provider (`benchmarks/fake_llm.py`) with a fixed latency."""
    port = free_port()
    command = [sys.executable, "-m", "benchmarks.fake_llm", "--port", str(port), "--latency-ms", str(latency_ms)]
    server = HttpServer("fake-llm", command, port)
    try:
        yield server
    finally:
        server.stop()


class RedisServer(Process):
    """A throwaway `redis-server` on a free port, without persistence."""

    def __init__(self, binary: str) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        super().__init__("redis", command)
        self.wait_until(self._pong, f"redis on port {self.port}", timeout=10)

    def _pong(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def flush(self) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(b"FLUSHALL\r\n")
            sock.recv(64)


@contextmanager
def redis_server() -> Iterator[RedisServer | str]:
    """A running redis-server, or (when the binary is absent) the reason why none runs."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield "redis-server is not installed (apt-get install -y redis-server)"
        return
    server = RedisServer(binary)
    try:
        yield server
    finally:
        server.stop()


# -- what /proc says about a process ---------------------------------------------------------------


def rss_bytes(pid: int) -> int:
    """Resident memory (VmRSS) of a process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command name: state is field 3; utime and stime are fields 14 and 15 (1-based).
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of `pid` and of every process below it (`--workers`: the supervisor and its workers)."""
    total = 0.0
    for member in [pid, *descendants_of(pid)]:
        with contextlib.suppress(OSError):  # ended meanwhile
            total += cpu_seconds(member)
    return total


def descendants_of(pid: int) -> list[int]:
    found: list[int] = []
    for child in children_of(pid):
        found += [child, *descendants_of(child)]
    return found


def children_of(pid: int) -> list[int]:
    """Direct child processes of `pid` (to find the server a stdio client started)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found
