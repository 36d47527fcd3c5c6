"""Recorded sessions with the values an agent chose renamed, so that a twin that memorised them fails.

A value the agent chose is a string of a call's arguments that the session had not seen in an earlier
answer (a server's own ids come back in answers first), that names nothing the server's tools list (an
enum value, a word of a description), and that holds a letter: keys, titles, names, messages. A path's
parts are chosen values each (`{tmp}/notes/a.txt`: `notes` and `a.txt`), the session's folder is not. An
arithmetic expression (digits with operators or parentheses: `sqrt(16)*pi`) is not: its words are the
functions and constants of the server's language, which a twin may know, and renamed they would be errors.
Nor is a number written in hexadecimal behind a `#` or `0x` (`#9367a6`, `0xff`): its letters are digits, and a
server that computes from it (a colour's shades, an address's mask) answers another value for another number,
which the renamed answers could not show.

Each chosen value gets one fresh value, the same in every session of the run: each run of letters
becomes other letters of the same length and case, digits and punctuation stay (a date stays a date, a
`.txt` stays a `.txt`), and no fresh value is a string seen anywhere in the sessions. The renaming applies
to arguments and answers alike: a whole string equal to a chosen value, and a chosen value standing alone
inside a longer text ("Created branch 'feature-x'"), are replaced.

`IdMap` is the other half of replaying a recorded session against a live server: values the server makes
up (UUIDs, hex ids) differ from the recorded ones, so each side's answers are lined up with the recorded
answers and later arguments name what that side made up.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from typing import Any

from sim_mcp.authoring.twins.agreement import HEX_FORM, UUID_FORM
from sim_mcp.authoring.twins.upstream import TMP_PLACEHOLDER
from sim_mcp.state.values import strings_in

__all__ = ["IdMap", "Renamer", "chosen_values", "served"]

_LETTERS = re.compile(r"[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,4}$")
# Digits with an operator other than a hyphen, or a parenthesis ("task-3" is a name, "2*pi" an expression);
# each word of an expression stands next to an operator or parenthesis ("costs 2*3" is prose).
_OPERATORS = "+-*/^%(),"
_EXPRESSION = re.compile(r"^(?=.*\d)(?=.*[+*/^%(])[\w\s.+\-*/%^(),]*$")
# A number in hexadecimal behind its marker (`#1e90ff`, `0x1F`): digits, however many are letters.
_HEX_NUMERAL = re.compile(r"(?:#|0[xX])[0-9A-Fa-f]+")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_MIN_INSIDE = 3  # shorter chosen values are renamed only as whole strings
# What a server makes up, as agreement compares it by form: a UUID, or hex of `HEX_FORM` (long, or short
# holding a letter and a digit).
_MADE_UP = re.compile(
    rf"(?<![0-9A-Za-z])(?:{UUID_FORM}|{HEX_FORM})(?![0-9A-Za-z])",
    re.IGNORECASE,
)


def _parts(text: str) -> list[str]:
    """The values a string stands for: its parts, for a path; else itself."""
    if "/" in text and " " not in text:
        return [part for part in text.split("/") if part and part != TMP_PLACEHOLDER]
    return [text]


def chosen_values(sessions: Iterable[list[tuple[dict[str, Any], Any]]], known: Iterable[str] = ()) -> set[str]:
    """The strings the agent chose in `sessions` (each a list of (arguments, answer) in call order);
    `known`: text the server's tools list (names, descriptions, schemas), whose words and quoted strings (an
    enum's `cubic meter`) are never chosen; nor is a value the server's own answers gave first (`served`)."""
    sessions = list(sessions)
    known = list(known)
    words = {word.lower() for text in known for word in _WORD.findall(text)}
    words |= {value.lower() for text in known for value in _quoted(text)}
    words |= {value.lower() for value in served(sessions)}
    chosen: set[str] = set()
    for session in sessions:
        answered: list[str] = []  # the session's answers so far, as text
        for arguments, answer in session:
            for text in strings_in(arguments):
                for part in _parts(text):
                    if part in chosen or not _LETTERS.search(part) or part.lower() in words or _shown(part, answered):
                        continue
                    if _is_expression(part) or _HEX_NUMERAL.fullmatch(part):
                        continue
                    chosen.add(part)
            answered += strings_in(answer)
    return chosen


def served(sessions: list[list[tuple[dict[str, Any], Any]]]) -> set[str]:
    """The values the server owns: those an answer shows, in some session, before that session's arguments
    gave them (a unit a listing tool named, a status an answer reported). Sessions start from worlds of their
    own, so such a value came from the server, not from the agent, wherever else the agent gives it."""
    given = {
        part
        for session in sessions
        for arguments, _ in session
        for text in strings_in(arguments)
        for part in _parts(text)
    }
    candidates = {part for part in given if _LETTERS.search(part)}
    found: set[str] = set()
    for session in sessions:
        said: set[str] = set()
        for arguments, answer in session:
            said.update(part for text in strings_in(arguments) for part in _parts(text))
            texts = list(strings_in(answer))
            found.update(part for part in candidates - said - found if _shown(part, texts))
    return found


def _quoted(text: str) -> list[str]:
    """The JSON strings inside `text` (a schema's enum values, its defaults), unescaped."""
    values = []
    for literal in _JSON_STRING.findall(text):
        try:
            values.append(json.loads(literal))
        except ValueError:
            continue
    return values


def _is_expression(text: str) -> bool:
    """Whether `text` is an arithmetic expression: digits, operators and parentheses, its words (functions,
    constants) each next to an operator or a parenthesis."""
    if not _EXPRESSION.match(text):
        return False
    return all(_beside_operator(text, found.start(), found.end()) for found in re.finditer(r"[A-Za-z_]\w*", text))


def _beside_operator(text: str, start: int, end: int) -> bool:
    before, after = text[:start].rstrip(), text[end:].lstrip()
    return (not before or before[-1] in _OPERATORS) and (not after or after[0] in _OPERATORS)


def _shown(part: str, answered: list[str]) -> bool:
    """Whether `part` stands alone in one of the texts `answered` (whole, or inside it)."""
    inside = re.compile(f"(?<![0-9A-Za-z]){re.escape(part)}(?![0-9A-Za-z])")
    return any(part in text and inside.search(text) for text in answered)


class Renamer:
    """One fresh value per chosen value, for the whole run (`seed` fixes them)."""

    def __init__(self, chosen: set[str], seen: set[str], seed: int = 0) -> None:
        self.mapping: dict[str, str] = {}
        taken = set(seen)
        for value in sorted(chosen):
            rng = random.Random(f"rename\x00{seed}\x00{value}")
            for _ in range(100):
                fresh = _fresh(value, rng)
                if fresh not in taken:
                    break
            taken.add(fresh)
            self.mapping[value] = fresh
        inside = sorted((v for v in self.mapping if len(v) >= _MIN_INSIDE), key=len, reverse=True)
        self._inside = (
            re.compile("(?<![0-9A-Za-z])(?:" + "|".join(re.escape(v) for v in inside) + ")(?![0-9A-Za-z])")
            if inside
            else None
        )

    def __call__(self, value: Any) -> Any:
        """`value` (arguments or an answer) with every chosen value in it renamed."""
        if isinstance(value, str):
            if value in self.mapping:
                return self.mapping[value]
            if self._inside is None:
                return value
            return self._inside.sub(lambda found: self.mapping[found.group(0)], value)
        if isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self(item) for item in value]
        return value


