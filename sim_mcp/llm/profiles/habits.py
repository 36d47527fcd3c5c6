"""Python a model writes out of habit, turned into the Starlark it meant, before a program it wrote is parsed.

Some models asked for Starlark write Python anyway, even when told not to (a profile that needs this names
`as_starlark` among its rewrites: llm/profiles/qwen.py). Five habits have one meaning in Starlark and are
rewritten, on the same line, so that a later error still points at the line the model wrote:
- f-strings, often with the quotes of Python 3.12 (`f"{args["id"]}"`), which Starlark reads only with bare
  names inside: each one on one line becomes `%` formatting with the same text and expressions;
- `is` and `is not` (a reserved word in Starlark), which a program only uses against None, True or False:
  `==` and `!=`;
- `isinstance(value, dict)` (no such function): `type(value) == "dict"`;
- `d.get(key, default=value)` (Starlark's `get` takes no keywords): `d.get(key, value)`;
- a generator expression, which Starlark does not have, as a call's one argument or in its own
  parentheses (`sum(i["qty"] for i in items)`, `"".join(c for c in code)`): a list comprehension.
Every rewrite is of code only: string literals and comments are kept as they are (`msg = "call
isinstance(x, dict) first"` and `"use d.get(k, default=0)"` are text), and so are triple-quoted strings.
Programs are read by a scanner, not by Python's parser or `tokenize`, so that one that is not valid Python
(nor yet valid Starlark) is still read: Python 3.11's `tokenize` raises on a line that does not close, and
reads `f"{args["id"]}"` (3.12's quoting, which models write) as three tokens. Anything not understood is
left as it was, and the parser's error goes back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["as_starlark", "string_end"]

_PREFIX = re.compile(r"(?<![A-Za-z0-9_])[fF](?=[\"'])")
_IS_NOT = re.compile(r"\bis\s+not\b")
_IS = re.compile(r"\bis\b")
# isinstance(value, T) with one plain type: Starlark spells it type(value) == "name".
_ISINSTANCE = re.compile(r"\bisinstance\(\s*([^(),]+?)\s*,\s*(dict|list|str|int|float|bool|tuple)\s*\)")
_TYPE_NAMES = {"str": "string"}
# dict.get(key, default=value): Starlark's get takes its default by position only.
_GET_DEFAULT = re.compile(r"(\.get\([^()=]*?),\s*default\s*=\s*")
_FOR = re.compile(r"\bfor\b")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRIPLE = re.compile(r"((\"\"\"|\'\'\')[\s\S]*?\2)")
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


def as_starlark(text: str) -> str:
    """`text` with the habits of the module's doc rewritten (unchanged if it has none)."""
    if not (_PREFIX.search(text) or _IS.search(text) or "isinstance" in text or "default" in text or _FOR.search(text)):
        return text
    parts = _TRIPLE.split(text)  # code, then a triple-quoted string and the code after it, and so on
    for index in range(0, len(parts), 3):
        lines = parts[index].splitlines(keepends=True)
        parts[index] = "".join(_generators(_keyword_defaults(_type_tests(_line(line)))) for line in lines)
    return "".join(part for index, part in enumerate(parts) if index % 3 != 2)


def _line(line: str) -> str:
    out: list[str] = []
    code = ""  # code read since the last string, rewritten when a string or the line's end closes it
    index = 0
    while index < len(line):
        char = line[index]
        if char == "#":
            break
        if char in "\"'" or _PREFIX.match(line, index):
            if char in "\"'":  # a plain string: copied as it is
                end = string_end(line, index)
                converted = None if end is None else (line[index:end], end)
            else:
                converted = _f_string(line, index + 1)
            if converted is None:  # not understood, or cut off: the code before it is still read
                break
            out += [_code(code), converted[0]]
            code, index = "", converted[1]
            continue
        code += char
        index += 1
    return "".join(out) + _code(code) + line[index:]


def _code(code: str) -> str:
    return _IS.sub("==", _IS_NOT.sub("!=", code))


def _type_tests(line: str) -> str:
    """`isinstance(value, T)` as `(type(value) == "T")`, in code only (the value may hold a string: `args["n"]`)."""
    return _in_code(line, lambda code: _ISINSTANCE.sub(_type_test, code))


def _type_test(match: re.Match[str]) -> str:
    return f'(type({match[1]}) == "{_TYPE_NAMES.get(match[2], match[2])}")'


def _keyword_defaults(line: str) -> str:
    """`.get(key, default=value)` as `.get(key, value)`, in code only (the key is often a string)."""
    return _in_code(line, lambda code: _GET_DEFAULT.sub(r"\1, ", code))


def _in_code(line: str, rewrite: Callable[[str], str]) -> str:
    """`line` with `rewrite` applied to its code only: each string literal (and the comment) stands in as a
    placeholder while it runs, so that a rewrite may span a string (`args.get("memo", default="")`, whose
    key is one) and never changes one."""
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


def _f_string(line: str, start: int) -> tuple[str, int] | None:
    """The f-string whose quote is at `start` as `("text %s" % (value,))`, and the index after it."""
    quote, index = line[start], start + 1
    template: list[str] = []
    values: list[str] = []
    while index < len(line):
        char = line[index]
        if char == quote:
            literal = json.dumps("".join(template), ensure_ascii=False)
            if not values:
                return literal.replace("%%", "%"), index + 1
            return f"({literal} % ({', '.join(values)},))", index + 1
        if char == "\\" and index + 1 < len(line):
            template.append(_ESCAPES.get(line[index + 1], line[index : index + 2]))
            index += 2
        elif line.startswith("{{", index) or line.startswith("}}", index):
            template.append(char)
            index += 2
        elif char == "{":
            field = _field(line, index + 1)
            if field is None:
                return None
            value, placeholder, index = field
            template.append(placeholder)
            values.append(value)
        elif char == "}":
            return None
        else:
            template.append("%%" if char == "%" else char)
            index += 1
    return None


def _field(line: str, start: int) -> tuple[str, str, int] | None:
    """A replacement field `{expr[!r][:spec]}` from after its `{`: the value to format, its placeholder, and
    the index after the `}`; None for one Starlark's `%` has no spelling of (a width, an alignment)."""
    closers: list[str] = []
    index = start
    while index < len(line):
        char = line[index]
        if char in "\"'":
            end = string_end(line, index)
            if end is None:
                return None
            index = end
            continue
        if char in _BRACKETS:
            closers.append(_BRACKETS[char])
        elif closers and char == closers[-1]:
            closers.pop()
        elif not closers and char in "}!:":
            break
        index += 1
    else:
        return None
    expression = line[start:index].strip()
    placeholder = "%s"
    if line.startswith("!r", index) or line.startswith("!a", index):
        placeholder, index = "%r", index + 2
    elif line[index] == "!":
        index += 2  # !s
    spec = ""
    if line[index : index + 1] == ":":
        end = line.find("}", index)
        if end < 0:
            return None
        spec, index = line[index + 1 : end], end
    if not expression or line[index : index + 1] != "}":
        return None
    if spec == ".2f":  # money, as the helper writes it
        expression = f"money_text({expression})"
    elif spec:
        return None
    return expression, placeholder, index + 1
