"""Numbers written in positional forms, and the bitwise arithmetic a server does on them: `["bits", steps,
form]` (`POSITIONAL`, a section of `functions.FUNCTIONS`).

Many computing servers read and write one number as a row of digit groups: a network address `10.194.38.45`
is a 32-bit number in four groups of 8 bits written in decimal and joined by `.`, its binary
`00001010.11000010.00100110.00101101` the same number in groups written as 8 binary digits, a colour `#3377cc`
a 24-bit number in three groups of 2 hex digits behind `#`, a hardware address six hex groups joined by `:`.
A text argument may also carry a count after a `/` (`10.0.0.0/23`: the address and a prefix length). The
learner reads every such form from the recorded texts themselves (`forms_in`: the separator, the base and
padding of the groups, a prefix, the groups' width in bits), never from a list of kinds, and searches a small
language of operations on the numbers read, pruned by the recorded answers, as FlashFill and PROSE search
theirs:

- atoms: a text argument read in its form (`["pos", name, form]`), the count after its `/` (`["suffix",
  name]`), an integer argument (`["var", name]`);
- from a count `n`, the number whose `n` high bits of the form's width are set (`["mask", width]`: a prefix
  length's mask), and the width less the bit length of a count (`["block", width]`: the prefix of the
  smallest block of a power of two that holds that many, of the count or of one more);
- the complement within the width (`["not", width]`), `and`, `or`, a difference, the number of bits set
  (`["count"]`), one more or one less, and the sum with an integer argument.

The Starlark is the only semantics. The search builds its terms level by level in Python, but every term's
value on every recorded call is computed by the twin's own operations (`twin_bits_step`, which `twin_bits_of`
runs when the twin answers), a level in one batch (`twin_bridge_bits`), and the numbers the answers write are
read by the twin's reader (`twin_pos_read`). A candidate is kept where two successes show its value in a form
their answers write at that width (or as a number), then as a piece of each call whose answer shows what the
twin's Starlark writes for it. Candidates equal on every recorded call are one: the simplest is kept. A text
argument is read in every form its recorded values take; an unreadable value (a digit too large, a group
missing) writes nothing, so its call is handed on or answered by a rule of its own.

Conditions (`comparison_atoms`): the sign of a number computed so less an integer argument (`["bits_sign",
steps, name, signs]`): an answer may differ where a place asked for reaches the end of the block.

What it cannot learn: a number computed by anything but these operations (a colour's hue, a contrast ratio);
a form the answers never show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sim_mcp.authoring.twins.argument_types import types_of
from sim_mcp.authoring.twins.expression import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall, texts_of
from sim_mcp.specs.model import ToolSpec

__all__ = ["POSITIONAL", "comparison_atoms", "forms_in", "read_positional"]

POSITIONAL = """
# --- numbers in positional forms and bitwise arithmetic on them (`positional.py`) ---
# No `<<` or `>>`: a shift of a small integer wraps around in this Starlark (`twin_two` multiplies).

def twin_bits_of(part, args):
    # ["bits", steps, form]: {"value": text in the form, or an int where the form is None}, or None where a
    # value cannot be read or lies outside the width.
    stack = []
    for step in part[1]:
        kind = step[0]
        a, b = None, None
        if kind in TWIN_BITS_UNARY:
            if not stack:
                return None
            a = stack.pop()
        elif kind not in TWIN_BITS_LEAVES:
            if len(stack) < 2:
                return None
            b, a = stack.pop(), stack.pop()
        value = twin_bits_step(step, a, b, args)
        if value == None:
            return None
        stack.append(value)
    if len(stack) != 1:
        return None
    value, form = stack[0], part[2]
    if form == None:
        return {"value": value} if abs(value) < TWIN_BITS_NUMBER else None
    if value < 0 or value >= twin_two(form["groups"] * form["bits"]):
        return None
    return {"value": twin_pos_write(value, form)}

# Operations that read the call (no operand), and those of one operand; the others take two.
TWIN_BITS_LEAVES = ("pos", "suffix", "var", "const")
TWIN_BITS_UNARY = ("mask", "not", "block", "count")

