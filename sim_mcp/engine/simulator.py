"""One tool call, end to end: validate -> simulate (with bounded retries) -> check -> commit.

Every failure before the commit leaves the session exactly as it was; an outcome is committed only
when its result fits the tool's output schema and its patch applies to the state.
"""

from __future__ import annotations

import copy
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio
import jsonpatch
import jsonpointer

from sim_mcp.config import EngineConfig, FaultsConfig, LlmConfig
from sim_mcp.engine.backends.base import Backend
from sim_mcp.engine.consistency import keep_promises
from sim_mcp.engine.contract import InvalidOutcome, Outcome, SimulationRequest, empty_message, result_text
from sim_mcp.engine.faults import NO_FAULT, FaultDecision, active, combined_faults, decide, server_faults, truncated
from sim_mcp.engine.guards import missing_record
from sim_mcp.engine.hooks import AfterCommit, CallKind, Commit
from sim_mcp.errors import BackendError, SessionLimitExceeded, SpecError
from sim_mcp.rules import (
    HANDED_ON,
    CallContext,
    Limits,
    Program,
    RulesCatalog,
    RulesChecks,
    RulesError,
    RulesVerdict,
    run_handed_on,
    run_tool,
)
from sim_mcp.specs.model import Environment
from sim_mcp.specs.registry import Catalog, Tool
from sim_mcp.specs.schema import value_problem
from sim_mcp.state.patch import apply_patch
from sim_mcp.state.session import Event, SessionRecord, TokenUsage
from sim_mcp.state.stores.base import SessionStore
from sim_mcp.state.stores.memory import MemoryStore
from sim_mcp.state.values import json_size
from sim_mcp.text import shorten

logger = logging.getLogger("sim_mcp")
# The `backend` of an event that a rules program answered (docs/formats.md, "Rules programs").
RULES_BACKEND = "rules"
# How much of each rejected answer an event keeps (state/session.py, `Event.rejected_answers`).
_ANSWER_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class CallResult:
    """What the server sends back for one call."""

    result: Any
    is_error: bool
    # The result goes into `structured_content` only for tools with an output schema, and never for errors.
    structured: bool = False
    event: Event | None = None
    # "ok", "error" (a simulated failure such as not found), "failed" (no valid outcome could be had), or why
    # the call was refused before simulation: "unknown_tool", "invalid_arguments", "wrong_environment", ...
    kind: str = "ok"

    @property
    def text(self) -> str:
        return result_text(self.result)


