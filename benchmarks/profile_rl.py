"""Profile sim-mcp under the RL-scale load: py-spy attached to the server while the load runs.

    python -m benchmarks.profile_rl --sessions 1024 --store memory --out profile.txt
    python -m benchmarks.profile_rl --summarize profile.txt
    python -m benchmarks.profile_rl --parts profile.txt --cpu-ms 2.3
    python -m benchmarks.profile_rl --transport profile.txt --cpu-ms 2.3

The first starts the fake provider (100 ms), `sim-mcp serve --backend openai` on the store (`memory`, or
`redis` for a throwaway redis-server), runs the RL load (`rl_scale.run_workers`) with `py-spy record
--format raw` on the server, and prints the server's CPU per call. The second prints, from such a file,
the functions with the most samples, inclusive (a function and everything it called) and by their own
lines. The third splits the event loop's samples into the parts of a call (`PARTS`), as shares and, given
the server CPU per call the first printed, milliseconds. The fourth splits the HTTP request's own path
(`TRANSPORT`: the SDK's transport, sim-mcp's middleware and routing, the tool's handler) from the rest of
the event loop, for either server. `--answered-by rules` or `bare` profiles the tickets programs
answering (no model) or the bare SDK server; `--bare-delay-ms 100` makes the bare tool wait as long as
the fake provider, so its request parks and resumes as an LLM-backed one does. Needs py-spy (in the dev extra;
not a dependency of the package).
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import time
from pathlib import Path

from benchmarks.rl_scale import Load, run_workers
from benchmarks.servers import RedisServer, bare_http, fake_llm, redis_server, server_env, sim_http


def profile(sessions: int, store: str, out: Path | None, answered_by: str = "llm", bare_delay_ms: float = 0.0) -> str:
    load = Load(sessions=sessions, calls=10, workers=2, client="lean")
    with fake_llm(100.0) as fake, redis_server() as redis:
        url = redis.url if store == "redis" and isinstance(redis, RedisServer) else "memory"
        if answered_by == "rules":
            # The tickets environment's own programs answer (tool_specs/tickets.rules.star), no model.
            args = ["--backend", "offline", "--store", url]
        else:
            # --no-run-rules: the bundled tickets tools have rules programs, which would answer with no model.
            args = ["--backend", "openai", "--base-url", f"{fake.url}/v1", "--model", "fake", "--store", url]
            args.append("--no-run-rules")
        env = server_env(SIM_MCP_BACKEND_CONCURRENCY=str(sessions), OPENAI_API_KEY="sk-bench-unused")
        server = bare_http("--delay-ms", str(bare_delay_ms)) if answered_by == "bare" else sim_http(*args, env=env)
        with server as sim:
            spy = None
            if out is not None:
                py_spy = shutil.which("py-spy")
                if py_spy is None:
                    raise SystemExit("py-spy is not installed: pip install py-spy")
                command = [py_spy, "record", "--pid", str(sim.pid), "--format", "raw", "-o", str(out), "--rate", "200"]
                spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(1)
            bare = answered_by == "bare"
            path = "/mcp" if bare else "/mcp/tickets"
            result = run_workers(sim.url, path, load, f"prof{time.time_ns()}", echo=bare, server_pid=sim.pid)
            if spy is not None:
                spy.send_signal(2)
                spy.wait(60)
    calls = sessions * 10
    return (
        f"{sessions} sessions x 10 calls, answered by {answered_by}, store {url}: wall {result.wall_s:.1f} s, "
        "server CPU per call "
        f"{result.server_cpu_s / calls * 1000:.2f} ms, errors {result.errors}"
    )


def summarize(path: Path, top: int = 60) -> str:
    """Inclusive and own-line sample shares per function, from py-spy's raw (collapsed stacks) output."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        frames = [frame.rsplit(":", 1)[0] + ")" if ":" in frame else frame for frame in stack.split(";")]
        total += samples
        own[frames[-1]] += samples
        for frame in set(frames):
            inclusive[frame] += samples
    lines = [f"{total} samples", "== inclusive"]
    lines += [f"{n * 100 / total:5.1f}% {frame}" for frame, n in inclusive.most_common(top)]
    lines += ["== own lines"] + [f"{n * 100 / total:5.1f}% {frame}" for frame, n in own.most_common(top // 2)]
    return "\n".join(lines)


# Where a call's time goes: the first part (in this order) whose function is on a sample's stack takes it.
PARTS = (
    ("a rules program (run_tool)", ("run_tool",)),
    ("the prompt (build_prompt)", ("build_prompt",)),
    ("the provider SDK's request (the wire's send)", ("_OpenAIWire.send", "_AnthropicWire.send")),
    ("the rest of the LLM backend (body, reply's parse)", ("LLMBackend.simulate",)),
    ("the store (lock, reads, commit)", ("RedisStore.", "MemoryStore.", "SqliteStore.", "ProcessLocks.")),
    ("after-commit hooks (metrics, live feed, recorder)", ("AfterCommit.emit",)),
    ("the engine (checks, validation, patch, event)", ("Simulator.",)),
    ("the server's call handler (session, result)", ("_ToolHandlers.",)),
)
OTHER = "the MCP SDK, Starlette, uvicorn and the event loop"


def parts(path: Path, cpu_ms: float | None = None) -> str:
    """The event loop's samples split into `PARTS` (idle worker threads left out); with `cpu_ms`, the
    server's CPU per call, each share also as milliseconds per call."""
    found: collections.Counter[str] = collections.Counter()
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit() or "run_forever" not in stack:
            continue
        names = [frame.split(" (", 1)[0] for frame in stack.split(";")]
        part = next((name for name, marks in PARTS if any(n.startswith(mark) for n in names for mark in marks)), OTHER)
        found[part] += int(count)
    total = sum(found.values()) or 1
    lines = ["| part | share | ms per call |", "|---|---:|---:|"]
    for name in [*(name for name, _ in PARTS), OTHER]:
        share = found[name] / total
        if share:
            ms = f"{share * cpu_ms:.2f}" if cpu_ms is not None else "-"
            lines.append(f"| {name} | {share * 100:.0f}% | {ms} |")
    return "\n".join(lines)


# The HTTP request's own path, apart from the tool's handler: what the transport costs either server.
TRANSPORT = (
    ("the tool's handler (serve_one, and the SDK's tool-schema lookup)", ("serve_one", "_mcp_param_rejection")),
    ("the MCP SDK's transport (handle_modern_request, response write)", ("StreamableHTTPASGIApp.",)),
    ("sim-mcp's middleware and routing (hosts, body limit, auth, /mcp/{env})", ("sim_mcp/",)),
)
REQUEST = "uvicorn and Starlette around them"


def transport(path: Path, cpu_ms: float) -> str:
    """The event loop's samples under uvicorn's request cycle split into `TRANSPORT`, in milliseconds per
    call given the server's CPU per call; the rest of the loop (other tasks, sockets) is the last row."""
    found: collections.Counter[str] = collections.Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit() or "run_forever" not in stack:
            continue
        total += int(count)
        if "RequestResponseCycle.run_asgi" not in stack:
            names = [frame.split(" (", 1)[0] for frame in stack.split(";")]
            if any(n.startswith(mark) for _, marks in PARTS for mark in marks for n in names):
                rest = "the tool's own work (engine, backend, store: see --parts)"
            elif "handle_modern_request.<locals>.run_handler" in names:
                rest = "the SDK's handler task around the tool (request model, OTel span, result)"
            else:
                rest = "the rest of the event loop (sockets, outbound requests' callbacks, timers)"
            found[rest] += int(count)
            continue
        part = next((name for name, marks in TRANSPORT if any(mark in stack for mark in marks)), REQUEST)
        found[part] += int(count)
    lines = ["| part | ms per call |", "|---|---:|"]
    for name, share in found.most_common():
        lines.append(f"| {name} | {share / (total or 1) * cpu_ms:.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1024)
    parser.add_argument("--store", choices=["memory", "redis"], default="memory")
    parser.add_argument(
        "--answered-by",
        choices=["llm", "rules", "bare"],
        default="llm",
        help="llm: the fake provider (default); rules: the tickets programs; bare: the bare SDK echo server",
    )
    parser.add_argument(
        "--bare-delay-ms",
        type=float,
        default=0.0,
        help="with --answered-by bare: the echo tool waits this long (100: as long as the fake provider)",
    )
    parser.add_argument("--out", type=Path, help="py-spy raw output file (none: measure without profiling)")
    parser.add_argument("--summarize", type=Path, help="summarize a py-spy raw file instead of running")
    parser.add_argument("--parts", type=Path, help="a py-spy raw file's samples by part of the call (PARTS)")
    parser.add_argument("--transport", type=Path, help="a py-spy raw file's request path split (TRANSPORT)")
    parser.add_argument("--cpu-ms", type=float, help="with --parts: the server CPU per call, to show milliseconds")
    args = parser.parse_args()
    if args.transport is not None:
        print(transport(args.transport, args.cpu_ms if args.cpu_ms is not None else 1.0))
    elif args.parts is not None:
        print(parts(args.parts, args.cpu_ms))
    elif args.summarize is not None:
        print(summarize(args.summarize))
    else:
        print(profile(args.sessions, args.store, args.out, args.answered_by, args.bare_delay_ms))


if __name__ == "__main__":
    main()
