"""The extension points: one table each of what sim-mcp can be given, in the spirit of fsspec's `registry.py`.

    table          what it names                         entry-point group      run-time registration
    SPEC_FORMATS   readers of spec files, in detection   sim_mcp.spec_formats   register_spec_format
                   order (a `SpecFormat`)
    BACKENDS       simulator backends and LLM providers  sim_mcp.backends       register_backend
                   (a `Backend` subclass)
    STORES         session stores by URL scheme          sim_mcp.stores         register_store
                   (a `SessionStore` subclass)
    CHECK_KINDS    conditions of a task's checks         sim_mcp.check_kinds    register_check_kind
                   (a `CheckKind`)
    OUTPUT_MODES   how a model answers a call            sim_mcp.output_modes   register_output_mode
                   (a `Mode`, or a `ModeChooser`)

A table maps a name to an `Entry`: where the thing is (`"module:attribute"`, imported only when the name is
first looked up, so naming every backend costs no SDK import), a line of help, and what to install when its
module is missing. The names a command offers, its `--help` and the error for an unknown name all come from
the table, so adding one is one module and one line here. A package adds its own without touching sim-mcp,
through the table's entry-point group (`[project.entry-points."sim_mcp.backends"] mine = "pkg.mod:MyBackend"`);
a program or a test adds one at run time (`register_backend("mine", MyBackend)`).

The tables are the one mutable state at module level that the package keeps, as fsspec's is: what is
registered at run time is seen by every runtime in the process. They hand back plain objects; the room
that uses a table checks what it got (`load_backend` that it is a `Backend`...), so this module imports no
room above it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from sim_mcp.errors import ConfigError, NotRegistered

__all__ = [
    "BACKENDS",
    "CHECK_KINDS",
    "OUTPUT_MODES",
    "SPEC_FORMATS",
    "STORES",
    "Entry",
    "Registry",
    "register_backend",
    "register_check_kind",
    "register_output_mode",
    "register_spec_format",
    "register_store",
]


@dataclass(frozen=True, slots=True)
class Entry:
    """One name of a table: `target` is `"module:attribute"` (imported when first looked up) or the object
    itself; `install` what to install when its module is missing; `env` the environment variables it reads;
    `tags` what a room asks of it (`model`: a backend with a model to ask)."""

    target: str | object
    help: str = ""
    install: str | None = None
    env: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()


class Registry:
    """One extension point's table: its entries in order, those registered at run time after them, then
    those its entry-point group names (read on the first name the rest do not know)."""

    def __init__(self, what: str, group: str, entries: Mapping[str, Entry], *, setting: str = "") -> None:
        self.what = what
        self.group = group
        self.setting = setting
        self._entries: dict[str, Entry] = dict(entries)
        self._builtin = tuple(entries)
        self._loaded: dict[str, object] = {}
        self._scanned = False

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name) is not None

    def __iter__(self) -> Iterator[str]:
        """The names known without reading the installed packages: the table's, then those registered."""
        return iter(tuple(self._entries))

    def builtin(self) -> tuple[str, ...]:
        """The names sim-mcp ships, in the table's order (what `--help` lists)."""
        return self._builtin

    def names(self) -> tuple[str, ...]:
        """Every name known: the table's, those registered, those of installed packages' entry points."""
        self.scan()
        return tuple(self._entries)

    def entry(self, name: str) -> Entry:
        """The entry of `name`; `NotRegistered` naming the known ones when there is none."""
        found = self._find(name)
        if found is None:
            raise NotRegistered(self.what, name, self.names(), self.setting)
        return found

    def tagged(self, tag: str) -> tuple[str, ...]:
        """The names whose entry carries `tag` (those of the table and registered: entry points carry none)."""
        return tuple(name for name, entry in self._entries.items() if tag in entry.tags)

    def load(self, name: str) -> object:
        """The object `name` stands for, imported on first use; `ConfigError` naming what to install when its
        module is missing, `NotRegistered` when the name is unknown."""
        if name in self._loaded:
            return self._loaded[name]
        target = self.entry(name).target
        value = _resolve(target, self.what, name, self.entry(name).install) if isinstance(target, str) else target
        self._loaded[name] = value
        return value

    def register(self, name: str, target: str | object, *, help: str = "", clobber: bool = False) -> None:
        """Add `name` (an object, or `"module:attribute"`); an existing name needs `clobber=True`."""
        if not clobber and self._find(name) is not None:
            raise ConfigError(f"{self.what} {name!r} is registered already: pass clobber=True to replace it")
        self._entries[name] = Entry(target, help)
        self._loaded.pop(name, None)

    def unregister(self, name: str) -> None:
        """Remove a name registered at run time (a test's toy entry); the table's own names stay."""
        if name in self._builtin:
            raise ConfigError(f"{self.what} {name!r} is one of sim-mcp's own and cannot be removed")
        self._entries.pop(name, None)
        self._loaded.pop(name, None)

    def listing(self, *, last: str = "or") -> str:
        """The table's names as prose, `a, b, c or d` (for help and messages)."""
        return _prose(self.builtin(), last)

    def scan(self) -> tuple[str, ...]:
        """Read the names the installed packages add through the entry-point group, once; returns those it
        added. Reading the packages' metadata takes a tenth of a second or more, so it is done only when a
        name is not found otherwise (or every name is asked for), never on the way of a call."""
        if self._scanned:
            return ()
        self._scanned = True
        from importlib.metadata import entry_points  # imported only here: most processes never scan

        added = []
        for point in entry_points(group=self.group):
            if point.name not in self._entries:
                package = point.dist.name if point.dist is not None else "an installed package"
                self._entries[point.name] = Entry(point.value, f"from {package}")
                added.append(point.name)
        return tuple(added)

    def _find(self, name: str) -> Entry | None:
        if name not in self._entries:
            self.scan()
        return self._entries.get(name)


