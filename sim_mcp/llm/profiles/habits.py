"""Python a model writes out of habit, turned into the Starlark it meant, before a program it wrote is parsed.

Some models asked for Starlark write Python anyway, even when told not to (a profile that needs this names
`as_starlark` among its rewrites: llm/profiles/qwen.py). Two habits have one meaning in Starlark and are
rewritten, on the same line, so that a later error still points at the line the model wrote:
- `is` and `is not` (a reserved word in Starlark), which a program only uses against None, True or False:
  `==` and `!=`;
- a generator expression, which Starlark does not have, as a call's one argument or in its own
  parentheses (`sum(i["qty"] for i in items)`, `"".join(c for c in code)`): a list comprehension.
Other habits (f-strings with expressions, `isinstance`, `d.get(k, default=v)`) are not rewritten: on the
programs the fidelity reports keep, rewriting them changed no outcome (BENCHMARKS.md, "Language of
programs"), and the profile's error hints tell the model what to write instead.
Every rewrite is of code only: string literals and comments are kept as they are (`msg = "if x is None"`
and `"sum(i for i in items)"` are text), and so are triple-quoted strings. Programs are read by a scanner,
not by Python's parser or `tokenize`, so that one that is not valid Python (nor yet valid Starlark) is still
read: Python 3.11's `tokenize` raises on a line that does not close, and reads `f"{args["id"]}"` (3.12's
quoting, which models write) as three tokens. Anything not understood is left as it was, and the parser's
error goes back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["as_starlark", "string_end"]

_IS_NOT = re.compile(r"\bis\s+not\b")
_IS = re.compile(r"\bis\b")
_FOR = re.compile(r"\bfor\b")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRIPLE = re.compile(r"((\"\"\"|\'\'\')[\s\S]*?\2)")
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")


def as_starlark(text: str) -> str:
    """`text` with the habits of the module's doc rewritten (unchanged if it has none)."""
    if not (_IS.search(text) or _FOR.search(text)):
        return text
    parts = _TRIPLE.split(text)  # code, then a triple-quoted string and the code after it, and so on
    for index in range(0, len(parts), 3):
        lines = parts[index].splitlines(keepends=True)
        parts[index] = "".join(_generators(_in_code(line, _equality)) for line in lines)
    return "".join(part for index, part in enumerate(parts) if index % 3 != 2)


def _equality(code: str) -> str:
    return _IS.sub("==", _IS_NOT.sub("!=", code))


def _in_code(line: str, rewrite: Callable[[str], str]) -> str:
    """`line` with `rewrite` applied to its code only: each string literal (and the comment) stands in as a
    placeholder while it runs, so that a rewrite never changes one."""
    kept: list[str] = []

    def hold(text: str) -> str:
        kept.append(text)
        return f"\x00{len(kept) - 1}\x00"

    masked: list[str] = []
    index = 0
    while index < len(line):
        char = line[index]
        if char == "#":
            masked.append(hold(line[index:].rstrip("\r\n")) + line[len(line.rstrip("\r\n")) :])
            break
        if char in "\"'":
            end = string_end(line, index)
            end = len(line.rstrip("\r\n")) if end is None else end  # one that does not close: text to the end
            masked.append(hold(line[index:end]))
            index = end
            continue
        masked.append(char)
        index += 1
    rewritten = rewrite("".join(masked))
    return _PLACEHOLDER.sub(lambda m: kept[int(m[1])], rewritten)


@dataclass(slots=True)
class _Parenthesis:
    """An open `(` while a line is read: where, whether a `for` stands directly in it, and a comma before
    that (arguments besides the generator)."""

    at: int
    loop: bool = False
    comma: bool = False


def _generators(line: str) -> str:
    """`line` with each generator expression that fills a pair of parentheses, on this line, made a list
    comprehension: `f(x for x in y)` is `f([x for x in y])`, `(x for x in y)` is `[x for x in y]`."""
    if not _FOR.search(line):
        return line
    opened: list[_Parenthesis | None] = []  # None: a [ or {, whose `for` is a comprehension already
    found: list[tuple[int, int, bool]] = []  # (open, close, a call's parentheses)
    index = 0
    while index < len(line):
        char = line[index]
        if char == "#":
            break
        if char in "\"'":
            end = string_end(line, index)
            if end is None:
                return line
            index = end
            continue
        if (word := _WORD.match(line, index)) is not None:
            if word[0] == "for" and opened and opened[-1] is not None:
                opened[-1].loop = True
            index = word.end()
            continue
        if char == "(":
            opened.append(_Parenthesis(index))
        elif char in "[{":
            opened.append(None)
        elif char in ")]}":
            if not opened:
                return line
            closed = opened.pop()
            if closed is not None and closed.loop and not closed.comma:
                before = line[: closed.at].rstrip()
                found.append((closed.at, index, bool(before) and (before[-1].isalnum() or before[-1] in "_)]")))
        elif char == "," and opened and opened[-1] is not None and not opened[-1].loop:
            opened[-1].comma = True  # another argument; one after the `for` is its target's (`for k, v in`)
        index += 1
    if not found:
        return line
    # Each parenthesis replaced where it stands, so that nested generators' indices all stay true.
    chars = list(line)
    for start, end, call in found:
        chars[start], chars[end] = ("([", "])") if call else ("[", "]")
    return "".join(chars)


def string_end(line: str, start: int) -> int | None:
    """The index after the plain string that opens at `start` (None: it does not close on this line)."""
    quote, index = line[start], start + 1
    while index < len(line):
        if line[index] == "\\":
            index += 2
        elif line[index] == quote:
            return index + 1
        else:
            index += 1
    return None
