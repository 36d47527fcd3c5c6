"""Scenario files: the model of a scenario, its steps and expectations, and loading them from folders."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sim_mcp.episodes.fidelity.templates import references
from sim_mcp.episodes.tasks import Check
from sim_mcp.errors import SpecError
from sim_mcp.specs.formats import parse_document, visible_files
from sim_mcp.specs.formats.checks import pydantic_reason
from sim_mcp.specs.registry import Catalog, files_under
from sim_mcp.specs.schema import json_path, type_name


class Expectation(BaseModel):
    """What a step's outcome must be."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    is_error: bool | None = None
    found: bool | None = Field(default=None, description="found: true is is_error: false; found: false the opposite.")
    result: Any = Field(default=None, description="A subset of the result (objects: the keys given), or its value.")
    checks: list[Check] = Field(default_factory=list, description="Checks on the result.")
    state: list[Check] = Field(default_factory=list, description="Checks on the environment's state after the call.")

    @model_validator(mode="after")
    def _consistent(self) -> Expectation:
        if self.is_error is not None and self.found is not None and self.is_error == self.found:
            raise ValueError("is_error and found contradict each other: give one of them")
        return self

    def count(self) -> int:
        results = len(self.result) if isinstance(self.result, dict) else int("result" in self.model_fields_set)
        flags = int(self.is_error is not None or self.found is not None)
        return flags + results + len(self.checks) + len(self.state)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_\-]{1,64}$")
    call: str = Field(min_length=1, description="The tool to call (its plain name in the environment).")
    args: dict[str, Any] = Field(default_factory=dict)
    expect: Expectation = Field(default_factory=Expectation)
    rules: Expectation | None = None


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_.\-]{1,128}$")
    env: str = Field(min_length=1)
    description: str = ""
    state: dict[str, Any] | None = Field(default=None, description="A merge patch over the initial state.")
    steps: list[Step] = Field(min_length=1)
    source: str = Field(default="", exclude=True)

    @model_validator(mode="after")
    def references(self) -> Scenario:
        # Arguments may use earlier steps' outcomes; expectations also the step's own.
        seen: set[str] = set()
        for index, step in enumerate(self.steps):
            for template_id in references(step.args):
                if template_id not in seen:
                    raise ValueError(f"steps[{index}].args: {template_id!r} is not the id of an earlier step")
            if step.id is not None:
                if step.id in seen:
                    raise ValueError(f"steps[{index}].id: {step.id!r} is already the id of an earlier step")
                seen.add(step.id)
            expectations = step.model_dump(mode="json", include={"expect", "rules"})
            for template_id in references(expectations):
                if template_id not in seen:
                    raise ValueError(f"steps[{index}]: {template_id!r} is not the id of this step or an earlier one")
        return self


def scenario_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return visible_files(root)


def load_scenarios(*paths: Path) -> tuple[list[Scenario], list[SpecError]]:
    """The scenarios in `paths` (files or folders), and the errors of those that could not be read."""
    scenarios: list[Scenario] = []
    errors: list[SpecError] = []
    names: dict[str, str] = {}
    for path in files_under(paths, scenario_files, errors):
        try:
            scenario = _read_scenario(path)
        except SpecError as e:
            errors.append(e)
            continue
        if scenario.name in names:
            reason = f"scenario {scenario.name!r} is already defined in {names[scenario.name]}"
            errors.append(SpecError(str(path), reason, "name"))
            continue
        names[scenario.name] = str(path)
        scenarios.append(scenario)
    return scenarios, errors


def _read_scenario(path: Path) -> Scenario:
    source = str(path)
    document = parse_document(path)
    if not isinstance(document, dict):
        raise SpecError(source, f"expected a scenario (a mapping with env and steps), got {type_name(document)}")
    fields = {"name": path.stem, **document, "source": source}
    try:
        return Scenario.model_validate(fields)
    except ValidationError as e:
        first = e.errors()[0]
        reason = pydantic_reason(first) if first["type"] != "value_error" else str(first["msg"])
        raise SpecError(source, reason.removeprefix("Value error, "), json_path(first["loc"])) from e


def check_scenarios(scenarios: Sequence[Scenario], catalog: Catalog) -> list[SpecError]:
    """Each scenario's environment is loaded, and each step calls one of its tools."""
    errors: list[SpecError] = []
    for scenario in scenarios:
        environment = catalog.environment(scenario.env)
        if environment is None:
            known = ", ".join(sorted(catalog.environments)) or "none loaded"
            errors.append(SpecError(scenario.source, f"unknown environment {scenario.env!r}: expected one of {known}"))
            continue
        tools = [tool.name for tool in environment.tools]
        for index, step in enumerate(scenario.steps):
            if step.call not in tools:
                reason = (
                    f"unknown tool {step.call!r} in environment {scenario.env!r}: expected one of {', '.join(tools)}"
                )
                errors.append(SpecError(scenario.source, reason, f"steps[{index}].call"))
    return errors
