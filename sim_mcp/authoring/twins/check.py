"""`twin-check`: drive two MCP servers (normally a real one and its twin) with the same sessions and
compare them call by call.

Sessions are recorded ones (their calls as recorded, in order) and generated ones (`session_gen`: tools
and arguments drawn from the schemas, with ids and names taken from the reference's earlier answers,
ids that exist nowhere, and edge values). Each session starts both servers from their first world (a
command anew in a temporary folder, a URL with a session of its own). Server A is the reference: the
generated calls follow its answers.

The report holds, per tool and overall, how many calls agree (`agreement.compare_answers`), how many of
the reference's answers were errors, and the headline: agreement on the calls the reference answered
successfully (an error agrees with any error, so a twin that fails everything agrees with a reference that
does). Beside it, the same with every day exact (`compare_answers(days="exact")`: a bare day, which
agreement otherwise compares by form, compared as it is), so that a twin that writes a wrong computed day
does not score as if right; a server that writes its clock's day differs from a twin checked another day
there, so that figure is a lower bound for it. Beside each figure, what two trivial twins score on the same
calls: one that always answers an error, and one that answers each tool's most common recorded answer
whatever the state (`fixed_answers`, from the recordings a twin was built from; else the check's own
reference answers). Then the first call
where each session diverged, and for each kind of divergence a shrunk sequence: the calls of the first
session that showed it, with every earlier call removed that is not needed for it to show again (each try
replays both servers from their first world; tries are bounded by `shrink_budget`).

`{tmp}` in a call's arguments becomes the session's folder on a side started in one (a command): recorded
and generated arguments name the folder as `{tmp}`, as the recordings and the reference's answers do.
A listing whose order nothing learnable explains (compile's report names it, `unordered`) agrees when
it differs from the other only in order, and such calls are counted apart (`agree_as_a_set`).
Recorded sessions may be replayed with the values the agent chose renamed (`rename`); values a server
made up (UUIDs, long hex) are lined up, side by side, with the recorded ones, so that a later call names
what that side made up (`rename.IdMap`).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

import anyio
import anyio.from_thread
import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError

from sim_mcp.authoring.twins.agreement import Answer, Days, Verdict, compare_answers
from sim_mcp.authoring.twins.keyed_world import as_set
from sim_mcp.authoring.twins.recordings import RecordedCall, sessions_of
from sim_mcp.authoring.twins.rename import IdMap, Renamer, chosen_values, known_text
from sim_mcp.authoring.twins.session_gen import CallGenerator, session_rng
from sim_mcp.authoring.twins.stateful import run_generated
from sim_mcp.authoring.twins.targets import Target
from sim_mcp.authoring.twins.upstream import Upstream, UpstreamFailure, with_folder, without_folder
from sim_mcp.state.compare import answer_value
from sim_mcp.state.values import strings_in

__all__ = ["CheckPlan", "CheckReport", "Step", "fixed_answers", "run_check"]

Call = tuple[str, dict[str, Any]]
_Call = tuple[str, dict[str, Any], Any]  # a call, and its recorded answer's value (None: none to line up)
_MOSTLY_ERRORS = 0.5


def fixed_answers(calls: Iterable[tuple[str, Answer]]) -> dict[str, Answer]:
    """Each tool's most common answer in `calls` (the first of those tied): the fixed-answer twin's.
    From recordings: `fixed_answers((c.tool, Answer(c.value, c.is_error)) for c in recorded)`."""
    counts: dict[str, Counter[str]] = {}
    first: dict[str, dict[str, Answer]] = {}
    for tool, answer in calls:
        key = json.dumps([answer.value, answer.is_error], sort_keys=True, default=str)
        counts.setdefault(tool, Counter())[key] += 1
        first.setdefault(tool, {}).setdefault(key, answer)
    return {tool: first[tool][counter.most_common(1)[0][0]] for tool, counter in counts.items()}


@dataclass
class Step:
    tool: str
    arguments: dict[str, Any]
    a: Answer
    b: Answer
    verdict: Verdict
    fixed: Verdict | None = None  # the fixed-answer twin's answer against A's (set by `CheckReport.score_fixed`)
    as_a_set: bool = False  # agrees only with its unordered listings compared as sets
    # The verdict with every day exact (`compare_answers(days="exact")`); None: computed here from the answers
    # (with the listings at `unordered` as sets, the check passes it: `_compared(..., days="exact")`).
    exact: Verdict | None = None
    fixed_exact: Verdict | None = None  # the fixed-answer twin's, with every day exact

    def __post_init__(self) -> None:
        if self.exact is None:
            agrees = self.verdict.agree and not self.as_a_set
            self.exact = compare_answers(self.a, self.b, days="exact") if agrees else self.verdict

    @property
    def exact_agree(self) -> bool:
        return self.exact is not None and self.exact.agree

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "a": {"is_error": self.a.is_error, "value": self.a.value},
            "b": {"is_error": self.b.is_error, "value": self.b.value},
            "agree": self.verdict.agree,
            "agree_as_a_set": self.as_a_set,
            "agree_exact_days": self.exact_agree,
            "same_error_text": self.verdict.agree and self.verdict.error_text,
            "kind": self.verdict.kind,
            "detail": self.verdict.detail,
        }


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

    fixed_from: str = ""  # where the fixed-answer twin's answers came from
    renamed: dict[str, str] = field(default_factory=dict)  # chosen value -> its new name (`CheckPlan.rename`)

    def score_fixed(self, answers: dict[str, Answer], source: str) -> None:
        """Score the fixed-answer twin (`answers`: one per tool) on every call of the check."""
        self.fixed_from = source
        for run in self.sessions:
            for step in run.steps:
                fixed = answers.get(step.tool)
                step.fixed = compare_answers(step.a, fixed) if fixed is not None else Verdict(False, "no answer")
                step.fixed_exact = (
                    compare_answers(step.a, fixed, days="exact") if fixed is not None else Verdict(False, "no answer")
                )

    def figures(self) -> dict[str, Any]:
        """Per tool and overall: calls, agreement, the reference's errors, agreement on its successes (also
        with every day exact: `*_exact_days`), and the trivial twins' figures on the same calls."""
        if any(step.fixed is None for run in self.sessions for step in run.steps):
            own = ((step.tool, step.a) for run in self.sessions for step in run.steps)
            self.score_fixed(fixed_answers(own), "the check's own reference answers")
        tools: dict[str, dict[str, Any]] = {}
        for run in self.sessions:
            for step in run.steps:
                figure = tools.setdefault(step.tool, dict.fromkeys(_COUNTS, 0))
                success = not step.a.is_error
                fixed = step.fixed is not None and step.fixed.agree
                fixed_exact = step.fixed_exact is not None and step.fixed_exact.agree
                figure["calls"] += 1
                figure["agree"] += step.verdict.agree
                figure["error_text_differs"] += step.verdict.agree and not step.verdict.error_text
                figure["reference_errors"] += not success
                figure["successes"] += success
                figure["agree_on_successes"] += success and step.verdict.agree
                figure["agree_exact_days"] += step.exact_agree
                figure["agree_on_successes_exact_days"] += success and step.exact_agree
                figure["fixed_agree"] += fixed
                figure["fixed_agree_on_successes"] += success and fixed
                figure["fixed_agree_on_successes_exact_days"] += success and fixed_exact
                figure["agree_as_a_set"] += step.as_a_set
        total = {key: sum(figure[key] for figure in tools.values()) for key in _COUNTS}
        for figure in [*tools.values(), total]:
            figure.update(_shares(figure))
        warnings = []
        if total["calls"] and total["reference_errors"] > _MOSTLY_ERRORS * total["calls"]:
            warnings.append(
                f"{total['reference_errors']} of {total['calls']} reference answers were errors: an error agrees "
                "with any error, so read the agreement on successful calls"
            )
        never = sorted(tool for tool, figure in tools.items() if not figure["successes"])
        if never:
            warnings.append("tools the reference never answered successfully here: " + ", ".join(never))
        return {
            **total,
            # Kept under their old names too (callers read these).
            "agree_same_error_text": total["agree"] - total["error_text_differs"],
            "trivial": {
                "always_error": {"agreement": total["error_share"], "success_agreement": 0.0},
                "fixed_answer": {
                    "agreement": total["fixed_agreement"],
                    "success_agreement": total["fixed_success_agreement"],
                    "success_agreement_exact_days": total["fixed_success_agreement_exact_days"],
                    "from": self.fixed_from,
                },
            },
            "never_succeeded": never,
            "warnings": warnings,
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
                    "steps": [step.to_json() for step in run.steps],
                }
            )
        return {
            "a": self.a,
            "b": self.b,
            "seed": self.seed,
            **self.figures(),
            "sessions": first,
            "divergences": self.divergences(),
            "renamed": self.renamed,
            "problems": self.problems,
        }

    def table(self) -> str:
        figures = self.figures()
        lines = [
            f"{'tool':<30} {'calls':>6} {'ref errors':>10} {'agree %':>8} {'same text %':>11} "
            f"{'on successes':>14} {'days exact':>11} {'fixed-answer twin':>18}"
        ]
        rows = [*figures["tools"].items(), ("overall", figures)]
        for tool, figure in rows:
            on_successes = f"{figure['agree_on_successes']}/{figure['successes']}"
            days_exact = f"{figure['agree_on_successes_exact_days']}/{figure['successes']}"
            fixed_all = _percent(figure["fixed_agree"], figure["calls"])
            fixed = f"{fixed_all} / {_percent(figure['fixed_agree_on_successes'], figure['successes'])}"
            lines.append(
                f"{tool:<30} {figure['calls']:>6} {figure['reference_errors']:>10} "
                f"{_percent(figure['agree'], figure['calls']):>8} "
                f"{_percent(figure['agree'] - figure['error_text_differs'], figure['calls']):>11} "
                f"{on_successes:>14} {days_exact:>11} {fixed:>18}"
            )
        lines.append(
            f"headline: {_percent(figures['agree_on_successes'], figures['successes'])}% of the "
            f"{figures['successes']} calls the reference answered successfully agree "
            f"(all calls {_percent(figures['agree'], figures['calls'])}%, same error text "
            f"{_percent(figures['agree_same_error_text'], figures['calls'])}%; reference errors "
            f"{_percent(figures['reference_errors'], figures['calls'])}%)"
        )
        lines.append(
            f"with every day exact: {_percent(figures['agree_on_successes_exact_days'], figures['successes'])}% "
            f"({figures['agree_on_successes_exact_days']} of {figures['successes']}) of the successful calls agree "
            f"(all calls {_percent(figures['agree_exact_days'], figures['calls'])}%): a day the server computes must "
            "equal the twin's; a server's clock day differs from a twin checked another day, so this is a lower bound"
        )
        lines.append(
            "trivial twins on the same calls: always an error "
            f"{_percent(figures['reference_errors'], figures['calls'])}% "
            f"(0% on successes); each tool's most common answer {_percent(figures['fixed_agree'], figures['calls'])}% "
            f"({_percent(figures['fixed_agree_on_successes'], figures['successes'])}% on successes; from "
            f"{self.fixed_from}; {_percent(figures['fixed_agree_on_successes_exact_days'], figures['successes'])}% "
            "with every day exact)"
        )
        if figures["agree_as_a_set"]:
            apart = ", ".join(f"{t} {f['agree_as_a_set']}" for t, f in figures["tools"].items() if f["agree_as_a_set"])
            lines.append(
                f"{figures['agree_as_a_set']} of the calls that agree do so only with their listings compared as sets "
                f"(an order the recordings do not explain, named by compile): {apart}"
            )
        lines += [f"warning: {warning}" for warning in figures["warnings"]]
        for key, entry in self.divergences().items():
            lines.append(f"- {key}: {entry['count']} (first: {entry['first']}; {entry['detail']})")
            if "shrunk" in entry:
                lines.append(
                    f"  shrunk to {len(entry['shrunk'])} calls: " + " -> ".join(c["tool"] for c in entry["shrunk"])
                )
        return "\n".join(lines)


