"""`twin-check`: drive two MCP servers (normally a real one and its twin) with the same sessions and
compare them call by call.

Sessions are recorded ones (their calls as recorded, in order) and generated ones (`session_gen`: tools
and arguments drawn from the schemas, with ids and names taken from the reference's earlier answers,
ids that exist nowhere, and edge values). Each session starts both servers from their first world (a
command anew in a temporary folder, a URL with a session of its own). Server A is the reference: the
generated calls follow its answers.

The report holds, per tool and overall, how many calls agree (`agreement.compare_answers`), the first
call where each session diverged, and for each kind of divergence a shrunk sequence: the calls of the
first session that showed it, with every earlier call removed that is not needed for it to show again
(each try replays both servers from their first world; tries are bounded by `shrink_budget`).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError

from sim_mcp.authoring.twins.agreement import Answer, Verdict, compare_answers
from sim_mcp.authoring.twins.recordings import RecordedCall, sessions_of
from sim_mcp.authoring.twins.session_gen import CallGenerator, session_rng
from sim_mcp.authoring.twins.stateful import run_generated
from sim_mcp.authoring.twins.targets import Target
from sim_mcp.authoring.twins.upstream import Upstream, UpstreamFailure, without_folder
from sim_mcp.state.compare import answer_value

__all__ = ["CheckReport", "Step", "run_check"]

Call = tuple[str, dict[str, Any]]


@dataclass
class Step:
    tool: str
    arguments: dict[str, Any]
    a: Answer
    b: Answer
    verdict: Verdict


@dataclass
class SessionRun:
    name: str
    origin: str  # "recorded" or "generated"
    steps: list[Step] = field(default_factory=list)

    def first_divergence(self) -> tuple[int, Step] | None:
        return next(((index, step) for index, step in enumerate(self.steps) if not step.verdict.agree), None)


@dataclass
class CheckReport:
    a: str
    b: str
    seed: int
    sessions: list[SessionRun] = field(default_factory=list)
    shrunk: dict[str, list[Call]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        tools: dict[str, dict[str, int]] = {}
        for run in self.sessions:
            for step in run.steps:
                figure = tools.setdefault(step.tool, {"calls": 0, "agree": 0, "error_text_differs": 0})
                figure["calls"] += 1
                figure["agree"] += step.verdict.agree
                figure["error_text_differs"] += step.verdict.agree and not step.verdict.error_text
        calls = sum(figure["calls"] for figure in tools.values())
        agree = sum(figure["agree"] for figure in tools.values())
        # Stricter: an error agrees only with an error of the same text (a twin that says it cannot answer
        # meets a real error under the plain count, not under this one).
        same = agree - sum(figure["error_text_differs"] for figure in tools.values())
        return {
            "calls": calls,
            "agree": agree,
            "agreement": _ratio(agree, calls),
            "agree_same_error_text": same,
            "tools": dict(sorted(tools.items())),
        }

    def divergences(self) -> dict[str, dict[str, Any]]:
        kinds: dict[str, dict[str, Any]] = {}
        for run in self.sessions:
            for index, step in enumerate(run.steps):
                if step.verdict.agree:
                    continue
                key = f"{step.tool}: {step.verdict.kind}"
                entry = kinds.setdefault(key, {"count": 0, "first": f"{run.name} call {index + 1}", "detail": ""})
                entry["count"] += 1
                entry["detail"] = entry["detail"] or step.verdict.detail
        for key, calls in self.shrunk.items():
            if key in kinds:
                kinds[key]["shrunk"] = [{"tool": tool, "arguments": arguments} for tool, arguments in calls]
        return kinds

    def to_json(self) -> dict[str, Any]:
        first = []
        for run in self.sessions:
            found = run.first_divergence()
            first.append(
                {
                    "session": run.name,
                    "origin": run.origin,
                    "calls": len(run.steps),
                    "first_divergence": None
                    if found is None
                    else {"call": found[0] + 1, "tool": found[1].tool, "kind": found[1].verdict.kind},
                }
            )
        return {
            "a": self.a,
            "b": self.b,
            "seed": self.seed,
            **self.figures(),
            "sessions": first,
            "divergences": self.divergences(),
            "problems": self.problems,
        }

    def table(self) -> str:
        figures = self.figures()
        lines = [f"{'tool':<32} {'calls':>6} {'agree':>6} {'%':>7} {'same error text %':>18}"]
        for tool, figure in figures["tools"].items():
            calls, agree, same = figure["calls"], figure["agree"], figure["agree"] - figure["error_text_differs"]
            lines.append(f"{tool:<32} {calls:>6} {agree:>6} {_percent(agree, calls):>7} {_percent(same, calls):>18}")
        calls, agree, same = figures["calls"], figures["agree"], figures["agree_same_error_text"]
        lines.append(f"{'overall':<32} {calls:>6} {agree:>6} {_percent(agree, calls):>7} {_percent(same, calls):>18}")
        for key, entry in self.divergences().items():
            lines.append(f"- {key}: {entry['count']} (first: {entry['first']}; {entry['detail']})")
            if "shrunk" in entry:
                lines.append(
                    f"  shrunk to {len(entry['shrunk'])} calls: " + " -> ".join(c["tool"] for c in entry["shrunk"])
                )
        return "\n".join(lines)


@dataclass(frozen=True)
class CheckPlan:
    recorded: list[RecordedCall] = field(default_factory=list)
    sessions: int = 10  # generated sessions
    calls: int = 8  # calls per generated session
    seed: int = 0
    timeout: float = 60.0
    shrink_budget: int = 12  # replays per kind of divergence
    shrink_kinds: int = 6
    generator: str = "hypothesis"  # or "seeded": session_gen's own draws, one random source per session


async def run_check(
    a: Target, b: Target, plan: CheckPlan, progress: Callable[[str], None] = lambda line: None
) -> CheckReport:
    """Drive `a` and `b` (both ready: `targets.serving`) with the plan's sessions; the report of what agreed."""
    report = CheckReport(a.text, b.text, plan.seed)
    tools = await _tools_of(a, plan.timeout)
    recorded = sessions_of(plan.recorded)
    total = len(recorded) + plan.sessions
    for index, (name, calls) in enumerate(recorded.items(), start=1):
        run = await _run_session(
            a, b, f"recorded-{index}", "recorded", [(c.tool, c.arguments) for c in calls], None, plan
        )
        report.sessions.append(run)
        progress(_progress_line(index, total, name, run))
    if plan.generator == "hypothesis" and plan.sessions:
        await _hypothesis_sessions(
            a, b, tools, plan, report, lambda run: progress(_progress_line(len(report.sessions), total, run.name, run))
        )
    for number in range(plan.sessions if plan.generator != "hypothesis" else 0):
        generator = CallGenerator(tools, session_rng(plan.seed, number))
        run = await _run_session(a, b, f"seed{plan.seed}-{number}", "generated", [], generator, plan)
        report.sessions.append(run)
        progress(_progress_line(len(recorded) + number + 1, total, run.name, run))
    await _shrink_all(a, b, report, plan, progress)
    return report