def twin_bits_step(step, a, b, args):
    # One operation of the language: a leaf's value on the call's arguments, or an operation's on its
    # operands' values a (and b); None where it has none.
    kind = step[0]
    if kind == "pos":
        return twin_pos_read(args.get(step[1]), step[2])
    if kind == "suffix":
        return twin_pos_suffix(args.get(step[1]))
    if kind == "var":
        value = args.get(step[1])
        return value if type(value) == "int" else None
    if kind == "const":
        return step[1]
    if a == None:
        return None
    if kind in TWIN_BITS_UNARY:
        return twin_bits_unary(kind, a, step)
    if b == None:
        return None
    return a & b if kind == "and" else a | b if kind == "or" else a + b if kind == "+" else a - b

def twin_bits_sign(atom, args):
    # ["bits_sign", steps, name, signs]: the sign of a number computed bit by bit less integer argument `name`
    # is one of `signs` ("-", "0", "+"); False where either has no value.
    found = twin_bits_of(["bits", atom[1], None], args)
    given = args.get(atom[2])
    if found == None or type(given) != "int":
        return False
    difference = found["value"] - given
    return ("-" if difference < 0 else "0" if difference == 0 else "+") in atom[3]

# A number written as a JSON number is below this (a double holds it exactly).
TWIN_BITS_NUMBER = 9007199254740992

def twin_bits_unary(kind, x, step):
    if kind == "count":
        if x < 0:
            return None
        count = 0
        for _ in range(64):
            if x == 0:
                break
            count += x % 2
            x = x // 2
        return count if x == 0 else None
    width = step[1]
    full = twin_two(width) - 1
    if kind == "mask":
        return full ^ (twin_two(width - x) - 1) if x >= 0 and x <= width else None
    if kind == "not":
        return x ^ full if x >= 0 and x <= full else None
    # "block": the width less the bit length of x.
    if x < 0 or x > full:
        return None
    length = 0
    for _ in range(64):
        if x == 0:
            break
        length += 1
        x = x // 2
    return width - length

def twin_pos_suffix(text):
    # The count after a text's `/` (`10.0.0.0/23`), or None.
    if type(text) != "string" or "/" not in text:
        return None
    digits = text[text.rfind("/") + 1:].strip()
    if not digits or len(digits) > 3 or not digits.isdigit():
        return None
    return int(digits)

def twin_pos_read(text, form):
    # The number a text writes in the form (what follows a `/` left out), or None.
    if type(text) != "string":
        return None
    if "/" in text:
        text = text[:text.rfind("/")]
    text = text.strip()
    prefix = form["prefix"]
    if prefix and text.startswith(prefix):
        text = text[len(prefix):]
    groups, bits, pad = form["groups"], form["bits"], form["pad"]
    if form["sep"]:
        pieces = text.split(form["sep"])
    elif pad > 0 and len(text) == pad * groups:
        pieces = [text[i * pad:(i + 1) * pad] for i in range(groups)]
    else:
        return None
    if len(pieces) != groups:
        return None
    value = 0
    for piece in pieces:
        digit = twin_pos_digit(piece.lower(), form["base"])
        if digit == None or digit >= twin_two(bits):
            return None
        value = value * twin_two(bits) + digit
    return value

def twin_pos_digit(text, base):
    if not text or len(text) > 16:
        return None
    value = 0
    for c in text.elems():
        at = TWIN_FN_DIGITS.find(c)
        if at < 0 or at >= base:
            return None
        value = value * base + at
    return value