def _resolve(target: str, what: str, name: str, install: str | None) -> object:
    module, _, attribute = target.partition(":")
    try:
        loaded = importlib.import_module(module)
    except ImportError as e:
        hint = f": install {install} (pip install {install})" if install else ""
        raise ConfigError(f"{what} {name!r} needs a module that cannot be imported ({e}){hint}") from e
    try:
        return getattr(loaded, attribute) if attribute else loaded
    except AttributeError as e:
        raise ConfigError(f"{what} {name!r}: {module} has no {attribute!r} ({target})") from e


def _prose(names: tuple[str, ...], last: str) -> str:
    return ", ".join(names) if len(names) < 2 else f"{', '.join(names[:-1])} {last} {names[-1]}"


_SPEC_FORMATS: dict[str, Entry] = {
    # In detection order. The detectors look for shapes that do not overlap, so none takes another's files.
    "native": Entry("sim_mcp.specs.formats.native:FORMAT", "sim-mcp's own: a mapping with name and tools"),
    "openapi": Entry("sim_mcp.specs.formats.openapi:FORMAT", "an OpenAPI 3.0/3.1 document"),
    "mcp": Entry("sim_mcp.specs.formats.mcp:FORMAT", "MCP tools/list results"),
    "openai": Entry("sim_mcp.specs.formats.openai:FORMAT", "OpenAI function-calling tools"),
    "anthropic": Entry("sim_mcp.specs.formats.anthropic:FORMAT", "Anthropic tools"),
    "bfcl": Entry("sim_mcp.specs.formats.bfcl:FORMAT", "BFCL function docs"),
}

_BACKENDS: dict[str, Entry] = {
    "offline": Entry("sim_mcp.engine.backends.offline:OfflineBackend", "deterministic, no network"),
    "openai": Entry(
        "sim_mcp.llm.providers.openai:OpenAIBackend",
        "OpenAI Chat Completions, or any server that speaks it (vLLM, Ollama, llama.cpp)",
        install="openai",
        env=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        tags=frozenset({"model"}),
    ),
    "anthropic": Entry(
        "sim_mcp.llm.providers.anthropic:AnthropicBackend",
        "the Anthropic Messages API",
        install="anthropic",
        env=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"),
        tags=frozenset({"model"}),
    ),
    "replay": Entry("sim_mcp.engine.backends.replay:ReplayBackend", "answers from a cassette (--cassette)"),
}

