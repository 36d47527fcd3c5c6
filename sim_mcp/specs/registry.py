"""A folder of spec files -> a `Catalog` of environments and their tools, with the files that failed.

A folder may hold a thousand environments, so loading one learns what the next load can reuse (`SpecCache`):
each file's environment by the digest of its bytes (and of the rules file beside it and the files it takes
tools from), and each distinct schema's check and validator. A reload re-reads every file's bytes, but parses
and checks only those that changed.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats import parse_bytes, read_document, visible_files
from sim_mcp.specs.formats.native import tools_from_paths
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.schema import CompiledSchema, SchemaChecks

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
    def compile(
        cls,
        spec: ToolSpec,
        environment: Environment,
        qualified_name: str | None = None,
        schemas: SchemaChecks | None = None,
    ) -> Tool:
        """The tool with its validators: from `schemas` (the loader's), shared by every tool whose schema is the
        same, and built when they first check a value."""
        schemas = schemas if schemas is not None else SchemaChecks()
        output = schemas.compiled(spec.output_schema) if spec.output_schema is not None else None
        return cls(spec, environment, schemas.compiled(spec.input_schema), output, qualified_name or spec.name)


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
    def build(
        cls, environments: list[Environment], errors: list[SpecError] | None = None, schemas: SchemaChecks | None = None
    ) -> Catalog:
        """Index environments (an environment name defined twice is an error); tool names that several
        environments share are namespaced on `/mcp` as `{env}__{tool}`. `schemas`: the loader's, whose
        validators tools with the same schema share."""
        schemas = schemas if schemas is not None else SchemaChecks()
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
                tool = Tool.compile(spec, environment, qualified, schemas)
                scoped[spec.name] = tool
                tools[qualified] = tool
        return cls(by_name, tools, tuple(problems), by_environment)

    @cached_property
    def names(self) -> list[str]:
        """The environments' names, sorted (the order `page` walks)."""
        return sorted(self.environments)

    def page(self, after: str | None, limit: int) -> tuple[list[Environment], str | None]:
        """Up to `limit` environments by name, from the first one after `after` (None: from the start); and the
        name to pass as `after` for the next page (None: this is the last). A name works as a cursor across
        reloads: the next page starts after it whether or not it is still loaded."""
        names = self.names
        start = bisect.bisect_right(names, after) if after is not None else 0
        chosen = names[start : start + limit]
        more = start + limit < len(names)
        return [self.environments[name] for name in chosen], (chosen[-1] if more and chosen else None)

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


@dataclass(frozen=True, slots=True)
class _Loaded:
    """What one spec file gave at its last load, and the digests of what it was read from."""

    digest: bytes  # of the file's bytes
    includes: tuple[Path, ...]  # the files its `tools_from` names, as found in it
    beside: tuple[bytes | None, ...]  # of the rules file beside it, then of each included file (None: absent)
    result: Environment | SpecError


class SpecCache:
    """What loading spec folders learns that the next load can reuse; a runtime keeps one for its life.

    - `schemas`: each distinct schema checked against its meta-schema, and compiled, once (`SchemaChecks`);
    - each file's environment (or error) by the digest of its bytes and of the files it was read with (its
      rules file, the files its `tools_from` names): an unchanged file is neither parsed nor checked again,
      and keeps its very `Environment` object, so what is derived from it (its compiled rules, its prompt)
      stays too.

    Files and schemas the latest load did not see are forgotten, so the cache holds one catalog's worth."""

    def __init__(self) -> None:
        self.schemas = SchemaChecks()
        self._files: dict[Path, _Loaded] = {}
        self.parsed = 0  # files parsed (not reused) by the latest load: what a reload re-read

    def _begin(self) -> None:
        self.parsed = 0

    def _end(self, seen: set[Path]) -> None:
        self._files = {path: loaded for path, loaded in self._files.items() if path in seen}
        self.schemas.keep_used()


def load_catalog(*paths: Path, previous: Catalog | None = None, cache: SpecCache | None = None) -> Catalog:
    """Load every spec file under `paths`; files that fail are reported in `Catalog.errors` and skipped.

    With `previous` (a reload), a file that fails now but loaded before keeps its last good version
    served, and its error is still reported. With `cache` (a runtime's, kept across reloads), files whose
    bytes and companions are unchanged since the cache saw them are not parsed or checked again.

    A file that a native file names in its `tools_from` is read as part of that environment, not as an
    environment of its own (its tools would otherwise be defined twice).
    """
    cache = cache if cache is not None else SpecCache()
    cache._begin()
    errors: list[SpecError] = []
    strings: dict[str, str] = {}  # the folder's files share the strings they repeat (keys, and copies' text)
    files: list[tuple[Path, bytes | SpecError, bytes, _Loaded | None]] = []
    for path in files_under(paths, spec_files, errors):
        raw = _read_bytes(path)
        if isinstance(raw, SpecError):
            files.append((path, raw, b"", None))
            continue
        digest, known = _digest(raw), cache._files.get(path)
        files.append((path, raw, digest, known if known is not None and known.digest == digest else None))
    documents: dict[Path, Any] = {}
    includes: dict[Path, tuple[Path, ...]] = {}
    for path, raw, _digested, known in files:
        if known is not None:
            includes[path] = known.includes
        elif isinstance(raw, bytes):
            documents[path] = _parsed(raw, path, strings)
            cache.parsed += 1
            document = documents[path]
            found = () if isinstance(document, SpecError) else tools_from_paths(document, str(path))
            includes[path] = tuple(found)
    included = {include.resolve() for found in includes.values() for include in found}
    environments: list[Environment] = []
    for path, raw, digest, known in files:
        if path.resolve() in included:
            continue  # its errors, if any, are reported by the file that includes it
        if isinstance(raw, SpecError):
            result: Environment | SpecError = raw
        else:
            beside = _digests_beside(path, includes[path])
            if known is not None and known.beside == beside:
                result = known.result
            else:
                if path not in documents:  # unchanged, but a file it was read with changed
                    documents[path] = _parsed(raw, path, strings)
                    cache.parsed += 1
                result = _environment(path, documents[path], cache.schemas)
            cache._files[path] = _Loaded(digest, includes[path], beside, result)
        if isinstance(result, Environment):
            environments.append(result)
            continue
        errors.extend(result.problems)  # every problem of the file, each with its place
        if (last_good := _environment_from(previous, path)) is not None:
            environments.append(last_good)
    catalog = Catalog.build(environments, errors, cache.schemas)
    cache._end({path for path, *_rest in files})
    return catalog


def _read_bytes(path: Path) -> bytes | SpecError:
    try:
        return path.read_bytes()
    except OSError as e:
        return SpecError(str(path), f"cannot read the file: {e}")


def _digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def _parsed(raw: bytes, path: Path, strings: dict[str, str]) -> Any:
    try:
        return parse_bytes(raw, path, strings)
    except SpecError as e:
        return e


def _digests_beside(path: Path, includes: tuple[Path, ...]) -> tuple[bytes | None, ...]:
    """Digests of the files an environment is read with: its rules file, then each file it takes tools from."""
    digests: list[bytes | None] = []
    for companion in (path.with_name(path.stem + RULES_SUFFIX), *includes):
        try:
            digests.append(_digest(companion.read_bytes()))
        except OSError:
            digests.append(None)
    return tuple(digests)


def _environment(path: Path, document: Any, schemas: SchemaChecks) -> Environment | SpecError:
    try:
        if isinstance(document, SpecError):
            raise document
        return with_rules_file(read_document(document, str(path), checks=schemas), path)
    except SpecError as e:
        return e


def _environment_from(catalog: Catalog | None, path: Path) -> Environment | None:
    if catalog is None:
        return None
    return next((env for env in catalog.environments.values() if env.source == str(path)), None)
