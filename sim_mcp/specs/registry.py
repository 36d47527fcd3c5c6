"""A folder of spec files -> a `Catalog` of environments and their tools, with the files that failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema.protocols import Validator

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats import SPEC_SUFFIXES, parse_document, read_document
from sim_mcp.specs.formats.native import tools_from_paths
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import compile_schema


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool as served: its spec, its environment and its compiled schemas."""

    spec: ToolSpec
    environment: Environment
    input_validator: Validator
    output_validator: Validator | None

    @property
    def name(self) -> str:
        return self.spec.name

    @classmethod
    def compile(cls, spec: ToolSpec, environment: Environment) -> Tool:
        output = compile_schema(spec.output_schema) if spec.output_schema is not None else None
        return cls(spec, environment, compile_schema(spec.input_schema), output)


@dataclass(frozen=True)
class Catalog:
    """An immutable snapshot of everything loaded; a reload builds a new one."""

    environments: dict[str, Environment] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)
    errors: tuple[SpecError, ...] = ()

    def environment(self, name: str) -> Environment | None:
        return self.environments.get(name)

    def tools_of(self, environment: str | None = None) -> list[Tool]:
        """Every tool, or those of one environment, in load order."""
        return [tool for tool in self.tools.values() if environment is None or tool.environment.name == environment]

    def tool(self, name: str, environment: str | None = None) -> Tool | None:
        tool = self.tools.get(name)
        if tool is None or (environment is not None and tool.environment.name != environment):
            return None
        return tool

    @classmethod
    def build(cls, environments: list[Environment], errors: list[SpecError] | None = None) -> Catalog:
        """Index environments, rejecting (as errors) any whose name or tool names are already taken."""
        problems = list(errors or [])
        by_name: dict[str, Environment] = {}
        tools: dict[str, Tool] = {}
        for environment in environments:
            if (other := by_name.get(environment.name)) is not None:
                reason = f"environment {environment.name!r} is already defined in {other.source}"
                problems.append(SpecError(environment.source, reason, "name"))
                continue
            clash = next((tool.name for tool in environment.tools if tool.name in tools), None)
            if clash is not None:
                first = tools[clash].environment.source
                problems.append(
                    SpecError(
                        environment.source,
                        f"tool {clash!r} is also defined in {first}; tool names must be unique across files",
                        "tools",
                    )
                )
                continue
            by_name[environment.name] = environment
            for spec in environment.tools:
                tools[spec.name] = Tool.compile(spec, environment)
        return cls(by_name, tools, tuple(problems))

    def summary(self) -> dict[str, Any]:
        return {
            "environments": {name: [tool.name for tool in env.tools] for name, env in self.environments.items()},
            "errors": [str(error) for error in self.errors],
        }


def spec_files(folder: Path) -> list[Path]:
    """The spec files of a folder, recursively, in a stable order; hidden files and folders are skipped."""
    if folder.is_file():
        return [folder]
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix in SPEC_SUFFIXES
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    )


def load_catalog(*paths: Path) -> Catalog:
    """Load every spec file under `paths`; files that fail are reported in `Catalog.errors` and skipped.

    A file that a native file names in its `tools_from` is read as part of that environment, not as an
    environment of its own (its tools would otherwise be defined twice).
    """
    parsed: list[tuple[Path, Any]] = []
    errors: list[SpecError] = []
    for root in paths:
        if not root.exists():
            errors.append(SpecError(str(root), "no such file or folder"))
            continue
        for path in spec_files(root):
            try:
                parsed.append((path, parse_document(path)))
            except SpecError as e:
                parsed.append((path, e))
    included = {
        included.resolve()
        for path, document in parsed
        if not isinstance(document, SpecError)
        for included in tools_from_paths(document, str(path))
    }
    environments: list[Environment] = []
    for path, document in parsed:
        if path.resolve() in included:
            continue  # its errors, if any, are reported by the file that includes it
        if isinstance(document, SpecError):
            errors.append(document)
            continue
        try:
            environments.append(read_document(document, str(path)))
        except SpecError as e:
            errors.append(e)
    return Catalog.build(environments, errors)
