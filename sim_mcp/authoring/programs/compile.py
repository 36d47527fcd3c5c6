"""`sim-mcp compile`: a model writes each tool's rules program, and only programs that pass are kept.

Per tool, the model is asked (through the backend's `complete_json`) for the tool's Starlark function
from the spec (instructions, schemas, examples, the initial state) and, when given, recorded calls. A
program is kept only if it passes every check (`check_program`): it compiles; the tool's examples give
their results; every recorded call of the tool gives its recorded result and state after; probe calls
(arguments drawn from the input schema, with ids that exist and ids that don't) run within the limits
without failing; successful results fit the output schema. A program that fails goes back to the model
with the failure (the call, expected vs got, the error), up to `rounds` times; a tool that never gets a
passing program is left to the LLM, and the report says why.

The programs go to `<spec>.rules.star` beside the spec (the file the registry loads: docs/formats.md),
written atomically; the spec itself is never touched. Each compiled function is a section of its own
(`# --- compiled: <tool> ---`), its private helpers renamed after the tool so sections never clash.
Functions already in the file that pass are kept (`--force` compiles them again); a function is only
ever replaced by one that passes, so nothing compiled is lost.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sim_mcp.authoring.programs.probes import probe_arguments
from sim_mcp.authoring.programs.transitions import Recording
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import InvalidOutcome, JsonRequest
from sim_mcp.engine.guards import has_record, ids_named
from sim_mcp.engine.intent import Action, read_intent
from sim_mcp.errors import BackendError, ConfigError
from sim_mcp.llm.context import tool_text
from sim_mcp.llm.modes.program import PROGRAM_SCHEMA, program_guide
from sim_mcp.llm.profiles import DEFAULT_PROFILE, ModelProfile
from sim_mcp.llm.reply import outcome_from_object
from sim_mcp.rules import (
    CallContext,
    Limits,
    Program,
    RulesError,
    clock_of,
    compile_program,
    example_problem,
    function_name,
    run_tool,
    tool_program,
)
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import CompiledSchema, compile_schema, value_problem
from sim_mcp.state.compare import first_difference
from sim_mcp.state.patch import apply_patch
from sim_mcp.state.session import TokenUsage
from sim_mcp.text import shorten

__all__ = ["CompileReport", "ToolReport", "check_program", "compile_environment", "programs_path"]

RULES_SUFFIX = ".rules.star"
_HEADER = "# sim-mcp compile:"
_SECTION = re.compile(r"^# --- compiled: (?P<tool>[A-Za-z0-9_.\-]+) ---$", re.MULTILINE)
_TOP_NAME = re.compile(r"^(?:def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(|([A-Za-z_][A-Za-z0-9_]*)\s*=)", re.MULTILINE)
_CLOCK_LINE = re.compile(r"^CLOCK\s*=.*$\n?", re.MULTILINE)
_STATE_CHARS = 12_000
_RECORDINGS_SHOWN = 6
_FAILURE_CHARS = 1_500
Status = Literal["kept", "compiled", "failed"]


@dataclass(slots=True)
class ToolReport:
    """What compile did for one tool: kept its passing function, compiled one, or failed (left to the LLM)."""

    tool: str
    status: Status
    rounds: int = 0
    reason: str | None = None
    tokens: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0
    # Each rejected round: the program the model wrote (as read) and why it failed, for whoever finishes it.
    rejected: list[tuple[str, str]] = field(default_factory=list)

    def line(self) -> str:
        cost = f" ({self.tokens.input + self.tokens.output:,} tokens, {self.seconds:.1f} s)" if self.rounds else ""
        match self.status:
            case "kept":
                return f"{self.tool}: kept (its function passes every check)"
            case "compiled":
                rounds = "round" if self.rounds == 1 else "rounds"
                return f"{self.tool}: compiled in {self.rounds} {rounds}{cost}"
            case "failed":
                return f"{self.tool}: failed after {self.rounds} round(s), left to the LLM: {self.reason}{cost}"

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "status": self.status,
            "rounds": self.rounds,
            "reason": self.reason,
            "tokens": self.tokens.model_dump(),
            "seconds": round(self.seconds, 3),
            "rejected": [{"program": program, "problem": problem} for program, problem in self.rejected],
        }


@dataclass(slots=True)
class CompileReport:
    environment: str
    programs: Path
    tools: list[ToolReport] = field(default_factory=list)
    written: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "environment": self.environment,
            "programs": str(self.programs),
            "written": self.written,
            "tools": [tool.to_json() for tool in self.tools],
        }


def programs_path(spec_path: Path) -> Path:
    """The programs file of a spec: `bank.yaml` -> `bank.rules.star`, beside it."""
    return spec_path.with_name(spec_path.stem + RULES_SUFFIX)


@dataclass(frozen=True)
class _Job:
    """What checking and asking about one tool needs."""

    environment: Environment
    tool: ToolSpec
    recordings: list[Recording]
    limits: Limits
    # The writing model's profile: its habits rewritten, its errors explained as it needs (llm/profiles).
    profile: ModelProfile = DEFAULT_PROFILE


async def compile_environment(
    environment: Environment,
    spec_path: Path,
    backend: Backend,
    *,
    recordings: list[Recording],
    rounds: int = 3,
    force: bool = False,
    limits: Limits | None = None,
    profile: ModelProfile = DEFAULT_PROFILE,
    progress: Callable[[str], None] = lambda line: None,
    notes: Mapping[str, str] | None = None,
) -> CompileReport:
    """Compile every tool of `environment` (read from `spec_path`), writing the programs that pass. `notes`
    names tools whose function a later check found wrong (a generated session, `sim-mcp generate`), with
    what it found: those are written again, the finding and the function quoted in the first round."""
    if environment.rules is not None and not environment.rules_source.endswith(RULES_SUFFIX):
        raise ConfigError(
            f"{spec_path}: the spec carries its rules inline (rules:); compile writes {programs_path(spec_path).name} "
            "beside it: move them there first"
        )
    path = programs_path(spec_path)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    report = CompileReport(environment.name, path)
    changed = False
    for tool in environment.tools:
        job = _Job(environment, tool, [r for r in recordings if r.tool == tool.name], limits or Limits(), profile)
        existing = _existing_problem(text, job) if text else "no function yet"
        note = (notes or {}).get(tool.name)
        if existing is None and not force and note is None:
            report.tools.append(ToolReport(tool.name, "kept"))
        else:
            found = (_function_text(text, tool.name), note) if note is not None else None
            tool_report, program = await _compile_tool(job, backend, rounds, progress, found)
            report.tools.append(tool_report)
            if program is not None:
                text = _with_section(text, tool.name, program, environment)
                changed = True
        progress(report.tools[-1].line())
    if changed:
        _write_atomically(path, _with_header(text, report))
        report.written = True
    return report


def _existing_problem(text: str, job: _Job) -> str | None:
    """Why the tool's function in the programs file fails its checks (None: it passes)."""
    try:
        program = compile_program(text, "<programs file>", [job.tool.name])
    except RulesError as e:
        return f"the programs file does not compile: {e.reason}"
    if not program.has(job.tool.name):
        return "no function yet"
    return check_program(program, job.environment, job.tool, job.recordings, job.limits)


