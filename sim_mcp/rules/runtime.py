"""Running one tool's function of a rules program, within limits, into a result and a patch.

The function gets a copy of the state (decoded from JSON inside the interpreter) and changes it; the
engine diffs the copy it gets back into the RFC 6902 patch. A function that fails, runs past its step or
time budget, or builds a state over the size limit gives a `RulesError` (the simulator answers it as an
honest error result, and the state stays as it was); so does a result that is no JSON value.

A function may also decline a call (`return decline("why")`): it does not answer it, and the next way of
answering does (the simulator hands it to its backend: replay, then the model or the offline engine).
Whatever the function changed before declining is dropped. Only a caller that has a next way to hand
the call to asks for that (`handing_on=True`); to any other (a model's program for one call, a check
against recordings) a declined call is a `RulesError`, never a silent empty answer. A program that defines
`sim_mcp_handed_on` (`program.HANDED_ON`) is shown the backend's success for such a call (`run_handed_on`),
so that what it keeps in the state (the ids a server made up) does not miss what the backend answered.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import starlark

from sim_mcp.errors import RulesError
from sim_mcp.rules.helpers import CallContext
from sim_mcp.rules.program import ENTRY, HANDED_ON, Program, located_error
from sim_mcp.state.patch import diff_patch
from sim_mcp.state.values import json_bytes, pointer

if TYPE_CHECKING:
    from sim_mcp.config import EngineConfig

# `check_cancelled` is called about every this many bytecode instructions.
_STEPS_PER_CHECK = 1000


@dataclass(frozen=True, slots=True)
class Limits:
    """The budget of one call: bytecode steps (counted in thousands), wall time, call depth, state size."""

    max_steps: int = 2_000_000
    timeout_s: float = 1.0
    max_call_depth: int = 64
    max_state_bytes: int = 1_000_000

    @classmethod
    def of(cls, engine: EngineConfig) -> Limits:
        """The limits the engine's settings give every program, hand-written or a model's (`--rules-max-steps`,
        `--rules-timeout-ms`, `--max-state-bytes`)."""
        return cls(
            max_steps=engine.rules_max_steps,
            timeout_s=engine.rules_timeout_ms / 1000,
            max_state_bytes=engine.max_state_bytes,
        )


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    """A function's answer: its result (an error's message when `is_error`) and the patch of its changes;
    or, when `declined` is not None, no answer at all (result None, no patch) and the function's reason."""

    result: Any
    is_error: bool
    state_patch: list[dict[str, Any]]
    declined: str | None = None


class _Budget:
    """The `check_cancelled` callback of one run: stops it past its steps or its deadline, and says which."""

    def __init__(self, limits: Limits) -> None:
        self.checks_left = max(1, limits.max_steps // _STEPS_PER_CHECK)
        self.deadline = time.perf_counter() + limits.timeout_s
        self.exceeded: str | None = None
        self.limits = limits

    def __call__(self) -> bool:
        self.checks_left -= 1
        if self.checks_left < 0:
            self.exceeded = f"ran past its budget of {self.limits.max_steps} steps"
        elif time.perf_counter() > self.deadline:
            self.exceeded = f"ran past its time budget of {self.limits.timeout_s:g} s"
        return self.exceeded is not None


def run_tool(
    program: Program,
    tool: str,
    state: Any,
    arguments: dict[str, Any],
    context: CallContext,
    limits: Limits,
    *,
    handing_on: bool = False,
) -> RuleOutcome:
    """Run `tool`'s function on a copy of `state`; raises `RulesError` naming the line where it failed.
    `handing_on`: the caller hands a declined call on (the outcome says `declined`); otherwise declining
    is a `RulesError`."""
    if not program.has(tool):
        raise RulesError(program.source, "the program has no function for this tool", tool=tool)
    state_text = json_bytes(state).decode()
    arguments_text = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    budget = _Budget(limits)
    options = starlark.EvalOptions(check_cancelled=budget, max_callstack_size=limits.max_call_depth)
    with program.lock:
        program.slot.current = context
        try:
            answer = program.module.call_with(options, ENTRY, tool, state_text, arguments_text).value
        except starlark.StarlarkError as e:
            if budget.exceeded is not None:
                raise RulesError(program.source, budget.exceeded, tool=tool) from None
            raise located_error(e, program.source, tool) from None
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # a Python helper's error; the interpreter out of memory (a Rust panic)
            raise RulesError(program.source, f"{type(e).__name__}: {e}", tool=tool) from None
        finally:
            program.slot.current = None
    return _outcome(program, tool, state, answer, limits, handing_on)


def run_handed_on(
    program: Program,
    state: Any,
    tool: str,
    arguments: dict[str, Any],
    result: Any,
    context: CallContext,
    limits: Limits,
) -> list[dict[str, Any]]:
    """The patch `sim_mcp_handed_on` makes to `state` after the backend answered a call of `tool` that the
    program did not (`result`, a success); none where the program has no such function."""
    if not program.has(HANDED_ON):
        return []
    call = {"tool": tool, "arguments": arguments, "result": result}
    outcome = run_tool(program, HANDED_ON, state, call, context, limits)
    return [] if outcome.is_error else outcome.state_patch


def _outcome(program: Program, tool: str, state: Any, answer: Any, limits: Limits, handing_on: bool) -> RuleOutcome:
    if not isinstance(answer, str):
        raise RulesError(program.source, "the entry point returned no JSON text", tool=tool)
    if len(answer) > limits.max_state_bytes:
        # The answer holds what changed (and the result): checked before it is decoded.
        reason = f"the state would grow to over {limits.max_state_bytes} bytes (the limit)"
        raise RulesError(program.source, reason, tool=tool)
    decoded = json.loads(answer)
    if "error" in decoded:
        return RuleOutcome(decoded["error"], True, [])
    if "declined" in decoded:
        if not handing_on:
            why = f": {decoded['declined']}" if decoded["declined"] else ""
            reason = f"the function declined the call (decline(){why}), but here nothing else can answer it"
            raise RulesError(program.source, reason, tool=tool)
        return RuleOutcome(None, False, [], declined=str(decoded["declined"]))
    if "replaced" in decoded:
        raise RulesError(program.source, "the function replaced the state with a value that is no object", tool=tool)
    patch = _patch(state, decoded.get("changed", {}), decoded.get("removed", []))
    return RuleOutcome(decoded["result"], False, patch)


def _patch(state: dict[str, Any], changed: dict[str, Any], removed: list[str]) -> list[dict[str, Any]]:
    """The RFC 6902 patch of what the entry point reported changed, relative to `state`."""
    patch: list[dict[str, Any]] = []
    for key, change in changed.items():
        at = pointer((key,))
        if "value" in change:
            if key in state:
                patch += diff_patch(state[key], change["value"], at)
            else:
                patch.append({"op": "add", "path": at, "value": change["value"]})
            continue
        records = state[key]
        for record_key, record in change["records"].items():
            path = pointer((key, record_key))
            if record_key in records:
                patch += diff_patch(records[record_key], record, path)
            else:
                patch.append({"op": "add", "path": path, "value": record})
        patch += [{"op": "remove", "path": pointer((key, gone))} for gone in change["removed"]]
    patch += [{"op": "remove", "path": pointer((key,))} for key in removed]
    return patch