class Simulator:
    """Answers tool calls for any session, through one backend, keeping state in one store."""

    def __init__(
        self,
        catalog: Callable[[], Catalog],
        backend: Backend,
        store: SessionStore,
        engine: EngineConfig,
        *,
        llm: LlmConfig,
        faults: FaultsConfig | None,
        max_sessions: int | None = None,
        hooks: AfterCommit | None = None,
        inject_faults: bool = True,
        rules_checks: RulesChecks | None = None,
    ) -> None:
        """`llm`: how often a backend is asked per call and the history it is shown; `faults`: the faults
        injected server-wide (None: none); `max_sessions`: the most sessions the store may hold (None: no
        limit)."""
        self._catalog = catalog
        self.backend = backend
        self.store = store
        self.engine = EngineConfig.of(engine)
        self.llm = LlmConfig.of(llm)
        self.max_sessions = max_sessions
        # Every effect of a committed call subscribes here (engine/hooks.py).
        self.hooks = hooks if hooks is not None else AfterCommit()
        self._faults = server_faults(faults) if faults is not None else None
        self._inject_faults = inject_faults
        # By environment name: the environment compiled, its programs by tool, and their load errors. A program
        # is compiled when its environment is first used; its examples run once per content (`RulesChecks`).
        self._rules: dict[str, tuple[Environment, dict[str, Program], list[SpecError]]] = {}
        self._rules_checks = rules_checks if rules_checks is not None else RulesChecks()

    @property
    def catalog(self) -> Catalog:
        return self._catalog()

    def sandbox(self) -> Simulator:
        """A simulator with this one's catalog, backend and configs over a store of its own in memory, with no
        injected faults and no subscribers: for a rehearsal (replaying a task's reference solution), which must
        test the task, not the dice, and must leave the served sessions and their files alone."""
        return Simulator(
            self._catalog,
            self.backend,
            MemoryStore(),
            self.engine,
            llm=self.llm,
            faults=None,
            inject_faults=False,
            rules_checks=self._rules_checks,
        )

    @property
    def rules(self) -> RulesCatalog:
        """The rules programs of the current catalog's environments (each compiled once per version)."""
        programs: dict[tuple[str, str], Program] = {}
        errors: list[SpecError] = []
        for environment in self.catalog.environments.values():
            _, working, problems = self._compiled(environment)
            programs.update({(environment.name, tool): program for tool, program in working.items()})
            errors += problems
        return RulesCatalog(programs, tuple(errors))

    def rules_verdict(self, environment: Environment) -> RulesVerdict:
        """What checking `environment`'s rules program finds (the tools it answers, its problems), without
        keeping a compiled program for an environment no call has used yet."""
        cached = self._rules.get(environment.name)
        if cached is not None and cached[0] is environment:
            _, programs, errors = cached
            return RulesVerdict({tool: program.functions[tool] for tool, program in programs.items()}, tuple(errors))
        return self._rules_checks.verdict(environment)

    def program_of(self, tool: Tool) -> Program | None:
        """The rules program that answers `tool` (None: the backend does; always None with run_rules off)."""
        return self._compiled(tool.environment)[1].get(tool.name) if self.engine.run_rules else None

    def _compiled(self, environment: Environment) -> tuple[Environment, dict[str, Program], list[SpecError]]:
        cached = self._rules.get(environment.name)
        if cached is None or cached[0] is not environment:
            cached = (environment, *self._rules_checks.compile(environment))
            self._rules[environment.name] = cached
        return cached

    async def call(
        self, session_id: str, tool_name: str, arguments: dict[str, Any] | None, *, scope: str | None = None
    ) -> CallResult:
        """Answer one call in `session_id`; `scope` limits the tools to one environment."""
        arguments = {} if arguments is None else arguments
        tool = self.catalog.tool(tool_name, scope)
        if tool is None and scope is None:  # a caller that has not resolved the session's binding
            scope = bound_scope(await self.store.get(session_id), None)
            tool = self.catalog.tool(tool_name, scope) if scope is not None else None
        if tool is None:
            return refusal("unknown_tool", self._unknown_tool_message(tool_name, scope))
        if (problem := self._argument_problem(tool, arguments)) is not None:
            return refusal("invalid_arguments", f"invalid arguments for {tool_name}: {problem}")
        async with self.store.lock(session_id):
            record = await self.store.get(session_id)
            if record is None:
                record = await self._new_record(session_id, scope)
            if scope is None and record.environment is not None:
                # A session bound to an environment knows its tools by that environment's names, as on
                # `/mcp/{env}`: decided here, from the record read under the lock, not from a read before it.
                # (The name resolved to `tool` without a scope, so this is `tool` or no tool.)
                if self.catalog.tool(tool_name, record.environment) is None:
                    return refusal("unknown_tool", self._unknown_tool_message(tool_name, record.environment))
            elif record.environment is not None and record.environment != tool.environment.name:
                return refusal(
                    "wrong_environment",
                    f"unknown tool {tool_name!r} in this session: it belongs to environment "
                    f"{tool.environment.name!r}, and the session to {record.environment!r}",
                )
            return await self._simulate_and_commit(record, tool, arguments)

    def world_of(self, record: SessionRecord, environment: str) -> Any:
        """The session's state of one environment, seeded from the spec the first time it is touched."""
        if environment in record.worlds:
            return record.worlds[environment]
        if environment in record.initial_worlds:
            return copy.deepcopy(record.initial_worlds[environment])
        spec = self.catalog.environment(environment)
        return copy.deepcopy(spec.initial_state) if spec is not None else {}

    async def _new_record(self, session_id: str, scope: str | None) -> SessionRecord:
        if self.max_sessions is not None and await self.store.count() >= self.max_sessions:
            raise SessionLimitExceeded(
                f"cannot open session {session_id!r}: the server holds its maximum of "
                f"{self.max_sessions} sessions (--max-sessions / SIM_MCP_MAX_SESSIONS); delete some first"
            )
        return SessionRecord(id=session_id, environment=scope, seed=self.engine.seed)

    async def _simulate_and_commit(self, record: SessionRecord, tool: Tool, arguments: dict[str, Any]) -> CallResult:
        request = await self._request(record, tool, arguments)
        started = time.perf_counter()
        fault = self._fault(record, tool)
        if fault.delay_ms > 0:
            await anyio.sleep(fault.delay_ms / 1000)
        program = self.program_of(tool)
        answered: _Answer | None = None
        if fault.kind in ("error", "timeout"):
            answered = _Answer(None, request.state, TokenUsage(), [])
        elif program is not None:
            answered = self._by_rules(program, request, tool)
        by_rules = answered is not None and program is not None
        if answered is None or answered.declined is not None:
            # No program, or its function handed the call on: the backend answers, as for a tool with none.
            declined = answered.declined if answered is not None else None
            answered = await self._answer(request, tool)
            if declined is not None:
                answered = _handed_on(answered, program, tool, declined)
            answered = self._shown_to_rules(request, tool, answered)
            by_rules = False
        latency_ms = (time.perf_counter() - started) * 1000
        kind, outcome, new_world = _settle(answered, fault, request.state)
        event = Event(
            seq=record.event_count + 1,
            at=time.time(),
            environment=tool.environment.name,
            tool=tool.name,
            arguments=arguments,
            result=outcome.result,
            is_error=outcome.is_error,
            state_patch=outcome.state_patch,
            backend=RULES_BACKEND if by_rules else self.backend.name,
            latency_ms=round(latency_ms, 3),
            tokens=answered.usage,
            note=outcome.note,
            fault=fault.kind if kind == "fault" else None,
            rejected=answered.problems,
            rejected_answers=answered.answers,
            failed=kind == "failed",
            fallback=answered.fallback,
        )
        updated = record.model_copy(
            update={
                "worlds": {**record.worlds, tool.environment.name: new_world},
                "updated_at": event.at,
                "event_count": event.seq,
                "error_count": record.error_count + int(outcome.is_error),
                "tokens": record.tokens + answered.usage,
            }
        )
        # Once the outcome exists, committing it is not abandoned half-way by a cancelled client. It is the call's
        # last write: while no subscriber needs other processes kept out, the commit may free the session for
        # them (a round trip less on Redis); this process's own lock still orders its subscribers.
        with anyio.CancelScope(shield=True):
            await self.store.commit(updated, event, last=not self.hooks.needs_session_lock)
            await self.hooks.emit(Commit(updated, event, request, answered.outcome, kind))
        structured = (
            tool.spec.output_schema is not None
            and not outcome.is_error
            and isinstance(outcome.result, dict)
            and event.fault is None
        )
        return CallResult(outcome.result, outcome.is_error, structured, event, kind)

    async def _request(self, record: SessionRecord, tool: Tool, arguments: dict[str, Any]) -> SimulationRequest:
        """What the backend is shown: the state of the tool's environment and the recent calls."""
        history = self.llm.history_events
        recent = await self.store.events(record.id, last=history) if history else []
        # Injected faults are the simulator's doing, not the world's: the backend is not shown them; nor the
        # conversation with the simulated user, which is no call; nor calls whose outcomes never applied (a
        # rejected patch, or the reason it was rejected, must not come back to the model as if it happened).
        recent = [event for event in recent if event.fault is None and event.kind == "tool_call" and not event.failed]
        return SimulationRequest(
            environment=tool.environment,
            tool=tool.spec,
            arguments=arguments,
            state=self.world_of(record, tool.environment.name),
            recent_events=recent,
            session_id=record.id,
            seed=record.seed,
            sequence=record.event_count,
            output_validator=tool.output_validator,
            seeded_stamp=record.seeded_stamp(tool.environment.name),
        )

    async def _answer(self, request: SimulationRequest, tool: Tool) -> _Answer:
        """Ask the backend until an outcome passes the checks (at most `max_attempts` times), feeding each
        rejection back; the outcome and the state after it, or none and why. A model is not asked about a
        record the call names that the state lacks: that is the spec's not-found error (engine/guards.py)."""
        if self.backend.can_complete() and (
            missing := missing_record(request.environment, request.tool, request.state, request.arguments)
        ):
            decided = Outcome(result=missing, is_error=True, note="not found: decided by the engine, not the model")
            return _Answer(decided, request.state, TokenUsage(), [])
        usage = TokenUsage()
        problems: list[str] = []
        answers: list[str] = []  # what each rejected answer said, beside why it was rejected
        fallback = False  # some attempt was the backend's fallback (llm/modes/auto.py)
        attempts = self.llm.max_attempts
        request = replace(request, attempts=attempts)
        for attempt in range(attempts):
            try:
                candidate = await self.backend.simulate(request)
            except InvalidOutcome as e:
                usage = usage + e.usage  # a rejected reply still cost its tokens
                problems.append(e.reason)
                answers.append(shorten(e.answer, _ANSWER_CHARS))
                fallback = fallback or e.fallback
            except BackendError as e:
                problems.append(f"the backend failed: {e}")
                answers.append("")
                break
            else:
                usage = usage + candidate.usage
                fallback = fallback or candidate.fallback
                checked = self._checked_answer(candidate, tool, request)
                if isinstance(checked, tuple):
                    return _Answer(checked[0], checked[1].state, usage, problems, answers, fallback)
                problems.append(checked.reason)
                answers.append(shorten(_as_written(candidate), _ANSWER_CHARS))
                self.backend.forget(request)  # a cached outcome that failed the checks must not come back
            request = replace(request, feedback=list(problems), attempt=attempt + 1)
        return _Answer(None, request.state, usage, problems, answers, fallback)

    def _checked_answer(
        self, candidate: Outcome, tool: Tool, request: SimulationRequest
    ) -> tuple[Outcome, Applied] | Rejected:
        """A backend's finished outcome and the state after it, or why not."""
        if candidate.is_error and empty_message(candidate.result):
            return Rejected("an error result needs its message: give the error the real tool would return")
        checked = self.check(candidate, tool, request.state)
        if not isinstance(checked, Applied):
            return checked
        if candidate.program is not None:
            return candidate, checked
        # An answer not carried out by a program must keep what its result shows (engine/consistency.py).
        kept = keep_promises(candidate, tool.spec, request.state, checked.state, request.arguments)
        if isinstance(kept, str):
            return Rejected(kept)
        if kept[0] is candidate:
            return candidate, checked
        rechecked = self.check(kept[0], tool, request.state)
        return (kept[0], rechecked) if isinstance(rechecked, Applied) else rechecked

    def _by_rules(self, program: Program, request: SimulationRequest, tool: Tool) -> _Answer:
        """Run the tool's function of its environment's rules program: once (it is deterministic), no model;
        its outcome goes through the same checks as a backend's."""
        context = CallContext.of(program.clock, seed=request.seed, sequence=request.sequence, tool=tool.name)
        try:
            ran = run_tool(
                program, tool.name, request.state, request.arguments, context, Limits.of(self.engine), handing_on=True
            )
        except RulesError as e:
            return _Answer(None, request.state, TokenUsage(), [f"the rules program failed: {e}"])
        if ran.declined is not None:
            return _Answer(None, request.state, TokenUsage(), [], declined=ran.declined)
        line = program.functions.get(tool.name)
        note = f"rules: {program.source}:{line} {tool.name}" + (" (failed, as the rules say)" if ran.is_error else "")
        candidate = Outcome(result=ran.result, is_error=ran.is_error, state_patch=ran.state_patch, note=note)
        checked = self.check(candidate, tool, request.state)
        if isinstance(checked, Applied):
            return _Answer(candidate, checked.state, TokenUsage(), [])
        return _Answer(None, request.state, TokenUsage(), [f"the rules program's answer is unusable: {checked.reason}"])

    def _shown_to_rules(self, request: SimulationRequest, tool: Tool, answered: _Answer) -> _Answer:
        """The backend's success for a call no rules function answered, shown to the environment's program when
        it asks for that (`sim_mcp_handed_on`), with what that changes in the state: a twin's next made-up id
        must not repeat one the backend's answer showed."""
        outcome = answered.outcome
        if outcome is None or outcome.is_error or not self.engine.run_rules:
            return answered
        program = next(iter(self._compiled(tool.environment)[1].values()), None)
        if program is None or not program.has(HANDED_ON):
            return answered
        context = CallContext.of(program.clock, seed=request.seed, sequence=request.sequence, tool=tool.name)
        try:
            patch = run_handed_on(
                program, answered.state, tool.name, request.arguments, outcome.result, context, Limits.of(self.engine)
            )
        except RulesError as e:
            logger.warning("%s: the rules program's sim_mcp_handed_on failed: %s", tool.name, e)
            return answered
        if not patch:
            return answered
        shown = outcome.model_copy(update={"state_patch": [*(outcome.state_patch or []), *patch]})
        return replace(answered, outcome=shown, state=apply_patch(answered.state, patch))

    async def commit_events(self, record: SessionRecord, events: Sequence[Event]) -> SessionRecord:
        """Append events that are no tool calls (the conversation with the simulated user) to a session, as
        `call` commits a call: numbered after its log, counted, each followed by the `on_commit` hooks.
        The caller holds the session's lock and has read `record` under it; returns the record after them."""
        updated = record
        with anyio.CancelScope(shield=True):
            for given in events:
                event = given.model_copy(update={"seq": updated.event_count + 1})
                updated = updated.model_copy(
                    update={
                        "updated_at": event.at,
                        "event_count": event.seq,
                        "error_count": updated.error_count + int(event.is_error),
                        "tokens": updated.tokens + event.tokens,
                    }
                )
                await self.store.commit(updated, event)
                await self.hooks.emit(Commit(updated, event, None, None, "message"))
        return updated

    def _fault(self, record: SessionRecord, tool: Tool) -> FaultDecision:
        """The injected faults of this call: from flags, the environment's block and the tool's."""
        if not self._inject_faults:
            return NO_FAULT
        faults = combined_faults(self._faults, tool.environment.faults, tool.spec.faults)
        if faults is None or not active(faults):
            return NO_FAULT
        seq = record.event_count + 1
        return decide(
            faults,
            session_id=record.id,
            session_seed=record.seed,
            seq=seq,
            environment=tool.environment.name,
            tool=tool.name,
        )

    def check(self, outcome: Outcome, tool: Tool, world: Any) -> Applied | Rejected:
        """The state after the outcome's patch, or why the outcome is unusable (state untouched either way)."""
        validator = None if outcome.is_error else tool.output_validator
        if validator is not None and (problem := value_problem(outcome.result, validator, "result")) is not None:
            return Rejected(f"the result does not match the tool's output schema: {problem}")
        if not outcome.state_patch:
            return Applied(world)  # unchanged, so no bigger than it was
        try:
            new_world = apply_patch(world, outcome.state_patch)
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError, KeyError, IndexError) as e:
            return Rejected(f"state_patch does not apply to the state: {e}")
        size = json_size(new_world)
        if size > self.engine.max_state_bytes:
            return Rejected(
                f"the state would grow to {size} bytes, over the limit of {self.engine.max_state_bytes} "
                "(--max-state-bytes / SIM_MCP_MAX_STATE_BYTES)"
            )
        return Applied(new_world)

    def _argument_problem(self, tool: Tool, arguments: dict[str, Any]) -> str | None:
        size = json_size(arguments)
        if size > self.engine.max_argument_bytes:
            return (
                f"the arguments take {size} bytes, over the limit of {self.engine.max_argument_bytes} "
                "(--max-argument-bytes / SIM_MCP_MAX_ARGUMENT_BYTES)"
            )
        return value_problem(arguments, tool.input_validator, "arguments")

    def _unknown_tool_message(self, tool_name: str, scope: str | None) -> str:
        names = sorted(tool.served_name(scope) for tool in self.catalog.tools_of(scope))
        shown = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")
        where = f" in environment {scope!r}" if scope else ""
        return (
            f"unknown tool {tool_name!r}{where}: expected one of {shown}"
            if names
            else f"unknown tool {tool_name!r}: no tools are loaded"
        )


