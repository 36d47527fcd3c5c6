"""`sim-mcp serve`: the MCP server over Streamable HTTP (both protocol eras) or stdio."""

from __future__ import annotations

import argparse
import errno
import logging
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from sim_mcp.cli.flags import add_setting_flags, settings_from
from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError
from sim_mcp.version import __version__

if TYPE_CHECKING:
    from sim_mcp.rules import RulesVerdict
    from sim_mcp.runtime import Runtime
    from sim_mcp.specs.model import Environment
    from sim_mcp.specs.registry import Catalog

logger = logging.getLogger("sim_mcp")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", help="run the MCP server")
    add_setting_flags(serve)  # a server reads every concern
    serve.add_argument("--session", help="stdio: the session's name (default: a new random one per process)")
    add_log_level(serve)
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from sim_mcp.specs.bundled import require_environments

    settings = settings_from(args)
    if settings.transport == "stdio":
        from sim_mcp.runtime import Runtime
        from sim_mcp.server.stdio import serve_stdio

        runtime = Runtime(settings)
        require_environments(runtime.catalog, settings.specs)
        cannot_act_lines(runtime, log=True)  # stdio has no banner
        anyio.run(serve_stdio, settings, args.session, runtime)
        return 0
    import uvicorn

    from sim_mcp.engine.backends import load_backend
    from sim_mcp.server.heap import settle_heap
    from sim_mcp.server.http import create_app
    from sim_mcp.server.live import KEEP_ALIVE_S, ShutdownAwareServer
    from sim_mcp.state.stores import open_store

    # Fail with a plain message, not a lifespan traceback, when the port, the store or the backend can't work.
    anyio.run(_starts, lambda: open_store(settings.store))
    anyio.run(_starts, lambda: load_backend(settings))
    if settings.workers > 1:  # N processes on the port: sim_mcp/server/workers.py
        from sim_mcp.server.workers import serve_workers

        return serve_workers(settings, log_level=args.log_level)
    listener = listen(settings.host, settings.port)
    port: int = listener.getsockname()[1]  # the one taken, for --port 0
    app = create_app(settings)
    catalog: Catalog = app.state.runtime.catalog
    require_environments(catalog, settings.specs)
    # In the banner; logged too when logs are JSON (read by machines, which don't read the banner).
    lines = cannot_act_lines(app.state.runtime, log=settings.log_format == "json")
    cannot_act = "".join(f"\nnote: {line}" for line in lines)
    print(
        f"sim-mcp {__version__}: {len(catalog.tools)} tools from {len(catalog.environments)} environments "
        f"({', '.join(catalog.environments) or 'none'}), backend {settings.backend}, store {settings.store}"
        f"{cannot_act}\n"
        f"MCP endpoint: http://{_display_host(settings.host)}:{port}/mcp\n"
        f"Web UI: http://{_display_host(settings.host)}:{port}/ui",
        file=sys.stderr,
        flush=True,
    )
    # On SIGTERM uvicorn stops accepting, ends the web UI's event streams, lets in-flight calls finish
    # (up to 30 s), then the lifespan closes the store; a call's commit is shielded from cancellation, so
    # none is left half-written.
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=args.log_level.lower(),
        log_config=None,
        lifespan="on",
        timeout_graceful_shutdown=30,
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    settle_heap()
    ShutdownAwareServer(config, on_shutdown=app.state.server.changes.live.close).run(sockets=[listener])
    return 0


def cannot_act_lines(runtime: Runtime, *, log: bool) -> list[str]:
    """With the offline backend, a line per environment naming the tools it cannot act on (those with no
    working rules program whose meaning it cannot read); `log`: each also logged as a warning."""
    from sim_mcp.engine.backends.offline import OfflineBackend, cannot_act_line, tools_it_cannot_act_on

    backend = runtime.simulator.backend
    if not isinstance(backend, OfflineBackend):
        return []
    lines: list[str] = []
    for environment in runtime.catalog.environments.values():
        # Only a tool the engine cannot read asks for the program's verdict (cached by the program's content and
        # reused by the background check): programs are otherwise compiled when first used, not before serving.
        unread = tools_it_cannot_act_on(environment, _answered_by_rules(runtime, environment))
        if unread:
            lines.append(cannot_act_line(environment, unread, backend.unknown))
            if log:
                logger.warning("%s", lines[-1])
    return lines


def _answered_by_rules(runtime: Runtime, environment: Environment) -> Callable[[str], bool]:
    """Whether a working function of `environment`'s rules program answers a tool (no program when rules are
    off), its program checked on the first question only."""
    if not runtime.simulator.engine.run_rules or environment.rules is None:
        return lambda _tool: False
    verdict: list[RulesVerdict] = []

    def answered(tool: str) -> bool:
        if not verdict:
            verdict.append(runtime.simulator.rules_verdict(environment))
        return tool in verdict[0].answered

    return answered


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound here (as uvicorn would) so that a port in use is one plain error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on connections whose socket
    # says TCP. With 0, a response's body waited for the client's delayed ACK of its headers: 40 ms a call.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"--port / SIM_MCP_PORT: port {port} on {host} is already in use (another server?): stop it, "
                "or choose another with --port (0 takes any free port)"
            ) from e
        raise ConfigError(f"--host / --port: cannot listen on {host}:{port}: {e.strerror or e}") from e
    sock.set_inheritable(True)
    return sock


class _Startable(Protocol):
    async def start(self) -> None: ...

    async def aclose(self) -> None: ...


async def _starts(make: Callable[[], _Startable]) -> None:
    """What `make` opens (a store, a backend) started and closed again: keys present, base URL or store
    reachable, said plainly before serving, not as a lifespan traceback."""
    opened = make()
    try:
        await opened.start()
    finally:
        await opened.aclose()


def _display_host(host: str) -> str:
    return "127.0.0.1" if host in ("0.0.0.0", "::") else host
