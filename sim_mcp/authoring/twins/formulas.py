"""Numbers a server computes from a call's number arguments by formulas, written in a learned format
(`FORMULAS`, a section of `functions.FUNCTIONS`), and what the learner reads of a tool whose text answers show
them.

A calculator of money answers with a report whose numbers are each a formula of the arguments (`Gross Profit:
$840.00`, `Markup: 233.33%`), some with constants (a rate, `0.9235`), some of numbers the same report showed
before (a total is a payment times the months), written with a fixed number of decimals (a constant, or an
argument: `decimals`) and their thousands grouped (`48,407.00`). The learner searches a small arithmetic
language for each number, as FlashFill and PROSE search theirs, pruned by the recorded examples:

- the **format** of a number is read from how the recorded answers write it at one place: its decimals (the
  same in every answer, or the value of an integer argument where it is given and one default where it is
  not) and its thousands separator; where its decimals vary, as Python's repr writes a double; right-aligned
  to a width where the spaces before it make one (a column of a schedule);
- the **formula** of a number at one place (the same place of the answers that read alike once their numbers
  are left out) is, in this order, the first that writes every recorded number there: a term (a number
  argument, its schema's default where not given; or a number of the same answer already explained, as its
  formula); two terms combined by `+ - * /`; a term times or over a constant fitted from the examples (the
  constant read from the call with the largest term and rounded to the fewest significant digits that write
  every example: after two terms, so that a number of years every example shares is read as the argument);
  two terms combined, times or over a constant (a percent); a rate applied below a cap or above a
  threshold (`c * min(t, C)`, `c * max(t - C, 0)`: a wage base, a surtax), both constants fitted; the annuity
  payment of a principal over a number of periods at a rate that is a term over a constant (found by
  bisection from one call, then rounded as above); and a signed sum of three to five terms (a total, a
  take-home pay). A place none of these explains is left as the text it shows; a formula found is checked on
  every recorded call and kept as a piece of each call whose answer shows what the twin's own Starlark
  writes for it, so a tool whose answers show none gets nothing.

Placeholder: `["formula", steps, format]`, the steps in postfix order (Starlark has no recursion): `["var",
name, default]`, `["const", c]`, an operator `["+"]`, `["-"]`, `["*"]`, `["/"]`, `["min"]`, `["max"]` on the
two numbers before it, `["annuity"]` on the three before it (principal, rate per period, periods: `p * r / (1
- (1 + r) ** -n)`, `p / n` at a zero rate, the power by squaring); the format `{"decimals": d or ["var", name,
default], "group": ",", "point": "."}`, written by `fixed_text` (Python's `format(x, ",.2f")`), or `{"repr":
"python"}` where the decimals vary, as Python's repr writes the double (`6945.0`); with `"width"`, right-aligned
with spaces in a column that wide (`$      450.00`). It writes
nothing (the call is handed on) where an argument is missing with no default, a division is by zero, a power
is past `TWIN_FORMULA_POWER` periods or not whole, or the value is not finite.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from sim_mcp.authoring.twins.argument_types import types_of
from sim_mcp.authoring.twins.expression import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules.helpers import fixed_text
from sim_mcp.specs.model import ToolSpec

__all__ = ["BRIDGE", "BRIDGE_TOOLS", "FORMULAS", "computed", "read_formulas", "sign_atoms"]

FORMULAS = """
# --- formulas of number arguments, written in a learned format (`formulas.py`) ---

# The most periods an annuity's power is taken over, and the largest magnitude a formula computes with.
TWIN_FORMULA_POWER = 100000
TWIN_FORMULA_LARGEST = 1e300

def twin_formula_of(part, args):
    # ["formula", steps, format]: {"value": text}, or None where it writes nothing for this call.
    value = twin_formula_value(part[1], args)
    if value == None:
        return None
    text = twin_formula_text(value, part[2], args)
    if text == None:
        return None
    # Right-aligned in a column of that width.
    return {"value": " " * (part[2].get("width", 0) - len(text)) + text}