def _fresh(value: str, rng: random.Random) -> str:
    extension = _EXTENSION.search(value)
    stem, tail = (value[: extension.start()], extension.group(0)) if extension and extension.start() else (value, "")

    def letters(found: re.Match[str]) -> str:
        return "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ" if char.isupper() else "abcdefghijklmnopqrstuvwxyz")
            for char in found.group(0)
        )

    return _LETTERS.sub(letters, stem) + tail


class IdMap:
    """What one live side made up in place of what the recording shows, and the arguments to send it."""

    def __init__(self) -> None:
        self.mapping: dict[str, str] = {}

    def learn(self, recorded: Any, live: Any) -> None:
        """Line up a recorded answer with this side's answer to the same call: each made-up value (a UUID,
        long hex) of the recorded one, in order, stands for the one at the same place in the live one."""
        if isinstance(recorded, dict) and isinstance(live, dict):
            for key in recorded.keys() & live.keys():
                self.learn(recorded[key], live[key])
        elif isinstance(recorded, list) and isinstance(live, list):
            for want, got in zip(recorded, live, strict=False):
                self.learn(want, got)
        elif isinstance(recorded, str) and isinstance(live, str) and recorded != live:
            for want, got in zip(_MADE_UP.findall(recorded), _MADE_UP.findall(live), strict=False):
                if want != got and len(want) == len(got):
                    self.mapping.setdefault(want, got)

    def __call__(self, value: Any) -> Any:
        if not self.mapping:
            return value
        if isinstance(value, str):
            return _MADE_UP.sub(lambda found: self.mapping.get(found.group(0), found.group(0)), value)
        if isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self(item) for item in value]
        return value


def known_text(tools: Iterable[tuple[str, dict[str, Any]]], descriptions: Iterable[str] = ()) -> list[str]:
    """The text a server's tool list shows: names, schemas (enum values, property names), descriptions."""
    return [*(f"{name} {json.dumps(schema)}" for name, schema in tools), *descriptions]
