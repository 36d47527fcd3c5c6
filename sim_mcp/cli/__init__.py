"""The `sim-mcp` command: serve, check, call, export, import, capture, tasks generate."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from sim_mcp import __version__
from sim_mcp.config import ENV_PREFIX, Settings
from sim_mcp.errors import ConfigError, SimMcpError
from sim_mcp.logs import configure_logging
from sim_mcp.specs.registry import Catalog, load_catalog

logger = logging.getLogger("sim_mcp")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    configure_logging(getattr(args, "log_level", "INFO"), "json" if _log_format(args) == "json" else "text")
    try:
        result: int = args.run(args)
        return result
    except SimMcpError as e:
        print(f"sim-mcp: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _log_format(args: argparse.Namespace) -> str | None:
    flag: str | None = getattr(args, "log_format", None)
    return flag or os.environ.get(ENV_PREFIX + "LOG_FORMAT")


def _settings(args: argparse.Namespace) -> Settings:
    flags = {name: getattr(args, name, None) for name in Settings.model_fields}
    return Settings.load(flags)


def _serve(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if settings.transport == "stdio":
        from sim_mcp.server.stdio import serve_stdio

        anyio.run(serve_stdio, settings, args.session)
        return 0
    import uvicorn

    from sim_mcp.server.http import create_app
    from sim_mcp.server.live import ShutdownAwareServer

    # Fail with a plain message, not a lifespan traceback, when the store or the backend can't work.
    anyio.run(_check_store, settings.store)
    anyio.run(_check_backend, settings)
    if settings.workers > 1:  # N processes on the port: sim_mcp/server/workers.py
        from sim_mcp.server.workers import serve_workers

        return serve_workers(settings, log_level=args.log_level)
    app = create_app(settings)
    runtime = app.state.runtime
    catalog: Catalog = runtime.catalog
    print(
        f"sim-mcp {__version__}: {len(catalog.tools)} tools from {len(catalog.environments)} environments "
        f"({', '.join(catalog.environments) or 'none'}), backend {settings.backend}, store {settings.store}\n"
        f"MCP endpoint: http://{_display_host(settings.host)}:{settings.port}/mcp\n"
        f"Web UI: http://{_display_host(settings.host)}:{settings.port}/ui",
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
    )
    ShutdownAwareServer(config, on_shutdown=runtime.changes.live.close).run()
    return 0


async def _check_store(url: str) -> None:
    from sim_mcp.state.stores import open_store

    store = open_store(url)
    try:
        await store.start()
    finally:
        await store.aclose()


async def _check_backend(settings: Settings) -> None:
    """Keys present, base URL reachable: said plainly before serving, not as a lifespan traceback."""
    from sim_mcp.engine.backends import load_backend

    backend = load_backend(settings)
    try:
        await backend.start()
    finally:
        await backend.aclose()


def _check(args: argparse.Namespace) -> int:
    paths = [Path(path) for path in args.paths] or _settings(args).specs
    catalog = load_catalog(*paths)
    for environment in catalog.environments.values():
        names = ", ".join(tool.name for tool in environment.tools)
        print(f"ok    {environment.source}: environment {environment.name!r}, {len(environment.tools)} tools ({names})")
    for name, sources in catalog.shared_tool_names().items():
        print(f"note  tool {name!r} is defined in {' and '.join(sources)}: served on /mcp as ENV__{name}")
    for error in catalog.errors:
        print(f"error {error}")
    total = len(catalog.environments) + len(catalog.errors)
    tasks, task_errors = _check_tasks(paths, catalog)
    if total or not tasks + task_errors:
        print(f"{len(catalog.environments)} of {total} files valid, {len(catalog.tools)} tools")
    if tasks + task_errors:
        print(f"{tasks} of {tasks + task_errors} tasks valid")
    return 1 if catalog.errors or task_errors or not (catalog.environments or tasks) else 0


def _check_tasks(paths: list[Path], catalog: Catalog) -> tuple[int, int]:
    """Check the task files under `paths` (folders named `tasks`): their fields, their environment, and
    the places their checks name. Prints a line per task; returns (valid tasks, invalid ones)."""
    from sim_mcp.episodes.rewards import validate_task
    from sim_mcp.episodes.tasks import load_tasks
    from sim_mcp.specs.registry import TASKS_FOLDER

    tasks, errors = load_tasks(*paths)
    beside: dict[Path, Catalog] = {}
    valid, invalid = 0, len(errors)
    for task in tasks.values():
        environments = catalog
        if catalog.environment(task.env) is None:
            # A task file checked on its own: its environments are the specs beside its `tasks` folder.
            folder = next((p.parent for p in Path(task.source).parents if p.name == TASKS_FOLDER), None)
            if folder is not None:
                environments = beside.setdefault(folder, load_catalog(folder))
        problems, notes = validate_task(task, environments)
        errors += problems
        invalid += bool(problems)
        if not problems:
            valid += 1
            extras = [f"{len(task.checks)} checks"]
            if task.judge is not None:
                extras.append("judge")
            if task.user is not None:
                extras.append("user" + (" as ask_user" if task.user.tool else ""))
            if task.solution:
                extras.append(f"{len(task.solution)}-step solution")
            print(f"ok    {task.source}: task {task.name!r} (env {task.env}, {', '.join(extras)})")
        for note in notes:
            print(f"note  {note}")
    for error in errors:
        print(f"error {error}")
    return valid, invalid


def _tasks_generate(args: argparse.Namespace) -> int:
    """Draft tasks with the backend (templates offline), keep those their reference solution proves, write them."""
    from sim_mcp.engine.backends import load_backend
    from sim_mcp.episodes.taskgen import generate_tasks
    from sim_mcp.episodes.tasks import load_tasks, task_yaml

    if args.count < 1:
        raise ConfigError(f"--count: expected 1 or more tasks, got {args.count}")
    if args.difficulty < 1:
        raise ConfigError(f"--difficulty: expected a level of 1 or more, got {args.difficulty}")
    settings = _settings(args)
    catalog = load_catalog(*settings.specs)
    if catalog.environment(args.env) is None:
        known = ", ".join(sorted(catalog.environments)) or "none: check --specs"
        raise ConfigError(f"--env: unknown environment {args.env!r}: expected one of {known}")
    output: Path = args.output if args.output is not None else _generated_folder(settings.specs)
    existing, _ = load_tasks(*settings.specs)

    async def run() -> Any:
        backend = load_backend(settings)
        await backend.start()
        try:
            return await generate_tasks(
                catalog,
                args.env,
                count=args.count,
                difficulty=args.difficulty,
                backend=backend,
                settings=settings,
                existing=existing,
                seed=settings.seed,
            )
        finally:
            await backend.aclose()

    report = anyio.run(run)
    try:
        output.mkdir(parents=True, exist_ok=True)
        for task in report.accepted:
            header = (
                f"Generated by sim-mcp tasks generate (env {args.env}, difficulty {args.difficulty}, backend "
                f"{settings.backend}); its reference solution was replayed and its checks passed."
            )
            path = output / f"{task.name}.yaml"
            path.write_text(task_yaml(task, header=header), encoding="utf-8")
            print(f"ok    {path}: {task.description[:100]} ({len(task.solution)} steps, {len(task.checks)} checks)")
    except OSError as e:
        raise ConfigError(f"-o/--output: cannot write to {output}: {e.strerror or e}") from e
    for rejection in report.rejected:
        print(f"drop  {rejection.name}: {rejection.reason}")
    drafts = len(report.accepted) + sum(1 for rejection in report.rejected if rejection.name != "(templates)")
    print(
        f"{len(report.accepted)} of {drafts} drafted tasks kept, {drafts - len(report.accepted)} rejected; in {output}"
    )
    return 0 if report.accepted else 1


def _generated_folder(specs: list[Path]) -> Path:
    """Where generated tasks go by default: `tasks/generated` in the first spec folder (served from there)."""
    first = specs[0] if specs else Path("tool_specs")
    folder = first if first.is_dir() or not first.suffix else first.parent
    return folder / "tasks" / "generated"


def _call(args: argparse.Namespace) -> int:
    try:
        arguments: Any = json.loads(args.args)
    except json.JSONDecodeError as e:
        raise ConfigError(f"--args: invalid JSON: {e.msg} at column {e.colno}") from e
    if not isinstance(arguments, dict):
        raise ConfigError('--args: expected a JSON object of arguments, e.g. \'{"ticket_id": "T-1001"}\'')
    settings = _settings(args)

    async def run() -> int:
        from sim_mcp.runtime import Runtime

        async with Runtime(settings) as runtime:
            outcome = await runtime.simulator.call(args.session or "cli", args.tool, arguments)
        print(
            json.dumps(
                {
                    "result": outcome.result,
                    "is_error": outcome.is_error,
                    "state_patch": outcome.event.state_patch if outcome.event else [],
                },
                indent=2,
            )
        )
        return 1 if outcome.is_error else 0

    return anyio.run(run)


def _export(args: argparse.Namespace) -> int:
    from sim_mcp.episodes.export import export_from_server, export_from_store

    if bool(args.url) == bool(args.store):
        raise ConfigError("export: expected either --url URL (a running server) or --store STORE (exactly one)")
    if bool(args.sessions) == bool(args.all):
        raise ConfigError("export: name sessions with --session ID (repeatable), or give --all (exactly one)")
    sessions = None if args.all else list(args.sessions)
    if args.url:
        token = args.token or os.environ.get(ENV_PREFIX + "TOKEN") or None
        text, count = export_from_server(args.url, sessions, args.format, token=token)
    else:
        specs = Settings.load({"specs": args.specs}).specs
        text, count = anyio.run(lambda: export_from_store(args.store, sessions, args.format, specs))
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"-o/--output: cannot write {args.output}: {e.strerror or e}") from e
    lines = text.count("\n")
    where = args.output or "standard output"
    print(f"exported {count} session(s), {lines} line(s), {args.format} format, to {where}", file=sys.stderr)
    return 0


def _bench_fidelity(args: argparse.Namespace) -> int:
    """Run fidelity scenarios through the chosen backend; print the table (and write --json). Exit 0
    whatever the score: the score is the output."""
    from sim_mcp.episodes.fidelity import load_scenarios, render_report, run_benchmark

    paths = [Path(path) for path in args.scenarios] or [Path("benchmarks/fidelity")]
    scenarios, errors = load_scenarios(*paths)
    if errors:
        raise ConfigError("invalid scenario files:\n" + "\n".join(f"  {error}" for error in errors))
    if not scenarios:
        raise ConfigError(f"no scenario files in {', '.join(map(str, paths))}")
    settings = _settings(args)
    report = anyio.run(lambda: run_benchmark(settings, scenarios, rules=args.rules))
    print(render_report(report))
    if args.json is not None:
        try:
            args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"--json: cannot write {args.json}: {e.strerror or e}") from e
    return 0


def _import(args: argparse.Namespace) -> int:
    from sim_mcp.specs.formats import read_spec_file
    from sim_mcp.specs.writer import environment_yaml

    name = _environment_name(args.name)
    environment = read_spec_file(Path(args.file), args.format)
    if name is not None:
        environment = environment.model_copy(update={"name": name})
    header = f"Imported from {Path(args.file).name} by sim-mcp import."
    return _write_spec(environment_yaml(environment, header=header), args.output, f"{len(environment.tools)} tools")


def _capture(args: argparse.Namespace) -> int:
    import os

    from sim_mcp.specs.capture import HttpServer, LiveServer, StdioServer, capture
    from sim_mcp.specs.writer import environment_yaml

    if bool(args.url) == bool(args.server_command):
        raise ConfigError("capture: expected either --url URL or -- COMMAND ARGS... (exactly one of them)")
    if args.server_command and args.header:
        raise ConfigError("--header: only used with --url (a stdio command takes no HTTP headers)")
    server: LiveServer = (
        HttpServer(args.url, dict(_header(text) for text in args.header))
        if args.url
        else StdioServer(tuple(args.server_command), env=dict(os.environ))
    )
    name = _environment_name(args.name)
    environment = anyio.run(lambda: capture(server, name=name, timeout=args.timeout))
    header = f"Captured from {server.target} by sim-mcp capture: fill in initial_state and instructions."
    return _write_spec(environment_yaml(environment, header=header), args.output, f"{len(environment.tools)} tools")


def _environment_name(name: str | None) -> str | None:
    """`--name`, checked against the environment name rule."""
    from pydantic import ValidationError

    from sim_mcp.specs.model import Environment

    if name is not None:
        try:
            Environment(name=name)
        except ValidationError as e:
            raise ConfigError(f"--name: {name!r} is not an environment name: expected 1-64 of A-Z a-z 0-9 _ -") from e
    return name


def _header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        raise ConfigError(f"--header: expected 'Name: value', got {text!r}")
    return name.strip(), value.strip()


def _write_spec(text: str, output: Path | None, summary: str) -> int:
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"-o/--output: cannot write {output}: {e.strerror or e}") from e
    print(f"wrote {output}: {summary}", file=sys.stderr)
    return 0


def _display_host(host: str) -> str:
    return "127.0.0.1" if host in ("0.0.0.0", "::") else host


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sim-mcp", description="Serve any tool spec over MCP, simulated with per-session state."
    )
    parser.add_argument("--version", action="version", version=f"sim-mcp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--specs",
            action="append",
            type=Path,
            help="spec file or folder (repeatable; default tool_specs; SIM_MCP_SPECS)",
        )
        sub.add_argument("--backend", help="offline (default), anthropic, openai or replay (SIM_MCP_BACKEND)")
        sub.add_argument("--model", help="model name for LLM backends (SIM_MCP_MODEL)")
        sub.add_argument(
            "--base-url", dest="base_url", help="provider URL, e.g. an OpenAI-compatible server (SIM_MCP_BASE_URL)"
        )
        sub.add_argument("--store", help="memory (default), sqlite:///PATH or redis://HOST:PORT/DB (SIM_MCP_STORE)")
        sub.add_argument("--seed", type=int, help="seed of new sessions (SIM_MCP_SEED)")
        sub.add_argument("--max-attempts", dest="max_attempts", type=int, help="tries per call before an error result")
        sub.add_argument(
            "--cassette", type=Path, metavar="FILE", help="replay backend: the file --record wrote (SIM_MCP_CASSETTE)"
        )
        sub.add_argument(
            "--replay-fallback",
            dest="replay_fallback",
            metavar="BACKEND",
            help="replay backend: simulate calls the cassette lacks with this backend, e.g. openai "
            "(default: an error result; SIM_MCP_REPLAY_FALLBACK)",
        )
        sub.add_argument("--log-level", dest="log_level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])

    serve = commands.add_parser("serve", help="run the MCP server")
    common(serve)
    serve.add_argument("--transport", choices=["stdio", "http"], help="default http (SIM_MCP_TRANSPORT)")
    serve.add_argument("--host", help="HTTP bind address (default 127.0.0.1; SIM_MCP_HOST)")
    serve.add_argument("--port", type=int, help="HTTP port (default 8765; SIM_MCP_PORT)")
    serve.add_argument("--token", help="bearer token required on HTTP routes (SIM_MCP_TOKEN)")
    serve.add_argument(
        "--allowed-hosts",
        dest="allowed_hosts",
        type=lambda text: text.split(","),
        help="comma-separated Host headers to accept besides loopback (SIM_MCP_ALLOWED_HOSTS)",
    )
    serve.add_argument(
        "--session-ttl",
        dest="session_ttl",
        type=float,
        help="delete sessions idle for this many seconds; 0 keeps them (default 0; SIM_MCP_SESSION_TTL)",
    )
    serve.add_argument(
        "--max-sessions",
        dest="max_sessions",
        type=int,
        help="most sessions held at once (default 100000; SIM_MCP_MAX_SESSIONS)",
    )
    serve.add_argument(
        "--max-state-bytes",
        dest="max_state_bytes",
        type=int,
        help="largest world state of one session, as JSON (default 1000000; SIM_MCP_MAX_STATE_BYTES)",
    )
    serve.add_argument("--log-format", dest="log_format", choices=["text", "json"], help="SIM_MCP_LOG_FORMAT")
    serve.add_argument("--rate-limit", dest="rate_limit", type=float, help="tool calls/s per session (0: none)")
    serve.add_argument("--max-request-bytes", dest="max_request_bytes", type=int, help="largest HTTP body")
    serve.add_argument(
        "--no-watch", dest="watch", action="store_false", default=None, help="don't reload specs when files change"
    )
    serve.add_argument("--session", help="stdio: the session's name (default: a new random one per process)")
    training = serve.add_argument_group("training and evaluation (docs/training.md)")
    training.add_argument(
        "--trajectories",
        type=Path,
        metavar="DIR",
        help="folder: each session's events as DIR/<session>.jsonl, written per call",
    )
    training.add_argument(
        "--record", type=Path, metavar="FILE", help="append every checked outcome to this cassette file"
    )
    training.add_argument(
        "--fault-error-rate", dest="fault_error_rate", type=float, metavar="RATE", help="share of calls failing (0-1)"
    )
    training.add_argument(
        "--fault-timeout-rate",
        dest="fault_timeout_rate",
        type=float,
        metavar="RATE",
        help="share of calls timing out (0-1)",
    )
    training.add_argument(
        "--fault-timeout-ms",
        dest="fault_timeout_ms",
        type=float,
        metavar="MS",
        help="how long a timed-out call takes (10000)",
    )
    training.add_argument(
        "--fault-malformed-rate",
        dest="fault_malformed_rate",
        type=float,
        metavar="RATE",
        help="share of truncated results (0-1)",
    )
    training.add_argument(
        "--fault-latency-ms",
        dest="fault_latency_ms",
        metavar="LATENCY",
        help="added latency: MS, uniform:MIN:MAX, normal:MEAN:STDDEV or exponential:MEAN",
    )
    training.add_argument(
        "--fault-seed", dest="fault_seed", type=int, metavar="N", help="seed of the fault draws (default 0)"
    )
    curriculum = serve.add_argument_group("adaptive curriculum (docs/users.md)")
    curriculum.add_argument(
        "--curriculum-window",
        dest="curriculum_window",
        type=int,
        metavar="N",
        help="episodes at a level before difficulty may move (default 5)",
    )
    curriculum.add_argument(
        "--curriculum-up",
        dest="curriculum_up",
        type=float,
        metavar="REWARD",
        help="mean reward at or above which difficulty goes up (default 0.5)",
    )
    curriculum.add_argument(
        "--curriculum-down",
        dest="curriculum_down",
        type=float,
        metavar="REWARD",
        help="mean reward at or below which difficulty goes down (default 0)",
    )
    serve.add_argument(
        "--default-session",
        dest="default_session",
        help="HTTP: session of 2026-07-28 clients that name none (default 'default'; SIM_MCP_DEFAULT_SESSION)",
    )
    serve.set_defaults(run=_serve)

    check = commands.add_parser("check", help="validate spec and task files and print a summary")
    check.add_argument(
        "paths", nargs="*", help="spec files or folders, task files in their tasks/ folders (default: tool_specs)"
    )
    check.add_argument("--specs", action="append", type=Path, help=argparse.SUPPRESS)
    check.set_defaults(run=_check)

    call = commands.add_parser("call", help="make one call in process, to try a spec")
    common(call)
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--session", help="session name (default cli)")
    call.set_defaults(run=_call)

    export = commands.add_parser(
        "export",
        help="write sessions' trajectories as JSON Lines (events, or OpenAI chat messages for SFT)",
        usage="sim-mcp export (--url URL [--token T] | --store STORE [--specs DIR]) (--session ID ... | --all) "
        "[--format events|openai] [-o OUT]",
    )
    export.add_argument("--url", help="a running server's base URL, e.g. http://127.0.0.1:8765 (its control API)")
    export.add_argument("--token", help="the server's bearer token (SIM_MCP_TOKEN)")
    export.add_argument("--store", help="read a store directly instead, e.g. sqlite:///runs.db (server stopped)")
    export.add_argument(
        "--specs", action="append", type=Path, help="with --store: the spec folders, for the openai format's tools"
    )
    export.add_argument(
        "--session", dest="sessions", action="append", default=[], metavar="ID", help="a session id (repeatable)"
    )
    export.add_argument("--all", action="store_true", help="every session, oldest first")
    export.add_argument("--format", choices=["events", "openai"], default="events", help="default events")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    export.add_argument(
        "--log-level", dest="log_level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    export.set_defaults(run=_export)

    bench = commands.add_parser(
        "bench-fidelity", help="score a backend's consistency on scripted call sequences (docs/rewards.md)"
    )
    common(bench)
    bench.add_argument(
        "scenarios", nargs="*", help="scenario files or folders (default: benchmarks/fidelity)", metavar="SCENARIOS"
    )
    bench.add_argument(
        "--rules",
        choices=["auto", "always", "never"],
        default="auto",
        help="count the expectations that follow from the instructions: auto (backends with a model), always, never",
    )
    bench.add_argument("--json", type=Path, help="also write the full report, every expectation missed, as JSON")
    bench.set_defaults(run=_bench_fidelity, log_level="WARNING")

    tasks = commands.add_parser("tasks", help="task files: generate them (docs/users.md)")
    tasks_commands = tasks.add_subparsers(dest="tasks_command", required=True)
    generate = tasks_commands.add_parser(
        "generate",
        help="have the backend's model (templates, offline) write tasks, each proven by replaying its solution",
        usage="sim-mcp tasks generate --env NAME [--count N] [--difficulty D] [-o DIR] [--backend B --model M ...]",
    )
    common(generate)
    generate.add_argument("--env", required=True, help="the environment the tasks run in")
    generate.add_argument("--count", type=int, default=5, help="tasks to draft (default 5)")
    generate.add_argument(
        "--difficulty", type=int, default=1, help="1 (easy) and up: more steps and tools, less said, stricter checks"
    )
    generate.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="folder to write to (default: SPECS/tasks/generated)"
    )
    generate.set_defaults(run=_tasks_generate, log_level="WARNING")

    import_ = commands.add_parser("import", help="convert a spec file of any format to native YAML, for editing")
    import_.add_argument("file", help="spec file: native, OpenAPI, MCP, OpenAI, Anthropic or BFCL")
    import_.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    import_.add_argument("--format", help="the file's format, when detection guesses wrong")
    import_.add_argument("--name", help="environment name (default: from the file)")
    import_.set_defaults(run=_import)

    capture = commands.add_parser(
        "capture",
        help="save a live MCP server's tools as a native spec",
        usage="sim-mcp capture (--url URL | -- COMMAND [ARGS...]) [-o OUT] [--name NAME] [--header 'N: V'] ...",
    )
    capture.add_argument("--url", help="Streamable HTTP endpoint of the server, e.g. http://127.0.0.1:8000/mcp")
    capture.add_argument("server_command", nargs="*", metavar="COMMAND", help="after --: a stdio server's command")
    capture.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    capture.add_argument("--name", help="environment name (default: the server's name)")
    capture.add_argument(
        "--header", action="append", default=[], help="HTTP header 'Name: value' for --url (repeatable)"
    )
    capture.add_argument("--timeout", type=float, default=30.0, help="seconds to connect and list tools (default 30)")
    capture.add_argument(
        "--log-level", dest="log_level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    capture.set_defaults(run=_capture)
    return parser


if __name__ == "__main__":
    sys.exit(main())