_STORES: dict[str, Entry] = {
    "memory": Entry("sim_mcp.state.stores.memory:MemoryStore", "memory (this process's memory)"),
    "sqlite": Entry(
        "sim_mcp.state.stores.sqlite:SqliteStore",
        "sqlite:///PATH (relative; sqlite:////abs/path for an absolute one)",
    ),
    "redis": Entry("sim_mcp.state.stores.redis:RedisStore", "redis://HOST:PORT/DB", install="redis"),
    "rediss": Entry("sim_mcp.state.stores.redis:RedisStore", "rediss://HOST:PORT/DB (TLS)", install="redis"),
}

_CHECK_KINDS: dict[str, Entry] = {
    "equals": Entry("sim_mcp.episodes.check_kinds:EQUALS", "the value equals this one"),
    "contains": Entry("sim_mcp.episodes.check_kinds:CONTAINS", "the value contains this one"),
    "count": Entry("sim_mcp.episodes.check_kinds:COUNT", "how many values there are"),
    "exists": Entry("sim_mcp.episodes.check_kinds:EXISTS", "a value is there (true) or not (false)"),
    "absent": Entry("sim_mcp.episodes.check_kinds:ABSENT", "no value is there (true) or one is (false)"),
}

_OUTPUT_MODES: dict[str, Entry] = {
    "patch": Entry("sim_mcp.llm.modes.patch:PATCH", "JSON Patch of the state"),
    "program": Entry(
        "sim_mcp.llm.modes.program:PROGRAM",
        "a short Starlark program the engine runs on the state, so arithmetic and copies are exact",
    ),
    "auto": Entry("sim_mcp.llm.modes.auto:AUTO", "program for a call whose tool changes the state, patch for a read"),
}

SPEC_FORMATS = Registry("spec format", "sim_mcp.spec_formats", _SPEC_FORMATS, setting="--format")
BACKENDS = Registry("backend", "sim_mcp.backends", _BACKENDS, setting="--backend / SIM_MCP_BACKEND")
STORES = Registry("store", "sim_mcp.stores", _STORES, setting="--store / SIM_MCP_STORE")
CHECK_KINDS = Registry("check kind", "sim_mcp.check_kinds", _CHECK_KINDS)
OUTPUT_MODES = Registry(
    "output mode", "sim_mcp.output_modes", _OUTPUT_MODES, setting="--llm-output / SIM_MCP_LLM_OUTPUT"
)


def register_spec_format(name: str, format: object, *, clobber: bool = False) -> None:
    """Add a spec format (a `SpecFormat`: `detect`, `read`); it is tried after the table's own."""
    SPEC_FORMATS.register(name, format, clobber=clobber)


def register_backend(name: str, backend: object, *, help: str = "", clobber: bool = False) -> None:
    """Add a backend (a `Backend` subclass; `Backend.from_config` builds it from the settings)."""
    BACKENDS.register(name, backend, help=help, clobber=clobber)


def register_store(scheme: str, store: object, *, help: str = "", clobber: bool = False) -> None:
    """Add a session store for URLs `scheme://...` (a `SessionStore` subclass with `from_url`)."""
    STORES.register(scheme, store, help=help, clobber=clobber)


def register_check_kind(name: str, kind: object, *, clobber: bool = False) -> None:
    """Add a kind of check (a `CheckKind`: its label, its evaluation, its line in task generation's prompt)."""
    CHECK_KINDS.register(name, kind, clobber=clobber)


def register_output_mode(name: str, mode: object, *, clobber: bool = False) -> None:
    """Add an output mode (a `Mode`, or a `ModeChooser` that picks one per call)."""
    OUTPUT_MODES.register(name, mode, clobber=clobber)
