"""Dates the twin computes (`DATES`, a section of `library.LIBRARY`), over a calendar of named days learned
from the server's answers, and what the learner reads of a tool whose answers show them.

A calendar tool answers with functions of the days it was given: a day's weekday and ISO week, the days
between two days, a month's last day, and, over the days a region keeps free (public holidays), whether a
day is a business day (neither a weekend day, Saturday or Sunday, nor a named day), the next or previous one
stepped to until that holds, the business days in a range and the named days it holds. The arithmetic is
the twin's own Starlark (days counted from 1970-01-01, the proleptic Gregorian calendar); the named days are
facts only the server knows. They are gathered from every recorded answer that lists them, whichever tool
gave it (`read_calendar`): a list of objects each with a day and a name, under the region the call's other
short texts name (a country and a subdivision, compared ignoring case), covering the span the call asked
for (from the first of its two days up to the second, with it where a flag is set; a year it gave), all of
its days or, where none of the days listed is a weekend day, its weekdays only (a server that lists the
holidays that cost a business day). A day outside what the recordings cover, a year never listed, is not
known: a placeholder that needs it writes nothing and the call is handed on, never answered as if the day
were free.

Placeholders: `["date", op, spec, calendar]`, `spec` naming the arguments (`on`: the days or numbers it
reads; `flag`: a boolean argument that counts a range's other end, or the day stepped from, `inclusive`;
`region`: the texts that name the calendar; `fields`: the field names of a listing's objects), and ops:

- `weekday` (a day's English name), `week` (its ISO week), `weekend`, of one day;
- `days` between two days (one more where the flag is set), `month_end` of a year and a month;
- `holiday` (the name, or null), `is_holiday`, `business` of one day on the calendar;
- `next`, `previous` (the first business day after or before a day, or from it where the flag is set) and
  `next_skipped`, `previous_skipped` (how many days that stepped); `month_business` (a month's last
  business day);
- `business_from`, `business_to` (the business days from the first day up to the second, or after the
  first up to and with the second; both ends where the flag is set);
- `listed`, `listed_weekdays` (the named days from one day up to another, both where the flag is set,
  as objects of `fields`; those on weekdays only), `year` (a year's named days).
"""

from __future__ import annotations

import datetime
import itertools
import json
import re
from typing import Any

from sim_mcp.authoring.twins.argument_types import types_of
from sim_mcp.authoring.twins.expression import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

__all__ = ["BRIDGE", "BRIDGE_TOOLS", "DATES", "date_atoms", "days_agree", "read_calendar", "read_dates"]

