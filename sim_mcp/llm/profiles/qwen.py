"""Qwen2.5-Coder (measured on the 1.5B model behind a local OpenAI-compatible server, BENCHMARKS.md "State").

Asked for Starlark, it writes Python (`is None` and generator expressions: `habits.py` rewrites them;
f-strings, `isinstance` and keyword defaults too, which rewriting changed no outcome of, BENCHMARKS.md
"Language of programs"); shown an interpreter error, it repeats the mistake unless the error says what to
write instead (`_HINTS`); it copies the guide's examples with their names as they are (a fixed
`account_id` in a ticket tool, `state['records']`), so it reads them made of the called tool's own names;
it writes its program inside a JSON string and ends it early at any `"` it copies from an error ("unfinished
string literal" retries), so strings go in single quotes and errors reach it without double quotes; and it
sometimes escapes its program twice (the newlines arrive as backslash-n).
"""

from __future__ import annotations

import re

from sim_mcp.llm.profiles.base import ErrorHint, ModelProfile
from sim_mcp.llm.profiles.habits import as_starlark, string_end
from sim_mcp.rules.helpers import HELPER_NAMES

__all__ = ["PROFILE", "matches"]


def matches(model: str) -> bool:
    """Whether `model` names a Qwen2.5-Coder (`Qwen/Qwen2.5-Coder-1.5B-Instruct`, `qwen2.5-coder:1.5b`)."""
    return "qwen2.5coder" in re.sub(r"[^a-z0-9.]", "", model.lower())


def undo_double_escaping(program: str) -> str:
    """A program escaped twice (one line, its newlines written as backslash-n) as the lines it meant. A
    one-line program whose only backslash-n is inside a string literal (`return 'a\\nb'`) is no such
    program, and is left as it is."""
    if "\n" not in program and _escaped_newline_in_code(program):
        return program.replace("\\n", "\n").replace('\\"', '"').replace("\\t", "    ")
    return program


def _escaped_newline_in_code(text: str) -> bool:
    """Whether a backslash-n stands in `text` outside a string literal (before the first one that does not
    close, after which nothing is known)."""
    index = 0
    while index < len(text):
        if text[index] in "\"'":
            end = string_end(text, index)
            if end is None:
                return False
            index = end
        elif text.startswith("\\n", index):
            return True
        else:
            index += 1
    return False


# Where Starlark is not the Python the model expects: what to write instead (the interpreter's message, matched
# by a regular expression -> the hint added to it).
_HELPER_SHADOWED = rf"^Local variable `({'|'.join(sorted(HELPER_NAMES))})` referenced before assignment"
_NO_DATETIME = r"^Variable `(datetime|timedelta|date|time)` not found|reserved keyword `(from|import)`"
_HINT_TEXTS = {
    r"^Unpacked \d+ values but expected \d+": "a loop over a dict gives its keys: use .items()",
    r"f-strings": 'f-strings take bare names only: use "%s" % value',
    r"reserved keyword `(raise|try|except)`": "no exceptions in Starlark: return error('message') fails the call; "
    "test first (.get(), 'in')",
    r"reserved keyword `del`": "no del in Starlark: records.pop(key) removes a key",
    r"^Variable `(set|isinstance)` not found": 'not in Starlark: use a dict, or type(x) == "string"',
    r"^Variable `(random|string|math)` not found": "no modules in Starlark: random_code(length) and "
    "random_int(low, high) draw, round(x, n) rounds",
    _HELPER_SHADOWED: "a variable of that name hides the helper: name it otherwise",
    _NO_DATETIME: "no imports or datetime in Starlark: dates are ISO strings, compared as strings (today(), now()); "
    "to_seconds(t) for times",
    r"has no attribute `sort`": "no list.sort() in Starlark: sorted(items), or sorted_by(records, field)",
    r"^Type of parameters mismatch, expected `int`, actual `string": "a string indexed by a name: a loop over a "
    "dict gives its keys, use .values() or .items()",
    r"unexpected symbol '\*\*'": "no {**record} in Starlark: copy with new = dict(record), then "
    "new.update(changes) or new[key] = value",
    r"^Key '[^']*' was not found": 'a key that may be absent (an optional argument or field): use .get("key"); '
    'a record: test "id in collection" first',
}
_HINTS = tuple(ErrorHint(re.compile(pattern), hint) for pattern, hint in _HINT_TEXTS.items())

PROFILE = ModelProfile(
    name="qwen2.5-coder",
    program_rewrites=(undo_double_escaping, as_starlark),
    error_hints=_HINTS,
    guide="tailored",
    single_quotes=True,
)