_COUNTS = (
    "calls",
    "agree",
    "error_text_differs",
    "reference_errors",
    "successes",
    "agree_on_successes",
    "fixed_agree",
    "fixed_agree_on_successes",
    "agree_as_a_set",
    "agree_exact_days",
    "agree_on_successes_exact_days",
    "fixed_agree_on_successes_exact_days",
)


def _shares(figure: dict[str, Any]) -> dict[str, float]:
    return {
        "agreement": _ratio(figure["agree"], figure["calls"]),
        "same_error_text": _ratio(figure["agree"] - figure["error_text_differs"], figure["calls"]),
        "error_share": _ratio(figure["reference_errors"], figure["calls"]),
        "success_agreement": _ratio(figure["agree_on_successes"], figure["successes"]),
        "fixed_agreement": _ratio(figure["fixed_agree"], figure["calls"]),
        "fixed_success_agreement": _ratio(figure["fixed_agree_on_successes"], figure["successes"]),
        "agreement_exact_days": _ratio(figure["agree_exact_days"], figure["calls"]),
        "success_agreement_exact_days": _ratio(figure["agree_on_successes_exact_days"], figure["successes"]),
        "fixed_success_agreement_exact_days": _ratio(
            figure["fixed_agree_on_successes_exact_days"], figure["successes"]
        ),
    }


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
    rename: bool = False  # recorded sessions with the values the agent chose renamed (`rename`)
    fixed: dict[str, Answer] | None = None  # the fixed-answer twin's answers (None: from the check itself)
    fixed_from: str = ""
    values: tuple[tuple[str, str], ...] = ()  # NAME=V: values generated arguments named NAME take
    # tool -> JSON pointers of listings whose order nothing learnable explains (compile's report names them):
    # compared as sets when they differ only in order, and counted apart.
    unordered: dict[str, list[str]] = field(default_factory=dict)