def bound_scope(record: SessionRecord | None, scope: str | None) -> str | None:
    """The environment a request works in: the one it names (`/mcp/{env}`), else the session's own (a session
    bound to one environment knows its tools by their plain names, even on `/mcp`), else all of them."""
    if scope is not None or record is None:
        return scope
    return record.environment


def refusal(kind: str, message: str) -> CallResult:
    """A call turned away before simulation: an error result, no event, the session untouched."""
    return CallResult(message, is_error=True, kind=kind)


@dataclass(frozen=True, slots=True)
class Applied:
    """An outcome that passed the checks: the world state after its patch (any JSON value, a string too)."""

    state: Any


@dataclass(frozen=True, slots=True)
class Rejected:
    """An outcome that failed the checks, and why (fed back to the backend on the next attempt)."""

    reason: str


@dataclass(frozen=True, slots=True)
class _Answer:
    """What asking the backend came to: the checked outcome (None if none passed) and the state after it."""

    outcome: Outcome | None
    state: Any
    usage: TokenUsage
    problems: list[str]
    # Beside each problem, the answer it was found in (as the model wrote it, cut), for the trajectory.
    answers: list[str] = field(default_factory=list)
    # Some attempt was the backend's fallback (auto: patch mode, after its programs gave no valid answer).
    fallback: bool = False
    # The rules program declined the call, and why (then the backend is asked instead).
    declined: str | None = None


