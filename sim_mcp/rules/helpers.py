"""What a rules program gets besides the state and the arguments: helpers and the session's clock.

Pure helpers are Starlark (`PRELUDE`, evaluated into every program's module before the program, so a
program may use them and may not need to write them again); those that need the call's context (the
clock, the seeded random) or exact decimal arithmetic are Python functions, given the context of the
call being run through a `ContextSlot`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import random
import re
import string
import zlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from urllib.parse import quote, quote_plus, unquote, unquote_plus

# The clock of a program that does not set `CLOCK`: the one the generic offline engine uses.
DEFAULT_CLOCK = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
# Each call moves the session's clock this far, plus a seeded part of one more step.
CLOCK_STEP = timedelta(minutes=1)
_CODE_ALPHABET = string.ascii_uppercase + string.digits
# The longest text the text helpers (digest, base64, URL) take: they are bounded, as every helper is, and a
# tool's argument past this is not one a twin computes on (it declines the call).
TEXT_LIMIT = 1 << 20
_DIGESTS = ("md5", "sha1", "sha256", "sha384", "sha512")
# The characters JavaScript's encodeURIComponent leaves as they are, beside letters and digits.
_URI_COMPONENT_SAFE = "-_.!~*'()"
_BASE64_LOOSE = re.compile(r"[^A-Za-z0-9+/_-]")

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
        "fixed_text": fixed_text,
        "round": round_half_away,
        "random_code": random_code,
        "random_int": random_int,
        "to_seconds": to_seconds,
        "digest": digest,
        "hmac_digest": hmac_digest,
        "base64_encode": base64_encode,
        "base64_decode": base64_decode,
        "url_encode": url_encode,
        "url_decode": url_decode,
        "json_text": json_text,
        "json_document": json_document,
        "is_json": is_json,
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


def fixed_text(number: float | int, decimals: int, group: str = "", point: str = ".") -> str:
    """`number` with `decimals` decimals as Python's format writes it (`format(x, ",.2f")`: the double's exact
    value rounded, halves to even), its whole digits grouped by thousands with `group` ("" for none) and
    `point` before its decimals: a server's money and percents (`48,407.00`, `70.00`)."""
    if isinstance(number, bool) or not isinstance(number, int | float) or not isinstance(decimals, int):
        raise ValueError(f"fixed_text(number, decimals): expected a number and a whole number, got {number!r}")
    if not 0 <= decimals <= 20 or not isinstance(group, str) or not isinstance(point, str) or len(group + point) > 8:
        raise ValueError(f"fixed_text(number, decimals, group, point): bad decimals or marks {decimals!r}")
    try:
        written = format(float(number), f",.{decimals}f")
    except OverflowError as e:
        raise ValueError(f"fixed_text(number, decimals): {number!r} is past a double") from e
    return written.replace(",", "\0").replace(".", point).replace("\0", group)


def to_seconds(moment: str) -> float:
    """An ISO 8601 date-time as seconds since 1970 (UTC when it names no offset), to compare and sort
    times written with different offsets."""
    try:
        return parse_clock(moment).timestamp()
    except (TypeError, ValueError) as e:
        raise ValueError(f"to_seconds(moment): expected an ISO 8601 date-time, got {moment!r}") from e


def _bounded(name: str, *texts: object) -> None:
    for text in texts:
        if not isinstance(text, str) or len(text) > TEXT_LIMIT:
            raise ValueError(f"{name}: expected a text of at most {TEXT_LIMIT} characters")


def digest(text: str, algorithm: str) -> str:
    """The hex digest of `text` (as UTF-8) by `algorithm`: md5, sha1, sha256, sha384, sha512, or crc32
    (eight hex digits)."""
    _bounded("digest(text, algorithm)", text)
    if algorithm == "crc32":
        return f"{zlib.crc32(text.encode()):08x}"
    if algorithm not in _DIGESTS:
        raise ValueError(f"digest(text, algorithm): expected one of {', '.join(_DIGESTS)}, crc32; got {algorithm!r}")
    return hashlib.new(algorithm, text.encode()).hexdigest()


def json_text(value: object, indent: int | None, sort_keys: bool, ensure_ascii: bool, orders: object = None) -> str:
    """`value` written as Python's `json.dumps` writes it in that style: a server's record returned as its
    JSON text (`json.dumps(record, indent=2)`), whose spacing, key order and escapes a twin writes alike.
    `orders` (with `sort_keys` false): sequences of keys, each object's keys written in the one that holds
    exactly them, else in the one that holds most of them, the rest after it, sorted (a server's records
    keep the order its code gave their fields)."""
    if indent is not None and not (isinstance(indent, int) and 0 <= indent <= 8):
        raise ValueError(
            f"json_text(value, indent, sort_keys, ensure_ascii): expected an indent of 0 to 8, got {indent!r}"
        )
    if orders is not None and not sort_keys:
        value = _in_orders(value, _key_orders(orders))
    text = json.dumps(value, indent=indent, sort_keys=bool(sort_keys), ensure_ascii=bool(ensure_ascii))
    _bounded("json_text(value, indent, sort_keys, ensure_ascii)", text)
    return text


