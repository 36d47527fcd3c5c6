"""Server CPU per call of a served twin against the bare SDK server, over HTTP on 127.0.0.1, in rounds.

    python -m benchmarks.twins --servers memory --keep /tmp/twins       # makes /tmp/twins/memory/twin
    python -m benchmarks.twin_serve_cost /tmp/twins/memory/twin --rounds 4
    python -m benchmarks.twin_serve_cost /tmp/twins/memory/twin --tools create_entities,read_graph,search_nodes

The twin folder is served as `twin-check` serves it (`targets.serving`: `sim-mcp serve` on the folder,
`--backend replay` on its recordings for what its programs decline), the bare SDK server
(`bare_server.py`) beside it. Both get the same calls from the same lean client (`wire.py`, 2026-07-28
era, one keep-alive connection per session): `--sessions` sessions at once, `--calls` calls each, after
one untimed warm-up call per session. The bare server gets each call's arguments on its `echo` tool.

Each tool's arguments are made once, from the twin's recordings: those of the tool's first recorded
call that the real server answered without an error. Loads: "sequence" (each session calls the tools
in turn, in the order given, so the twin's world changes as in a session), then each tool alone (every
timed call that tool, so that tools can be told apart). A tool whose answer in the sequence is an error
(the twin's world at that point differs from the recorded one, or the twin cannot answer it) is left out,
and the run says so: every timed call is one the twin answers.

Rounds alternate which server goes first, with new sessions each round. A figure is the server
process's CPU per timed call (/proc/PID/stat); the ratio is the twin's to the bare server's in the same
round, and the table gives each round's ratio and their median: on a machine shared with other work both
move together, and the ratio moves less than either.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

if __package__ in (None, ""):
    # `python benchmarks/twin_serve_cost.py`: the repository importable as for `python -m`.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio

from benchmarks.clients import LoadResult, lean_http_load
from benchmarks.servers import HttpServer, bare_http, children_of, stop_all
from benchmarks.wire import CallFailed, Connection
from sim_mcp.authoring.twins.recordings import RECORDINGS_NAME, read_calls
from sim_mcp.authoring.twins.targets import parse_target, serving

TARGET = 1.25  # BENCHMARKS.md: a rules-program or replay answer costs at most 1.25x the bare server's CPU
SEQUENCE = "sequence"

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Served:
    """A running server: its base URL, the path its MCP endpoint is on, and its process id."""

    base: str
    path: str
    pid: int


def recorded_arguments(folder: Path) -> dict[str, dict[str, Any]]:
    """Each tool's arguments from the first call of it the real server answered without an error, in the
    order the tools were first answered so."""
    recordings = folder / RECORDINGS_NAME
    if not recordings.is_file():
        raise SystemExit(f"{folder}: no {RECORDINGS_NAME} in it (expected a twin folder from benchmarks.twins --keep)")
    found: dict[str, dict[str, Any]] = {}
    for call in read_calls(recordings).calls:
        if not call.is_error and call.result is not None and call.tool not in found:
            found[call.tool] = call.arguments
    return found


def choose_calls(arguments: dict[str, dict[str, Any]], tools: list[str] | None) -> list[Call]:
    """The sequence of calls: `tools` in the order given (all recorded tools when None), each with its
    recorded arguments; a named tool never answered without an error in the recordings is a clear error."""
    if tools is None:
        return list(arguments.items())
    missing = [tool for tool in tools if tool not in arguments]
    if missing:
        raise SystemExit(
            f"--tools: {', '.join(missing)}: no call answered without an error in the recordings; "
            f"expected some of {', '.join(arguments) or '(none)'}"
        )
    return [(tool, arguments[tool]) for tool in tools]


async def answered(served: Served, calls: list[Call], session: str) -> tuple[list[Call], list[str]]:
    """The calls of one pass of the sequence the twin answers without an error, and why the others are
    left out."""
    kept: list[Call] = []
    dropped: list[str] = []
    connection = Connection(served.base)
    try:
        for tool, arguments in calls:
            try:
                result = await connection.call(served.path, session, tool, arguments)
            except CallFailed as e:
                dropped.append(f"{tool}: {e}")
                continue
            if result.get("isError"):
                text = " ".join(str(part.get("text", "")) for part in result.get("content", []))
                dropped.append(f"{tool}: answered an error: {text[:160]}")
            else:
                kept.append((tool, arguments))
    finally:
        await connection.aclose()
    return kept, dropped


@contextmanager
def served_twin(folder: Path) -> Iterator[Served]:
    """The twin folder served as `twin-check` serves it; its process is the one child started here."""
    before = set(children_of(os.getpid()))
    with serving(parse_target(str(folder))) as target:
        started = set(children_of(os.getpid())) - before
        if len(started) != 1 or target.server is None:
            raise SystemExit(f"{folder}: expected one sim-mcp serve process, found {sorted(started)}")
        url = urlsplit(getattr(target.server, "url", ""))
        yield Served(f"{url.scheme}://{url.netloc}", url.path, started.pop())


@contextmanager
def profiled(pid: int, out: Path | None) -> Iterator[None]:
    """py-spy (raw, collapsed stacks) on process `pid` while the block runs, when `out` is given; read it
    with `python -m benchmarks.profile_rl --parts OUT --cpu-ms MS` (or `--summarize`, `--transport`)."""
    if out is None:
        yield
        return
    # Beside this interpreter too: a virtual environment's py-spy, run without activating it.
    py_spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if py_spy is None:
        raise SystemExit("--profile: py-spy is not installed (pip install py-spy; it is in the dev extra)")
    command = [py_spy, "record", "--pid", str(pid), "--format", "raw", "-o", str(out), "--rate", "200"]
    spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)  # attached before the first timed call
    try:
        yield
    finally:
        spy.send_signal(2)
        spy.wait(60)


def bare_served(server: HttpServer) -> Served:
    return Served(server.url, "/mcp", server.pid)


async def one_load(served: Served, plan: list[Call], *, echo: bool, sessions: int, calls: int, prefix: str) -> float:
    """Server CPU per timed call, in ms, of `sessions` sessions of `calls` calls following `plan` in turn
    (the warm-up call is plan[0]); NaN when any call failed."""

    def call(i: int) -> Call:
        tool, arguments = plan[i % len(plan)]
        return ("echo" if echo else tool), arguments

    result: LoadResult = await lean_http_load(
        served.base,
        path=served.path,
        clients=sessions,
        calls=calls,
        plan=call,
        session_prefix=prefix,
        server_pid=served.pid,
    )
    if result.errors:
        print(f"  {prefix}: {result.errors} calls failed: {'; '.join(result.error_samples)}", file=sys.stderr)
        return float("nan")
    return result.server_cpu_s / max(result.calls, 1) * 1000


async def measure(twin: Served, bare: Served, calls: list[Call], args: argparse.Namespace) -> dict[str, list[Row]]:
    names = itertools.count()
    tag = f"tsc{os.getpid()}"
    loads: dict[str, list[Call]] = {SEQUENCE: calls} if len(calls) > 1 else {}
    loads.update({tool: [(tool, arguments)] for tool, arguments in calls})
    rows: dict[str, list[Row]] = {load: [] for load in loads}
    for round_ in range(args.rounds):
        for load, plan in loads.items():
            figures: dict[bool, float] = {}
            for echo in (round_ % 2 == 0, round_ % 2 == 1):  # which goes first alternates by round
                server = bare if echo else twin
                prefix = f"{tag}-{next(names)}"
                figures[echo] = await one_load(
                    server, plan, echo=echo, sessions=args.sessions, calls=args.calls, prefix=prefix
                )
            row = Row(twin_ms=figures[False], bare_ms=figures[True])
            rows[load].append(row)
            print(
                f"round {round_ + 1} {load:<24} twin {row.twin_ms:.3f} ms  bare {row.bare_ms:.3f} ms  "
                f"ratio {row.ratio:.2f}x",
                flush=True,
            )
    return rows


@dataclass(frozen=True)
class Row:
    twin_ms: float
    bare_ms: float

    @property
    def ratio(self) -> float:
        return self.twin_ms / self.bare_ms if self.bare_ms > 0 else float("nan")


def table(rows: dict[str, list[Row]]) -> str:
    lines = [
        f"| load | twin CPU per call | bare SDK | ratio, median | ratio per round | <= {TARGET:g}x |",
        "|---|---:|---:|---:|---|---|",
    ]
    for load, values in rows.items():
        ratio = statistics.median(row.ratio for row in values)
        twin_ms = statistics.median(row.twin_ms for row in values)
        bare_ms = statistics.median(row.bare_ms for row in values)
        rounds = ", ".join(f"{row.ratio:.2f}" for row in values)
        verdict = "n/a" if ratio != ratio else ("PASS" if ratio <= TARGET else "MISS")
        lines.append(f"| {load} | {twin_ms:.3f} ms | {bare_ms:.3f} ms | {ratio:.2f}x | {rounds} | {verdict} |")
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    calls = choose_calls(recorded_arguments(args.folder), args.tools)
    with served_twin(args.folder) as twin, bare_http() as bare_server:
        kept, dropped = await answered(twin, calls, f"tsc{os.getpid()}-probe")
        for reason in dropped:
            print(f"left out: {reason}")
        if not kept:
            raise SystemExit(f"{args.folder}: the twin answered none of {', '.join(tool for tool, _ in calls)}")
        print(f"calls: {', '.join(tool for tool, _ in kept)}")
        with profiled(twin.pid, args.profile):
            rows = await measure(twin, bare_served(bare_server), kept, args)
    print(
        f"\n{args.folder}: {args.sessions} sessions x {args.calls} timed calls a load, {args.rounds} rounds, "
        "HTTP 2026-07-28 era, lean client; server CPU per call (medians over rounds)\n"
    )
    print(table(rows))
    return 0 if all(row.ratio == row.ratio for values in rows.values() for row in values) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="a twin's folder: spec.yaml, spec.rules.star, recordings.jsonl")
    parser.add_argument("--tools", help="comma-separated tools, in the order of the sequence (default: all recorded)")
    parser.add_argument("--sessions", type=int, default=4, help="sessions at once (default 4)")
    parser.add_argument("--calls", type=int, default=100, help="timed calls per session and load (default 100)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds, alternating which server goes first")
    parser.add_argument("--profile", type=Path, metavar="OUT", help="py-spy the twin's server into OUT (raw)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 round, 2 sessions x 20 calls")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        parser.error(
            f"{args.folder}: no such folder; expected a twin folder (benchmarks.twins --keep DIR: DIR/NAME/twin)"
        )
    if args.quick:
        args.rounds, args.sessions, args.calls = 1, 2, 20
    args.tools = [tool.strip() for tool in args.tools.split(",") if tool.strip()] if args.tools else None
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"load average at start: {load}")
    try:
        return anyio.run(run, args)
    finally:
        stop_all()
        print(f"load average at end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")


if __name__ == "__main__":
    sys.exit(main())