def _handed_on(answered: _Answer, program: Program | None, tool: Tool, reason: str) -> _Answer:
    """The backend's answer to a call the tool's rules program declined, its note saying so."""
    line = program.functions.get(tool.name) if program is not None else None
    source = f"{program.source}:{line} " if program is not None else ""
    said = f"handed on by the rules program ({source}{tool.name}" + (f": {reason})" if reason else ")")
    if answered.outcome is None:
        return answered  # the backend could not answer either: its reason is the error's
    note = f"{said}; {answered.outcome.note}" if answered.outcome.note else said
    return replace(answered, outcome=answered.outcome.model_copy(update={"note": note}))


def _as_written(candidate: Outcome) -> str:
    """A rejected outcome as the backend answered it: its program, else the contract's JSON object."""
    if candidate.program is not None:
        return candidate.program
    return json.dumps(candidate.model_dump(mode="json"), ensure_ascii=False, default=str)


def _settle(answered: _Answer, fault: FaultDecision, world: Any) -> tuple[CallKind, Outcome, Any]:
    """The outcome the session commits, its kind and the state after it: the checked outcome, or the
    simulator's own answer for a fault or when no valid outcome could be had (state unchanged)."""
    outcome = answered.outcome
    if fault.kind in ("error", "timeout"):
        return "fault", Outcome(result=fault.message, is_error=True, note=f"injected fault: {fault.kind}"), world
    if outcome is None:
        problems = answered.problems
        message = f"the simulator could not produce a valid result: {problems[-1] if problems else 'no answer'}"
        return "failed", Outcome(result=message, is_error=True, note="; ".join(problems)), world
    if fault.kind == "malformed":
        full = result_text(outcome.result)
        cut = truncated(full, fault.keep)
        note = (
            f"injected fault: malformed (the result arrived cut off after {len(cut)} of {len(full)} characters; "
            "the call itself was carried out)"
        )
        return "fault", outcome.model_copy(update={"result": cut, "is_error": False, "note": note}), answered.state
    return ("error" if outcome.is_error else "ok"), outcome, answered.state
