"""Command-line flags generated from `Settings`, so that a flag cannot exist in one and not the other.

Every `Settings` field `some_name` is the flag `--some-name` (and the variable `SIM_MCP_SOME_NAME`), typed
and described by the field: its help is the field's description, its default and its variable. Settings are
grouped by what they are about (`config.CONCERNS`: specs, server, store, engine, llm, faults, episodes); a
command names the concerns it reads and offers those flags only, each concern a section of its `--help`.
`serve` reads them all; `call` those of a call made in process (`IN_PROCESS`). Flags of one command only
(`--session`, `--rules`...) are written beside the command and are not settings.
"""

from __future__ import annotations

import argparse
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from sim_mcp.config import CONCERNS, ENV_PREFIX, Settings

# The concerns of a call made in process (`sim-mcp call`): everything but the server's and the episodes'.
IN_PROCESS = ("specs", "store", "engine", "llm", "faults")

_METAVARS: dict[Any, str] = {int: "N", float: "NUMBER", Path: "PATH"}

# The title of each concern's section in a command's --help.
_TITLES = {
    "specs": "specs",
    "server": "server (HTTP and stdio)",
    "store": "session store",
    "engine": "engine (validation, rules programs, seeds)",
    "llm": "backend and LLM",
    "faults": "injected faults (docs/training.md)",
    "episodes": "episodes: trajectories, recordings, curriculum (docs/training.md, docs/users.md)",
}


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


def setting_flags(concerns: typing.Iterable[str] | None = None) -> Iterator[tuple[str, FieldInfo]]:
    """The settings of `concerns` (all of them when None), in the order `Settings` lists them."""
    wanted = None if concerns is None else {name for concern in concerns for name in _concern(concern)}
    for name, info in Settings.model_fields.items():
        if wanted is None or name in wanted:
            yield name, info


def add_setting_flags(
    parser: argparse.ArgumentParser, concerns: typing.Iterable[str] | None = None, *, server: bool | None = None
) -> None:
    """Add a flag per setting of `concerns` (all of them when None), a section of --help per concern.
    `server=True` is every concern, `server=False` those of a call in process (`IN_PROCESS`)."""
    if server is not None:
        concerns = None if server else IN_PROCESS
    chosen = list(CONCERNS) if concerns is None else [concern for concern in CONCERNS if concern in set(concerns)]
    for concern in chosen:
        group = parser.add_argument_group(_TITLES.get(concern, concern))
        for name, info in setting_flags([concern]):
            group.add_argument(flag_name(name), dest=name, default=None, help=_help(name, info), **_kind(info))


def _concern(concern: str) -> tuple[str, ...]:
    fields = CONCERNS.get(concern)
    if fields is None:
        raise ValueError(f"unknown settings concern {concern!r}: expected one of {', '.join(CONCERNS)}")
    return fields


def settings_from(args: argparse.Namespace) -> Settings:
    """Defaults, then `SIM_MCP_*` variables, then the flags given."""
    flags = {name: getattr(args, name, None) for name in Settings.model_fields}
    return Settings.load(flags)


def _help(name: str, info: FieldInfo) -> str:
    default = info.get_default(call_default_factory=True)
    shown = "" if default is None or default is PydanticUndefined else f"default {_shown(default)}; "
    description = (info.description or "").rstrip(".")
    return f"{description} ({shown}{ENV_PREFIX}{name.upper()})".replace("%", "%%")


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(item) for item in value) or "none"
    return str(value)


def _kind(info: FieldInfo) -> dict[str, Any]:
    """argparse's `type`, `action`, `choices` for a field's annotation (optional fields: their inner type)."""
    annotation = _unwrap_optional(info.annotation)
    origin = typing.get_origin(annotation)
    if annotation is bool:
        return {"action": argparse.BooleanOptionalAction}
    if origin is Literal:
        return {"choices": list(typing.get_args(annotation))}
    if origin is list:
        (item,) = typing.get_args(annotation)
        if item is Path:
            return {"action": "append", "type": Path, "metavar": "PATH"}
        return {"type": _comma_list, "metavar": "A,B"}
    if annotation in _METAVARS:
        return {"type": annotation, "metavar": _METAVARS[annotation]}
    return {"metavar": "TEXT"}  # str, or a union the settings parse themselves (e.g. a latency)


def _unwrap_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        inner = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(inner) == 1:
            return inner[0]
    return annotation


def _comma_list(text: str) -> list[str]:
    return [part for part in text.split(",") if part]