DATES = """
# --- dates over a calendar of named days (`dates.py`) ---

TWIN_DATE_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# The most days a step or a count walks: a range longer than this is handed on.
TWIN_DATE_SPAN = 3700

def twin_date_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)

def twin_date_month_days(y, m):
    if m == 2:
        return 29 if twin_date_leap(y) else 28
    return 30 if m in (4, 6, 9, 11) else 31

def twin_date_ordinal(y, m, d):
    # Days from 1970-01-01 (H. Hinnant's days_from_civil).
    y = y - 1 if m <= 2 else y
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468

def twin_date_civil(z):
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (yoe + era * 400 + (1 if m <= 2 else 0), m, d)

def twin_date_pad(n, width):
    text = str(n)
    return "0" * (width - len(text)) + text

def twin_date_text(z):
    y, m, d = twin_date_civil(z)
    return twin_date_pad(y, 4) + "-" + twin_date_pad(m, 2) + "-" + twin_date_pad(d, 2)

def twin_date_read(text):
    # The day an ISO date (YYYY-MM-DD) names, or None: no such day.
    if type(text) != "string" or len(text) != 10 or text[4] != "-" or text[7] != "-":
        return None
    y, m, d = text[:4], text[5:7], text[8:]
    if not (y.isdigit() and m.isdigit() and d.isdigit()):
        return None
    y, m, d = int(y), int(m), int(d)
    if m < 1 or m > 12 or d < 1 or d > twin_date_month_days(y, m):
        return None
    return twin_date_ordinal(y, m, d)

def twin_date_weekday(z):
    # 0 for Monday: 1970-01-01 was a Thursday.
    return (z + 3) % 7

def twin_date_week(z):
    thursday = z - twin_date_weekday(z) + 3
    return (thursday - twin_date_ordinal(twin_date_civil(thursday)[0], 1, 1)) // 7 + 1

def twin_date_region(spec, args):
    values = []
    for name in spec.get("region", []):
        value = args.get(name)
        values.append(value.upper() if type(value) == "string" else "")
    return TWIN_PAIR.join(values)

def twin_date_known(calendar, region, z, weekend):
    # Whether the calendar knows if day z is named in the region: a span the recordings cover holds it (one
    # of weekdays only holds no weekend day).
    text = twin_date_text(z)
    for span in calendar["spans"].get(region, []):
        if span[0] <= text and text <= span[1] and (span[2] or not weekend):
            return True
    return False

def twin_date_named(calendar, region, z):
    # {"value": name or None} where the calendar knows the day, else None.
    weekend = twin_date_weekday(z) >= 5
    if not twin_date_known(calendar, region, z, weekend):
        return None
    return {"value": calendar["names"].get(region, {}).get(twin_date_text(z))}

def twin_date_business(calendar, region, z):
    # True or False, or None where the calendar does not know the (weekday) day.
    if twin_date_weekday(z) >= 5:
        return False
    named = twin_date_named(calendar, region, z)
    return None if named == None else named["value"] == None

def twin_date_step(calendar, region, z, step, flag):
    day = z if flag else z + step
    for _ in range(TWIN_DATE_SPAN):
        business = twin_date_business(calendar, region, day)
        if business == None:
            return None
        if business:
            return day
        day += step
    return None

def twin_date_flag(spec, args):
    flag = spec.get("flag")
    return flag != None and args.get(flag) == True

def twin_date_days(spec, args):
    # The days the spec reads: ISO dates, or a year and a month as numbers; None where one cannot be read.
    out = []
    for name in spec["on"]:
        value = args.get(name)
        if type(value) == "int":
            out.append(value)
        else:
            out.append(twin_date_read(value))
        if out[-1] == None:
            return None
    return out

def twin_date_month_end(days):
    y, m = days[0], days[1]
    if m < 1 or m > 12 or y < 1 or y > 9999:
        return None
    return twin_date_ordinal(y, m, twin_date_month_days(y, m))

def twin_date_of(part, args):
    # {"value": JSON value} or None (not computed for this call).
    op, spec, calendar = part[1], part[2], part[3]
    days = twin_date_days(spec, args)
    if days == None:
        return None
    region = twin_date_region(spec, args)
    flag = twin_date_flag(spec, args)
    if op == "weekday":
        return {"value": TWIN_DATE_NAMES[twin_date_weekday(days[0])]}
    if op == "week":
        return {"value": twin_date_week(days[0])}
    if op == "weekend":
        return {"value": twin_date_weekday(days[0]) >= 5}
    if op == "days":
        return {"value": days[1] - days[0] + (1 if flag else 0)}
    if op == "month_end":
        end = twin_date_month_end(days)
        return None if end == None else {"value": twin_date_text(end)}
    if op in ("holiday", "is_holiday"):
        named = twin_date_named(calendar, region, days[0])
        if named == None:
            return None
        return named if op == "holiday" else {"value": named["value"] != None}
    if op == "business":
        business = twin_date_business(calendar, region, days[0])
        return None if business == None else {"value": business}
    if op in ("next", "previous", "next_skipped", "previous_skipped"):
        step = 1 if op.startswith("next") else -1
        found = twin_date_step(calendar, region, days[0], step, flag)
        if found == None:
            return None
        return {"value": abs(found - days[0]) if op.endswith("skipped") else twin_date_text(found)}
    if op == "month_business":
        end = twin_date_month_end(days)
        found = None if end == None else twin_date_step(calendar, region, end, -1, True)
        return None if found == None else {"value": twin_date_text(found)}
    if op in ("business_from", "business_to"):
        first, last = days[0], days[1]
        if not flag:
            first, last = (first, last - 1) if op == "business_from" else (first + 1, last)
        if last - first > TWIN_DATE_SPAN:
            return None
        count = 0
        for day in range(first, last + 1):
            business = twin_date_business(calendar, region, day)
            if business == None:
                return None
            count += 1 if business else 0
        return {"value": count}
    if op in ("listed", "listed_weekdays", "year"):
        # A range's named days from its first day up to its second, the second too where the flag is set.
        first, last = days[0], days[1] if op != "year" else days[0]
        last = last if flag or op == "year" else last - 1
        if op == "year":
            if first < 1 or first > 9999:
                return None
            first, last = twin_date_ordinal(first, 1, 1), twin_date_ordinal(first, 12, 31)
        if last - first > TWIN_DATE_SPAN:
            return None
        out = []
        for day in range(first, last + 1):
            weekend = twin_date_weekday(day) >= 5
            if weekend and op == "listed_weekdays":
                continue
            named = twin_date_named(calendar, region, day)
            if named == None:
                return None
            if named["value"] != None:
                out.append({spec["fields"][0]: twin_date_text(day), spec["fields"][1]: named["value"]})
        return {"value": out}
    return None
"""

