"""What a rules program gets besides the state and the arguments: helpers and the session's clock.

Pure helpers are Starlark (`PRELUDE`, evaluated into every program's module before the program, so a
program may use them and may not need to write them again); those that need the call's context (the
clock, the seeded random) or exact decimal arithmetic are Python functions, given the context of the
call being run through a `ContextSlot`.
"""

from __future__ import annotations

import hashlib
import random
import re
import string
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# The clock of a program that does not set `CLOCK`: the one the generic offline engine uses.
DEFAULT_CLOCK = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
# Each call moves the session's clock this far, plus a seeded part of one more step.
CLOCK_STEP = timedelta(minutes=1)
_CODE_ALPHABET = string.ascii_uppercase + string.digits

PRELUDE = '''
def error(message):
    """The call fails with `message`: the result is the message, and no change to the state is kept."""
    return {"$error": str(message)}

def decline(reason = ""):
    """The program does not answer this call: the next way of answering it does (replay, then the
    configured backend), as if the tool had no program; any change the function made is dropped."""
    return {"$decline": str(reason)}

def next_id(records, prefix):
    """The id after the highest one of `records` (a mapping keyed by id, or a list of records with an
    `id`) that starts with `prefix`: next_id(state["transfers"], "TRF-") is "TRF-9005" after "TRF-9004".
    Zero padding is kept ("A-007" after "A-006"); with no such id yet, the first is prefix + "1"."""
    keys = records.keys() if type(records) == "dict" else [r.get("id", "") for r in records]
    highest = 0
    width = 0
    for key in keys:
        if type(key) != "string" or not key.startswith(prefix):
            continue
        tail = key[len(prefix):]
        if not tail.isdigit():
            continue
        if int(tail) >= highest:
            highest = int(tail)
            width = len(tail) if tail.startswith("0") else 0
    number = str(highest + 1)
    return prefix + "0" * (width - len(number)) + number

def sum(values, start = 0):
    """The total of `values` (numbers), as Python's sum: models and people write it out of habit."""
    total = start
    for value in values:
        total += value
    return total

def sorted_by(records, field, reverse = False):
    """`records` (a list, or a mapping's values) sorted by one field; missing values sort first."""
    items = records.values() if type(records) == "dict" else records
    return sorted(items, key = lambda r: (r.get(field) != None, r.get(field, "")), reverse = reverse)

def contains_text(record, fields, text):
    """Whether `text` occurs, case-insensitively, in any of the record's `fields`."""
    needle = text.lower()
    for name in fields:
        value = record.get(name)
        if type(value) == "string" and needle in value.lower():
            return True
    return False
'''


class CallContext:
    """What one call's helpers read: the session's time for this call and a random source seeded by it.

    The random source is made when a helper first draws from it: seeding one (~7 us) is a fifth of a small
    program's run, and most calls draw nothing. It is the same source, with the same draws, either way."""

    __slots__ = ("_draws", "_rng", "now")

    def __init__(self, now: datetime, draws: bytes) -> None:
        self.now = now
        self._draws = draws
        self._rng: random.Random | None = None

    @property
    def rng(self) -> random.Random:
        if self._rng is None:
            self._rng = random.Random(self._draws)
        return self._rng

    @classmethod
    def of(cls, clock: datetime, *, seed: int, sequence: int, tool: str) -> CallContext:
        """The context of the call numbered `sequence` (events before it) in a session seeded `seed`: time
        moves by `CLOCK_STEP` per call, plus a seeded number of seconds under one step, so it only goes
        forward; the random source is seeded by the call too. Any session with the same seed (a replay, a
        fork's twin) sees the same times and draws for the same calls."""
        ticks = hashlib.sha256(f"{seed}\x00{sequence}".encode()).digest()
        seconds = int.from_bytes(ticks[:4], "big") % int(CLOCK_STEP.total_seconds())
        now = clock + CLOCK_STEP * sequence + timedelta(seconds=seconds)
        draws = hashlib.sha256(f"{seed}\x00{sequence}\x00{tool}".encode()).digest()
        return cls(now, draws)


class ContextSlot:
    """The context of the call a program is running (one at a time: `Program` holds a lock around it)."""

    def __init__(self) -> None:
        self.current: CallContext | None = None

    def get(self) -> CallContext:
        if self.current is None:
            raise RuntimeError("now(), today() and random_code() work only while a tool's function runs")
        return self.current


def python_helpers(slot: ContextSlot) -> dict[str, Callable[..., object]]:
    """The helpers written in Python, by the name programs call them."""

    def now() -> str:
        return slot.get().now.strftime("%Y-%m-%dT%H:%M:%SZ")

    def today() -> str:
        return slot.get().now.strftime("%Y-%m-%d")

    def random_code(length: int = 16, alphabet: str = _CODE_ALPHABET) -> str:
        if not isinstance(length, int) or not 0 < length <= 256 or not alphabet:
            raise ValueError("random_code(length, alphabet): expected a length from 1 to 256 and some letters")
        rng = slot.get().rng
        return "".join(rng.choice(alphabet) for _ in range(length))

    def random_int(low: int, high: int) -> int:
        return slot.get().rng.randint(low, high)

    return {
        "now": now,
        "today": today,
        "money": money,
        "money_text": money_text,
        "round": round_half_away,
        "random_code": random_code,
        "random_int": random_int,
        "to_seconds": to_seconds,
    }


def money(amount: float | int) -> float:
    """`amount` rounded to cents, halves away from zero (2.675 -> 2.68), as the decimal it was written as."""
    try:
        exact = Decimal(repr(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    except (InvalidOperation, ValueError) as e:
        raise ValueError(f"money(amount): expected a number, got {amount!r}") from e
    return float(exact)


def round_half_away(number: float | int, ndigits: int | None = None) -> float | int:
    """Python's `round`, which programs call out of habit, with halves away from zero on the number as
    written (`round(2.675, 2)` is 2.68, as `money`) as a rule saying "rounded" means; an int without `ndigits`."""
    if isinstance(number, bool) or not isinstance(number, int | float) or not isinstance(ndigits, int | None):
        got = f"{number!r}" if ndigits is None else f"{number!r}, {ndigits!r}"
        raise ValueError(f"round(number, ndigits): expected a number and a whole number of digits, got {got}")
    try:
        exact = Decimal(repr(number)).quantize(Decimal(1).scaleb(-(ndigits or 0)), rounding=ROUND_HALF_UP)
    except InvalidOperation as e:
        raise ValueError(f"round(number, ndigits): {number!r} cannot be rounded to {ndigits} digits") from e
    return int(exact) if ndigits is None else float(exact)


def money_text(amount: float | int) -> str:
    """`amount` rounded to cents and written with both decimals, for messages: 63.1 -> "63.10"."""
    return f"{Decimal(repr(money(amount))):.2f}"


def to_seconds(moment: str) -> float:
    """An ISO 8601 date-time as seconds since 1970 (UTC when it names no offset), to compare and sort
    times written with different offsets."""
    try:
        return parse_clock(moment).timestamp()
    except (TypeError, ValueError) as e:
        raise ValueError(f"to_seconds(moment): expected an ISO 8601 date-time, got {moment!r}") from e


def parse_clock(text: str) -> datetime:
    """A program's `CLOCK` (an ISO 8601 date-time; UTC when it names no offset)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# Every helper's name, Starlark and Python: a program's variable of one of these names hides the helper.
HELPER_NAMES: frozenset[str] = frozenset(re.findall(r"^def (\w+)\(", PRELUDE, re.MULTILINE)) | frozenset(
    python_helpers(ContextSlot())
)