async def _compile_tool(
    job: _Job,
    backend: Backend,
    rounds: int,
    progress: Callable[[str], None],
    found: tuple[str, str] | None = None,
) -> tuple[ToolReport, str | None]:
    """Ask for the tool's program, feeding each failure back (`found`: the function and what a later check
    found wrong with it, for the first round), until one passes or the rounds run out."""
    report = ToolReport(job.tool.name, "failed")
    started = time.perf_counter()
    failures = report.rejected  # (the program, why it failed)
    if found is not None:
        failures.append(found)
    for _ in range(max(1, rounds)):
        report.rounds += 1
        request = _request(job, failures[-1] if failures else None)
        try:
            reply = await backend.complete_json(request)
        except InvalidOutcome as e:
            report.tokens = report.tokens + e.usage
            failures.append(("", f"your reply was unusable: {e.reason}"))
            continue
        except BackendError as e:
            report.reason = f"the model could not be asked: {e}"
            break
        report.tokens = report.tokens + reply.usage
        try:
            # Kept as the profile rewrote it (f-strings as `%` formatting), so the programs file holds Starlark.
            program = (outcome_from_object(reply.value).program or "").strip("\n")
            text = job.profile.rewrite(program).strip("\n") + "\n"
        except InvalidOutcome as e:
            failures.append(("", f"your reply was unusable: {e.reason}"))
            continue
        problem = _problem_of(text, job)
        if problem is None:
            report.status, report.reason, report.seconds = "compiled", None, time.perf_counter() - started
            return report, text
        failures.append((text, problem))
        progress(f"{job.tool.name}: round {report.rounds} failed: {shorten(problem, 200)}")
    report.seconds = time.perf_counter() - started
    if report.reason is None:
        report.reason = failures[-1][1] if failures else "no program"
    return report, None


def _problem_of(text: str, job: _Job) -> str | None:
    # Checked with the clock the programs file will have (the one the instructions name).
    clock = clock_of(job.environment)
    checked = (f'CLOCK = "{clock}"\n' if clock else "") + _CLOCK_LINE.sub("", text)
    try:
        program = tool_program(checked, job.tool.name, "<your program>")
    except RulesError as e:
        return f"it does not compile: {job.profile.explain(e.reason)}" + (f" (line {e.line})" if e.line else "")
    return check_program(program, job.environment, job.tool, job.recordings, job.limits, explain=job.profile.explain)


