"""What a spec format is: how to tell its files, and how to read one into an `Environment`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim_mcp.specs.model import Environment
from sim_mcp.specs.schema import SchemaChecks

__all__ = ["SpecFormat"]


@dataclass(frozen=True, slots=True)
class SpecFormat:
    """One format of spec files, the entry of `sim_mcp.plugins.SPEC_FORMATS` its module names (`FORMAT`).

    - `detect(document)`: whether a parsed file is in this format (formats are tried in the table's order,
      and their detectors must not overlap);
    - `read(document, source, checks)`: the environment, or a `SpecError` naming `source`, the place and the
      reason; `checks` is the loader's `SchemaChecks`, to hand to `building.build_environment`, which checks
      each distinct schema once;
    - `described`: how an error for a file no format recognises names this one;
    - `near_miss(document)`: for a document no format recognises, what it lacks to be in this one (None: it
      is not close), said instead of the list of formats.
    """

    name: str
    detect: Callable[[Any], bool]
    read: Callable[[Any, str, SchemaChecks | None], Environment]
    described: str
    near_miss: Callable[[Any], str | None] | None = None
