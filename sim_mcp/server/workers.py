"""`sim-mcp serve --workers N`: N HTTP server processes on one port, sharing sessions through Redis.

Each worker is a process of its own (spawned, so it shares nothing with the parent but the settings),
with its own event loop, runtime, backend clients and store connections. Every worker listens on the
same host and port with `SO_REUSEPORT`: the kernel spreads new connections across the workers' sockets
by a hash of their addresses, so the load splits evenly without a balancer in front, and a worker that
dies takes only its own connections with it. The parent is a supervisor: it holds the port (bound, never
listening, so `--port 0` becomes one real port for all the workers), starts the workers, starts again
one that exits on its own, and on SIGTERM or Ctrl-C tells each worker to shut down (each finishes its
in-flight calls, as a single server does) and waits for them.

A session's calls may reach any worker, one after another or at once (the kernel hashes each new connection,
and an HTTP client opens several), so the workers keep no handshake state of the MCP SDK's
(`stateless_http`: handshake-era clients name their session in the URL, `/mcp?session=NAME`, as
2026-07-28-era clients must anyway), and they need one store that they all see: a store whose class says it
is `shared` (Redis, `--store redis://HOST:PORT/DB`, or one a package registers). Redis's session lock (a
lease in Redis, writes fenced by the lock's token) serializes one session's calls across processes as it
does across machines. The memory store (each process would hold sessions of its own) and SQLite (its session
lock is held in one process) are refused, as is `--record` (one process appends to a cassette). Every
response names the worker that served it in an `X-Sim-Mcp-Worker` header (0 to N-1), to see how the load
spreads. What stays per process: the web UI's live feed and change notifications (a watcher hears about the
calls its own worker served), and `/metrics` (each scrape reads one worker). Linux only (`SO_REUSEPORT`
balancing).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event as EventType
from types import FrameType

from sim_mcp.config import EpisodesConfig, ServerConfig, Settings, StoreConfig
from sim_mcp.errors import ConfigError
from sim_mcp.plugins import STORES
from sim_mcp.state.stores import store_kind

__all__ = ["serve_workers"]

logger = logging.getLogger("sim_mcp.workers")

# A worker says it serves (uvicorn calls `callback_notify` once started) at least this often.
_NOTIFY_S = 1
# How long a worker may take to finish its in-flight calls on shutdown (uvicorn waits up to 30 s).
_SHUTDOWN_S = 40.0
_BACKLOG = 2048


def serve_workers(settings: Settings, *, log_level: str) -> int:
    """Run `settings.workers` HTTP servers on `settings.host:settings.port` until SIGTERM or Ctrl-C."""
    check_workers(ServerConfig.of(settings), StoreConfig.of(settings), EpisodesConfig.of(settings))
    holder = shared_port_socket(settings.host, settings.port)
    port = holder.getsockname()[1]
    # Any worker may get any request: no handshake state may stay in one (sessions are named in the URL).
    settings = settings.model_copy(update={"port": port, "stateless_http": True})
    stop = threading.Event()
    # Which signal stopped the supervisor, said once it stops: a deployment (or a test) that finds every
    # worker gone can tell a stop it was sent from a worker that failed.
    received: list[signal.Signals] = []

    def on_signal(number: int, frame: FrameType | None) -> None:
        received.append(signal.Signals(number))
        stop.set()

    previous = {number: signal.signal(number, on_signal) for number in (signal.SIGTERM, signal.SIGINT)}
    workers: list[_Worker] = []
    try:
        for index in range(settings.workers):
            workers.append(_Worker.start(settings, index, log_level))
        print(
            f"sim-mcp: {settings.workers} workers (pids {', '.join(str(w.process.pid) for w in workers)}) on "
            f"http://{settings.host}:{port}/mcp, sharing the store {settings.store}",
            file=sys.stderr,
            flush=True,
        )
        code = _supervise(settings, workers, stop, log_level)
        if received:
            print(
                f"sim-mcp: {received[0].name} received; stopping {len(workers)} workers "
                "(each finishes its in-flight calls)",
                file=sys.stderr,
                flush=True,
            )
        return code
    finally:
        _shut_down(workers)
        for number, handler in previous.items():
            signal.signal(number, handler)
        holder.close()


def check_workers(server: ServerConfig, store: StoreConfig, episodes: EpisodesConfig) -> None:
    """`ConfigError` when these settings cannot run in several processes."""
    if server.workers <= 1:
        return
    flag = f"--workers {server.workers}"
    if server.transport != "http":
        raise ConfigError(f"{flag} serves HTTP: stdio is one process and one session (--transport http)")
    if not store_kind(store.store).shared:
        shared = [STORES.entry(name).help for name in STORES.builtin() if store_kind(f"{name}://").shared]
        raise ConfigError(
            f"{flag} needs a store every worker sees: give --store {' or '.join(shared)} (SIM_MCP_STORE); "
            f"with {store.store!r} each worker would have sessions of its own"
        )
    if episodes.record is not None:
        raise ConfigError(f"{flag}: --record appends to a cassette from one process; record with --workers 1")
    if not hasattr(socket, "SO_REUSEPORT"):
        raise ConfigError(f"{flag} needs SO_REUSEPORT (Linux); run one process per port behind a balancer instead")


def shared_port_socket(host: str, port: int, *, listen: bool = False) -> socket.socket:
    """A TCP socket on `host:port` with SO_REUSEPORT, so that every worker can bind the same port."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[
        0
    ]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        if listen:
            sock.listen(_BACKLOG)
            sock.set_inheritable(True)
    except OSError as e:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} (--host / --port): {e}") from e
    return sock