def json_document(text: str) -> object:
    """The JSON object or array `text` writes (its keys in the order the text gives them), or None where it
    writes none: a store's value given as a JSON text and answered as the document it holds, which the server
    may write back in a style of its own (`json.loads`, then `json.dumps`)."""
    if not isinstance(text, str) or text.strip()[:1] not in ("{", "["):
        return None
    _bounded("json_document(text)", text)
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def is_json(text: str) -> bool:
    """Whether `text` is one JSON value, as `json.loads` reads it (a number, `true`, a quoted string, a
    document): a server that takes a value as JSON text refuses any other."""
    if not isinstance(text, str):
        return False
    _bounded("is_json(text)", text)
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _key_orders(orders: object) -> list[list[str]]:
    if not isinstance(orders, list | tuple) or not all(isinstance(keys, list | tuple) for keys in orders):
        raise ValueError(f"json_text(..., orders): expected a list of lists of keys, got {orders!r}")
    return [[str(key) for key in keys] for keys in orders]


def _in_orders(value: object, orders: list[list[str]]) -> object:
    """`value` with each object's keys in the order `orders` gives them (`json_text`)."""
    if isinstance(value, list | tuple):
        return [_in_orders(item, orders) for item in value]
    if not isinstance(value, dict):
        return value
    keys = set(value)
    best: list[str] = []
    for order in orders:
        held = [key for key in order if key in keys]
        if len(held) == len(keys) == len(order):
            best = held
            break
        if len(held) > len(best):
            best = held
    ordered = best + sorted(key for key in keys if key not in set(best))
    return {key: _in_orders(value[key], orders) for key in ordered}


def hmac_digest(key: str, text: str, algorithm: str) -> str:
    """The hex HMAC of `text` under `key` (both as UTF-8) by `algorithm` (md5, sha1, sha256, sha384, sha512)."""
    _bounded("hmac_digest(key, text, algorithm)", key, text)
    if algorithm not in _DIGESTS:
        raise ValueError(f"hmac_digest(key, text, algorithm): expected one of {', '.join(_DIGESTS)}; got {algorithm!r}")
    return hmac.new(key.encode(), text.encode(), algorithm).hexdigest()


def base64_encode(text: str, variant: str = "standard") -> str:
    """`text` (as UTF-8) in base64: `standard` (+/ and = padding), `url` (-_ and no padding, base64url as
    JavaScript's Buffer writes it), `url_padded` (-_ with padding, Python's urlsafe_b64encode)."""
    _bounded("base64_encode(text, variant)", text)
    if variant == "standard":
        return base64.b64encode(text.encode()).decode()
    encoded = base64.urlsafe_b64encode(text.encode()).decode()
    if variant == "url_padded":
        return encoded
    if variant == "url":
        return encoded.rstrip("=")
    raise ValueError(f"base64_encode(text, variant): expected standard, url or url_padded; got {variant!r}")


def base64_decode(text: str, variant: str = "strict") -> str | None:
    """The text `text` encodes in base64, or None where it is no such text. `strict`: the standard or the
    URL-safe alphabet, padded or not, and UTF-8 inside (Python's b64decode then decode()); `loose`: as
    JavaScript's Buffer reads it, every character outside both alphabets skipped, the rest read up to the
    first `=`, a last lone character dropped, bytes that are not UTF-8 read as U+FFFD."""
    _bounded("base64_decode(text, variant)", text)
    if variant == "loose":
        kept = _BASE64_LOOSE.sub("", text.split("=", 1)[0]).replace("-", "+").replace("_", "/")
        kept = kept[: len(kept) - (len(kept) % 4 == 1)]
        data = base64.b64decode(kept + "=" * (-len(kept) % 4))
        return data.decode("utf-8", errors="replace")
    if variant != "strict":
        raise ValueError(f"base64_decode(text, variant): expected strict or loose; got {variant!r}")
    body = text.strip().replace("-", "+").replace("_", "/")
    if not body or not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", body) or len(body.rstrip("=")) % 4 == 1:
        return None
    try:
        return base64.b64decode(body.rstrip("=") + "=" * (-len(body.rstrip("=")) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None


def url_encode(text: str, style: str = "component") -> str:
    """`text` percent-encoded as UTF-8: `component` as JavaScript's encodeURIComponent, `python` as
    urllib's quote(text, safe=""), `form` as quote_plus (a space as `+`)."""
    _bounded("url_encode(text, style)", text)
    if style == "component":
        return quote(text, safe=_URI_COMPONENT_SAFE)
    if style == "python":
        return quote(text, safe="")
    if style == "form":
        return quote_plus(text, safe="")
    raise ValueError(f"url_encode(text, style): expected component, python or form; got {style!r}")


def url_decode(text: str, style: str = "component") -> str | None:
    """`text` percent-decoded: `component` as JavaScript's decodeURIComponent (None where a `%` is not
    followed by two hex digits or the bytes are not UTF-8: it throws there), `python` as urllib's unquote
    (lenient), `form` as unquote_plus (a `+` as a space)."""
    _bounded("url_decode(text, style)", text)
    if style == "component":
        if re.search(r"%(?![0-9A-Fa-f]{2})", text):
            return None
        try:
            return unquote(text, errors="strict")
        except UnicodeDecodeError:
            return None
    if style == "python":
        return unquote(text)
    if style == "form":
        return unquote_plus(text)
    raise ValueError(f"url_decode(text, style): expected component, python or form; got {style!r}")


def parse_clock(text: str) -> datetime:
    """A program's `CLOCK` (an ISO 8601 date-time; UTC when it names no offset)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# Every helper's name, Starlark and Python: a program's variable of one of these names hides the helper.
HELPER_NAMES: frozenset[str] = frozenset(re.findall(r"^def (\w+)\(", PRELUDE, re.MULTILINE)) | frozenset(
    python_helpers(ContextSlot())
)
