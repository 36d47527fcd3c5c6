"""Conversions between units learned as one scale (and offset) per unit, shared by every pair of units that
names it: `["units", name, [from, to], table, digits]` (`UNITS`, a section of `functions.FUNCTIONS`).

A converter keeps one number per unit relative to a base unit (a meter, a joule, a degree Celsius) and
answers any pair through the base: `base = (x + offset[from]) * scale[from]`, `y = base / scale[to] -
offset[to]`. A line fitted per pair (`["linear", ...]`) needs that pair recorded twice; the same calls, read
as equations over the units, give each unit's number from the calls that link it to units already known,
so a pair never recorded is answered where both its units were seen, and a call naming a unit never seen
is handed on.

The table holds per unit `[offset, numerator, denominator, group]`, its scale `numerator / denominator`, and the
twin computes, as a server does on doubles, `(x + offset) * numerator / denominator` to the base and `base *
denominator / numerator - offset` from it, so that a scale written as a product (`x * 0.3048`) or a quotient
(`x / 60`) and an offset added after scaling (`x * 9 / 5 + 32`) give the server's own bits. An offset fitted
through two points alone is kept only where written short: two points fit any line. Each unit's
numbers are the shortest decimals (or small fractions) that reproduce every recorded call linking it to the
units fitted before it, exactly, under the rounding the answers show (none, or a number of decimals, halves
up as `functions.twin_fn_linear` rounds; where answers are rounded, many short numbers reproduce them, and
the ratio the call of the largest number shows is tried first); the base is the unit whose table reproduces
the most recorded calls. A unit no such number reproduces is left out of the table: its calls are handed
on. Units that no recorded call links to the base's (a foot and a meter, a mile and a yard) are fitted as a
group of their own, from a base of their own: a pair from two groups is handed on. Conversions asked as the
items of an array argument (a batch) get one table from every recorded item (`item_conversions`).

A quantity may be written in one text argument, its number and its unit together (`"498 Pa"`, or a unit called
on its number, `"tempF(98.6)"`): `twin_quantity` reads it (`["units", name, [name, to], table, digits,
"quantity"]`), in the twin and for the learner alike. A converted number written in a text with a number of
significant digits, as C's `%.12g` writes it, is `twin_significant`'s (`functions.py`'s `["sig", n, part]`).
A server that computes in fractions or decimals rounds once, where doubles round at each step: where the table
on doubles reproduces fewer calls, it is fitted and computed on the decimals the numbers' shortest texts write
(`[..., reading, "exact"]`, `twin_units_exact`; rounded to `digits` decimals halves to even, then to the
nearest double).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sim_mcp.authoring.twins.expression import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall

__all__ = ["UNITS", "UnitCall", "fit_units", "item_conversions", "units_reproduced"]

UNITS = """
# --- a conversion through a base unit, one scale and offset per unit (`units.py`) ---

# The longest text read as a quantity.
TWIN_QUANTITY_LIMIT = 200
# The most significant digits a number is written with (`twin_significant`): a double's shortest text, rounded to
# as many, is its exact value rounded so.
TWIN_SIGNIFICANT_MOST = 15

def twin_fn_units(part, args):
    # ["units", name, [from, to], table, digits]: number argument `name` in unit `from` written in unit `to`,
    # through the base: (x + offset) * numerator / denominator, then base * denominator / numerator - offset;
    # None where the units are of two groups (no recorded call linked them). With a sixth item "quantity",
    # the number and the unit `from` are read from one text argument, `name` (`twin_quantity`).
    x, first, second = None, args.get(part[2][0]), args.get(part[2][1])
    if len(part) > 5 and part[5] == "quantity":
        read = twin_quantity(args.get(part[1]))
        if read != None:
            x, first = read[0], read[1]
    else:
        x = args.get(part[1])
    table = part[3]
    if type(x) not in ("int", "float") or type(first) != "string" or type(second) != "string":
        return None
    if first not in table or second not in table:
        return None
    given, wanted = table[first], table[second]
    if given[3] != wanted[3]:
        return None
    if len(part) > 6 and part[6] == "exact":
        return twin_units_exact(x, given, wanted, part[4])
    base = (x + given[0]) * given[1] / given[2]
    y = base * wanted[2] / wanted[1] - wanted[0]
    if not twin_finite(y):
        return None
    return twin_fn_rounded(y, part[4])

