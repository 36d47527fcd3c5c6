"""One client process of the RL-scale benchmark: many sessions, each an asyncio task making its calls.

    python -m benchmarks.rl_worker --url http://127.0.0.1:PORT --path /mcp/tickets --client lean \
        --first 0 --count 512 --calls 10 --prefix rl-abc

It connects every session (SDK: the client enters and lists the tools, as it would before its first
call; lean: nothing, each session's connection opens at its first call), prints `ready`, waits for a
line on stdin, makes the calls, and prints one JSON line: when it started and finished
(time.monotonic, which is system-wide), the latencies, the errors, and every check that failed.
`--echo` calls the bare server's `echo` tool with the same arguments instead (the baseline), checking
only that no call fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.client import Client

from benchmarks.wire import CallFailed, Connection

CREATES = 5


def email_of(session: str) -> str:
    return f"{session}@bench.example"


def title_of(session: str, k: int) -> str:
    return f"{session}: issue {k}"


def planned_call(session: str, i: int, created: list[str]) -> tuple[str, dict[str, Any]]:
    """Call `i` (0-based) of a session: creates first, then reads of what it created, then a list."""
    if i < CREATES:
        arguments = {
            "title": title_of(session, i),
            "description": f"Reported by {session}, case {i}.",
            "customer_email": email_of(session),
        }
        return "create_ticket", arguments
    reads = i - CREATES
    if reads < len(created) and i < 9:
        return "get_ticket", {"ticket_id": created[reads]}
    return "list_tickets", {"customer_email": email_of(session)}


@dataclass
class Report:
    started: float = 0.0
    finished: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    problems: list[str] = field(default_factory=list)
    cpu_s: float = 0.0

    def problem(self, message: str) -> None:
        self.errors += 1
        if len(self.problems) < 10:
            self.problems.append(message[:300])


def check(session: str, tool: str, result: Any, created: list[str], report: Report) -> None:
    """Record any result that is not this session's own (a leak) or not what the call should give."""
    if not isinstance(result, dict):
        report.problem(f"{session}: {tool} gave a non-object result: {str(result)[:120]}")
        return
    if tool == "create_ticket":
        created.append(str(result.get("id")))
        if not str(result.get("title", "")).startswith(f"{session}: "):
            report.problem(f"{session}: create_ticket returned another title: {result.get('title')!r}")
    elif tool == "get_ticket":
        if result.get("customer_email") != email_of(session):
            report.problem(f"{session}: get_ticket returned another session's ticket: {result.get('title')!r}")
    elif tool == "list_tickets":
        tickets = result.get("tickets", [])
        titles = sorted(str(ticket.get("title")) for ticket in tickets)
        if titles != sorted(title_of(session, k) for k in range(CREATES)):
            report.problem(f"{session}: list_tickets returned {titles[:6]}")


async def run_sdk(args: argparse.Namespace, sessions: list[str], report: Report) -> None:
    async with AsyncExitStack() as stack:
        clients: list[Client] = []
        for session in sessions:
            client = Client(f"{args.url}{args.path}?session={session}", mode=args.mode)
            clients.append(await stack.enter_async_context(client))

        async def list_tools(session: str, client: Client) -> None:
            try:
                await client.list_tools()
            except Exception as e:
                report.problem(f"{session}: tools/list: {describe(e)}")

        async with anyio.create_task_group() as tasks:
            for session, client in zip(sessions, clients, strict=True):
                tasks.start_soon(list_tools, session, client)
        await _ready()
        report.started = time.monotonic()
        cpu = time.process_time()

        async def one(session: str, client: Client) -> None:
            created: list[str] = []
            for i in range(args.calls):
                tool, arguments = planned_call(session, i, created)
                started = time.perf_counter()
                try:
                    outcome = await client.call_tool("echo" if args.echo else tool, arguments)
                except Exception as e:
                    report.problem(f"{session}: {tool}: {describe(e)}")
                    continue
                report.latencies.append(time.perf_counter() - started)
                if outcome.is_error:
                    text = getattr(outcome.content[0], "text", "") if outcome.content else ""
                    report.problem(f"{session}: {tool} is_error: {text}")
                elif not args.echo:
                    check(session, tool, outcome.structured_content, created, report)
                elif tool == "create_ticket":
                    created.append(f"T-{1006 + len(created)}")

        async with anyio.create_task_group() as tasks:
            for session, client in zip(sessions, clients, strict=True):
                tasks.start_soon(one, session, client)
        report.finished = time.monotonic()
        report.cpu_s = time.process_time() - cpu


async def run_lean(args: argparse.Namespace, sessions: list[str], report: Report) -> None:
    """Each session a task with its own connection (`wire.Connection`), opened at its first call."""
    connections = {session: Connection(args.url) for session in sessions}
    try:
        await _ready()
        report.started = time.monotonic()
        cpu = time.process_time()

        async def one(session: str) -> None:
            created: list[str] = []
            for i in range(args.calls):
                tool, arguments = planned_call(session, i, created)
                started = time.perf_counter()
                try:
                    outcome = await connections[session].call(
                        args.path, session, "echo" if args.echo else tool, arguments
                    )
                except CallFailed as e:
                    report.problem(f"{session}: {tool}: {e}")
                    continue
                report.latencies.append(time.perf_counter() - started)
                if outcome.get("isError"):
                    report.problem(f"{session}: {tool} is_error: {json.dumps(outcome)[:200]}")
                elif not args.echo:
                    check(session, tool, outcome.get("structuredContent"), created, report)
                elif tool == "create_ticket":
                    created.append(f"T-{1006 + len(created)}")

        async with anyio.create_task_group() as tasks:
            for session in sessions:
                tasks.start_soon(one, session)
        report.finished = time.monotonic()
        report.cpu_s = time.process_time() - cpu
    finally:
        for connection in connections.values():
            await connection.aclose()


async def _ready() -> None:
    print("ready", flush=True)
    line = await anyio.to_thread.run_sync(sys.stdin.readline)
    if line.strip() != "go":
        raise SystemExit(f"rl_worker: expected 'go' on stdin, got {line!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description="One client process of the RL-scale benchmark.")
    parser.add_argument("--url", required=True)
    parser.add_argument("--path", default="/mcp")
    parser.add_argument("--client", choices=["sdk", "lean"], default="lean")
    parser.add_argument("--mode", default="auto", help="SDK client mode: auto (2026-07-28) or legacy")
    parser.add_argument("--first", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--echo", action="store_true", help="call the bare server's echo tool instead")
    args = parser.parse_args()
    sessions = [f"{args.prefix}-{n:05d}" for n in range(args.first, args.first + args.count)]
    report = Report()
    try:
        anyio.run(run_sdk if args.client == "sdk" else run_lean, args, sessions, report)
    except Exception as e:
        raise SystemExit(f"rl_worker: {describe(e)}") from None
    print(json.dumps(report.__dict__), flush=True)


def describe(error: BaseException) -> str:
    """The first leaf of an exception group (the SDK nests them deeply), as `Type: message`."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


if __name__ == "__main__":
    main()
