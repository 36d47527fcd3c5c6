"""Whether two servers' answers to the same call agree, and if not, what kind of divergence it is.

Answers are compared as JSON values (`answer_value`: the structured content, else the text read as JSON):
every leaf equal, except that values two servers make up on their own are compared by form: two ISO 8601
dates or date-times (`T` or a space between date and time: `2026-12-06 07:16:57`), two UUIDs, two hex
strings of the same length (`HEX_FORM`: 16 or more hex digits, a commit hash, a token; or 8 to 15 holding
both a digit and a letter, a short id such as a session's `a5e8e023`), two ids of one word and a long signed
number (`SIGNED_FORM`: `speed_3598404652517860456`, a hash a server makes up) with the same word, two clock
stamps in epoch seconds (`EPOCH_FORM`: ten digits from late 2020 to 2099 and a fraction not zero,
`1796608533.9689274`, Python's `time.time()`; a JSON number or in a text), two in epoch milliseconds
(`EPOCH_MS_FORM`: thirteen digits from late 2020 to 2099, not a whole number of seconds, `1796684335373`,
JavaScript's `Date.now()`, Python's `int(time.time() * 1000)`; a JSON integer or in a text). A leaf that is such a value
agrees with another of its form; inside free text ("Committed 3f9a...c2 at 2026-01-02"), each such value is
read as its form, and the texts agree when they are equal so read. An error meets an error (both
`is_error`, or both JSON-RPC errors) whatever its text; the texts are compared too, and reported apart
(`error_text`).

`days="exact"` compares every bare day (`2026-12-28` alone, not followed by a clock time), as a whole leaf or
inside free text, as it is: a day a server computes (the next business day, a month's last one) must not
agree with any day. Date-times with a clock time, UUIDs, hex and signed ids stay compared by form. The
default, `days="form"`, reads a bare day as made up too (the server's clock's today).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "DAYS",
    "EPOCH_FORM",
    "EPOCH_MS_FORM",
    "HEX_FORM",
    "SIGNED_FORM",
    "UUID_FORM",
    "Answer",
    "Days",
    "Verdict",
    "compare_answers",
]

# A hex string a server makes up: long, or short (8 to 15 digits) but holding both a digit and a letter, so
# that neither a number ("20261206") nor a word ("deadbeef", "accede") reads as one.
HEX_FORM = r"(?:[0-9a-f]{16,}|(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,15})"
UUID_FORM = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# The number of an id a server makes up as a word and a hash (`speed_-6875897924734963130`): 12 digits or
# more, signed, right after the word's `_`.
SIGNED_FORM = r"(?<=[A-Za-z]_)-?[0-9]{12,20}"
_SIGNED = re.compile(rf"^([A-Za-z][A-Za-z_]*_){SIGNED_FORM}$")
# A clock's reading in seconds since 1970 with its fraction (`time.time()`, a record's `created_at`): ten
# digits from late 2020 to 2099 and a fraction that is not zero, as a sum or a conversion a server computes is
# seldom written (`2500000000.0`, a volume, has none; `1328877720.25`, an area, is in 2012). A whole number of
# seconds is left exact: an integer is as often a quantity.
EPOCH_FORM = r"(?:1[6-9]|[23][0-9]|40)[0-9]{8}\.(?=[0-9]*[1-9])[0-9]+"
_EPOCH = re.compile(rf"^{EPOCH_FORM}$")
# The same clock read in milliseconds, a whole number: thirteen digits from late 2020 to 2099, but none that is a
# whole number of seconds (`...000`), as a quantity of that size is mostly written (`2000000000000` bytes); a
# clock read in milliseconds is one once in a thousand readings, and that one reading stays exact.
EPOCH_MS_FORM = r"(?:1[6-9]|[23][0-9]|40)[0-9]{8}(?!000)[0-9]{3}"
_EPOCH_MS = re.compile(rf"^{EPOCH_MS_FORM}$")

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
_UUID = re.compile(rf"^{UUID_FORM}$", re.IGNORECASE)
_HEX = re.compile(rf"^{HEX_FORM}$", re.IGNORECASE)
# The same forms inside free text, each standing alone (not part of a longer word or number).
_IN_TEXT = re.compile(
    r"(?<![0-9A-Za-z])(?:"
    rf"(?P<uuid>{UUID_FORM})"
    r"|(?P<time>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)"
    rf"|(?P<hex>{HEX_FORM})"
    rf"|(?<![0-9.])(?P<epoch>{EPOCH_FORM})(?![0-9.])"
    rf"|(?<![0-9.])(?P<epoch_ms>{EPOCH_MS_FORM})(?![0-9.])"
    r")(?![0-9A-Za-z])",
    re.IGNORECASE,
)
_SHOWN = 100
_DAY_LENGTH = len("2026-12-28")  # a `time` form this long is a bare day, with no clock time

# How bare days are compared: "form" (any day agrees with any day) or "exact" (as they are).
Days = Literal["form", "exact"]
DAYS: tuple[Days, ...] = ("form", "exact")


@dataclass(frozen=True, slots=True)
class Answer:
    value: Any
    is_error: bool


@dataclass(frozen=True, slots=True)
class Verdict:
    agree: bool
    kind: str | None = None  # e.g. "error vs result", "value at /entities/*/name"
    detail: str | None = None  # the first difference, shown
    error_text: bool = True  # both errors with the same text (True when not both errors)


def compare_answers(expected: Answer, actual: Answer, *, days: Days = "form") -> Verdict:
    """Whether `actual` agrees with `expected`; `days="exact"`: every bare day compared as it is."""
    if days not in DAYS:
        raise ValueError(f"days: expected one of {', '.join(DAYS)}, got {days!r}")
    if expected.is_error or actual.is_error:
        if expected.is_error and actual.is_error:
            return Verdict(True, error_text=expected.value == actual.value)
        kind = "error vs result" if expected.is_error else "result vs error"
        return Verdict(False, kind, f"expected {_show(expected.value)}, got {_show(actual.value)}")
    difference = _difference(expected.value, actual.value, "", days == "exact")
    if difference is None:
        return Verdict(True)
    path, detail = difference
    return Verdict(False, f"value at {path or '/'}", detail)


def _difference(expected: Any, actual: Any, path: str, exact_days: bool) -> tuple[str, str] | None:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            child = f"{path}/{key}"
            if key not in actual:
                return child, f"{child}: expected {_show(expected[key])}, got nothing"
            if key not in expected:
                return child, f"{child}: expected nothing, got {_show(actual[key])}"
            found = _difference(expected[key], actual[key], child, exact_days)
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path}/#", f"{path or '/'}: expected {len(expected)} items, got {len(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = _difference(want, got, f"{path}/{index}", exact_days)
            if found is not None:
                # The kind of a divergence names the list, not the item: /entities/*/name.
                return re.sub(r"/\d+(?=/|$)", "/*", found[0]), found[1]
        return None
    if _same_leaf(expected, actual, exact_days):
        return None
    return path, f"{path or '/'}: expected {_show(expected)}, got {_show(actual)}"


def _same_leaf(expected: Any, actual: Any, exact_days: bool) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual or _stamp(expected) == _stamp(actual) != ""
    if isinstance(expected, str) and isinstance(actual, str):
        if expected == actual:
            return True
        if any(
            pattern.match(expected) and pattern.match(actual) and (pattern is not _HEX or len(expected) == len(actual))
            for pattern in (_DATE_TIME, _UUID, _HEX)
        ):
            return True
        signed = (_SIGNED.match(expected), _SIGNED.match(actual))
        if signed[0] is not None and signed[1] is not None:
            return signed[0].group(1) == signed[1].group(1)
        return _by_form(expected, exact_days) == _by_form(actual, exact_days) != expected
    return bool(type(expected) is type(actual) and expected == actual)


def _stamp(value: int | float) -> str:
    """Which clock stamp a JSON number is: `s` in epoch seconds, as `EPOCH_FORM` writes one, `ms` in epoch
    milliseconds, as `EPOCH_MS_FORM` does; "" for any other number (two stamps agree only in one unit)."""
    if isinstance(value, int):
        return "ms" if _EPOCH_MS.match(str(value)) else ""
    return "s" if _EPOCH.match(repr(value)) else ""


def _by_form(text: str, exact_days: bool = False) -> str:
    """`text` with each made-up value in it written as its form: `<uuid>`, `<time:19>`, `<hex:40>`, `<epoch>`; with
    `exact_days`, a bare day stays as it is."""

    def form(found: re.Match[str]) -> str:
        if exact_days and found.lastgroup == "time" and len(found.group(0)) == _DAY_LENGTH:
            return found.group(0)
        # A clock stamp's digits after the point vary with the reading (`.25`, `.2500317`): its form is one.
        size = 0 if found.lastgroup in ("epoch", "epoch_ms") else len(found.group(0))
        return f"\x00{found.lastgroup}:{size}\x00"

    return _IN_TEXT.sub(form, text)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