@dataclass
class _Pair:
    """Both servers of one generated session, and what they answered so far."""

    sides: list[Upstream]
    folders: list[Path]
    run: SessionRun


async def _hypothesis_sessions(
    a: Target,
    b: Target,
    tools: list[tuple[str, dict[str, Any]]],
    plan: CheckPlan,
    report: CheckReport,
    done: Callable[[SessionRun], None],
) -> None:
    """Hypothesis' stateful testing draws the sessions (`stateful.run_generated`, in a worker thread); each
    step is played here, in the event loop, against both servers, which live in `tasks` meanwhile."""
    async with anyio.create_task_group() as tasks:

        async def open_pair() -> _Pair | None:
            made = sum(run.origin == "generated" for run in report.sessions)
            if made >= plan.sessions:
                # Hypothesis may try more examples than it counts: those past N draw as usual (raising here
                # would change what they draw, which Hypothesis reports as flaky) and play nothing.
                return None
            name = f"seed{plan.seed}-{made}"
            folders = [Path(tempfile.mkdtemp(prefix="sim-mcp-check-")) for _ in range(2)]
            sides = [Upstream(t.for_session(name, f), plan.timeout) for t, f in zip((a, b), folders, strict=True)]
            for side in sides:
                await side.start(tasks)
            return _Pair(sides, folders, SessionRun(name, "generated"))

        async def call(pair: _Pair | None, tool: str, arguments: dict[str, Any]) -> Any:
            if pair is None:
                return None
            answers = [
                await _answer(side, tool, arguments, f) for side, f in zip(pair.sides, pair.folders, strict=True)
            ]
            pair.run.steps.append(
                Step(tool, arguments, answers[0], answers[1], compare_answers(answers[0], answers[1]))
            )
            return answers[0].value

        async def close_pair(pair: _Pair | None) -> None:
            if pair is None:
                return
            for side in pair.sides:
                await side.stop()
            for folder in pair.folders:
                shutil.rmtree(folder, ignore_errors=True)
            report.sessions.append(pair.run)
            done(pair.run)

        def blocking() -> None:
            run_generated(
                tools,
                sessions=plan.sessions,
                calls=plan.calls,
                run_seed=plan.seed,
                open_session=lambda: anyio.from_thread.run(open_pair),
                call=lambda pair, tool, arguments: anyio.from_thread.run(call, pair, tool, arguments),
                close_session=lambda pair: anyio.from_thread.run(close_pair, pair),
            )

        await anyio.to_thread.run_sync(blocking)
        tasks.cancel_scope.cancel()