DATES += """
def twin_date_holds(atom, args):
    # ["days", "read", names]: every one of the arguments reads as a day, each not after the next; ["days",
    # "fails", name]: it is given and reads as none; ["days", "after", first, second]: both read, the first
    # after the second.
    if atom[1] == "read":
        days = [twin_date_read(args.get(name)) for name in atom[2]]
        if None in days:
            return False
        return all([days[i] <= days[i + 1] for i in range(len(days) - 1)])
    if atom[1] == "fails":
        return atom[2] in args and twin_date_read(args.get(atom[2])) == None
    first, second = twin_date_read(args.get(atom[2])), twin_date_read(args.get(atom[3]))
    return first != None and second != None and first > second
"""

# The learner's entry point: every date op of every recorded call, as [JSON value, part].
BRIDGE = """
def twin_bridge_dates(state, args):
    out = []
    for call in args["cases"]:
        found = []
        for part in args["parts"]:
            result = twin_date_of(part, call)
            if result != None:
                found.append([result["value"], part])
        out.append(found)
    return out
"""
BRIDGE_TOOLS = ("twin_bridge_dates",)

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# A region's name is a short text (a country's code, a subdivision's).
_LONGEST_REGION = 64
# A year a number argument may be.
_YEARS = range(1000, 10000)
_PAIR = "\x1f"


def _day(value: Any) -> datetime.date | None:
    if not isinstance(value, str) or not _ISO_DAY.match(value):
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        return None


def _date_arguments(tool: ToolSpec, calls: list[RecordedCall]) -> list[str]:
    """The string arguments given an ISO day in most of the calls that give them."""
    names = []
    for name in tool.input_schema.get("properties") or {}:
        given = [call.arguments[name] for call in calls if isinstance(call.arguments.get(name), str)]
        if given and 2 * sum(_day(value) is not None or bool(_ISO_DAY.match(value)) for value in given) > len(given):
            names.append(name)
    return names


def _region_arguments(tool: ToolSpec, dated: list[str]) -> list[str]:
    """The string arguments that are no day: what names the calendar (a country, a subdivision)."""
    found = []
    for name, schema in (tool.input_schema.get("properties") or {}).items():
        if name not in dated and "string" in types_of(schema):
            found.append(name)
    return found


def _number_arguments(tool: ToolSpec) -> list[str]:
    properties = tool.input_schema.get("properties") or {}
    return [name for name, schema in properties.items() if isinstance(schema, dict) and schema.get("type") == "integer"]


def _flag_arguments(tool: ToolSpec) -> list[str]:
    properties = tool.input_schema.get("properties") or {}
    return [name for name, schema in properties.items() if isinstance(schema, dict) and schema.get("type") == "boolean"]


def _region(call: RecordedCall, names: list[str]) -> str:
    return _PAIR.join(
        value.upper() if isinstance(value := call.arguments.get(name), str) and len(value) <= _LONGEST_REGION else ""
        for name in names
    )


def _named_days(value: Any) -> list[tuple[str, str, list[str]]]:
    """The lists of objects in an answer that each hold an ISO day and a name (the first other text):
    (day, name, [day's field, name's field]) per object, where every object of the list has them."""
    found: list[tuple[str, str, list[str]]] = []
    if isinstance(value, dict):
        for inner in value.values():
            found += _named_days(inner)
    elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        rows = []
        for item in value:
            dated = [f for f, v in item.items() if _day(v) is not None]
            named = [f for f, v in item.items() if isinstance(v, str) and _day(v) is None]
            if len(dated) != 1 or not named:
                return found
            rows.append((item[dated[0]], item[named[0]], [dated[0], named[0]]))
        found += rows
    return found