def check_program(
    program: Program,
    environment: Environment,
    tool: ToolSpec,
    recordings: list[Recording],
    limits: Limits,
    *,
    explain: Callable[[str], str] = DEFAULT_PROFILE.explain,
) -> str | None:
    """Why `program`'s function for `tool` fails (None: it passes): the examples, the recorded calls, then
    probe calls, each failure naming the call, what was expected and what came out; an interpreter's error
    as `explain` tells it (the writing model's profile)."""
    output = _validator(tool)
    for index in range(len(tool.examples)):
        if (failed := example_problem(program, tool, index, environment.initial_state, limits)) is not None:
            return f"{explain(failed.reason)} (arguments {_show(tool.examples[index].arguments)})"
    for number, recording in enumerate(recordings, start=1):
        if (problem := _recording_problem(program, tool, recording, number, limits, explain)) is not None:
            return problem
    probes = probe_arguments(tool, environment.initial_state)
    refusals: list[str] = []
    for arguments in probes:
        context = _context(program, tool.name, 0)
        try:
            ran = run_tool(program, tool.name, environment.initial_state, arguments, context, limits)
        except RulesError as e:
            return f"the probe call with arguments {_show(arguments)} failed: {explain(e.reason)}"
        if ran.is_error:
            if (
                contradiction := _not_found_yet_there(tool, environment.initial_state, arguments, ran.result)
            ) is not None:
                return f"the probe call with arguments {_show(arguments)} answered {_show(ran.result)}: {contradiction}"
            refusals.append(f"{_show(arguments)} -> {_show(ran.result)}")
        elif output is not None and (problem := value_problem(ran.result, output, "result")):
            return f"the probe call with arguments {_show(arguments)} broke the output schema: {problem}"
    reads = read_intent(tool.name, environment.initial_state).action in (Action.GET, Action.LIST)
    if reads and probes and len(refusals) == len(probes) and not tool.examples and not recordings:
        # A listing or a read (of ids that exist, among the probes) that refuses every valid call is no
        # model of the tool; other tools may refuse all of them rightly (rules the probes break).
        return f"it refused every valid probe call, e.g. {refusals[0]}; optional arguments may be missing"
    return None


def _not_found_yet_there(tool: ToolSpec, state: Any, arguments: dict[str, Any], result: Any) -> str | None:
    """A refusal that says a record is not found while the state has it (a program that reads its ids
    wrong refuses every call, which no probe would otherwise catch for a tool that may refuse rightly)."""
    text = result if isinstance(result, str) else _dump(result)
    if "not found" not in text.lower():
        return None
    for key, value, collection in ids_named(tool, state, arguments):
        named = re.search(rf"(?<![\w-]){re.escape(str(value))}(?![\w-])", text) is not None
        if named and has_record(collection, value):
            return f"{key} {_dump(value)} is in the state ({collection.pointer})"
    return None


def _recording_problem(
    program: Program, tool: ToolSpec, recording: Recording, number: int, limits: Limits, explain: Callable[[str], str]
) -> str | None:
    call = f"recorded call {number} ({recording.source}) with arguments {_show(recording.arguments)}"
    context = _context(program, tool.name, recording.sequence)
    try:
        ran = run_tool(program, tool.name, recording.before, recording.arguments, context, limits)
    except RulesError as e:
        return f"{call}: the function failed: {explain(e.reason)}"
    if ran.is_error != recording.is_error:
        wanted = "an error" if recording.is_error else "a success"
        got = "an error" if ran.is_error else "a success"
        return f"{call}: expected {wanted} {_show(recording.result)}, got {got} {_show(ran.result)}"
    if not ran.is_error and (where := first_difference(recording.result, ran.result, subset=True)) is not None:
        return f"{call}: the result differs at {where}"
    after = apply_patch(recording.before, ran.state_patch) if ran.state_patch else recording.before
    if (where := first_difference(recording.after, after)) is not None:
        return f"{call}: the state after it differs at {where}"
    return None


def _context(program: Program, tool: str, sequence: int) -> CallContext:
    return CallContext.of(program.clock, seed=0, sequence=sequence, tool=tool)


def _validator(tool: ToolSpec) -> CompiledSchema | None:
    return compile_schema(tool.output_schema) if tool.output_schema is not None else None


# --- what the model is asked -------------------------------------------------------------------