async def run_check(
    a: Target, b: Target, plan: CheckPlan, progress: Callable[[str], None] = lambda line: None
) -> CheckReport:
    """Drive `a` and `b` (both ready: `targets.serving`) with the plan's sessions; the report of what agreed."""
    report = CheckReport(a.text, b.text, plan.seed)
    tools, descriptions = await _tools_of(a, plan.timeout)
    recorded = {
        name: [(c.tool, c.arguments, c.value) for c in calls] for name, calls in sessions_of(plan.recorded).items()
    }
    if plan.rename:
        recorded = _renamed(recorded, known_text(tools, descriptions), plan.seed, report)
    total = len(recorded) + plan.sessions
    for index, (name, calls) in enumerate(recorded.items(), start=1):
        run = await _run_session(a, b, f"recorded-{index}", "recorded", calls, None, plan)
        report.sessions.append(run)
        progress(_progress_line(index, total, name, run))
    if plan.generator == "hypothesis" and plan.sessions:
        await _hypothesis_sessions(
            a,
            b,
            tools,
            plan,
            report,
            lambda run: progress(_progress_line(len(report.sessions), total, run.name, run)),
            descriptions,
        )
    for number in range(plan.sessions if plan.generator != "hypothesis" else 0):
        generator = CallGenerator(tools, session_rng(plan.seed, number), values=dict(plan.values), notes=descriptions)
        run = await _run_session(a, b, f"seed{plan.seed}-{number}", "generated", [], generator, plan)
        report.sessions.append(run)
        progress(_progress_line(len(recorded) + number + 1, total, run.name, run))
    await _shrink_all(a, b, report, plan, progress)
    if plan.fixed is not None:
        report.score_fixed(plan.fixed, plan.fixed_from)
    return report