def twin_units_exact(x, given, wanted, digits):
    # The same conversion computed exactly on the decimals its numbers are written with, as a server computing
    # in fractions or decimals does: rounded to `digits` decimals (halves to even) if any, then to the nearest
    # double.
    top, bottom = twin_fraction(x)
    for number, step in [(given[0], "add"), (given[1], "times"), (given[2], "over"), (wanted[2], "times"),
                         (wanted[1], "over"), (-wanted[0], "add")]:
        upper, lower = twin_fraction(number)
        if step == "add":
            top, bottom = top * lower + upper * bottom, bottom * lower
        elif step == "times":
            top, bottom = top * upper, bottom * lower
        elif upper == 0:
            return None
        else:
            top, bottom = top * lower, bottom * upper
        if bottom < 0:
            top, bottom = -top, -bottom
    if digits != None:
        scale = 1
        for _ in range(digits):
            scale = scale * 10
        whole, left = (top * scale) // bottom, (top * scale) % bottom
        if 2 * left > bottom or (2 * left == bottom and whole % 2 == 1):
            whole += 1
        top, bottom = whole, scale
    if top == 0:
        return {"value": 0}
    y = twin_rounded(abs(top), bottom)
    if not twin_finite(y):
        return None
    return twin_fn_rounded(-y if top < 0 else y, None)

def twin_fraction(value):
    # [top, bottom]: the decimal a number's shortest text writes, as a fraction (bottom a power of ten).
    if type(value) == "int":
        return [value, 1]
    text = json.encode(value)
    mantissa, exponent = (text.split("e") + ["0"])[:2]
    parts = (mantissa.split(".") + [""])[:2]
    top, power = int(parts[0] + parts[1]), int(exponent) - len(parts[1])
    scale = 1
    for _ in range(abs(power)):
        scale = scale * 10
    return [top * scale, 1] if power >= 0 else [top, scale]

def twin_quantity(text):
    # [number, unit]: a quantity written in one text, a JSON number and a unit's name after it ("498 Pa",
    # "26 ft/s"), or a unit's name and the number in parentheses after it, as a function is called
    # ("tempF(98.6)"); None for any other text.
    if type(text) != "string" or len(text) > TWIN_QUANTITY_LIMIT:
        return None
    text = text.strip()
    at = text.find("(")
    if at > 0 and text.endswith(")"):
        name, number = text[:at].strip(), twin_json_number(text[at + 1:-1].strip())
        if number == None or " " in name:
            return None
        return [number, name]
    pieces = text.split(" ", 1)
    if len(pieces) != 2:
        return None
    number, name = twin_json_number(pieces[0]), pieces[1].strip()
    if number == None or name == "" or twin_json_number(name) != None:
        return None
    return [number, name]