def twin_pos_write(value, form):
    groups, bits, base, pad = form["groups"], form["bits"], form["base"], form["pad"]
    written = []
    for i in range(groups):
        digit = (value // twin_two((groups - 1 - i) * bits)) % twin_two(bits)
        out = []
        for _ in range(bits + 1):
            out.append(TWIN_FN_DIGITS[digit % base])
            digit = digit // base
            if digit == 0:
                break
        text = "".join(reversed(out))
        written.append("0" * (pad - len(text)) + text)
    text = form["sep"].join(written)
    return form["prefix"] + (text.upper() if form["upper"] else text)
"""

BRIDGE = """
def twin_bridge_bits(state, args):
    # Terms of the language on every case, each one operation (`[step, operands]`) over terms already valued
    # (`inputs`, by index): how inference values what it proposes, by the twin's own operations.
    cases, inputs = args["cases"], args["inputs"]
    found = []
    for step, operands in args["program"]:
        row = []
        for i, case in enumerate(cases):
            a = inputs[operands[0]][i] if len(operands) > 0 else None
            b = inputs[operands[1]][i] if len(operands) > 1 else None
            row.append(twin_bits_step(step, a, b, case))
        found.append(row)
    return found

def twin_bridge_pos_read(state, args):
    # The number each text writes in its form, or None.
    return [twin_pos_read(text, form) for text, form in args["pairs"]]
"""
BRIDGE_TOOLS = ("twin_bridge_bits", "twin_bridge_pos_read")

# Groups joined by one separator (three groups at least: `1.5` is a decimal, `1.2.3.4` a form), or a `#` and
# hex digits; what follows a `/` (a prefix length) is read apart.
_SEPARATED = re.compile(
    r"(?<![0-9A-Za-z.:#-])([0-9A-Fa-f]+(?:([.:-])[0-9A-Fa-f]+){2,})(?![0-9A-Za-z]|[.:-][0-9A-Za-z])"
)
_HASHED = re.compile(r"#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})(?![0-9A-Za-z])")
_BARE = re.compile(r"^([0-9A-Fa-f]{6})$")
# The most candidates kept per tool, and the largest number a candidate is written as a number below.
_MOST_CANDIDATES = 400
_LARGEST_NUMBER = 1 << 24
# A candidate is kept where two successes show it at least.
_FEWEST_SHOWN = 2


def forms_in(text: str) -> Iterator[dict[str, Any]]:
    """The positional forms of the numbers a text writes, each as `twin_pos_read` reads it: `{"base",
    "groups", "bits", "pad", "sep", "prefix", "upper"}`. Groups of 8 binary digits are binary; groups of
    one to three decimal digits, none above 255, are bytes in decimal; groups of two hex digits are bytes in
    hex."""
    for form, _ in _written(text):
        yield form


def _written(text: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Each number a text writes in a positional form: the form, and the number as written."""
    for match in _SEPARATED.finditer(text):
        form = _groups_form(match.group(1).split(match.group(2)), match.group(2), "")
        if form is not None:
            yield form, match.group(1)
    for match in _HASHED.finditer(text):
        digits = match.group(1)
        yield _hex_form(digits, len(digits) // 2, "", "#"), match.group(0)


def _groups_form(groups: list[str], sep: str, prefix: str) -> dict[str, Any] | None:
    if all(len(g) == 8 and set(g) <= {"0", "1"} for g in groups):
        return {"base": 2, "groups": len(groups), "bits": 8, "pad": 8, "sep": sep, "prefix": prefix, "upper": False}
    if all(g.isdigit() and len(g) <= 3 and int(g) <= 255 for g in groups):
        return {"base": 10, "groups": len(groups), "bits": 8, "pad": 0, "sep": sep, "prefix": prefix, "upper": False}
    if all(len(g) == 2 for g in groups):
        return _hex_form("".join(groups), len(groups), sep, prefix)
    return None


def _hex_form(digits: str, groups: int, sep: str, prefix: str) -> dict[str, Any]:
    upper = any(c.isupper() for c in digits) and not any(c.islower() for c in digits)
    return {"base": 16, "groups": groups, "bits": 8, "pad": 2, "sep": sep, "prefix": prefix, "upper": upper}


def _proposed_forms(value: str) -> tuple[str, list[dict[str, Any]]]:
    """A text argument's text before a `/` (a count after it is read apart), and the forms it may be read in:
    those of the numbers it writes, and six bare hex digits as a colour behind `#`, where the tool's answers
    show one. Kept where the twin reads the whole text in that form (`_input_forms`)."""
    text = value.split("/")[0].strip() if value.count("/") == 1 else value.strip()
    found = list(forms_in(text))
    if _BARE.match(text):
        found.append(_hex_form(text, 3, "", "#"))
    return text, found


@dataclass(frozen=True)
class _Term:
    """A candidate: its steps (postfix), its value on each success (None: not computed there)."""

    steps: tuple[Any, ...]
    values: tuple[int | None, ...]


class _Valuer:
    """Values terms of the language on the successes' arguments by the twin's own Starlark
    (`twin_bridge_bits`, the operations `twin_bits_of` runs), a level of the search in one batch: inference
    proposes with the very semantics the twin answers with."""

    def __init__(self, library: TwinLibrary, cases: list[dict[str, Any]]) -> None:
        self.library = library
        self.cases = cases

    def terms(self, made: list[tuple[list[Any], tuple[_Term, ...]]]) -> list[_Term]:
        """Each term made of one operation (its step) over terms already valued (its operands, none for one
        that reads the call)."""
        if not made:
            return []
        at: dict[int, int] = {}
        inputs: list[tuple[int | None, ...]] = []
        program: list[list[Any]] = []
        for step, operands in made:
            for term in operands:
                if id(term) not in at:
                    at[id(term)] = len(inputs)
                    inputs.append(term.values)
            program.append([step, [at[id(term)] for term in operands]])
        rows: list[list[int | None]] = self.library.call(
            "twin_bridge_bits", {"cases": self.cases, "inputs": inputs, "program": program}
        )
        return [
            _Term((*(s for term in operands for s in term.steps), step), tuple(row))
            for (step, operands), row in zip(made, rows, strict=True)
        ]


def read_positional(library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall]) -> dict[int, list[list[Any]]]:
    """Per call (by id), the pieces `[text, ["bits", steps, form]]` its answer shows: every candidate of the
    language above over the call's arguments read in their positional forms, written in each form the tool's
    answers show (or as a number), kept where the twin's Starlark writes what the answer shows."""
    properties = tool.input_schema.get("properties") or {}
    successes = [call for call in calls if not call.is_error]
    if len(successes) < _FEWEST_SHOWN:
        return {}
    inputs = _input_forms(library, properties, successes)
    if not inputs:
        return {}
    outputs: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    for call in successes:
        seen = {json.dumps(form, sort_keys=True): form for text in texts_of(call.value) for form in forms_in(text)}
        for key, form in seen.items():
            outputs[key] = form
            counts[key] = counts.get(key, 0) + 1
    forms = [form for key, form in outputs.items() if counts[key] >= _FEWEST_SHOWN]
    integers = [name for name, schema in properties.items() if "integer" in types_of(schema)]
    parts = _candidates(library, successes, inputs, integers, forms)
    if not parts:
        return {}
    rendered: list[list[list[Any]]] = library.call(
        "twin_bridge_parts", {"parts": parts, "cases": [call.arguments for call in calls]}
    )
    found: dict[int, list[list[Any]]] = {}
    for call, values in zip(calls, rendered, strict=True):
        if call.is_error:
            continue
        texts, numbers = texts_of(call.value), _numbers(call.value)
        for part, (value, text) in zip(parts, values, strict=True):
            if isinstance(value, str) and any(value in written for written in texts):
                found.setdefault(id(call), []).append([value, part])
            elif isinstance(value, int) and isinstance(text, str) and _shows_number(value, texts, numbers):
                found.setdefault(id(call), []).append([text, part])
    return found


def comparison_atoms(tool: ToolSpec, pieces: dict[int, list[list[Any]]]) -> list[list[Any]]:
    """`["bits_sign", steps, name, signs]` for each number a call's answer shows computed bit by bit and each
    integer argument: a server may answer otherwise where a count it asks for reaches what the block holds
    (the last address of a block, a position past its end)."""
    properties = tool.input_schema.get("properties") or {}
    integers = [name for name, schema in properties.items() if "integer" in types_of(schema)]
    numbers: dict[str, list[Any]] = {}
    for found in pieces.values():
        for _, part in found:
            if part[0] == "bits" and part[2] is None:
                numbers.setdefault(json.dumps(part[1]), part[1])
    return [
        ["bits_sign", steps, name, signs]
        for steps in numbers.values()
        for name in integers
        if not any(step[0] == "var" and step[1] == name for step in steps)
        for signs in _SIGNS
    ]


_SIGNS = (["0"], ["-"], ["+"])


def _input_forms(
    library: TwinLibrary, properties: dict[str, Any], successes: list[RecordedCall]
) -> list[tuple[str, dict[str, Any], bool]]:
    """Each string argument, the form most of its recorded values are read in whole (two at least), and
    whether they carry a count after a `/`."""
    strings = [name for name, schema in properties.items() if "string" in types_of(schema)]
    proposed: list[tuple[str, str, dict[str, Any]]] = []
    suffixed: dict[str, int] = {}
    for name in strings:
        for call in successes:
            value = call.arguments.get(name)
            if not isinstance(value, str):
                continue
            suffixed[name] = suffixed.get(name, 0) + (
                value.count("/") == 1 and value.rsplit("/", 1)[1].strip().isdigit()
            )
            text, forms = _proposed_forms(value)
            # Read in either case alike.
            proposed += [(name, text, {**form, "upper": False}) for form in forms]
    read = _read_all(library, [(text, form) for _, text, form in proposed])
    counts: dict[str, dict[str, int]] = {}
    kept: dict[str, dict[str, Any]] = {}
    for (name, _, form), value in zip(proposed, read, strict=True):
        if value is not None:
            key = json.dumps(form, sort_keys=True)
            kept[key] = form
            counts.setdefault(name, {})[key] = counts.get(name, {}).get(key, 0) + 1
    found = []
    for name in strings:
        if name in counts:
            key = max(counts[name], key=lambda k: counts[name][k])
            if counts[name][key] >= _FEWEST_SHOWN:
                found.append((name, kept[key], suffixed[name] >= _FEWEST_SHOWN))
    return found


def _read_all(library: TwinLibrary, pairs: list[tuple[str, dict[str, Any]]]) -> list[int | None]:
    """The number each text writes in its form, as the twin reads it (None: it writes none)."""
    if not pairs:
        return []
    found: list[int | None] = library.call("twin_bridge_pos_read", {"pairs": [list(pair) for pair in pairs]})
    return found


def _shown_in_forms(
    library: TwinLibrary,
    successes: list[RecordedCall],
    inputs: list[tuple[str, dict[str, Any], bool]],
    forms: list[dict[str, Any]],
) -> dict[str, list[set[int]]]:
    """By form (its JSON text), per success, the numbers its answer writes in that form, other than a text
    argument as given (its own piece writes that)."""
    keys = {json.dumps(form, sort_keys=True) for form in forms}
    found: list[tuple[int, str, str, dict[str, Any]]] = []
    for i, call in enumerate(successes):
        given = {call.arguments.get(name) for name, _, _ in inputs}
        for text in texts_of(call.value):
            for form, number in _written(text):
                key = json.dumps(form, sort_keys=True)
                if key in keys and number not in given:
                    found.append((i, key, number, form))
    shown: dict[str, list[set[int]]] = {key: [set() for _ in successes] for key in keys}
    read = _read_all(library, [(number, form) for _, _, number, form in found])
    for (i, key, _, _), value in zip(found, read, strict=True):
        if value is not None:
            shown[key][i].add(value)
    return shown


def _candidates(
    library: TwinLibrary,
    successes: list[RecordedCall],
    inputs: list[tuple[str, dict[str, Any], bool]],
    integers: list[str],
    forms: list[dict[str, Any]],
) -> list[list[Any]]:
    """The parts worth rendering: each term of each width written in each form of that width its answers show
    (or as a number), where two successes show it; terms equal on every success are one (the first kept)."""
    cases = [call.arguments for call in successes]
    valuer = _Valuer(library, cases)
    answers = [(texts_of(call.value), _numbers(call.value)) for call in successes]
    given = [{v for v in case.values() if isinstance(v, int) and not isinstance(v, bool)} for case in cases]
    shown = _shown_in_forms(library, successes, inputs, forms)
    parts: list[list[Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for width in sorted({form["groups"] * form["bits"] for _, form, _ in inputs}):
        outs = [form for form in forms if form["groups"] * form["bits"] == width]
        for term, number in _terms(valuer, inputs, integers, width):
            writes: list[dict[str, Any] | None] = [None] if number else list(outs)
            for form in writes:
                written = json.dumps(form, sort_keys=True)
                if (written, term.values) in seen:
                    continue
                seen.add((written, term.values))
                if form is None:
                    hits = sum(
                        value is not None and value not in ints and _shows_number(value, texts, numbers)
                        for value, (texts, numbers), ints in zip(term.values, answers, given, strict=True)
                    )
                else:
                    hits = sum(
                        value is not None and value in at for value, at in zip(term.values, shown[written], strict=True)
                    )
                if hits >= _FEWEST_SHOWN:
                    parts.append(["bits", list(term.steps), form])
                    if len(parts) >= _MOST_CANDIDATES:
                        return parts
    return parts


def _terms(
    valuer: _Valuer, inputs: list[tuple[str, dict[str, Any], bool]], integers: list[str], width: int
) -> Iterator[tuple[_Term, bool]]:
    """The terms of one width, simplest first, each with whether it is written as a number."""
    full = (1 << width) - 1
    atoms = valuer.terms(
        [(["pos", name, form], ()) for name, form, _ in inputs if form["groups"] * form["bits"] == width]
    )
    if not atoms:
        return
    suffixes = [(["suffix", name], ()) for name, _, suffixed in inputs if suffixed]
    *read, one = valuer.terms([*suffixes, *((["var", name], ()) for name in integers), (["const", 1], ())])
    given = read[len(suffixes) :]
    # A count: a `/`'s, an integer argument's, or the prefix of the smallest block that holds it or one more.
    more = valuer.terms([(["+"], (term, one)) for term in given])
    counts = [*read[: len(suffixes)]]
    for term, block, beyond in zip(
        given,
        valuer.terms([(["block", width], (term,)) for term in given]),
        valuer.terms([(["block", width], (term,)) for term in more]),
        strict=True,
    ):
        counts += [term, block, beyond]
    counts = [c for c in counts if any(v is not None for v in c.values) and _within(c.values, 0, width)]
    first = atoms + valuer.terms([(["mask", width], (c,)) for c in counts])
    level1 = first + valuer.terms([(["not", width], (term,)) for term in first])
    level1 = [t for t in level1 if any(v is not None for v in t.values)]
    pairs = [(a, b) for i, a in enumerate(level1) for b in level1[i + 1 :]]
    level2 = valuer.terms([([op], pair) for pair in pairs for op in ("and", "or")])
    level2 = [t for t in level2 if any(v is not None and 0 < v < full for v in t.values)]
    terms = level1 + level2
    for t in terms:
        yield t, False
    shifted = valuer.terms([([op], (t, one)) for t in terms for op in ("+", "-")])
    yield from ((t, False) for t in shifted)
    yield from ((t, False) for t in valuer.terms([(["+"], (t, g)) for t in terms for g in given]))
    # As numbers: the counts themselves, the bits a term sets, and small terms (a block's size) and one off.
    for c in counts:
        yield c, True
    yield from ((t, True) for t in valuer.terms([(["count"], (t,)) for t in level1]))
    small = [t for t in terms if _within(t.values, 0, _LARGEST_NUMBER)]
    for t, (up, down) in zip(
        small, _pairs(valuer.terms([([op], (t, one)) for t in small for op in ("+", "-")])), strict=True
    ):
        yield t, True
        yield up, True
        yield down, True


def _pairs(terms: list[_Term]) -> list[tuple[_Term, _Term]]:
    return [(terms[i], terms[i + 1]) for i in range(0, len(terms), 2)]


def _within(values: tuple[int | None, ...], low: int, high: int) -> bool:
    return all(v is None or low <= v <= high for v in values)


def _shows_number(value: int, texts: list[str], numbers: set[int]) -> bool:
    if value < _FEWEST_SHOWN:
        return False
    whole = re.compile(rf"(?<![0-9.]){value}(?![0-9]|\.[0-9])")
    return value in numbers or any(whole.search(text) for text in texts)


def _numbers(value: Any) -> set[int]:
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, dict):
        return {n for inner in value.values() for n in _numbers(inner)}
    if isinstance(value, list):
        return {n for inner in value for n in _numbers(inner)}
    return set()