def twin_formula_text(value, form, args):
    if "repr" in form:
        # As Python's repr writes the double: its shortest digits (`6945.0`, `289406.25000000006`).
        return twin_python_text(value)
    decimals = form["decimals"]
    if type(decimals) == "list":
        decimals = args.get(decimals[1], decimals[2])
        if decimals == None:
            decimals = form["decimals"][2]
    if type(decimals) != "int" or decimals < 0 or decimals > 20:
        return None
    return fixed_text(value, decimals, form["group"], form["point"])

def twin_formula_sign(atom, args):
    # ["sign", steps, signs]: the formula's value has one of these signs ("-", "0", "+"); None where it has
    # no value.
    value = twin_formula_value(atom[1], args)
    if value == None:
        return None
    return ("-" if value < 0 else "0" if value == 0 else "+") in atom[2]

def twin_formula_value(steps, args):
    # The formula's value: its steps run over a stack; None where one cannot be computed.
    stack = []
    for step in steps:
        kind = step[0]
        if kind == "var":
            value = args.get(step[1])
            if value == None:
                value = step[2]
            if type(value) not in ("int", "float") or not (abs(value) < TWIN_FORMULA_LARGEST):
                return None
            stack.append(float(value))
            continue
        if kind == "const":
            stack.append(float(step[1]))
            continue
        if kind == "expr":
            # ["expr", name, config]: the value of an expression argument (`expression.py`).
            found = twin_expr_of(args, step[1], step[2])
            value = found.get("value") if found != None else None
            if type(value) not in ("int", "float") or not (abs(value) < TWIN_FORMULA_LARGEST):
                return None
            stack.append(float(value))
            continue
        if kind == "annuity":
            if len(stack) < 3:
                return None
            n, r, p = stack.pop(), stack.pop(), stack.pop()
            value = twin_formula_annuity(p, r, n)
        else:
            if len(stack) < 2:
                return None
            b, a = stack.pop(), stack.pop()
            value = twin_formula_binary(kind, a, b)
        if value == None or not (value > -TWIN_FORMULA_LARGEST and value < TWIN_FORMULA_LARGEST):
            return None
        stack.append(value)
    return stack[0] if len(stack) == 1 else None

def twin_formula_binary(kind, a, b):
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "/":
        return None if b == 0 else a / b
    if kind == "min":
        return min(a, b)
    if kind == "max":
        return max(a, b)
    return None

def twin_formula_annuity(p, r, n):
    # The payment that pays `p` back over `n` periods at the rate `r` per period.
    if n != twin_fn_floor(n) or n <= 0 or n > TWIN_FORMULA_POWER:
        return None
    if r == 0:
        return p / n
    power = twin_formula_power(1 + r, int(n))
    if power == None or power == 0 or power == 1:
        return None
    return p * r / (1 - 1 / power)

def twin_formula_power(x, n):
    # x ** n for a whole n >= 0, by squaring (the same products in the learner's Python).
    out, base = 1.0, x
    for _ in range(64):
        if n % 2 == 1:
            out = out * base
        n = n // 2
        if n == 0:
            return out
        base = base * base
    return None
"""

# The learner's entry point: each formula's value on each call (None where it has none).
BRIDGE = """
def twin_bridge_formula_values(state, args):
    return [[twin_formula_value(steps, call) for steps in args["formulas"]] for call in args["cases"]]
