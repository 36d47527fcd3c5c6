"""What a benchmark run found: each expectation, each call's score, and the totals per scenario and run."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any

from sim_mcp.episodes.self_consistency import SelfConsistency
from sim_mcp.state.session import TokenUsage


@dataclass(frozen=True, slots=True)
class ExpectationResult:
    step: int
    call: str
    name: str
    passed: bool
    detail: str
    rule: bool = False


@dataclass(frozen=True, slots=True)
class CallScore:
    """One scripted call: did its result match, did the state after it match (None: no reference to
    compare with), how many fields the reference changed, and what it cost."""

    step: int
    call: str
    result_match: bool
    state_match: bool | None
    fields_changed: int | None
    tokens: TokenUsage
    latency_ms: float
    state_difference: str | None = None
    # Why the backend's answers before the committed one were rejected, and the error result the call
    # ended with (both cut, `running.py`): what a model got wrong, beyond whether it did.
    rejected: tuple[str, ...] = ()
    error: str | None = None
    # Those rejected answers as the model wrote them (the event's `rejected_answers`).
    rejected_answers: tuple[str, ...] = ()
    # `--llm-output auto` fell back to patch mode after program mode gave no valid answer (the event's).
    fallback: bool = False

    def to_json(self) -> dict[str, Any]:
        """Every field, in order, as JSON: a field added later is reported without a line here."""
        values = {item.name: getattr(self, item.name) for item in dataclass_fields(self)}
        as_json = {"tokens": self.tokens.model_dump(), "rejected": list(self.rejected)}
        return {**values, **as_json, "rejected_answers": list(self.rejected_answers)}


@dataclass(frozen=True, slots=True)
class ReferenceStep:
    """What the reference did at one step: the arguments it was called with, its outcome, the states."""

    arguments: dict[str, Any]
    result: Any
    is_error: bool
    before: Any
    after: Any


# Groups by the number of fields a call changes, as EnvSimBench reports them.
FIELD_GROUPS: tuple[tuple[str, int, int], ...] = (
    ("0", 0, 0),
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-4", 3, 4),
    ("5+", 5, 10**9),
)


class _Totals:
    """What a scenario's report and the whole benchmark's compute alike: the share of expectations met, and
    the tokens and mean latency of the calls."""

    __slots__ = ()

    @property
    def total(self) -> int:
        raise NotImplementedError

    @property
    def met(self) -> int:
        raise NotImplementedError

    def _scored(self) -> list[CallScore]:
        raise NotImplementedError

    @property
    def score(self) -> float:
        return self.met / self.total if self.total else 1.0

    @property
    def tokens(self) -> TokenUsage:
        return sum((call.tokens for call in self._scored()), TokenUsage())

    @property
    def mean_latency_ms(self) -> float | None:
        calls = self._scored()
        return statistics.fmean(call.latency_ms for call in calls) if calls else None


@dataclass(slots=True)
class ScenarioReport(_Totals):
    name: str
    env: str
    source: str
    steps: int = 0
    results: list[ExpectationResult] = field(default_factory=list)
    skipped_rules: int = 0
    failed_calls: int = 0
    calls: list[CallScore] = field(default_factory=list)
    referenced: bool = False
    # Without a reference: do the session's reads agree with what it showed before (episodes/self_consistency.py)?
    consistency: SelfConsistency = field(default_factory=SelfConsistency)

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def met(self) -> int:
        return sum(result.passed for result in self.results)

    def _scored(self) -> list[CallScore]:
        return self.calls

    def to_json(self) -> dict[str, Any]:
        as_they_are = ("name", "env", "source", "steps")
        return {
            **{name: getattr(self, name) for name in as_they_are},
            "expectations": self.total,
            "met": self.met,
            "score": round(self.score, 6),
            "skipped_rules": self.skipped_rules,
            "failed_calls": self.failed_calls,
            "fallback_calls": sum(call.fallback for call in self.calls),
            "tokens": self.tokens.model_dump(),
            "mean_latency_ms": self.mean_latency_ms,
            "referenced": self.referenced,
            "self_consistency": self.consistency.to_json(),
            "calls": [call.to_json() for call in self.calls],
            "failures": [
                {"step": r.step, "call": r.call, "expectation": r.name, "detail": r.detail, "rule": r.rule}
                for r in self.results
                if not r.passed
            ],
        }


@dataclass(slots=True)
class BenchmarkReport(_Totals):
    backend: str
    model: str | None
    rules: bool
    # Rules counted, besides, for the steps whose tool a rules program answers (`--rules auto`).
    rules_by_programs: bool = False
    scenarios: list[ScenarioReport] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(report.total for report in self.scenarios)

    @property
    def met(self) -> int:
        return sum(report.met for report in self.scenarios)

    def _scored(self) -> list[CallScore]:
        return self.calls

    @property
    def calls(self) -> list[CallScore]:
        return [call for report in self.scenarios for call in report.calls]

    def call_groups(self) -> list[tuple[str, list[CallScore]]]:
        """The calls, all of them, then those that change state, then by the number of fields changed."""
        calls = self.calls
        known = [call for call in calls if call.fields_changed is not None]
        groups = [("all calls", calls), ("state-changing calls", [c for c in known if c.fields_changed])]
        for label, low, high in FIELD_GROUPS:
            groups.append((f"{label} fields changed", [c for c in known if low <= (c.fields_changed or 0) <= high]))
        return groups

    def per_call(self) -> dict[str, Any]:
        """Tokens and seconds per call (medians and means over the calls that ran)."""
        calls = self.calls
        if not calls:
            return {}
        inputs = [call.tokens.input for call in calls]
        return {
            "calls": len(calls),
            "prompt_tokens_median": statistics.median(inputs),
            "prompt_tokens_mean": statistics.fmean(inputs),
            "output_tokens_mean": statistics.fmean(call.tokens.output for call in calls),
            "seconds_median": statistics.median(call.latency_ms for call in calls) / 1000,
            "seconds_mean": statistics.fmean(call.latency_ms for call in calls) / 1000,
        }

    @property
    def reads(self) -> tuple[int, int]:
        """Reads of the scenarios run without a reference, and how many agreed with what was shown before."""
        counted = [report.consistency for report in self.scenarios if not report.referenced]
        return sum(item.reads for item in counted), sum(item.agreeing for item in counted)

    def to_json(self) -> dict[str, Any]:
        groups = {label: call_rates(calls) for label, calls in self.call_groups()}
        reads, agreeing = self.reads
        return {
            "backend": self.backend,
            "model": self.model,
            "rules": self.rules,
            "expectations": self.total,
            "met": self.met,
            "score": round(self.score, 6),
            "tokens": self.tokens.model_dump(),
            "mean_latency_ms": self.mean_latency_ms,
            "per_call": self.per_call(),
            "call_groups": groups,
            "self_consistency": {"reads": reads, "agreeing": agreeing, "score": agreeing / reads if reads else None},
            "scenarios": [report.to_json() for report in self.scenarios],
        }


def call_rates(calls: list[CallScore]) -> dict[str, Any]:
    """Result and state match of `calls`, as shares (None when no call has the measure)."""
    states = [call.state_match for call in calls if call.state_match is not None]
    return {
        "calls": len(calls),
        "result_match": sum(call.result_match for call in calls) / len(calls) if calls else None,
        "state_match": sum(states) / len(states) if states else None,
        "state_compared": len(states),
    }