def twin_significant(value, n):
    # A number written as C's and Python's "%.<n>g" write it: rounded to n significant digits (halves to even,
    # on the double's exact value), fixed where its power of ten lies in [-4, n), else with an exponent of two
    # digits at least; trailing zeros dropped.
    if type(value) == "int":
        value = float(value)
    if twin_nan(value):
        return "nan"
    if not twin_finite(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    # Past 15 digits, or below the smallest normal double, the digits written are the exact binary value's, not
    # its shortest text's: declined.
    if n < 1 or n > TWIN_SIGNIFICANT_MOST or abs(value) < 2.2250738585072014e-308:
        return None
    text = json.encode(abs(value))
    mantissa, exponent = (text.split("e") + ["0"])[:2]
    parts = (mantissa.split(".") + [""])[:2]
    raw = parts[0] + parts[1]
    # value = 0.digits * 10^point, digits as the shortest text of the double writes them.
    point = len(parts[0]) + int(exponent) - (len(raw) - len(raw.lstrip("0")))
    digits = raw.strip("0")
    if len(digits) > n:
        kept, rest = digits[:n], digits[n:]
        up = rest[0] > "5" or (rest[0] == "5" and len(rest) > 1)
        if rest == "5":
            # A tie as the shortest text writes it: the double's exact value is above, below or on it.
            side = twin_exact_side(abs(value), int(kept + "5"), point - n - 1)
            up = side > 0 or (side == 0 and int(kept[-1]) % 2 == 1)
        if up:
            bigger = str(int(kept) + 1)
            if len(bigger) > n:
                point += 1
            kept = bigger[:n]
        digits = kept.rstrip("0")
    power = point - 1
    if power < -4 or power >= n:
        written = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        text = written + "e" + ("-" if power < 0 else "+") + ("0" if abs(power) < 10 else "") + str(abs(power))
    elif point <= 0:
        text = "0." + "0" * -point + digits
    elif point >= len(digits):
        text = digits + "0" * (point - len(digits))
    else:
        text = digits[:point] + "." + digits[point:]
    return ("-" if value < 0 else "") + text

def twin_exact_side(value, whole, power):
    # The sign of value - whole * 10^power on exact values (value a positive double): its binary fraction
    # doubled to a whole number m, value = m / 2^k.
    k = 0
    for _ in range(1100):
        if value == twin_fn_floor(value):
            break
        value, k = value * 2, k + 1
    m = int(value)
    left, right = m, whole * twin_two(k)
    for _ in range(abs(power)):
        if power > 0:
            right = right * 10
        else:
            left = left * 10
    return 1 if left > right else -1 if left < right else 0

def twin_fn_rounded(y, digits):
    # Rounded to `digits` decimals (None: not), halves up; a whole double as the integer it writes.
    if digits != None:
        scale = 1
        for _ in range(digits):
            scale = scale * 10
        y = twin_fn_floor(y * scale + 0.5) / scale
    if abs(y) < 9007199254740992 and y == twin_fn_floor(y):
        return {"value": int(y)}
    return {"value": y}
"""

# The most significant digits a unit's number is written with: past them, a double's own.
_DIGITS = 17
# Denominators of a scale written as a fraction (5 / 9) where no short decimal writes it.
_DENOMINATORS = range(2, 13)
# The most significant digits of a scale and offset fitted through two points alone.
_SHORT_LINE = 8
# The most units tried as the base: those named by most calls first.
_BASES = 12

Entry = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class UnitCall:
    """A recorded success: number `x` in unit `first`, and the numbers its answer shows (`ys`)."""

    x: float
    first: str
    second: str
    ys: tuple[float, ...]


def fit_units(calls: list[UnitCall], digits: int | None, exact: bool = False) -> dict[str, list[float]]:
    """The table (unit to `[offset, numerator, denominator, group]`) that reproduces the most of `calls`,
    rounded to `digits` decimals (None: not rounded). Units no recorded call links are fitted as groups of
    their own, each from its own base (`_fit_group`), its number in the entry: a pair of units from two
    groups has no known ratio, and is handed on."""
    fitted: dict[str, list[float]] = {}
    left = calls
    groups = 0
    while left and (table := _fit_group(left, digits, exact)):
        fitted.update({unit: [*entry, float(groups)] for unit, entry in table.items()})
        groups += 1
        left = [call for call in left if call.first not in fitted and call.second not in fitted]
    return fitted


def _fit_group(calls: list[UnitCall], digits: int | None, exact: bool) -> dict[str, Entry]:
    """The units of `calls` linked to one base, from the base whose table reproduces the most of them: each
    other unit fitted in turn from the calls that link it to the units fitted before it (`_fit_unit`)."""
    named: dict[str, int] = {}
    for call in calls:
        for unit in (call.first, call.second):
            named[unit] = named.get(unit, 0) + 1
    best: tuple[tuple[int, int, int], dict[str, Entry]] = ((0, 0, 0), {})
    for base in sorted(named, key=lambda unit: (-named[unit], unit))[:_BASES]:
        table: dict[str, Entry] = {base: (0.0, 1.0, 1.0)}
        growing = True
        while growing:
            growing = False
            for unit in sorted(named, key=lambda unit: (-named[unit], unit)):
                if unit in table:
                    continue
                links = [c for c in calls if unit in (c.first, c.second) and {c.first, c.second} - {unit} <= set(table)]
                found = _fit_unit(unit, links, table, digits, exact) if links else None
                if found is not None:
                    table[unit] = found
                    growing = True
        # Ties: fewer offsets, then fewer digits written: the base the server's own table is relative to
        # writes its numbers shortest (a meter's 0.3048, not a centimeter's 30.48 and a millimeter's 0.1).
        reproduced = sum(1 for call in calls if _reproduces(call, table, digits, exact))
        score = (reproduced, -sum(1 for entry in table.values() if entry[0]), -sum(map(_written, table.values())))
        if reproduced and score > best[0]:
            best = (score, table)
    return best[1]


def units_reproduced(
    calls: list[UnitCall], table: dict[str, list[float]], digits: int | None, exact: bool = False
) -> int:
    """How many of `calls` the table reproduces (`exact`: computed on the decimals, `twin_units_exact`)."""
    entries = {unit: (entry[0], entry[1], entry[2]) for unit, entry in table.items()}
    return sum(
        1
        for call in calls
        if _reproduces(call, entries, digits, exact) and table[call.first][3] == table[call.second][3]
    )


def convert(x: float, given: Entry, wanted: Entry, digits: int | None, exact: bool = False) -> float:
    """As `twin_fn_units` computes, on doubles; or (`exact`) as `twin_units_exact` does, on the decimals the
    numbers' shortest texts write, rounded once."""
    if exact:
        steps = [Fraction(repr(float(x))), Fraction(repr(given[0]))]
        value = (steps[0] + steps[1]) * Fraction(repr(given[1])) / Fraction(repr(given[2]))
        value = value * Fraction(repr(wanted[2])) / Fraction(repr(wanted[1])) - Fraction(repr(wanted[0]))
        return float(value if digits is None else round(value, digits))
    base = (x + given[0]) * given[1] / given[2]
    return rounded(base * wanted[2] / wanted[1] - wanted[0], digits)


def rounded(y: float, digits: int | None) -> float:
    """As `twin_fn_rounded` rounds: halves up, as JavaScript's Math.round(y * 10^digits) / 10^digits."""
    if digits is None or not math.isfinite(y):
        return y
    scale: int = 10**digits
    return float(math.floor(y * scale + 0.5)) / scale


def _reproduces(call: UnitCall, table: dict[str, Entry], digits: int | None, exact: bool = False) -> bool:
    if call.first not in table or call.second not in table:
        return False
    try:
        return convert(call.x, table[call.first], table[call.second], digits, exact) in call.ys
    except (ZeroDivisionError, OverflowError):
        return False


def _fit_unit(
    unit: str, links: list[UnitCall], table: dict[str, Entry], digits: int | None, exact: bool
) -> Entry | None:
    """The first entry for `unit`, shortest first, that reproduces every call of `links` (each linking it to a
    unit of `table`, or to itself): a scale alone, else a scale and an offset."""
    # The point of the largest number first: where answers are rounded, many short numbers reproduce the
    # recorded calls, and the ratio of the largest is the nearest to the server's (it is tried first).
    estimates = sorted(_estimates(unit, links, table), key=lambda point: -abs(point[0]))
    for entry in itertools.chain(_scales(estimates, digits is not None), _affine(estimates, digits is not None)):
        trial = {**table, unit: entry}
        if all(_reproduces(call, trial, digits, exact) for call in links):
            return entry
    return None


def _estimates(unit: str, links: list[UnitCall], table: dict[str, Entry]) -> Iterator[tuple[float, float]]:
    """Points (a number in `unit`, the same in the base) each call linking `unit` to a fitted unit gives."""
    for call in links:
        if call.first == call.second:
            continue
        for y in call.ys[:4]:
            try:
                if call.second == unit:
                    yield y, _to_base(call.x, table[call.first])
                else:
                    yield call.x, _to_base(y, table[call.second])
            except (ZeroDivisionError, OverflowError):
                continue


def _to_base(x: float, entry: Entry) -> float:
    return (x + entry[0]) * entry[1] / entry[2]


def _scales(estimates: list[tuple[float, float]], rounded: bool) -> Iterator[Entry]:
    """Entries with no offset whose scale is near one point's ratio, shortest written first: the scale as a
    multiplier (`x * 0.3048`), or its inverse as a divisor (`x / 60`); where answers are `rounded`, the
    ratio of the largest point as it is before them."""
    ratios = [base / x for x, base in estimates if x and base and math.isfinite(base / x)][:4]
    if rounded and ratios:
        yield 0.0, ratios[0], 1.0
    for significant in range(1, _DIGITS + 1):
        for ratio in ratios:
            yield 0.0, _shortened(ratio, significant), 1.0
            yield 0.0, 1.0, _shortened(1 / ratio, significant)


def _affine(estimates: list[tuple[float, float]], rounded: bool) -> Iterator[Entry]:
    """Entries with an offset, from the line through two points of distinct x: its slope as a small fraction
    (5 / 9) or a short decimal, the offset (the line's value at 0 over its slope) as a short decimal; where
    answers are `rounded`, the line as it is before them."""
    points = sorted({x: base for x, base in estimates}.items())
    if len(points) < 2:
        return
    (x1, b1), (x2, b2) = points[0], points[-1]
    slope = (b2 - b1) / (x2 - x1)
    if not slope or not math.isfinite(slope):
        return
    offset = b1 / slope - x1
    # Two points fit any line: there, only a line written short (-32 and 5 / 9, -273.15) is evidence of one.
    tested = len(points) > 2
    if rounded and tested:
        yield offset, slope, 1.0
    fractions = [(float(round(slope * d)), float(d)) for d in _DENOMINATORS if math.gcd(round(slope * d), d) == 1]
    slopes = [f for f in fractions if _near(f[0] / f[1], slope)]
    slopes += [(_shortened(slope, significant), 1.0) for significant in range(1, _DIGITS + 1)]
    for numerator, denominator in slopes:
        for written in range(1, _DIGITS + 1):
            entry = (_shortened(offset, written), numerator, denominator)
            if tested or _written(entry) <= _SHORT_LINE:
                yield entry


def _written(entry: Entry) -> int:
    """How many significant digits an entry's numbers are written with, as Python writes a double shortest
    (`273.15`: 5; `1e-05`: 1)."""
    return sum(len(repr(abs(number)).split("e")[0].replace(".", "").strip("0")) for number in entry if number)


def _near(first: float, second: float) -> bool:
    return abs(first - second) <= 1e-9 * max(abs(first), abs(second))


def _shortened(value: float, significant: int) -> float:
    """`value` written with `significant` digits, as a decimal constant is."""
    return float(f"{value:.{significant - 1}e}")


def item_conversions(library: TwinLibrary, calls: list[RecordedCall]) -> dict[int, dict[str, list[list[Any]]]]:
    """Conversions asked as the items of an array argument (a batch of requests, each a number and two units),
    answered as a list of as many objects: per call (by id), per array, each item's pieces (`[text, part]`),
    its number (`["num", "array/*/field"]`) and its conversion (`["units", "array/*/field", [from, to],
    table, digits]`, one table fitted from every recorded item), as `twin_item` lets an item's fields be read."""
    successes = [call for call in calls if not call.is_error and call.rpc_error is None]
    best: tuple[int, list[Any]] | None = None
    for array, number, selector in _item_fields(successes):
        found = _through_items(array, number, selector, successes)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    if best is None:
        return {}
    part = best[1]
    array = part[1].split("/*/")[0]
    viewed = [
        (call, index, _viewed(array, item))
        for call in successes
        for index, item in enumerate(call.arguments.get(array) or [])
        if isinstance(item, dict)
    ]
    rendered: list[list[list[Any]]] = library.call(
        "twin_bridge_parts", {"parts": [part], "cases": [args for _, _, args in viewed]}
    )
    out: dict[int, dict[str, list[list[Any]]]] = {}
    for (call, index, args), ((value, text),) in zip(viewed, rendered, strict=True):
        per_item = out.setdefault(id(call), {}).setdefault(array, [[] for _ in call.arguments[array]])
        x = args[part[1]]
        per_item[index].append([str(x), ["num", part[1]]])
        if value is not None and value in _answered(call.value, len(call.arguments[array]), index):
            per_item[index].append([text, part])
    return out


def _viewed(array: str, item: dict[str, Any]) -> dict[str, Any]:
    return {f"{array}/*/{field}": value for field, value in item.items()}


def _item_fields(successes: list[RecordedCall]) -> list[tuple[str, str, list[str]]]:
    """Per array argument of object items: each number field and each two text fields (in the order the items
    give them) as a conversion's number and unit pair."""
    found: list[tuple[str, str, list[str]]] = []
    arrays = {
        name
        for call in successes
        for name, value in call.arguments.items()
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value)
    }
    for array in sorted(arrays):
        fields: dict[str, set[str]] = {}
        for call in successes:
            for item in call.arguments.get(array) or []:
                for field, value in item.items() if isinstance(item, dict) else []:
                    kind = (
                        "number"
                        if isinstance(value, int | float) and not isinstance(value, bool)
                        else type(value).__name__
                    )
                    fields.setdefault(field, set()).add(kind)
        numbers = [field for field, kinds in fields.items() if kinds == {"number"}]
        texts = [field for field, kinds in fields.items() if kinds == {"str"}]
        found += [(array, number, list(pair)) for number in numbers for pair in itertools.combinations(texts, 2)]
    return found


