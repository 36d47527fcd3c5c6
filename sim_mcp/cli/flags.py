"""Command-line flags generated from `Settings`, so that a flag cannot exist in one and not the other.

Every `Settings` field `some_name` is the flag `--some-name` (and the variable `SIM_MCP_SOME_NAME`), typed
and described by the field: its help is the field's description, its default and its variable. `serve`
takes them all; the commands that run calls in process (`call`, `bench-fidelity`, `tasks generate`) take
those that matter without a transport. Flags of one command only (`--session`, `--rules`...) are written
beside the command and are not settings.
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

from sim_mcp.config import ENV_PREFIX, Settings

# Settings that only a server reads: not offered by the commands that call tools in process.
SERVER_ONLY = frozenset(
    {
        "transport",
        "host",
        "port",
        "workers",
        "stateless_http",
        "token",
        "allowed_hosts",
        "watch",
        "max_sessions",
        "session_ttl",
        "connection_idle_timeout",
        "max_request_bytes",
        "rate_limit",
        "log_format",
        "default_session",
        "trajectories",
        "record",
        "curriculum_window",
        "curriculum_up",
        "curriculum_down",
    }
)

_METAVARS: dict[Any, str] = {int: "N", float: "NUMBER", Path: "PATH"}

_GROUPS = {
    "fault_": "injected faults (docs/training.md)",
    "curriculum_": "adaptive curriculum (docs/users.md)",
}


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


def setting_flags(only: frozenset[str] | None = None) -> Iterator[tuple[str, FieldInfo]]:
    """The settings a command takes (all of them, or those in `only`), in the order `Settings` lists them."""
    for name, info in Settings.model_fields.items():
        if only is None or name in only:
            yield name, info


def add_setting_flags(parser: argparse.ArgumentParser, *, server: bool) -> None:
    """Add a flag per setting: all of them for a server, else those not in `SERVER_ONLY`."""
    wanted = None if server else frozenset(Settings.model_fields) - SERVER_ONLY
    groups: dict[str, argparse._ArgumentGroup] = {}
    for name, info in setting_flags(wanted):
        title = next((title for prefix, title in _GROUPS.items() if name.startswith(prefix)), None)
        target: argparse.ArgumentParser | argparse._ArgumentGroup = parser
        if title is not None:
            target = groups.setdefault(title, parser.add_argument_group(title))
        target.add_argument(flag_name(name), dest=name, default=None, help=_help(name, info), **_kind(info))


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
