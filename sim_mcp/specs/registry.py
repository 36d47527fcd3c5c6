"""A folder of spec files -> a `Catalog` of environments and their tools, with the files that failed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats import parse_document, read_document, visible_files
from sim_mcp.specs.formats.native import tools_from_paths
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import CompiledSchema, compile_schema

# Where two environments define a tool of the same name, `/mcp` serves each as `{env}__{tool}`;
# `/mcp/{env}` always serves plain names. (`__` rather than `.`: OpenAI function names forbid dots.)
NAMESPACE_SEPARATOR = "__"
# Folders of this name hold task files (see `episodes.tasks`): never read as environments.
TASKS_FOLDER = "tasks"
# A spec's rules program may sit beside it: `bank.yaml` -> `bank.rules.star` (docs/formats.md).
RULES_SUFFIX = ".rules.star"


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool as served: its spec, its environment, its compiled schemas, and its name on `/mcp`."""

    spec: ToolSpec
    environment: Environment
    input_validator: CompiledSchema
    output_validator: CompiledSchema | None
    qualified_name: str

    @property
    def name(self) -> str:
        return self.spec.name

    def served_name(self, scope: str | None) -> str:
        """The name clients see: plain inside one environment, possibly namespaced across all of them."""
        return self.spec.name if scope is not None else self.qualified_name

    @classmethod
    def compile(cls, spec: ToolSpec, environment: Environment, qualified_name: str | None = None) -> Tool:
        output = compile_schema(spec.output_schema) if spec.output_schema is not None else None
        return cls(spec, environment, compile_schema(spec.input_schema), output, qualified_name or spec.name)


@dataclass(frozen=True)
class Catalog:
    """An immutable snapshot of everything loaded; a reload builds a new one."""

    environments: dict[str, Environment] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict, metadata={"doc": "by name on /mcp"})
    errors: tuple[SpecError, ...] = ()
    by_environment: dict[str, dict[str, Tool]] = field(default_factory=dict)

    def environment(self, name: str) -> Environment | None:
        return self.environments.get(name)

    def tools_of(self, environment: str | None = None) -> list[Tool]:
        """Every tool, or those of one environment, in load order."""
        if environment is None:
            return list(self.tools.values())
        return list(self.by_environment.get(environment, {}).values())

    def tool(self, name: str, environment: str | None = None) -> Tool | None:
        """A tool by the name a client uses: on `/mcp` (no environment) or on `/mcp/{environment}`."""
        if environment is None:
            return self.tools.get(name)
        return self.by_environment.get(environment, {}).get(name)

    @classmethod
    def build(cls, environments: list[Environment], errors: list[SpecError] | None = None) -> Catalog:
        """Index environments (an environment name defined twice is an error); tool names that several
        environments share are namespaced on `/mcp` as `{env}__{tool}`."""
        problems = list(errors or [])
        by_name: dict[str, Environment] = {}
        for environment in environments:
            if (other := by_name.get(environment.name)) is not None:
                reason = f"environment {environment.name!r} is already defined in {other.source}"
                problems.append(SpecError(environment.source, reason, "name"))
                continue
            by_name[environment.name] = environment
        owners: dict[str, int] = {}
        for environment in by_name.values():
            for spec in environment.tools:
                owners[spec.name] = owners.get(spec.name, 0) + 1
        tools: dict[str, Tool] = {}
        by_environment: dict[str, dict[str, Tool]] = {}
        for environment in by_name.values():
            scoped = by_environment.setdefault(environment.name, {})
            for spec in environment.tools:
                shared = owners[spec.name] > 1
                qualified = f"{environment.name}{NAMESPACE_SEPARATOR}{spec.name}" if shared else spec.name
                tool = Tool.compile(spec, environment, qualified)
                scoped[spec.name] = tool
                tools[qualified] = tool
        return cls(by_name, tools, tuple(problems), by_environment)

    def shared_tool_names(self) -> dict[str, list[str]]:
        """Tool names defined by several environments -> the files defining them (served namespaced)."""
        files: dict[str, list[str]] = {}
        for tool in self.tools.values():
            files.setdefault(tool.name, []).append(tool.environment.source)
        return {name: sources for name, sources in files.items() if len(sources) > 1}

    def summary(self) -> dict[str, Any]:
        return {
            "environments": {name: [tool.name for tool in env.tools] for name, env in self.environments.items()},
            "errors": [str(error) for error in self.errors],
        }


def with_rules_file(environment: Environment, path: Path) -> Environment:
    """The environment with the text of the rules program beside its spec file (`<stem>.rules.star`), if
    there is one; the engine compiles it (`rules/`). A program both inline (`rules:`) and beside the
    file is an error."""
    beside = path.with_name(path.stem + RULES_SUFFIX)
    if not beside.is_file():
        if environment.rules is not None:
            return environment.model_copy(update={"rules_source": f"{path}: rules"})
        return environment
    if environment.rules is not None:
        raise SpecError(str(path), f"the rules are given twice: here and in {beside}; keep one", "rules")
    try:
        text = beside.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecError(str(beside), f"cannot read the rules program: {e}") from e
    return environment.model_copy(update={"rules": text, "rules_source": str(beside)})


def spec_files(folder: Path) -> list[Path]:
    """The spec files of a folder, recursively, in a stable order; hidden files and folders are skipped,
    and so are folders named `tasks` (task files, read by `episodes.tasks`, not environments)."""
    if folder.is_file():
        return [] if folder.parent.name == TASKS_FOLDER else [folder]
    return [path for path in visible_files(folder) if not in_tasks_folder(folder, path)]


def in_tasks_folder(root: Path, path: Path) -> bool:
    """Whether `path` (a file under the folder `root`) lies in a folder named `tasks`, `root` included."""
    folders = path.relative_to(root).parts[:-1]
    return root.name == TASKS_FOLDER or TASKS_FOLDER in folders


def files_under(
    paths: Iterable[Path], files_of: Callable[[Path], list[Path]], errors: list[SpecError]
) -> Iterator[Path]:
    """The files `files_of` finds under each of `paths` (files or folders), in order; a path that does not exist
    is reported in `errors` and skipped, so one mistyped path does not hide the files of the others."""
    for root in paths:
        if not root.exists():
            errors.append(SpecError(str(root), "no such file or folder"))
            continue
        yield from files_of(root)


def load_catalog(*paths: Path, previous: Catalog | None = None) -> Catalog:
    """Load every spec file under `paths`; files that fail are reported in `Catalog.errors` and skipped.

    With `previous` (a reload), a file that fails now but loaded before keeps its last good version
    served, and its error is still reported.

    A file that a native file names in its `tools_from` is read as part of that environment, not as an
    environment of its own (its tools would otherwise be defined twice).
    """
    parsed: list[tuple[Path, Any]] = []
    errors: list[SpecError] = []
    for path in files_under(paths, spec_files, errors):
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
        try:
            if isinstance(document, SpecError):
                raise document
            environments.append(with_rules_file(read_document(document, str(path)), path))
        except SpecError as e:
            errors.extend(e.problems)  # every problem of the file, each with its place
            if (last_good := _environment_from(previous, path)) is not None:
                environments.append(last_good)
    return Catalog.build(environments, errors)


def _environment_from(catalog: Catalog | None, path: Path) -> Environment | None:
    if catalog is None:
        return None
    return next((env for env in catalog.environments.values() if env.source == str(path)), None)
