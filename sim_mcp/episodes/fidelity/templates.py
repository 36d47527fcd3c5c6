"""Templates in a scenario's arguments and expectations: `{{steps.ID.result.PATH}}` and the like."""

from __future__ import annotations

import json
import re
from typing import Any

from sim_mcp.errors import SimMcpError
from sim_mcp.text import shown

_TEMPLATE = re.compile(r"\{\{\s*steps\.([A-Za-z0-9_\-]+)\.(result|is_error|args)((?:\.[^.{}\s]+)*)\s*\}\}")


class Unresolved(SimMcpError):
    """A template naming something the earlier steps did not produce."""


def references(value: Any) -> list[str]:
    if isinstance(value, str):
        return [match.group(1) for match in _TEMPLATE.finditer(value)]
    if isinstance(value, dict):
        return [ref for item in value.values() for ref in references(item)]
    if isinstance(value, list):
        return [ref for item in value for ref in references(item)]
    return []


def render(value: Any, outcomes: dict[str, dict[str, Any]]) -> Any:
    if isinstance(value, str):
        whole = _TEMPLATE.fullmatch(value.strip())
        if whole is not None:
            return _lookup(whole, outcomes)
        return _TEMPLATE.sub(lambda match: as_text(_lookup(match, outcomes)), value)
    if isinstance(value, dict):
        return {key: render(item, outcomes) for key, item in value.items()}
    if isinstance(value, list):
        return [render(item, outcomes) for item in value]
    return value


def _lookup(match: re.Match[str], outcomes: dict[str, dict[str, Any]]) -> Any:
    step_id, part, rest = match.group(1), match.group(2), match.group(3)
    if step_id not in outcomes:
        raise Unresolved(f"{match.group(0)}: step {step_id!r} has no outcome")
    node = outcomes[step_id][part]
    walked = f"steps.{step_id}.{part}"
    for key in [key for key in rest.split(".") if key]:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            raise Unresolved(f"{match.group(0)}: {walked} has no {key!r} (it is {shown(node, 80)})")
        walked += f".{key}"
    return node


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