@dataclass
class _Worker:
    """One worker process, and the flag it raises once it serves."""

    process: BaseProcess
    serving: EventType

    @classmethod
    def start(cls, settings: Settings, index: int, log_level: str) -> _Worker:
        context = multiprocessing.get_context("spawn")
        serving = context.Event()
        process = context.Process(
            target=_worker_main,
            args=(settings.model_dump_json(), index, log_level, serving),
            name=f"sim-mcp-worker-{index}",
        )
        process.start()
        return cls(process, serving)


def _supervise(settings: Settings, workers: list[_Worker], stop: threading.Event, log_level: str) -> int:
    """Wait for a stop signal; start again a worker that exited on its own, unless it never served."""
    while not stop.wait(0.25):
        for index, worker in enumerate(workers):
            process = worker.process
            if process.is_alive():
                continue
            if not worker.serving.is_set():
                print(
                    f"sim-mcp: worker {index} exited before it could serve (code {process.exitcode}); "
                    "stopping the others (its error is above)",
                    file=sys.stderr,
                    flush=True,
                )
                return 1
            logger.warning(
                "worker %d (pid %s) exited with code %s; starting it again", index, process.pid, process.exitcode
            )
            workers[index] = _Worker.start(settings, index, log_level)
    return 0


def _shut_down(workers: list[_Worker]) -> None:
    """SIGTERM to each live worker (a graceful shutdown), then wait; kill what outlives the wait."""
    processes = [worker.process for worker in workers]
    for process in processes:
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + _SHUTDOWN_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(5)


def _worker_main(settings_json: str, index: int, log_level: str, serving: EventType) -> None:
    """One worker: its own socket on the shared port, its own app and runtime, until SIGTERM."""
    # Out of the terminal's process group: Ctrl-C reaches the supervisor only, which passes one SIGTERM on
    # (a second signal would make uvicorn drop in-flight calls).
    os.setpgid(0, 0)
    import uvicorn

    from sim_mcp.logs import configure_logging
    from sim_mcp.server.heap import settle_heap
    from sim_mcp.server.http import create_app
    from sim_mcp.server.live import KEEP_ALIVE_S, ShutdownAwareServer

    settings = Settings.model_validate_json(settings_json)
    configure_logging(log_level, settings.log_format)
    sock = shared_port_socket(settings.host, settings.port, listen=True)
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=log_level.lower(),
        log_config=None,
        lifespan="on",
        timeout_graceful_shutdown=30,
        timeout_keep_alive=KEEP_ALIVE_S,
        headers=[("x-sim-mcp-worker", str(index))],
        callback_notify=_notifier(serving),
        timeout_notify=_NOTIFY_S,
    )
    logger.info("worker %d (pid %d) serving on port %d", index, os.getpid(), settings.port)
    settle_heap()
    ShutdownAwareServer(config, on_shutdown=app.state.server.changes.live.close).run(sockets=[sock])


def _notifier(serving: EventType) -> Callable[[], Awaitable[None]]:
    """uvicorn's `callback_notify`, called only once the server has started: the worker serves."""

    async def notify() -> None:
        serving.set()

    return notify