def _unique(name: str) -> str:
    """A session's name on a server: unique, so that a server at a URL (a twin served for several checks,
    a shrink's replays) gives every session a world of its own, never one a session of the same name left."""
    return f"{name}-{uuid4().hex[:8]}"


def _compared(a: Answer, b: Answer, unordered: list[str] | None, days: Days = "form") -> tuple[Verdict, bool]:
    """The verdict on two answers, and whether they agree only with the listings at `unordered` as sets."""
    verdict = compare_answers(a, b, days=days)
    if verdict.agree or not unordered or a.is_error or b.is_error:
        return verdict, False
    again = compare_answers(
        Answer(as_set(a.value, unordered), False), Answer(as_set(b.value, unordered), False), days=days
    )
    return (again, True) if again.agree else (verdict, False)


def _renamed(
    recorded: dict[str, list[_Call]], known: list[str], seed: int, report: CheckReport
) -> dict[str, list[_Call]]:
    sessions = [[(arguments, value) for _, arguments, value in calls] for calls in recorded.values()]
    chosen = chosen_values(sessions, known)
    seen = {text for session in sessions for pair in session for text in strings_in(pair)}
    renamer = Renamer(chosen, seen, seed)
    report.renamed = dict(sorted(renamer.mapping.items()))
    return {
        name: [(tool, renamer(arguments), renamer(value)) for tool, arguments, value in calls]
        for name, calls in recorded.items()
    }


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
    notes: list[str],
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
            sides = [
                Upstream(t.for_session(_unique(name), f), plan.timeout) for t, f in zip((a, b), folders, strict=True)
            ]
            for side in sides:
                await side.start(tasks)
            return _Pair(sides, folders, SessionRun(name, "generated"))

        async def call(pair: _Pair | None, tool: str, arguments: dict[str, Any]) -> Any:
            if pair is None:
                return None
            answers = [
                await _answer(side, tool, arguments, f, t.fresh)
                for side, f, t in zip(pair.sides, pair.folders, (a, b), strict=True)
            ]
            verdict, as_a_set = _compared(answers[0], answers[1], plan.unordered.get(tool))
            exact = _compared(answers[0], answers[1], plan.unordered.get(tool), days="exact")[0]
            pair.run.steps.append(
                Step(tool, arguments, answers[0], answers[1], verdict, as_a_set=as_a_set, exact=exact)
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
                values=dict(plan.values),
                notes=notes,
            )

        await anyio.to_thread.run_sync(blocking)
        tasks.cancel_scope.cancel()