def _through_items(
    array: str, number: str, selector: list[str], successes: list[RecordedCall]
) -> tuple[int, list[Any]] | None:
    """The table (`fit_units`) over every recorded item, under the rounding that reproduces the most items."""
    items: list[UnitCall] = []
    for call in successes:
        given = call.arguments.get(array) or []
        for index, item in enumerate(given):
            if not isinstance(item, dict):
                continue
            x, first, second = item.get(number), item.get(selector[0]), item.get(selector[1])
            if isinstance(x, int | float) and isinstance(first, str) and isinstance(second, str):
                shown = tuple(y for y in _answered(call.value, len(given), index) if y != x or first == second)
                items.append(UnitCall(float(x), first, second, shown))
    if len(items) < 2:
        return None
    best: tuple[int, list[Any]] | None = None
    for digits in (None, *range(13)):
        table = fit_units(items, digits)
        # Items converted to their own unit tell nothing: any table writes their number back.
        count = units_reproduced([item for item in items if item.first != item.second], table, digits)
        if count >= 2 and (best is None or count > best[0]):
            names = [f"{array}/*/{field}" for field in (number, *selector)]
            best = (count, ["units", names[0], names[1:], table, digits])
        if best is not None and best[0] == len(items):
            break
    return best


def _answered(value: Any, length: int, index: int) -> tuple[float, ...]:
    """The numbers of item `index` of a list as long as the array in an answer (its JSON numbers, one level)."""
    for listed in _lists(value):
        if len(listed) == length and isinstance(listed[index], dict):
            return tuple(
                number
                for number in listed[index].values()
                if isinstance(number, int | float) and not isinstance(number, bool)
            )
    return ()


def _lists(value: Any) -> Iterator[list[Any]]:
    if isinstance(value, list):
        yield value
        for item in value:
            yield from _lists(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _lists(item)
