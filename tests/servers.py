"""Real servers for tests: `sim-mcp serve` subprocesses on 127.0.0.1, and stdio parameters."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp import StdioServerParameters

from sim_mcp.client._server import stop_process
from sim_mcp.client._server import wait_healthy as healthy

REPO = Path(__file__).resolve().parents[1]
BUNDLED_SPECS = REPO / "tool_specs"
# Where the shared corpus of third-party specs may be: `SIM_MCP_CORPUS`, else `shared/specs-corpus` beside
# the checkout or beside any folder above it (CI clones the repo into a folder of its own, with shared/
# laid beside the clone).
CORPUS_VARIABLE = "SIM_MCP_CORPUS"
T = TypeVar("T")


def corpus_candidates(repo: Path = REPO, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The places looked at for the corpus, in order."""
    given = environ.get(CORPUS_VARIABLE)
    if given:
        return [Path(given).expanduser().resolve()]
    return [folder / "shared" / "specs-corpus" for folder in (repo, *repo.parents)]


def find_corpus(repo: Path = REPO, environ: Mapping[str, str] = os.environ) -> Path:
    """The first candidate that is a folder; else the first candidate (absent: the tests that need it skip)."""
    candidates = corpus_candidates(repo, environ)
    return next((path for path in candidates if path.is_dir()), candidates[0])


CORPUS = find_corpus()


# Whether the corpus is there: a folder holding spec files (an empty folder, as `SIM_MCP_CORPUS` may name, is
# none: its tests skip rather than fail on files that are not there).
HAVE_CORPUS = CORPUS.is_dir() and any(path.suffix in (".json", ".yaml") for path in CORPUS.rglob("*"))


def corpus_missing(repo: Path = REPO, environ: Mapping[str, str] = os.environ) -> str:
    """Why the tests of the corpus skip: every place looked for it, and how to name it."""
    places = ", ".join(str(path) for path in corpus_candidates(repo, environ))
    return (
        f"the shared specs corpus is not in any place looked (no spec files in {places}): set {CORPUS_VARIABLE} "
        "to its folder"
    )


CORPUS_MISSING = corpus_missing()


def corpus_cases(files: Sequence[T], name: Callable[[T], str] = str) -> list[Any]:
    """Parameters of a test run once per corpus file (each named by `name`): the files, else one case that
    skips saying where the corpus was looked for (pytest's own skip of an empty parameter set names no
    reason a reader can act on)."""
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=CORPUS_MISSING), id="no-corpus")]
    return [pytest.param(file, id=name(file)) for file in files]


# How long a test waits for something that will happen (a server answering /healthz, an event arriving)
# before calling it a failure. Each such wait ends as soon as the thing happens, so this is only the bound
# for a machine so busy that a process takes a minute to start: generous, never a guess at how fast.
READY_TIMEOUT = float(os.environ.get("SIM_MCP_TEST_READY_TIMEOUT", "180"))

# A small environment whose results an LLM backend decides (the LLM and replay tests script them).
NOTES_SPEC = """
name: notes
instructions: Notes have ids n1, n2, ... in order of creation.
initial_state: {notes: {}}
tools:
  - name: create_note
    input_schema: {type: object, properties: {text: {type: string}}, required: [text]}
    output_schema: {type: object, properties: {id: {type: string}, text: {type: string}}, required: [id, text]}
  - name: get_note
    input_schema: {type: object, properties: {note_id: {type: string}}, required: [note_id]}
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "sim_mcp.cli", "serve", *args]


def stdio_parameters(*args: str, specs: Path = BUNDLED_SPECS) -> StdioServerParameters:
    command = serve_command("--transport", "stdio", "--specs", str(specs), "--log-level", "WARNING", *args)
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ), cwd=str(REPO))


class ServerProcess:
    """A `sim-mcp serve --transport http` subprocess; `url` is its base URL."""

    def __init__(
        self, command: Sequence[str], port: int, log: Path, env: dict[str, str] | None = None, cwd: Path = REPO
    ) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        self._log_file = log.open("w")
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdout=self._log_file, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        wait_healthy(self.process, self.url, timeout, lambda: self.log.read_text(), "server")

    def stop(self) -> None:
        stop_process(self.process)
        self._log_file.close()

    def kill(self) -> None:
        """kill -9: no shutdown code runs."""
        self.process.kill()
        self.process.wait()
        self._log_file.close()


@contextmanager
def running_server(tmp_path: Path, *args: str, specs: Path = BUNDLED_SPECS) -> Iterator[ServerProcess]:
    port = free_port()
    command = serve_command("--transport", "http", "--host", "127.0.0.1", "--port", str(port))
    command += ["--specs", str(specs), "--log-level", "WARNING", *args]
    server = ServerProcess(command, port, tmp_path / f"server-{time.monotonic_ns()}.log")
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def wait_healthy(process: subprocess.Popen[bytes], url: str, timeout: float, log: Callable[[], str], what: str) -> None:
    """Wait until `url/healthz` answers 200; an error with `log()` if the process exits or time runs out."""
    if not healthy(process, url, timeout):
        state = f"exited with {process.returncode}" if process.poll() is not None else f"not ready after {timeout}s"
        raise RuntimeError(f"{what} {state}:\n{log()}")