async def _tools_of(target: Target, seconds: float) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """The reference's tools (name, input schema), and the descriptions of the tools and the server."""
    folder = Path(tempfile.mkdtemp(prefix="sim-mcp-check-"))
    try:
        async with anyio.create_task_group() as tasks:
            upstream = Upstream(target.for_session("tools-list", folder), seconds)
            await upstream.start(tasks)
            await upstream.stop()
            tasks.cancel_scope.cancel()
        tools = [(tool.name, dict(tool.input_schema)) for tool in upstream.tools]
        notes = [tool.description or "" for tool in upstream.tools] + [upstream.instructions]
        return tools, [without_folder(note, folder) for note in notes if note]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _run_session(
    a: Target,
    b: Target,
    name: str,
    origin: str,
    calls: list[_Call],
    generator: CallGenerator | None,
    plan: CheckPlan,
) -> SessionRun:
    """One session on fresh servers: `calls` as recorded (each with its recorded answer, or None), or
    `generator`'s calls, which follow A's answers."""
    run = SessionRun(name, origin)
    folders = [Path(tempfile.mkdtemp(prefix="sim-mcp-check-")) for _ in range(2)]
    made_up = [IdMap(), IdMap()]
    try:
        async with anyio.create_task_group() as tasks:
            targets = (a, b)
            sides = [
                Upstream(target.for_session(_unique(name), folder), plan.timeout)
                for target, folder in zip(targets, folders, strict=True)
            ]
            for side in sides:
                await side.start(tasks)
            length = len(calls) if generator is None else plan.calls
            for index in range(length):
                if generator is None:
                    tool, arguments, expected = calls[index]
                else:
                    (tool, arguments), expected = generator.next_call(), None
                answers = []
                for side, target, folder, ids in zip(sides, targets, folders, made_up, strict=True):
                    answer = await _answer(side, tool, ids(arguments), folder, target.fresh)
                    if expected is not None:
                        ids.learn(expected, answer.value)
                    answers.append(answer)
                if generator is not None:
                    generator.observe(answers[0].value)
                verdict, as_a_set = _compared(answers[0], answers[1], plan.unordered.get(tool))
                exact = _compared(answers[0], answers[1], plan.unordered.get(tool), days="exact")[0]
                run.steps.append(Step(tool, arguments, answers[0], answers[1], verdict, as_a_set=as_a_set, exact=exact))
                if not all(side.alive for side in sides):
                    break  # a server that failed has no world left to compare
            for side in sides:
                await side.stop()
            tasks.cancel_scope.cancel()
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    return run


async def _answer(
    upstream: Upstream, tool: str, arguments: dict[str, Any], folder: Path, in_folder: bool = True
) -> Answer:
    """One call, the answer with the folder written as `{tmp}`; `in_folder`: the side runs in `folder`, so
    `{tmp}` in the arguments is that folder (a twin at a URL keeps `{tmp}`, as its recordings do)."""
    try:
        sent = with_folder(arguments, folder) if in_folder else arguments
        result: types.CallToolResult = await upstream.call(tool, sent)
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
            calls: list[_Call] = [(s.tool, s.arguments, None) for s in run.steps[: index + 1]]
            report.shrunk[key] = await _shrink(a, b, calls, step.verdict.kind, plan)
            progress(f"shrunk {key}: {len(calls)} -> {len(report.shrunk[key])} calls")


async def _shrink(a: Target, b: Target, calls: list[_Call], kind: str | None, plan: CheckPlan) -> list[Call]:
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
    return [(tool, arguments) for tool, arguments, _ in calls]


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