async def _tools_of(target: Target, seconds: float) -> list[tuple[str, dict[str, Any]]]:
    folder = Path(tempfile.mkdtemp(prefix="sim-mcp-check-"))
    try:
        async with anyio.create_task_group() as tasks:
            upstream = Upstream(target.for_session("tools-list", folder), seconds)
            await upstream.start(tasks)
            await upstream.stop()
            tasks.cancel_scope.cancel()
        return [(tool.name, dict(tool.input_schema)) for tool in upstream.tools]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _run_session(
    a: Target,
    b: Target,
    name: str,
    origin: str,
    calls: list[Call],
    generator: CallGenerator | None,
    plan: CheckPlan,
) -> SessionRun:
    run = SessionRun(name, origin)
    folders = [Path(tempfile.mkdtemp(prefix="sim-mcp-check-")) for _ in range(2)]
    try:
        async with anyio.create_task_group() as tasks:
            sides = [
                Upstream(target.for_session(name, folder), plan.timeout)
                for target, folder in zip((a, b), folders, strict=True)
            ]
            for side in sides:
                await side.start(tasks)
            length = len(calls) if generator is None else plan.calls
            for index in range(length):
                tool, arguments = calls[index] if generator is None else generator.next_call()
                answers = [
                    await _answer(side, tool, arguments, folder) for side, folder in zip(sides, folders, strict=True)
                ]
                if generator is not None:
                    generator.observe(answers[0].value)
                run.steps.append(Step(tool, arguments, answers[0], answers[1], compare_answers(answers[0], answers[1])))
                if not all(side.alive for side in sides):
                    break  # a server that failed has no world left to compare
            for side in sides:
                await side.stop()
            tasks.cancel_scope.cancel()
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    return run


async def _answer(upstream: Upstream, tool: str, arguments: dict[str, Any], folder: Path) -> Answer:
    try:
        result: types.CallToolResult = await upstream.call(tool, arguments)
    except MCPError as e:
        return Answer({"rpc_error": e.code}, True)
    except UpstreamFailure as e:
        return Answer({"failure": e.reason}, True)
    value = answer_value(result.model_dump(mode="json", by_alias=True, exclude_none=True))
    return Answer(without_folder(value, folder), bool(result.is_error))


async def _shrink_all(
    a: Target, b: Target, report: CheckReport, plan: CheckPlan, progress: Callable[[str], None]
) -> None:
    seen: set[str] = set()
    for run in report.sessions:
        for index, step in enumerate(run.steps):
            key = f"{step.tool}: {step.verdict.kind}"
            if step.verdict.agree or key in seen or len(seen) >= plan.shrink_kinds:
                continue
            seen.add(key)
            calls = [(s.tool, s.arguments) for s in run.steps[: index + 1]]
            report.shrunk[key] = await _shrink(a, b, calls, step.verdict.kind, plan)
            progress(f"shrunk {key}: {len(calls)} -> {len(report.shrunk[key])} calls")


async def _shrink(a: Target, b: Target, calls: list[Call], kind: str | None, plan: CheckPlan) -> list[Call]:
    """Drop earlier calls one at a time while the last call still diverges the same way."""
    budget = plan.shrink_budget
    index = 0
    while index < len(calls) - 1 and budget > 0:
        candidate = calls[:index] + calls[index + 1 :]
        budget -= 1
        run = await _run_session(a, b, f"shrink-{budget}", "shrink", candidate, None, plan)
        last = run.steps[-1] if len(run.steps) == len(candidate) else None
        if last is not None and not last.verdict.agree and last.verdict.kind == kind:
            calls = candidate
        else:
            index += 1
    return calls


def _progress_line(index: int, total: int, name: str, run: SessionRun) -> str:
    agree = sum(step.verdict.agree for step in run.steps)
    found = run.first_divergence()
    where = (
        "no divergence"
        if found is None
        else f"first divergence at call {found[0] + 1} ({found[1].tool}: {found[1].verdict.kind})"
    )
    return f"session {index}/{total} {name}: {agree}/{len(run.steps)} calls agree, {where}"


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"
