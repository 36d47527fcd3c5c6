"""Record scripted sessions of a fixture server through `sim-mcp record`, build its twin with no model,
and check it against the real server on other sessions: what the twin tests run, and, run as a module,
a measurement (`python -m tests.fixture_servers.harness kv --train 20 --check 50`)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError

from sim_mcp.authoring.twins.build import build_twin
from sim_mcp.authoring.twins.check import CheckPlan, CheckReport, run_check
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.authoring.twins.targets import Target, parse_target, recording, serving
from sim_mcp.authoring.twins.upstream import Upstream
from tests.fixture_servers.sessions import Call, folder_sessions, kv_sessions, todo_sessions

FIXTURES = {
    "kv": ("tests.fixture_servers.kv_store", kv_sessions),
    "todo": ("tests.fixture_servers.todo_store", todo_sessions),
    "folder": ("tests.fixture_servers.folder_store", folder_sessions),
}


def command_of(fixture: str) -> list[str]:
    return [sys.executable, "-m", FIXTURES[fixture][0]]


async def drive(target: Target, sessions: list[list[Call]], prefix: str, at_once: int = 4) -> int:
    """Play each session's calls against `target` (a server of its own per session, `at_once` sessions at a
    time); the calls answered."""
    answered = 0
    limit = anyio.Semaphore(at_once)

    async def one(number: int, calls: list[Call]) -> None:
        nonlocal answered
        async with limit:
            folder = Path(tempfile.mkdtemp(prefix="sim-mcp-fixture-"))
            try:
                async with anyio.create_task_group() as tasks:
                    upstream = Upstream(target.for_session(f"{prefix}-{number}", folder), 30.0)
                    await upstream.start(tasks)
                    for tool, arguments in calls:
                        try:
                            await upstream.call(tool, arguments)
                        except MCPError:
                            continue
                        answered += 1
                    await upstream.stop()
                    tasks.cancel_scope.cancel()
            finally:
                shutil.rmtree(folder, ignore_errors=True)

    async with anyio.create_task_group() as sessions_group:
        for number, calls in enumerate(sessions):
            sessions_group.start_soon(one, number, calls)
    return answered


def checked(sessions: list[list[Call]]) -> list[RecordedCall]:
    """Sessions to replay in twin-check (only their calls are used)."""
    return [
        RecordedCall(f"check-{number}", seq, tool, arguments, None, False)
        for number, session in enumerate(sessions)
        for seq, (tool, arguments) in enumerate(session, start=1)
    ]


def record_and_build(fixture: str, folder: Path, train: int, calls: int, seed: int = 0) -> dict[str, Any]:
    """Record `train` sessions of the fixture into `folder` and build its twin there; the compile report."""
    sessions = FIXTURES[fixture][1]("train", seed, train, calls)
    with recording(command_of(fixture), folder) as proxy:
        anyio.run(drive, proxy, sessions, "train")
    report = anyio.run(build_twin, folder / "spec.yaml", [folder / "recordings.jsonl"])
    return report.to_json()


def check(fixture: str, folder: Path, sessions: int, calls: int, pool: str = "check", seed: int = 1) -> CheckReport:
    """Replay `sessions` sessions of names from `pool` against the real server and the twin in `folder`."""
    plan = CheckPlan(recorded=checked(FIXTURES[fixture][1](pool, seed, sessions, calls)), sessions=0, shrink_kinds=0)
    real = parse_target(" ".join(command_of(fixture)))
    with serving(parse_target(str(folder))) as twin:
        return anyio.run(run_check, real, twin, plan)


def successes(report: CheckReport) -> dict[str, tuple[int, int]]:
    """Per tool (and `overall`): calls the real server answered successfully, and how many of them agree."""
    out: dict[str, tuple[int, int]] = {}
    for run in report.sessions:
        for step in run.steps:
            if step.a.is_error:
                continue
            for name in (step.tool, "overall"):
                calls, agree = out.get(name, (0, 0))
                out[name] = (calls + 1, agree + step.verdict.agree)
    return out


def fixed_answers(report: CheckReport, folder: Path) -> tuple[int, int]:
    """What a twin that gives each tool its most common recorded answer, whatever the world, would score on
    the calls the real server answered successfully: (agree, calls)."""
    common: dict[str, Any] = {}
    counts: dict[str, dict[str, int]] = {}
    for line in (folder / "recordings.jsonl").read_text().splitlines():
        call = json.loads(line)
        if "tool" not in call:
            continue
        text = json.dumps(
            RecordedCall(
                **{k: call.get(k) for k in ("session", "seq", "tool", "arguments", "result", "is_error")}
            ).value,
            sort_keys=True,
        )
        counts.setdefault(call["tool"], {}).setdefault(text, 0)
        counts[call["tool"]][text] += 1
    for tool, seen in counts.items():
        common[tool] = json.loads(max(seen, key=lambda text: seen[text]))
    steps = [step for run in report.sessions for step in run.steps if not step.a.is_error]
    agree = sum(
        step.tool in common
        and json.dumps(step.a.value, sort_keys=True) == json.dumps(common[step.tool], sort_keys=True)
        for step in steps
    )
    return agree, len(steps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("fixture", choices=sorted(FIXTURES))
    parser.add_argument("--train", type=int, default=20)
    parser.add_argument("--check", type=int, default=50)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1, help="seed of the checked sessions")
    parser.add_argument("--pool", default="check", help="names of the checked sessions: check (unseen) or train")
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="sim-mcp-fixture-twin-"))
    try:
        built = record_and_build(args.fixture, folder, args.train, args.calls)
        report = check(args.fixture, folder, args.check, args.calls, args.pool, args.seed)
        fixed = fixed_answers(report, folder)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    figures = report.figures()
    errors = sum(step.a.is_error for run in report.sessions for step in run.steps)
    print(
        f"{args.fixture}: {figures['agree']}/{figures['calls']} agree ({100 * figures['agreement']:.1f}%), "
        f"{errors} of the reference's answers errors"
    )
    print(f"  a fixed answer per tool would agree on {fixed[0]} of the {fixed[1]} successes; an error on none")
    for tool, (calls, agree) in sorted(successes(report).items()):
        print(f"  successes {tool:<16} {agree}/{calls}")
    for tool, entry in built["tools"].items():
        print(f"  built {tool:<16} {entry['status']}: {entry.get('reason') or ''}")
    for key, entry in report.divergences().items():
        print(f"  - {key}: {entry['count']} ({entry['detail']})")
    print(json.dumps({"agreement": figures["agreement"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