def _answer(call: RecordedCall) -> Any:
    value = call.value
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def read_calendar(tools: list[tuple[ToolSpec, list[RecordedCall]]]) -> dict[str, Any]:
    """The named days every recorded success lists, per region, and the spans its call covers (`DATES`):
    `{"names": {region: {day: name}}, "spans": {region: [[first, last, all days]]}}`. A listing covers the
    days from the earlier of the two its call gave up to the later (with it where a boolean argument is set,
    `inclusive`) or the year it gave; its weekdays only where none of the days it lists is a weekend day."""
    names: dict[str, dict[str, str]] = {}
    spans: dict[str, list[list[Any]]] = {}
    for tool, calls in tools:
        successes = [call for call in calls if not call.is_error]
        if _named_otherwise(successes, _region_arguments(tool, _date_arguments(tool, successes))):
            continue
        dated = _date_arguments(tool, successes)
        regions = _region_arguments(tool, dated)
        numbers = _number_arguments(tool)
        flags = _flag_arguments(tool)
        for call in successes:
            listed = _named_days(_answer(call))
            days = sorted(d for name in dated if (d := _day(call.arguments.get(name))) is not None)
            years = [y for name in numbers if isinstance(y := call.arguments.get(name), int) and y in _YEARS]
            if len(days) == 2:
                # Up to the later day, not with it, unless a flag is set (`inclusive`): a range may hold its
                # last day or not, as a flag says.
                flagged = any(call.arguments.get(name) is True for name in flags)
                last_day = days[1] if flagged else days[1] - datetime.timedelta(days=1)
                first, last = days[0].isoformat(), last_day.isoformat()
            elif not days and len(years) == 1 and len(numbers) == 1:
                first, last = f"{years[0]:04d}-01-01", f"{years[0]:04d}-12-31"
            else:
                continue
            if not listed and not isinstance(_answer(call), dict):
                continue
            if not listed and not _lists_nothing(_answer(call)):
                continue
            region = _region(call, regions)
            for day, name, _ in listed:
                names.setdefault(region, {})[day] = name
            every = any(_day(day) is not None and _day(day).weekday() >= 5 for day, _, _ in listed)  # type: ignore[union-attr]
            span = [first, last, every]
            if span not in spans.setdefault(region, []):
                spans[region].append(span)
    return {"names": names, "spans": spans}


def _named_otherwise(calls: list[RecordedCall], regions: list[str]) -> bool:
    """Whether the tool's answers list one day under two names in one region: a named day is a fact of the
    calendar, the same in every answer, so such a tool lists records that carry a day (to-dos by due day,
    searched between two days), not named days, and none of its listings is read as a calendar."""
    seen: dict[tuple[str, str], str] = {}
    for call in calls:
        region = _region(call, regions)
        for day, name, _ in _named_days(_answer(call)):
            if seen.setdefault((region, day), name) != name:
                return True
    return False


def _lists_nothing(value: Any) -> bool:
    """Whether a JSON answer holds an empty list (a range with no named day in it)."""
    if isinstance(value, dict):
        return any(_lists_nothing(inner) for inner in value.values())
    return bool(value == [])


