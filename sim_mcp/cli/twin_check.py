"""`sim-mcp twin-check`: drive two MCP servers with the same sessions and compare them call by call."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "twin-check",
        help="compare two MCP servers (a real one and its twin) call by call on the same sessions",
        usage="sim-mcp twin-check A B [--sessions N] [--seed S] [--recordings FILE] [--json] ...",
    )
    check.add_argument("a", metavar="A", help="the reference: a command line (quoted), a URL, or a spec folder")
    check.add_argument("b", metavar="B", help="the server compared with it, given the same way (a twin: its folder)")
    check.add_argument("--sessions", type=int, default=10, metavar="N", help="generated sessions (default 10)")
    check.add_argument("--calls", type=int, default=8, metavar="N", help="calls per generated session (default 8)")
    check.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the generated sessions (default 0; docs/twins.md: dev and test seeds)",
    )
    check.add_argument(
        "--recordings", type=Path, action="append", default=[], metavar="FILE", help="recorded sessions to drive too"
    )
    check.add_argument(
        "--env", action="append", default=[], metavar="K=V", help="environment of command servers ({tmp} allowed)"
    )
    check.add_argument(
        "--twin-arg", action="append", default=[], metavar="ARG", help="a flag for sim-mcp serve of a spec folder"
    )
    check.add_argument(
        "--generator",
        choices=["hypothesis", "seeded"],
        default="hypothesis",
        help="how generated sessions are drawn: Hypothesis stateful testing (default) or one seeded random source each",
    )
    check.add_argument("--timeout", type=float, default=60.0, help="seconds per call (default 60)")
    check.add_argument(
        "--shrink-budget", type=int, default=12, metavar="N", help="replays to shrink each divergence (default 12)"
    )
    check.add_argument(
        "--rename",
        action="store_true",
        help="replay recorded sessions with every value the agent chose (keys, titles, names) renamed to one never "
        "seen, in arguments and answers alike: a twin that memorised fails (run once without to compare)",
    )
    check.add_argument(
        "--value",
        action="append",
        default=[],
        metavar="NAME=V",
        help="generated sessions: an argument named NAME (or of its kind) mostly takes V (repeatable)",
    )
    check.add_argument(
        "--fixed-from",
        type=Path,
        metavar="FILE",
        help="recordings whose most common answer per tool is the fixed-answer trivial twin's (default: the "
        "recordings.jsonl of B's or A's spec folder, else the check's own reference answers)",
    )
    check.add_argument(
        "--compile-report",
        type=Path,
        metavar="FILE",
        help="compile's --report of B: listings it names as in no learnable order are compared as sets, counted apart",
    )
    check.add_argument(
        "--json", action="store_true", help="print the report as JSON, each call's answers on both sides"
    )
    add_log_level(check, "WARNING")
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from sim_mcp.authoring.twins.agreement import Answer
    from sim_mcp.authoring.twins.check import CheckPlan, fixed_answers, run_check
    from sim_mcp.authoring.twins.recordings import RECORDINGS_NAME, RecordedCall, read_calls
    from sim_mcp.authoring.twins.targets import parse_target, serving

    if args.sessions < 0 or args.calls < 1:
        raise ConfigError("--sessions: expected 0 or more; --calls: expected 1 or more")
    env = dict(_pair(text, "--env") for text in args.env)
    recorded: list[RecordedCall] = []
    problems: list[str] = []
    for path in args.recordings:
        found = read_calls(path)
        recorded += found.calls
        problems += found.problems
    for problem in problems:
        print(f"sim-mcp twin-check: {problem}", file=sys.stderr)
    a = parse_target(args.a, env, tuple(args.twin_arg))
    b = parse_target(args.b, env, tuple(args.twin_arg))
    fixed_from = args.fixed_from or next(
        (
            target.spec_folder / RECORDINGS_NAME
            for target in (b, a)
            if target.spec_folder is not None and (target.spec_folder / RECORDINGS_NAME).is_file()
        ),
        None,
    )
    fixed = None
    if fixed_from is not None:
        fixed = fixed_answers((call.tool, Answer(call.value, call.is_error)) for call in read_calls(fixed_from).calls)
    plan = CheckPlan(
        recorded,
        args.sessions,
        args.calls,
        args.seed,
        args.timeout,
        args.shrink_budget,
        generator=args.generator,
        rename=args.rename,
        fixed=fixed,
        fixed_from=str(fixed_from) if fixed_from is not None else "",
        values=tuple(_pair(text, "--value") for text in args.value),
        unordered=_unordered(args.compile_report),
    )
    with serving(a) as ready_a, serving(b) as ready_b:
        report = anyio.run(
            lambda: run_check(ready_a, ready_b, plan, lambda line: print(line, file=sys.stderr, flush=True))
        )
    report.problems += problems
    print(json.dumps(report.to_json(), indent=2) if args.json else report.table())
    return 0


def _unordered(report: Path | None) -> dict[str, list[str]]:
    if report is None:
        return {}
    try:
        tools = json.loads(report.read_text(encoding="utf-8")).get("tools", {})
    except (OSError, ValueError) as e:
        raise ConfigError(f"--compile-report {report}: cannot read it as compile's JSON report: {e}") from e
    return {name: list(entry["unordered"]) for name, entry in tools.items() if entry.get("unordered")}


def _pair(text: str, flag: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise ConfigError(f"{flag}: expected NAME=VALUE, got {text!r}")
    return key, value
