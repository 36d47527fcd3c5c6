"""The fields of a model profile (what they are for: llm/profiles/__init__.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["ErrorHint", "ModelProfile"]


@dataclass(frozen=True, slots=True)
class ErrorHint:
    """What to write instead, added to an interpreter error whose message matches `pattern`."""

    pattern: re.Pattern[str]
    hint: str


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """The accommodations of one family of models (none in the default profile)."""

    name: str
    # Applied in order to a program the model wrote, before it is parsed; each leaves string literals and
    # comments as they are, and the lines where they were (so an error still points at the model's line).
    program_rewrites: tuple[Callable[[str], str], ...] = ()
    # The first hint whose pattern matches an error's message is added to it, in parentheses.
    error_hints: tuple[ErrorHint, ...] = ()
    # The program guide's examples: "tailored" builds them of the called tool's own argument and collection
    # (a family that copies examples as they are); "plain" keeps them generic.
    guide: Literal["plain", "tailored"] = "plain"
    # The guide asks for strings in single quotes, and an error fed back has its double quotes made single:
    # for a family that writes a program inside a JSON string without escaping the `"`s it copies.
    single_quotes: bool = False

    def rewrite(self, program: str) -> str:
        """`program` with this profile's rewrites applied."""
        for rewrite in self.program_rewrites:
            program = rewrite(program)
        return program

    def explain(self, reason: str) -> str:
        """An interpreter error's `reason` as this profile's models are shown it: with the hint that matches,
        and, with `single_quotes`, no double quote in it."""
        hint = next((entry.hint for entry in self.error_hints if entry.pattern.search(reason)), None)
        said = f"{reason} ({hint})" if hint else reason
        return said.replace('"', "'") if self.single_quotes else said