"""
BRIDGE_TOOLS = ("twin_bridge_formula_values",)

# A number as a report writes it: digits grouped by thousands or not, decimals or not, a sign.
_TOKEN = re.compile(r"(?<![\w.,-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")
# The same with the spaces before it: a number right-aligned in a column is padded to a width.
_PADDED = re.compile(r"( *)(" + _TOKEN.pattern + ")")
# An integer argument given more values than this is a quantity, not a choice of shape.
_MOST_VALUES = 12
# What a sign condition may ask of a value: one sign, or one of two.
_SIGNS = (("-",), ("0",), ("+",), ("-", "0"), ("0", "+"), ("-", "+"))
# Significant digits a fitted constant is rounded to, fewest first.
_SIGNIFICANT = range(1, 7)
# The most thresholds tried between two points.
_MOST_THRESHOLDS = 40
# Bounds of a search: the terms of one place, the terms of a signed sum, the places of one answer.
_MOST_TERMS = 16
_MOST_SUMMED = 5
# The most signed sums tried for one place.
_MOST_SUMS = 20000
_MOST_PLACES = 40
# The tiers of the language (`_tiers`), and how many of them are exact (no constant fitted past rounding).
_LEVELS = 7
_EXACT_LEVELS = 4
# The most periods an annuity is tried over (`TWIN_FORMULA_POWER`), and the bisection's steps.
_POWER = 100000
_BISECTION = 64
_INTEGER_DECIMALS = 20


@dataclass(frozen=True)
class _Token:
    text: str
    value: float
    decimals: int
    grouped: bool
    # The spaces before it.
    pad: int = 0

    @property
    def padded(self) -> str:
        return " " * self.pad + self.text


@dataclass(frozen=True)
class _Term:
    """A number each call of a group gives (None: not in that call), and the steps that compute it."""

    steps: tuple[Any, ...]
    values: tuple[float | None, ...]
    # The constants fitted for this formula (not those of the terms it is made of): its simplicity.
    fitted: tuple[float, ...] = ()


def read_formulas(
    library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall], sources: list[list[Any]] | None = None
) -> dict[int, list[list[Any]]]:
    """Per call (by id), the pieces `[text, ["formula", steps, format]]` its answer shows: each formula found
    for a place of the tool's text answers (`_search`), rendered by the twin's Starlark on every call.
    `sources`: more numbers a formula may start from (`["expr", name, config]`, an expression argument's
    value), computed by the Starlark."""
    properties = tool.input_schema.get("properties") or {}
    numbers = {
        name: schema.get("default") if _is_number(schema.get("default")) else None
        for name, schema in properties.items()
        if types_of(schema) & {"number", "integer"}
    }
    integers = [name for name, schema in properties.items() if "integer" in types_of(schema)]
    texts = [(call, call.value) for call in calls if not call.is_error and isinstance(call.value, str)]
    sources = sources or []
    if not (numbers or sources) or len(texts) < 2:
        return {}
    grouped = any(token.grouped for _, text in texts for token in _tokens(text))
    groups: dict[str, list[tuple[RecordedCall, list[_Token]]]] = {}
    for call, text in texts:
        tokens = _tokens(text)
        if tokens and len(tokens) <= _MOST_PLACES:
            groups.setdefault(_PADDED.sub("#", text), []).append((call, tokens))
    columns = {width for members in groups.values() for width in _widths(members)}
    valued: list[list[float | None]] = (
        library.call(
            "twin_bridge_formula_values",
            {"formulas": [[source] for source in sources], "cases": [c.arguments for c in calls]},
        )
        if sources
        else [[] for _ in calls]
    )
    given = {id(call): values for call, values in zip(calls, valued, strict=True)}
    parts: dict[str, list[Any]] = {}
    for members in groups.values():
        if len(members) >= 2:
            starts = [
                _Term((source,), tuple(given[id(call)][at] for call, _ in members)) for at, source in enumerate(sources)
            ]
            for part in _search(members, numbers, integers, grouped, starts, columns):
                parts.setdefault(json.dumps(part, sort_keys=True), part)
    if not parts:
        return {}
    listed = list(parts.values())
    rendered: list[list[list[Any]]] = library.call(
        "twin_bridge_parts", {"parts": listed, "cases": [call.arguments for call in calls]}
    )
    found: dict[int, list[list[Any]]] = {}
    for call, values in zip(calls, rendered, strict=True):
        if call.is_error or not isinstance(call.value, str):
            continue
        shown = {written for token in _tokens(call.value) for written in (token.text, token.padded)}
        for part, (_, text) in zip(listed, values, strict=True):
            if isinstance(text, str) and text in shown:
                found.setdefault(id(call), []).append([text, part])
    return found


def computed(part: list[Any]) -> bool:
    """Whether a placeholder is a formula that computes (an operation, not an argument written as it is)."""
    return part[0] == "formula" and any(step[0] not in ("var", "const", "expr") for step in part[1])


def sign_atoms(tool: ToolSpec, calls: list[RecordedCall]) -> list[list[Any]]:
    """`["sign", steps, signs]` of each number argument and of the difference of each two: a server that
    computes answers one way or another by a comparison of its numbers (an error where a price does not
    exceed a cost, a word for a rise or a fall); and an integer argument equal to a value its recorded
    calls gave (a report with a line per year has as many lines as the years asked)."""
    properties = tool.input_schema.get("properties") or {}
    names = [name for name, schema in properties.items() if types_of(schema) & {"number", "integer"}]
    formulas: list[list[Any]] = [[["var", name, None]] for name in names]
    formulas += [[["var", a, None], ["var", b, None], ["-"]] for a, b in itertools.combinations(names, 2)]
    found = [["sign", steps, list(signs)] for steps in formulas for signs in _SIGNS]
    for name, schema in properties.items():
        if "integer" in types_of(schema):
            given = sorted(
                {v for c in calls if isinstance(v := c.arguments.get(name), int) and not isinstance(v, bool)}
            )
            if len(given) <= _MOST_VALUES:
                found += [["sign", [["var", name, None], ["const", float(v)], ["-"]], ["0"]] for v in given]
    return found


def _search(
    members: list[tuple[RecordedCall, list[_Token]]],
    numbers: dict[str, Any],
    integers: list[str],
    grouped: bool,
    starts: list[_Term],
    columns: set[int],
) -> list[list[Any]]:
    """The formulas of the places of answers that read alike but for their numbers, each with its format
    (`columns`: the widths numbers are right-aligned to in the tool's answers)."""
    arguments = [call.arguments for call, _ in members]
    terms: list[_Term] = [term for term in starts if any(value is not None for value in term.values)]
    for name, default in numbers.items():
        values = tuple(_argument(args.get(name), default) for args in arguments)
        if any(value is not None for value in values):
            terms.append(_Term((["var", name, default],), values))
    places = len(members[0][1])
    formats: dict[int, dict[str, Any]] = {}
    for place in range(places):
        column = [tokens[place] for _, tokens in members]
        form = _format(column, arguments, integers, numbers, grouped, columns)
        if form is not None:
            formats[place] = form
            if len({token.value for token in column}) == 1:
                # A number every answer shows alike (a fixed fee) is a term of a total, as its text reads.
                terms.append(_Term((["const", column[0].value],), tuple(token.value for token in column)))
    solved: dict[int, _Term] = {}
    writers: dict[int, Callable[[_Term], int]] = {
        place: _writer(form, arguments, [_shown(tokens[place], form) for _, tokens in members])
        for place, form in formats.items()
    }
    level = 0
    while level < _LEVELS:
        # The cheapest tier first, for every place; a place explained is a term of the others, which are
        # tried again from the cheapest tier. Past the exact tiers one place at a time: a total is a sum of
        # the places before it, not a rate fitted to the same numbers.
        changed = False
        for place in writers:
            if place in solved:
                continue
            if level >= _EXACT_LEVELS and "repr" in formats[place]:
                continue  # a double written in full is computed exactly, not with a constant fitted to it
            usable = _distinct(terms)[:_MOST_TERMS]
            found = _explain(usable, [tokens[place].value for _, tokens in members], writers[place], level)
            if found is not None:
                solved[place] = found
                terms.append(replace(found, fitted=()))
                changed = True
                if level >= _EXACT_LEVELS:
                    break
        level = 0 if changed else level + 1
    # A constant is the text it shows: no piece, but in a column (a line's number, padded), where it is
    # written whole rather than read as some other number the call gives.
    return [
        ["formula", list(term.steps), formats[place]]
        for place, term in sorted(solved.items())
        if any(step[0] in ("var", "expr") for step in term.steps) or "width" in formats[place]
    ]


def _explain(terms: list[_Term], shown: list[float], writes: Callable[[_Term], int], level: int) -> _Term | None:
    """The simplest formula of one tier of the language (`_tiers`) that writes the recorded numbers (`_writer`):
    the fewest significant digits in its most precise constant, then in all, then the most numbers written,
    then the fewest steps."""
    found = [(count, candidate) for candidate in _tiers(terms, shown)[level]() if (count := writes(candidate))]
    best = min(found, key=lambda pair: (*_digits(pair[1]), -pair[0], len(pair[1].steps)), default=None)
    return best[1] if best is not None else None


def _tiers(terms: list[_Term], shown: list[float]) -> list[Callable[[], Iterator[_Term]]]:
    """The language's tiers, cheapest first: a term; two combined; one scaled (an argument's value before a
    constant that happens to equal it in every example: a number of years); two combined and scaled; (not
    exact past here) a signed sum; a rate below a cap or above a threshold; an annuity."""

    def combined() -> Iterator[_Term]:
        for i, j in itertools.product(range(len(terms)), repeat=2):
            for op in ("+", "-", "*", "/"):
                if i != j and (op in ("-", "/") or i < j):
                    yield _combine(terms[i], terms[j], op)

    return [
        lambda: iter(terms),
        combined,
        lambda: (scaled for term in terms for scaled in _scaled(term, shown)),
        lambda: (scaled for term in combined() for scaled in _scaled(term, shown)),
        lambda: _sums(terms, shown),
        lambda: (hinge for term in terms for hinge in _hinges(term, shown)),
        lambda: _annuities(terms, shown),
    ]


def _digits(term: _Term) -> tuple[int, int]:
    """The significant digits of the most precise constant fitted for a formula and of all (`42` has 2,
    `0.0145` 3)."""
    counts = [len(f"{abs(value):.12e}".split("e")[0].replace(".", "").rstrip("0")) for value in term.fitted if value]
    return max(counts, default=0), sum(counts)


def _scaled(term: _Term, shown: list[float]) -> Iterator[_Term]:
    """The term times and over a constant fitted from the call where it is largest."""
    at = _largest(term.values)
    if at is None or not shown[at]:
        return
    x, y = term.values[at], shown[at]
    assert x is not None
    for op, raw in (("*", y / x), ("/", x / y)):
        for constant in _rounded(raw):
            yield _apply(term, op, constant)


def _hinges(term: _Term, shown: list[float]) -> Iterator[_Term]:
    """`c * max(t - C, 0)` (a rate above a threshold) and `c * min(t, C)` (a rate below a cap). The threshold
    is fitted from two points above it, or is one of the simplest numbers between the largest point below it
    and the smallest above (one point above tells the rate only once the threshold is chosen)."""
    points = [(x, y) for x, y in zip(term.values, shown, strict=True) if x is not None]
    above = sorted({(x, y) for x, y in points if y})
    below = [x for x, y in points if not y]
    thresholds: list[float] = []
    if len(above) >= 2 and above[0][0] != above[-1][0]:
        (x1, y1), (x2, y2) = above[0], above[-1]
        for rate in _rounded((y2 - y1) / (x2 - x1)):
            thresholds += _rounded(x2 - y2 / rate)
    if above and below and max(below) < above[0][0]:
        thresholds += _simplest(max(below), above[0][0])
    for threshold in dict.fromkeys(thresholds):
        x, y = above[-1]
        if x - threshold:
            for rate in _rounded(y / (x - threshold)):
                over = _combine(_combine(term, _constant(threshold, term), "-"), _constant(0.0, term), "max")
                yield _apply(over, "*", rate)
    ratios = sorted({y / x for x, y in points if x and y}, reverse=True)
    if len(ratios) >= 2:
        for rate in _rounded(ratios[0]):
            capped = max((y / rate for x, y in points if x is not None and y / rate < x), default=None)
            for cap in _rounded(capped) if capped else ():
                yield _apply(_combine(term, _constant(cap, term), "min"), "*", rate)


def _simplest(low: float, high: float) -> list[float]:
    """The numbers of one or two significant digits from `low` up to (not including) `high`, at most
    `_MOST_THRESHOLDS` of them: where a threshold lies between the points that tell it."""
    if high <= 0 or low >= high:
        return []
    found: list[float] = []
    top = math.floor(math.log10(high))
    for digits in (1, 2):
        step = 10.0 ** (top - digits + 1)
        value = max(math.ceil(low / step), 1) * step
        while value < high and len(found) < _MOST_THRESHOLDS:
            found.append(float(f"{value:.{digits + 1}g}"))
            value += step
    return found


def _annuities(terms: list[_Term], shown: list[float]) -> Iterator[_Term]:
    """The annuity payment of a principal over a number of periods (terms), at a rate that is a term over a
    constant, fitted by bisection from the call where the payment is largest."""
    at = _largest(tuple(shown))
    if at is None:
        return
    for principal, rate, periods in itertools.permutations(terms, 3):
        p, r, n = principal.values[at], rate.values[at], periods.values[at]
        if p is None or r is None or n is None or not r or not _periods(n) or shown[at] * n <= p:
            continue
        per = _bisect(p, n, shown[at])
        if per is None:
            continue
        for constant in _rounded(r / per):
            yield _annuity(principal, _apply(rate, "/", constant), periods)


def _sums(terms: list[_Term], shown: list[float]) -> Iterator[_Term]:
    """Signed sums of three to five terms (the first added) that come to the number shown where it is largest,
    to its last decimal; checked on every call by the writer."""
    at = _largest(tuple(shown))
    if at is None:
        return
    present = [term for term in terms if term.values[at] is not None]
    target = shown[at]
    tolerance = max(1e-9, abs(target) * 1e-12) + 0.01
    for size in range(3, _MOST_SUMMED + 1):
        if math.comb(len(present), size) * 2 ** (size - 1) > _MOST_SUMS:
            break  # a report of many numbers: its totals are of few of them, or not found
        for chosen in itertools.combinations(present, size):
            head = chosen[0].values[at]
            assert head is not None
            for signs in itertools.product((1, -1), repeat=size - 1):
                total = head + sum(sign * (t.values[at] or 0.0) for sign, t in zip(signs, chosen[1:], strict=True))
                if abs(total - target) <= tolerance:
                    summed = chosen[0]
                    for sign, t in zip(signs, chosen[1:], strict=True):
                        summed = _combine(summed, t, "+" if sign > 0 else "-")
                    yield summed


def _writer(form: dict[str, Any], arguments: list[dict[str, Any]], texts: list[str]) -> Callable[[_Term], int]:
    """How many recorded numbers of a place a candidate writes, as `fixed_text` writes them: 0 where it
    writes one wrong or too few."""
    decimals = [0 if "repr" in form else _decimals(form["decimals"], args) for args in arguments]
    # A formula may have no value on some calls (an expression it cannot evaluate, an argument not given):
    # it must write every other, and half of them at least.
    needed = max(2, (len(texts) + 1) // 2)

    def writes(term: _Term) -> int:
        written = 0
        for value, digits, text in zip(term.values, decimals, texts, strict=True):
            if value is None:
                continue
            if digits is None or _written(value, digits, form) != text:
                return 0
            written += 1
        return written if written >= needed else 0

    return writes


def _written(value: float, digits: int, form: dict[str, Any]) -> str:
    """As `twin_formula_of` writes a value (a double's repr, or fixed decimals), right-aligned to its width."""
    text = repr(value) if "repr" in form else fixed_text(value, digits, form["group"], form["point"])
    return text.rjust(form.get("width", 0))


def _widths(members: list[tuple[RecordedCall, list[_Token]]]) -> set[int]:
    """The widths of the places whose numbers are padded by spaces that vary to one width."""
    found = set()
    for place in range(len(members[0][1]) if len(members) >= 2 else 0):
        column = [tokens[place] for _, tokens in members]
        widths = {len(token.padded) for token in column}
        if len({token.pad for token in column}) > 1 and len(widths) == 1:
            found |= widths
    return found


def _format(
    tokens: list[_Token],
    arguments: list[dict[str, Any]],
    integers: list[str],
    numbers: dict[str, Any],
    grouped: bool,
    columns: set[int],
) -> dict[str, Any] | None:
    """How a place writes its number: its decimals (an integer argument's value where every call giving it
    shows that many, else one constant) and its thousands separator; None where the answers disagree."""
    form = _unpadded(tokens, arguments, integers, numbers, grouped)
    pads, widths = {token.pad for token in tokens}, {len(token.padded) for token in tokens}
    if form is not None and len(pads) == 1 and pads != {0} and len(widths) == 1 and widths <= columns:
        # Padded alike here, to a width the tool's other answers right-align numbers to: that column too.
        return {**form, "width": widths.pop()}
    if form is None or len(pads) == 1:
        return form
    # Spaces that vary where the whole is as wide: a column the number is right-aligned in.
    return {**form, "width": widths.pop()} if len(widths) == 1 else None


def _unpadded(
    tokens: list[_Token], arguments: list[dict[str, Any]], integers: list[str], numbers: dict[str, Any], grouped: bool
) -> dict[str, Any] | None:
    large = [token for token in tokens if abs(token.value) >= 1000]
    if large and len({token.grouped for token in large}) > 1:
        return None
    group = "," if (large[0].grouped if large else grouped) else ""
    counts = [token.decimals for token in tokens]
    for name in integers:
        given = [(args.get(name), digits) for args, digits in zip(arguments, counts, strict=True)]
        told = [value for value, _ in given if isinstance(value, int) and not isinstance(value, bool)]
        missing = {digits for value, digits in given if value is None}
        default = numbers.get(name)
        if len(told) < 2 or len(missing) > 1 or any(v != d for v, d in given if v is not None):
            continue
        if missing and default is not None and default not in missing:
            continue
        return {
            "decimals": ["var", name, default if default is not None else next(iter(missing), 0)],
            "group": group,
            "point": ".",
        }
    if len(set(counts)) != 1:
        # Decimals that vary, never grouped, each with a point: a double as Python's repr writes it.
        if all(not token.grouped and "." in token.text for token in tokens):
            return {"repr": "python"}
        return None
    return {"decimals": counts[0], "group": group, "point": "."}


def _decimals(decimals: Any, args: dict[str, Any]) -> int | None:
    if isinstance(decimals, int):
        return decimals
    value = args.get(decimals[1])
    value = decimals[2] if value is None else value
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 20 else None


def _tokens(text: str) -> list[_Token]:
    found = []
    for match in _PADDED.finditer(text):
        written = match.group(2)
        fraction = written.split(".")[1] if "." in written else ""
        found.append(
            _Token(written, float(written.replace(",", "")), len(fraction), "," in written, len(match.group(1)))
        )
    return found


def _shown(token: _Token, form: dict[str, Any]) -> str:
    """A place's number as its answer shows it: with the spaces it is padded by where its format has a width."""
    return token.padded if "width" in form else token.text


def _argument(value: Any, default: Any) -> float | None:
    value = default if value is None else value
    return float(value) if _is_number(value) and abs(value) < 1e300 else None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _distinct(terms: list[_Term]) -> list[_Term]:
    """The terms with different values (the first of those alike: the simplest, an argument before a place)."""
    seen: set[tuple[float | None, ...]] = set()
    out = []
    for term in terms:
        if term.values not in seen:
            seen.add(term.values)
            out.append(term)
    return out


def _largest(values: tuple[float | None, ...]) -> int | None:
    known = [(abs(value), at) for at, value in enumerate(values) if value is not None and value]
    return max(known)[1] if known else None


def _rounded(raw: float) -> Iterator[float]:
    """`raw` to 1, 2, ... significant digits: the simplest constant first (more would fit any example)."""
    if not math.isfinite(raw) or raw == 0:
        return
    seen: set[float] = set()
    for digits in _SIGNIFICANT:
        value = float(f"{raw:.{digits - 1}e}")
        if value not in seen:
            seen.add(value)
            yield value


def _constant(value: float, like: _Term) -> _Term:
    return _Term((["const", value],), tuple(value for _ in like.values), (value,))


def _apply(term: _Term, op: str, constant: float) -> _Term:
    return _combine(term, _constant(constant, term), op)


def _combine(a: _Term, b: _Term, op: str) -> _Term:
    """`a op b`, computed as the Starlark does."""
    values = tuple(_binary(op, x, y) for x, y in zip(a.values, b.values, strict=True))
    return _Term((*a.steps, *b.steps, [op]), values, a.fitted + b.fitted)


def _annuity(principal: _Term, rate: _Term, periods: _Term) -> _Term:
    """The annuity payment of three terms, computed as `twin_formula_annuity` does."""
    values = tuple(
        None if p is None or r is None or n is None else _payment(p, r, n)
        for p, r, n in zip(principal.values, rate.values, periods.values, strict=True)
    )
    fitted = principal.fitted + rate.fitted + periods.fitted
    return _Term((*principal.steps, *rate.steps, *periods.steps, ["annuity"]), values, fitted)


def _binary(op: str, x: float | None, y: float | None) -> float | None:
    if x is None or y is None:
        return None
    if op == "+":
        value = x + y
    elif op == "-":
        value = x - y
    elif op == "*":
        value = x * y
    elif op == "/":
        if y == 0:
            return None
        value = x / y
    elif op == "min":
        value = min(x, y)
    elif op == "max":
        value = max(x, y)
    else:
        return None
    return value if math.isfinite(value) and abs(value) < 1e300 else None


def _periods(n: float) -> bool:
    return n == math.floor(n) and 0 < n <= _POWER


def _payment(p: float, r: float, n: float) -> float | None:
    """`twin_formula_annuity`, the same products in the same order."""
    if not _periods(n):
        return None
    if r == 0:
        return p / n
    power = _power(1 + r, int(n))
    if power is None or power in (0.0, 1.0):
        return None
    value = p * r / (1 - 1 / power)
    return value if math.isfinite(value) else None


def _power(x: float, n: int) -> float | None:
    out, base = 1.0, x
    for _ in range(64):
        if n % 2 == 1:
            out = out * base
        n = n // 2
        if n == 0:
            return out
        base = base * base
    return None


def _bisect(principal: float, periods: float, target: float) -> float | None:
    """The rate per period at which the payment of `principal` over `periods` is `target` (it grows with the
    rate), or None."""

    def payment(rate: float) -> float | None:
        return _payment(principal, rate, periods)

    low, high = 1e-12, 10.0
    at_high = payment(high)
    if at_high is None or at_high < target:
        return None
    for _ in range(_BISECTION):
        middle = (low + high) / 2
        value = payment(middle)
        if value is None:
            return None
        low, high = (middle, high) if value < target else (low, middle)
    return (low + high) / 2