def read_dates(
    library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall], calendar: dict[str, Any]
) -> dict[int, list[list[Any]]]:
    """Every date op of the tool's arguments on every recorded call, kept as a piece of a call where its
    answer shows the value (`_shown`): per call (by id), `[written, part]`, a text written as it is and any
    other JSON value as `json_piece` writes it."""
    dated = _date_arguments(tool, calls)
    regions = _region_arguments(tool, dated)
    numbers = _number_arguments(tool)
    flags: list[str | None] = [*_flag_arguments(tool)] or [None]
    fields = sorted({json.dumps(f) for call in calls for _, _, f in _named_days(_answer(call))})
    parts: list[list[Any]] = []
    for name in dated:
        spec: dict[str, Any] = {"on": [name], "region": regions}
        parts += [["date", op, spec, None] for op in ("weekday", "week", "weekend")]
        parts += [["date", op, spec, calendar] for op in ("holiday", "is_holiday", "business")]
        for flag in flags:
            flagged = {**spec, "flag": flag}
            parts += [["date", op, flagged, calendar] for op in ("next", "previous")]
            parts += [["date", op, flagged, calendar] for op in ("next_skipped", "previous_skipped")]
    for first, second in ((a, b) for a in dated for b in dated if a != b):
        for flag in flags:
            spec = {"on": [first, second], "region": regions, "flag": flag}
            parts.append(["date", "days", spec, None])
            parts += [["date", op, spec, calendar] for op in ("business_from", "business_to")]
        for shape, flag in itertools.product(fields, flags):
            spec = {"on": [first, second], "region": regions, "fields": json.loads(shape), "flag": flag}
            # Weekdays only first: of two readings of one answer, the one that needs fewer days known.
            parts += [["date", op, spec, calendar] for op in ("listed_weekdays", "listed")]
    for year, month in ((a, b) for a in numbers for b in numbers if a != b):
        spec = {"on": [year, month], "region": regions}
        parts += [["date", "month_end", spec, None], ["date", "month_business", spec, calendar]]
    if len(numbers) == 1:
        for shape in fields:
            spec = {"on": numbers, "region": regions, "fields": json.loads(shape)}
            parts.append(["date", "year", spec, calendar])
    if not parts or not (dated or numbers):
        return {}
    found: list[list[list[Any]]] = library.call(
        "twin_bridge_dates", {"parts": parts, "cases": [call.arguments for call in calls]}
    )
    # An op is kept only where every success it computes shows its value: a day is compared by form
    # (`agreement`: any day agrees with another), and a flag or a small number is shown by chance (a record's
    # `done: false` beside its due day), so neither tells by itself that the tool computes it.
    wrong: set[str] = set()
    for call, computed in zip(calls, found, strict=True):
        if call.is_error:
            continue
        shown = _leaves(_answer(call))
        wrong |= {json.dumps(part) for value, part in computed if json_piece(value) not in shown}
    pieces: dict[int, list[list[Any]]] = {}
    for call, computed in zip(calls, found, strict=True):
        if call.is_error:
            continue
        shown = _leaves(_answer(call))
        kept = [
            [json_piece(value), part]
            for value, part in computed
            if json_piece(value) in shown and json.dumps(part) not in wrong
        ]
        if kept:
            pieces[id(call)] = kept
    return pieces


def date_atoms(tool: ToolSpec, calls: list[RecordedCall]) -> list[list[Any]]:
    """Conditions on the tool's days (`twin_date_holds`): that they all read as days in order (a success's),
    that one reads as none (an invalid date refused), that one falls after another (a range refused)."""
    dated = _date_arguments(tool, [call for call in calls if not call.is_error])
    if not dated:
        return []
    atoms: list[list[Any]] = [["days", "read", dated]]
    atoms += [["days", "fails", name] for name in dated]
    atoms += [["days", "after", first, second] for first in dated for second in dated if first != second]
    return atoms


def json_piece(value: Any) -> str:
    """How a date op's value is written as a piece: a text as it is; any other JSON value after a NUL, which
    no text of an answer holds, so that it is matched only as a whole JSON value (`keyed_world`)."""
    return value if isinstance(value, str) else "\x00" + json.dumps(value, sort_keys=True)


def _leaves(value: Any) -> set[str]:
    """Every JSON value of an answer (and the answer itself), as `json_piece` writes it; texts only where
    long enough to mean something, whole."""
    found = {json_piece(value)}
    if isinstance(value, dict):
        for inner in value.values():
            found |= _leaves(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= _leaves(inner)
    return found


def days_agree(expected: Any, actual: Any, today: str) -> bool:
    """Whether every day alone (`2027-11-26`, a whole text) of an answer is the day a twin's answer writes in
    its place, or the twin's own clock's day there (the server's today, which `agreement` compares by form
    as it must): a calendar's answer is wrong with a wrong day, though any day agrees with another by form."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(days_agree(item, actual.get(name), today) for name, item in expected.items())
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return all(days_agree(want, got, today) for want, got in zip(expected, actual, strict=True))
    if isinstance(expected, str) and _ISO_DAY.match(expected):
        return actual in (expected, today)
    return True
