"""What generating an environment did: each gate's verdict, the repairs it took, what it cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sim_mcp.state.session import TokenUsage

__all__ = ["GATES", "EnvironmentReport", "GateResult", "Summary"]

# The gates, in the order they run; "distinct" drops a near-duplicate of an environment already kept.
GATES = ("spec", "distinct", "programs", "consistency", "tasks", "gain", "agreement")
Status = Literal["passed", "dropped"]


@dataclass
class GateResult:
    passed: bool
    # Asks of the model this gate took beyond the first (each with the previous failure quoted).
    repairs: int = 0
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "repairs": self.repairs, "detail": self.detail}


@dataclass
class EnvironmentReport:
    """One description's run: its environment's name, each gate's verdict, the failed gate if dropped."""

    key: str
    description: str
    status: Status = "dropped"
    name: str | None = None
    failed_gate: str | None = None
    gates: dict[str, GateResult] = field(default_factory=dict)
    tools: int = 0
    records: int = 0
    tasks: int = 0
    tasks_by_difficulty: dict[int, int] = field(default_factory=dict)
    agreement: float | None = None
    tokens: TokenUsage = field(default_factory=TokenUsage)
    requests: int = 0
    seconds: float = 0.0

    @property
    def repairs(self) -> int:
        return sum(gate.repairs for gate in self.gates.values())

    def gate(self, name: str, passed: bool, detail: str = "", repairs: int = 0) -> bool:
        self.gates[name] = GateResult(passed, repairs, detail)
        if not passed and self.failed_gate is None:
            self.failed_gate = name
        return passed

    def line(self) -> str:
        if self.status == "passed":
            return (
                f"passed  {self.name}: {self.tools} tools, {self.tasks} tasks, {self.repairs} repairs, "
                f"agreement {self.agreement:.0%} ({self.seconds:.0f} s)"
                if self.agreement is not None
                else f"passed  {self.name}: {self.tools} tools, {self.tasks} tasks, {self.repairs} repairs"
            )
        gate = self.gates.get(self.failed_gate or "")
        why = gate.detail if gate is not None else ""
        return f"dropped {self.name or self.key}: gate {self.failed_gate}: {why}"

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "description": self.description,
            "status": self.status,
            "name": self.name,
            "failed_gate": self.failed_gate,
            "gates": {name: gate.to_json() for name, gate in self.gates.items()},
            "tools": self.tools,
            "records": self.records,
            "tasks": self.tasks,
            "tasks_by_difficulty": {str(level): count for level, count in sorted(self.tasks_by_difficulty.items())},
            "repairs": self.repairs,
            "agreement": self.agreement,
            "tokens": self.tokens.model_dump(),
            "requests": self.requests,
            "seconds": round(self.seconds, 1),
        }

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> EnvironmentReport:
        report = cls(str(document["key"]), str(document["description"]))
        report.status = "passed" if document.get("status") == "passed" else "dropped"
        report.name = document.get("name")
        report.failed_gate = document.get("failed_gate")
        report.gates = {
            name: GateResult(bool(gate["passed"]), int(gate.get("repairs", 0)), str(gate.get("detail", "")))
            for name, gate in (document.get("gates") or {}).items()
        }
        report.tools = int(document.get("tools", 0))
        report.records = int(document.get("records", 0))
        report.tasks = int(document.get("tasks", 0))
        report.tasks_by_difficulty = {int(k): int(v) for k, v in (document.get("tasks_by_difficulty") or {}).items()}
        report.agreement = document.get("agreement")
        report.tokens = TokenUsage.model_validate(document.get("tokens") or {})
        report.requests = int(document.get("requests", 0))
        report.seconds = float(document.get("seconds", 0.0))
        return report


@dataclass
class Summary:
    """A batch: how many environments passed each gate, what they hold, what it all cost."""

    reports: list[EnvironmentReport]
    model: str | None = None
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        passed = [report for report in self.reports if report.status == "passed"]
        tokens = TokenUsage()
        for report in self.reports:
            tokens = tokens + report.tokens
        return {
            "model": self.model,
            "descriptions": len(self.reports),
            "passed": len(passed),
            "dropped": len(self.reports) - len(passed),
            "passed_gate": {
                gate: sum(1 for report in self.reports if report.gates.get(gate) and report.gates[gate].passed)
                for gate in GATES
            },
            "failed_gate": {
                gate: sum(1 for report in self.reports if report.failed_gate == gate)
                for gate in GATES
                if any(report.failed_gate == gate for report in self.reports)
            },
            "tools_per_environment": _mean([report.tools for report in passed]),
            "tasks_per_environment": _mean([report.tasks for report in passed]),
            "records_per_environment": _mean([report.records for report in passed]),
            "repairs_per_environment": _mean([report.repairs for report in self.reports]),
            "agreement": _mean([report.agreement for report in passed if report.agreement is not None]),
            "tokens": tokens.model_dump(),
            "requests": sum(report.requests for report in self.reports),
            "seconds": round(self.seconds, 1),
            "environments": [
                {"key": r.key, "name": r.name, "status": r.status, "failed_gate": r.failed_gate} for r in self.reports
            ],
        }

    def lines(self) -> list[str]:
        document = self.to_json()
        gates = ", ".join(f"{gate} {count}" for gate, count in document["passed_gate"].items())
        tokens = document["tokens"]
        return [
            f"{document['passed']} of {document['descriptions']} environments passed every gate "
            f"({document['dropped']} dropped)",
            f"passed each gate: {gates}",
            f"per environment kept: {document['tools_per_environment']} tools, {document['tasks_per_environment']} "
            f"tasks; {document['repairs_per_environment']} repairs per description",
            f"{tokens['input'] + tokens['output']:,} tokens in {document['requests']} requests, "
            f"{document['seconds']:.0f} s",
        ]


def _mean(values: list[Any]) -> float:
    numbers = [float(value) for value in values]
    return round(sum(numbers) / len(numbers), 2) if numbers else 0.0