def _request(job: _Job, failure: tuple[str, str] | None) -> JsonRequest:
    environment, tool = job.environment, job.tool
    name = function_name(tool.name)
    system = "\n".join(
        [
            "You write the rules of a simulated software environment as code: one function per tool, which the "
            "engine runs for every call of that tool. Make it exact and general: it must give the right answer "
            "for any valid arguments and any state, not only the examples.",
            "",
            program_guide(environment, tool, job.profile),
            "A helper function of your own must have a name starting with _.",
            'Reply with one JSON object and nothing else: {"program": "<the program>"}',
            "",
            f"# Environment: {environment.name}",
            environment.description.strip(),
            "",
            "## Rules of this environment",
            (environment.instructions or "(none written)").strip(),
            "",
            "## Other tools (not yours to write)",
            *[f"- {other.name}" for other in environment.tools if other.name != tool.name],
            "",
            "## Your tool",
            tool_text(tool),
        ]
    )
    state = shorten(_dump(environment.initial_state), _STATE_CHARS, separator="\n")
    parts = [f"## The initial world state\n```json\n{state}\n```"]
    if job.recordings:
        parts.append(_recordings_text(job.recordings))
    if failure is not None:
        program, why = failure
        shown = f"```python\n{program}```\n" if program else ""
        parts.append(f"## Your previous program failed\n{shown}Problem: {shorten(why, _FAILURE_CHARS)}\nFix it.")
    parts.append(
        f"## Your task\nWrite def {name}(state, args) for {tool.name}: the rules' checks with their exact error "
        'messages first, then the changes to state, then the result.\nReply with {"program": "..."}.'
    )
    return JsonRequest(system=system, user="\n\n".join(parts), schema=PROGRAM_SCHEMA, name="program")


def _recordings_text(recordings: list[Recording]) -> str:
    lines = [f"## Recorded calls of this tool (the real tool's answers; {len(recordings)} in all)"]
    for recording in recordings[:_RECORDINGS_SHOWN]:
        changes = recording.changes()
        shown = {
            "arguments": recording.arguments,
            "is_error": recording.is_error,
            "result": recording.result,
            "state changes": changes if changes else "none",
        }
        lines.append("```json\n" + shorten(_dump(shown), 2_000, separator="\n") + "\n```")
    return "\n".join(lines)


# --- the programs file -------------------------------------------------------------------------


def _with_section(text: str, tool: str, program: str, environment: Environment) -> str:
    """`text` with `tool`'s function replaced by `program` (its helpers renamed after the tool)."""
    text = _without_function(text, tool)
    section = f"# --- compiled: {tool} ---\n{_private(program, tool).rstrip()}\n"
    if not _CLOCK_LINE.search(text) and (clock := clock_of(environment)) is not None:
        text = f'CLOCK = "{clock}"\n' + text
    return (text.rstrip() + "\n\n" if text.strip() else "") + section


def _function_text(text: str, tool: str) -> str:
    """The compiled section of `tool` in `text`, without its marker ("" when there is none)."""
    sections = list(_SECTION.finditer(text))
    for index, match in enumerate(sections):
        if match.group("tool") == tool:
            end = sections[index + 1].start() if index + 1 < len(sections) else len(text)
            return text[match.end() : end].strip("\n") + "\n"
    return ""


def _without_function(text: str, tool: str) -> str:
    """`text` less the compiled section of `tool`, or its hand-written `def` (up to the next top-level line)."""
    sections = list(_SECTION.finditer(text))
    for index, match in enumerate(sections):
        if match.group("tool") == tool:
            end = sections[index + 1].start() if index + 1 < len(sections) else len(text)
            return text[: match.start()] + text[end:]
    found = re.search(rf"^def\s+{re.escape(function_name(tool))}\s*\(", text, re.MULTILINE)
    if found is None:
        return text
    rest = re.search(r"^(?=[^\s#])", text[found.end() :], re.MULTILINE)
    end = found.end() + rest.start() if rest is not None else len(text)
    return text[: found.start()] + text[end:]


def _private(program: str, tool: str) -> str:
    """The program with its own top-level names (helpers, constants) renamed `_<tool>__<name>`, and no CLOCK."""
    program = _CLOCK_LINE.sub("", program)
    own = function_name(tool)
    names = {found for match in _TOP_NAME.finditer(program) for found in match.groups() if found}
    for name in sorted(names - {own}, key=len, reverse=True):
        program = re.sub(rf"\b{re.escape(name)}\b", f"_{own}__{name.lstrip('_')}", program)
    return program


def _with_header(text: str, report: CompileReport) -> str:
    """`text` under a header saying what the last run did (the previous run's header replaced)."""
    lines = [f"{_HEADER} rules of {report.environment}; functions that pass are kept, edit freely. Last run:"]
    lines += [f"{_HEADER}   {tool.line()}" for tool in report.tools]
    body = re.sub(rf"\A(?:{re.escape(_HEADER)}[^\n]*\n)*\n*", "", text)
    return "\n".join(lines) + "\n\n" + body


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as e:
        temporary.unlink(missing_ok=True)
        raise ConfigError(f"cannot write {path}: {e.strerror or e}") from e


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def _show(value: Any) -> str:
    return shorten(_dump(value), 200)
