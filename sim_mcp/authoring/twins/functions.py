"""Functions of a string argument and of a number the twin computes (`FUNCTIONS`, a section of
`library.LIBRARY`), and what the learner reads of a tool whose answers show them.

A computing server answers with a function of what it was given: a digest of a text, its base64, its
percent-encoding, its length in characters or bytes, a number written in another base. The learner
searches a small language of such functions over the call's arguments, as FlashFill and PROSE do: every
function of every string argument of every recorded call is computed by the twin's own Starlark (the
digests and base64 by the Python helpers every rules program gets, `rules.helpers`), and a value is a
piece of that call's templates only where the call's answer shows it (a text inside one of its strings, a
number standing whole), so a server whose answers show no such value gets no new candidate.

Placeholders:

- `["fn", function, name]`: a text function of string argument `name` (`TWIN_FN_TEXT`): a hex digest (`md5`,
  `sha1`, `sha256`, `sha384`, `sha512`, `crc32`), base64 (`base64`, `base64url` unpadded, `base64url_padded`),
  its decoding (`unbase64`, strict: standard or URL-safe, UTF-8 inside; `unbase64_loose`, as JavaScript's
  Buffer reads any text), percent-encoding (`url`, as encodeURIComponent; `url_python`, quote; `url_form`,
  quote_plus) and decoding (`unurl`, as decodeURIComponent; `unurl_form`), HTML escapes (`html`, `&#39;`;
  `html_x27`, `&#x27;` as Python's html.escape) and their reading (`unhtml`), `\\uXXXX` escapes of UTF-16
  units (`unicode`) and their reading (`ununicode`), `upper`, `lower`, `reverse`, `trim`;
- `["hmac", algorithm, key, name]`: the hex HMAC of argument `name` under the key argument `key`;
- `["measure", function, name]`: a number of string argument `name` (`TWIN_FN_MEASURE`): its length in code
  points (`chars`), UTF-16 units (`utf16`, JavaScript's length), UTF-8 bytes (`bytes`), its words (`words`,
  runs of non-space) and lines (`lines`, one more than its newlines);
- `["distance", first, second]`: the Levenshtein distance of two string arguments (code points; their lengths'
  product at most `TWIN_FN_CELLS`);
- `["lookup", selector, table]`: the text a line's selector shows beside it where no argument gives it (a
  conversion's category), read from two recorded answers of those values at least;
- `["radix", name, base, to]`: argument `name` (digits, or a whole number) read in `base` and written in `to`,
  lower case; each base an integer argument's name or a number (2, 8, 10, 16).
- `["sig", n, part]`: a number part's value (a conversion) written with `n` significant digits, as `%.<n>g`
  writes it (`units.twin_significant`); `["sig", n, part, to]`: followed by a space and string argument `to`
  (the unit it is written in), `n` None for JavaScript's own text.

A function that a given argument cannot be computed by (a text that is no base64, `%` not followed by two
hex digits, a digit outside the base) fails: the condition `["fn_fails", part]` holds there, so a server's
error for it may be answered. A text function whose argument is missing or past `TEXT_LIMIT` writes
nothing: the call is handed on. A function is chosen by a call's enumerated argument (`algorithm`,
`action`): `["is", name, value]` holds where the argument is that value (None: not given); these
conditions are asked only of a tool whose answers show a function's value.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from sim_mcp.authoring.twins import formulas, positional
from sim_mcp.authoring.twins.argument_types import types_of
from sim_mcp.authoring.twins.expression import TwinLibrary
from sim_mcp.authoring.twins.formulas import FORMULAS, read_formulas, sign_atoms
from sim_mcp.authoring.twins.positional import POSITIONAL, comparison_atoms, read_positional
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.authoring.twins.units import UNITS, UnitCall, fit_units, units_reproduced
from sim_mcp.specs.model import ToolSpec

__all__ = ["BRIDGE", "BRIDGE_TOOLS", "FUNCTIONS", "Functions", "read_functions"]

FUNCTIONS = """
# --- functions of a string and of a number (`functions.py`) ---

TWIN_FN_TEXT = ("md5", "sha1", "sha256", "sha384", "sha512", "crc32", "base64", "base64url", "base64url_padded",
                "unbase64", "unbase64_loose", "url", "url_python", "url_form", "unurl", "unurl_form", "html",
                "html_x27", "unhtml", "unicode", "ununicode", "upper", "lower", "reverse", "trim")
TWIN_FN_MEASURE = ("chars", "utf16", "bytes", "words", "lines")
TWIN_FN_DIGESTS = ("md5", "sha1", "sha256", "sha384", "sha512", "crc32")
# The bases a number is tried in beside the call's integer arguments.
TWIN_FN_BASES = (10, 16, 2, 8)
TWIN_FN_LIMIT = 100000
# The most cells of a distance's table (the product of the two lengths).
TWIN_FN_CELLS = 40000
TWIN_FN_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
TWIN_FN_ENTITIES = [["&amp;", "&"], ["&lt;", "<"], ["&gt;", ">"], ["&quot;", '"'], ["&#39;", "'"], ["&#x27;", "'"]]

def twin_fn_part(part, args):
    # The text a function placeholder writes, or None: its argument is missing, too long, or the function
    # fails on it (`twin_fn_fails`).
    found = twin_fn_number(part, args)
    if found == None or type(found) == "string":
        return found
    # A flag, a null or a list is written only whole, as a JSON value (`$value`).
    return twin_number_text(found) if type(found) in ("int", "float") else None

def twin_fn_number(part, args):
    # A function's value: a text, or a number (a JSON number where a template's `$number` holds it).
    found = twin_fn_of(part, args)
    if found == None or "value" not in found:
        return None
    return found["value"]

def twin_fn_fails(atom, args):
    found = twin_fn_of(atom[1], args)
    return found != None and "error" in found

def twin_fn_of(part, args):
    # {"value": text or int}, {"error": reason}, or None (not computed for this call).
    kind = part[0]
    if kind == "linear":
        return twin_fn_linear(part, args)
    if kind == "units":
        return twin_fn_units(part, args)
    if kind == "sig":
        # ["sig", n, part]: a number part's value written with n significant digits, as "%.<n>g" writes it (None:
        # as JavaScript writes it); ["sig", n, part, name]: followed by a space and string argument `name` (the
        # unit a quantity is written in, however short its name).
        found = twin_fn_of(part[2], args)
        if found == None or type(found.get("value")) not in ("int", "float"):
            return None
        value = found["value"]
        written = twin_number_text(value) if part[1] == None else twin_significant(value, part[1])
        if written != None and len(part) > 3:
            unit = args.get(part[3])
            written = written + " " + unit if type(unit) == "string" and unit != "" else None
        return None if written == None else {"value": written}
    if kind == "formula":
        return twin_formula_of(part, args)
    if kind == "bits":
        return twin_bits_of(part, args)
    if kind == "date":
        return twin_date_of(part, args)
    if kind == "str":
        return twin_str_of(part, args)
    if kind == "lookup":
        chosen = twin_fn_chosen(part[1], args)
        return None if chosen == None or chosen not in part[2] else {"value": part[2][chosen]}
    if kind == "radix":
        return twin_fn_radix(args.get(part[1]), twin_fn_base(part[2], args), twin_fn_base(part[3], args))
    if kind == "distance":
        return twin_fn_distance(args.get(part[1]), args.get(part[2]))
    if kind == "hmac":
        key, text = args.get(part[2]), args.get(part[3])
        if not twin_fn_text_ok(key) or not twin_fn_text_ok(text) or part[1] not in TWIN_FN_DIGESTS[:5]:
            return None
        return {"value": hmac_digest(key, text, part[1])}
    text = args.get(part[2])
    if not twin_fn_text_ok(text):
        return None
    if kind == "measure":
        return twin_fn_measure(part[1], text)
    if kind == "fn":
        return twin_fn_text(part[1], text)
    return None

def twin_fn_linear(part, args):
    # ["linear", name, selector, table, digits]: a*x + b of number argument `name`, (a, b) the table's under
    # the values of the selector's arguments joined by TWIN_PAIR, rounded to `digits` decimals (None: not).
    x = args.get(part[1])
    chosen = twin_fn_chosen(part[2], args)
    if type(x) not in ("int", "float") or chosen == None or chosen not in part[3]:
        return None
    line = part[3][chosen]
    y = line[0] * x + line[1]
    if not twin_finite(y):
        return None
    if part[4] != None:
        scale = 1
        for _ in range(part[4]):
            scale = scale * 10
        # Halves up, as JavaScript's Math.round(y * 10^digits) / 10^digits.
        y = twin_fn_floor(y * scale + 0.5) / scale
    # As JavaScript holds it: a whole double is the integer it writes.
    if abs(y) < 9007199254740992 and y == twin_fn_floor(y):
        return {"value": int(y)}
    return {"value": y}

def twin_fn_chosen(selector, args):
    # The values of a selector's arguments joined, as a table's key; None where one is not a text given.
    chosen = []
    for name in selector:
        value = args.get(name)
        if type(value) != "string":
            return None
        chosen.append(value)
    return TWIN_PAIR.join(chosen)

def twin_fn_floor(y):
    whole = int(y)
    return whole - 1 if y < whole else whole

def twin_fn_distance(first, second):
    # The Levenshtein distance of two texts (insertions, deletions, substitutions of code points), two rows
    # at a time; bounded, as it takes the product of their lengths.
    if type(first) != "string" or type(second) != "string" or len(first) * len(second) > TWIN_FN_CELLS:
        return None
    a, b = list(first.codepoints()), list(second.codepoints())
    row = list(range(len(b) + 1))
    for i in range(len(a)):
        next = [i + 1]
        for j in range(len(b)):
            next.append(min(row[j + 1] + 1, next[j] + 1, row[j] + (0 if a[i] == b[j] else 1)))
        row = next
    return {"value": row[len(b)]}

def twin_fn_text_ok(text):
    return type(text) == "string" and len(text) <= TWIN_FN_LIMIT

def twin_fn_text(name, text):
    if name in TWIN_FN_DIGESTS:
        return {"value": digest(text, name)}
    if name == "base64":
        return {"value": base64_encode(text, "standard")}
    if name == "base64url":
        return {"value": base64_encode(text, "url")}
    if name == "base64url_padded":
        return {"value": base64_encode(text, "url_padded")}
    if name in ("unbase64", "unbase64_loose"):
        value = base64_decode(text, "strict" if name == "unbase64" else "loose")
        return {"error": "base64"} if value == None else {"value": value}
    if name in ("url", "url_python", "url_form"):
        return {"value": url_encode(text, {"url": "component", "url_python": "python", "url_form": "form"}[name])}
    if name in ("unurl", "unurl_form"):
        value = url_decode(text, "component" if name == "unurl" else "form")
        return {"error": "url"} if value == None else {"value": value}
    if name in ("html", "html_x27"):
        out = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        return {"value": out.replace("'", "&#39;" if name == "html" else "&#x27;")}
    if name == "unhtml":
        # `&amp;` last: `&amp;lt;` is the text `&lt;`.
        for pair in TWIN_FN_ENTITIES[1:] + TWIN_FN_ENTITIES[:1]:
            text = text.replace(pair[0], pair[1])
        return {"value": text}
    if name == "unicode":
        return {"value": "".join([twin_fn_escape(p) for p in text.codepoints()])}
    if name == "ununicode":
        return {"value": twin_fn_unescape(text)}
    if name == "upper":
        return {"value": text.upper()}
    if name == "lower":
        return {"value": text.lower()}
    if name == "reverse":
        return {"value": "".join([chr(p) for p in reversed(list(text.codepoints()))])}
    if name == "trim":
        return {"value": text.strip()}
    return None

def twin_fn_escape(point):
    # `\\uXXXX` per UTF-16 unit, as JavaScript writes a code point: two (a surrogate pair) past U+FFFF.
    if point < 65536:
        return "\\\\u" + twin_fn_hex4(point)
    point -= 65536
    return "\\\\u" + twin_fn_hex4(55296 + point // 1024) + "\\\\u" + twin_fn_hex4(56320 + point % 1024)

def twin_fn_hex4(point):
    return "".join([TWIN_FN_DIGITS[(point // (16 * 16 * 16)) % 16], TWIN_FN_DIGITS[(point // 256) % 16],
                    TWIN_FN_DIGITS[(point // 16) % 16], TWIN_FN_DIGITS[point % 16]])

def twin_fn_unescape(text):
    # Each `\\uXXXX` read as its UTF-16 unit (a surrogate pair as one code point); any other text kept.
    pieces = text.split("\\\\u")
    out = [pieces[0]]
    high = None
    for piece in pieces[1:]:
        head = piece[:4].lower()
        if len(head) < 4 or not all([c in TWIN_FN_DIGITS[:16] for c in head.elems()]):
            out.append("\\\\u" + piece)
            high = None
            continue
        unit = int(head, 16)
        if unit >= 55296 and unit < 56320:
            high = unit
            out.append(piece[4:])
            continue
        if unit >= 56320 and unit < 57344 and high != None:
            out.insert(len(out) - 1, chr(65536 + (high - 55296) * 1024 + (unit - 56320)))
        elif unit < 55296 or unit >= 57344:
            out.append(chr(unit))
        high = None
        out.append(piece[4:])
    return "".join(out)

def twin_fn_measure(name, text):
    points = list(text.codepoints())
    if name == "chars":
        return {"value": len(points)}
    if name == "utf16":
        return {"value": len(points) + len([p for p in points if p > 65535])}
    if name == "bytes":
        return {"value": sum([1 if p < 128 else (2 if p < 2048 else (3 if p < 65536 else 4)) for p in points])}
    if name == "words":
        return {"value": len(text.split())}
    if name == "lines":
        return {"value": text.count("\\n") + 1}
    return None

def twin_fn_base(base, args):
    if type(base) == "int":
        return base
    value = args.get(base)
    return value if type(value) == "int" and value >= 2 and value <= 36 else None

def twin_fn_radix(value, base, to):
    if base == None or to == None:
        return None
    if type(value) == "int":
        value = str(value)
    if type(value) != "string" or len(value) > 200:
        return None
    digits = value.strip().lower()
    negative = digits.startswith("-")
    if negative:
        digits = digits[1:]
    if not digits or not all([c in TWIN_FN_DIGITS[:base] for c in digits.elems()]):
        return {"error": "digits"}
    number = int(digits, base)
    out = []
    for _ in range(len(digits) * 6 + 1):
        out.append(TWIN_FN_DIGITS[number % to])
        number = number // to
        if number == 0:
            break
    return {"value": ("-" if negative and out != ["0"] else "") + "".join(reversed(out))}
"""
FUNCTIONS += UNITS
FUNCTIONS += FORMULAS
FUNCTIONS += POSITIONAL

# The learner's entry point: every function of every recorded call's arguments, as pieces and failures.
BRIDGE = """
def twin_bridge_functions(state, args):
    # Per case, every function of its arguments that its answer may show (`hints`: the lengths of the hex
    # runs it holds, the numbers it shows, whether it holds `\\u` escapes): a function whose value could not
    # be shown there is not computed, so a server none of whose answers shows one pays little for them.
    out = []
    for case in args["cases"]:
        call, hints = case["args"], case["hints"]
        parts = []
        for name in args["texts"]:
            text = call.get(name)
            if not twin_fn_text_ok(text):
                continue
            parts += [["fn", f, name] for f in TWIN_FN_TEXT if twin_fn_may_show(f, text, hints)]
            parts += [["measure", f, name] for f in TWIN_FN_MEASURE if twin_fn_may_measure(f, text, hints)]
            for other in args["texts"]:
                if other == name or type(call.get(other)) != "string":
                    continue
                parts += [["hmac", a, other, name] for a in TWIN_FN_DIGESTS[:5] if twin_fn_may_show(a, text, hints)]
                if name < other and twin_fn_may_differ(text, call[other], hints):
                    parts.append(["distance", name, other])
        # The call's own bases first: a value they write is read as theirs, not as a fixed base's.
        bases = [n for n in args["numbers"] if twin_fn_base(n, call) != None] + list(TWIN_FN_BASES)
        for name in args["values"]:
            value = call.get(name)
            if type(value) not in ("string", "int") or (type(value) == "string" and not value.isalnum()):
                continue
            for base in bases:
                # A value written again in the base an argument names is the value as the server reads it.
                parts += [["radix", name, base, to] for to in bases if to != base or type(base) == "string"]
        found = []
        for part in parts:
            result = twin_fn_of(part, call)
            if result == None:
                continue
            if "value" in result:
                found.append([result["value"], part])
            else:
                found.append([None, part])
        out.append(found)
    return out

# The length of each digest's hex text.
TWIN_FN_HEX = {"md5": 32, "sha1": 40, "sha256": 64, "sha384": 96, "sha512": 128, "crc32": 8}

def twin_fn_may_show(name, text, hints):
    # Whether the function's value may be shown and differ from the text itself (which the argument's own
    # piece writes): checked on the text and the answer cheaply, before the function is run.
    if name in TWIN_FN_HEX:
        return TWIN_FN_HEX[name] in hints["hex"]
    if name == "unicode":
        return hints["escaped"]
    if name == "ununicode":
        return "\\\\u" in text
    if name in ("url", "url_python", "url_form"):
        return hints["percent"] and not text.isalnum()
    if name in ("unurl", "unurl_form"):
        return "%" in text or "+" in text
    if name in ("html", "html_x27"):
        return any([c in text for c in ("&", "<", ">", '"', "'")])
    if name == "unhtml":
        return "&" in text
    if name == "trim":
        return text != text.strip()
    return True

def twin_fn_may_measure(name, text, hints):
    # A length in UTF-16 units or bytes is at least the length in code points, and at most four times it.
    if name in ("utf16", "bytes"):
        return any([n >= len(text) and n <= 4 * len(text) for n in hints["numbers"]])
    return True

def twin_fn_may_differ(first, second, hints):
    # An edit distance lies between the difference of the lengths and the longer length.
    low, high = abs(len(first) - len(second)), max(len(first), len(second))
    return len(first) * len(second) <= TWIN_FN_CELLS and any([n >= low and n <= high for n in hints["numbers"]])
"""
BRIDGE += """
def twin_bridge_parts(state, args):
    # Each part's value for each case (None where it writes nothing).
    return [[[twin_fn_number(p, call), twin_fn_part(p, call)] for p in args["parts"]] for call in args["cases"]]

def twin_bridge_quantities(state, args):
    # Each text read as a quantity (`twin_quantity`): [number, unit], or None.
    return [twin_quantity(text) for text in args["texts"]]
"""
BRIDGE += formulas.BRIDGE + positional.BRIDGE
BRIDGE_TOOLS = (
    "twin_bridge_functions",
    "twin_bridge_parts",
    "twin_bridge_quantities",
    *formulas.BRIDGE_TOOLS,
    *positional.BRIDGE_TOOLS,
)

# The functions whose value, shown in an answer, tells that the tool computes it: a text (a number, a length
# or a distance, is too often shown by chance).
_TELLING = frozenset({"fn", "hmac", "radix"})
# A run of hex digits standing alone, as a digest is written.
_HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{8,128}(?![0-9A-Za-z])")
# A number a measure writes stands whole in a text: not part of a longer number.
_WHOLE_NUMBER = re.compile(r"(?<![0-9.])([0-9]+)(?![0-9]|\.[0-9])")
# A measure below this is not taken from a text or a JSON number: a 0 or 1 is as often a constant.
_SMALLEST_MEASURE = 2
_SHORTEST_TEXT = 3
# Joins the values of a line's selector (`library.TWIN_PAIR`).
_PAIR = "\x1f"
# The decimals a line's value may be rounded to (None: not rounded), fewest first.
_DIGITS: tuple[int | None, ...] = (None, *range(13))
# A selector's value longer than this is no unit or kind.
_LONGEST_CHOICE = 64
# The pieces of a line or a table per unit whose number and units are arguments of their own (a quantity's
# text has a sixth: how it is read).
_PLAIN_LINE = 5
# The most significant digits a converted number is tried with (`units.twin_significant`).
_SIGNIFICANT_MOST = 15
# A number's writing (`["sig", n, part]`) has three items; with the unit written after it, four.
_NUMBER_ONLY = 3


@dataclass
class Functions:
    """What the recordings give of one tool's functions: per call (by id), the values its answer shows
    (`[text, part]`, as `twin_bridge_pieces` gives them); the conditions of a function failing and of an
    enumerated argument's value."""

    pieces: dict[int, list[list[Any]]] = field(default_factory=dict)
    atoms: list[list[Any]] = field(default_factory=list)


def read_functions(
    library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall], sources: list[list[Any]] | None = None
) -> Functions:
    """Every function of the tool's string (and number) arguments on every recorded call, kept as a piece of
    a call where its answer shows the value, and as a failure where a recorded error's call makes it fail;
    and the numbers its text answers compute by formulas (`formulas.read_formulas`), also from `sources`
    (an expression argument's value)."""
    properties = tool.input_schema.get("properties") or {}
    texts = [name for name, schema in properties.items() if "string" in types_of(schema)]
    numbers = [name for name, schema in properties.items() if "integer" in types_of(schema)]
    values = [name for name, schema in properties.items() if types_of(schema) & {"string", "integer", "number"}]
    if not texts and not values and not sources:
        return Functions()
    cases = [{"args": call.arguments, "hints": _hints(call.value)} for call in calls]
    found: list[list[list[Any]]] = library.call(
        "twin_bridge_functions", {"texts": texts, "numbers": numbers, "values": values, "cases": cases}
    )
    result = Functions()
    failures: dict[str, list[Any]] = {}
    telling = False
    for call, computed in zip(calls, found, strict=True):
        shown = _shown(call.value)
        pieces = []
        for value, part in computed:
            if value is None:
                if call.is_error:
                    atom = ["fn_fails", part]
                    failures.setdefault(json.dumps(atom, sort_keys=True), atom)
            elif _shows(shown, value) or (part[0] == "radix" and _stands_whole(shown[0], value)):
                pieces.append([value if isinstance(value, str) else str(value), part])
                telling = telling or (part[0] in _TELLING and not _same_as_given(value, part, call.arguments))
            elif _whole_short(shown, value, part, call.arguments):
                # A short text a function writes whole (a code upper-cased): a JSON value of its own.
                pieces.append(["\x00" + json.dumps(value), part])
        if pieces:
            result.pieces[id(call)] = pieces
    for at, lined in _linear(library, properties, calls).items():
        result.pieces.setdefault(at, []).extend(lined)
        telling = True
    # Numbers in positional forms (an address, a colour) computed bit by bit: each tells, as a function's value;
    # an answer may differ where one of them reaches a count the call gives.
    positioned = read_positional(library, tool, calls)
    for at, found in positioned.items():
        result.pieces.setdefault(at, []).extend(found)
        telling = True
    computes = read_formulas(library, tool, calls, sources)
    computing = any(formulas.computed(part) for pieces in computes.values() for _, part in pieces)
    for at, computed_here in computes.items():
        result.pieces.setdefault(at, []).extend(computed_here)
    # A report that computes tells, as a function's value does (not one that writes an argument as it is).
    telling = telling or computing
    # A function's failures and an enumerated argument's value are asked only where a function's value is
    # shown: a length or a distance (a small number) is too often shown by chance, a function's value that is its
    # argument as given (a lower-case name) tells nothing, and a decode fails on most texts a tool that
    # decodes nothing was given, to widen a tool's conditions for them.
    if telling:
        result.atoms = list(failures.values()) + _choices(properties)
    result.atoms += comparison_atoms(tool, positioned)
    if computing:
        # A report of formulas may be one of two by a comparison of the call's numbers (not one that only
        # writes an argument as it is: an id).
        result.atoms += sign_atoms(tool, calls)
    return result


def _linear(library: TwinLibrary, properties: dict[str, Any], calls: list[RecordedCall]) -> dict[int, list[list[Any]]]:
    """A number argument converted by a line per value of one or two string arguments (a unit pair, `from`
    and `to`): `["linear", name, selector, table, digits]`, each line fitted from two recorded successes
    and kept where every success of its values shows it (`_fit`). The selector and number whose lines
    answer the most successes are kept (ties: two arguments, as a unit pair names a conversion); beside it,
    the text its selector tells (`_lookup`). Per call (by id), the pieces its answer shows."""
    numbers = [name for name, schema in properties.items() if types_of(schema) & {"number", "integer"}]
    texts = [name for name, schema in properties.items() if "string" in types_of(schema)]
    successes = [call for call in calls if not call.is_error]
    best: tuple[int, int, list[Any]] | None = None
    selectors = [list(pair) for pair in itertools.combinations(texts, 2)] + [[name] for name in texts]
    for name, selector in itertools.product(numbers, selectors):
        groups: dict[str, list[tuple[float, list[float]]]] = {}
        for call in successes:
            x, chosen = call.arguments.get(name), [call.arguments.get(n) for n in selector]
            if isinstance(x, int | float) and _number(x) and _choices_of(chosen):
                # The number given is not its own conversion: it is a piece of its own (`num`).
                shown = [y for y in _numbers_in(call.value) if y != x]
                groups.setdefault(_PAIR.join(str(value) for value in chosen), []).append((x, shown))
        fits = {key: fit for key, points in groups.items() if (fit := _fit(points))}
        if not fits:
            continue
        counts = {digits: sum(len(groups[key]) for key, fit in fits.items() if digits in fit) for digits in _DIGITS}
        digits = max(_DIGITS, key=lambda d: counts[d])  # the first of the most: not rounded, then fewest decimals
        table = {key: list(fit[digits]) for key, fit in fits.items() if digits in fit}
        score = (counts[digits], len(selector))
        if best is None or score > best[:2]:
            best = (*score, ["linear", name, selector, table, digits])
    # A table per unit answers each call its units were seen in, a line per pair only a pair seen twice: it
    # is kept where it reproduces as many recorded successes.
    for name, selector in itertools.product(numbers, [s for s in selectors if len(s) == 2]):
        given = {id(call): (call.arguments.get(name), call.arguments.get(selector[0])) for call in successes}
        if (through := _through_units(name, selector, successes, given)) and (best is None or through[0] >= best[0]):
            best = (through[0], 2, through[1])
    # A quantity written in one text ("498 Pa") read as its number and its unit, the other unit another text's.
    for name, read in _quantities(library, texts, successes).items():
        for other in texts:
            through = _through_units(name, [name, other], successes, read, "quantity") if other != name else None
            if through and (best is None or through[0] >= best[0]):
                best = (through[0], 2, through[1])
    if best is None:
        return {}
    line = best[2]
    # A text every pair's calls show alike is a constant, which answers a pair never recorded too (a pair of
    # arguments, not the texts of quantities, each seen once).
    looked = _lookup(successes, line[2]) if len(line) == _PLAIN_LINE or line[5] is None else {}
    parts = [line, *([["lookup", line[2], looked]] if len(set(looked.values())) > 1 else [])]
    written = [["sig", n, line] for n in range(1, _SIGNIFICANT_MOST + 1)]
    if len(line[2]) == 2:
        # The number followed by the unit it is written in (the selector's second argument), as a quantity.
        written += [["sig", n, line, line[2][1]] for n in (None, *range(1, _SIGNIFICANT_MOST + 1))]
    rendered: list[list[list[Any]]] = library.call(
        "twin_bridge_parts", {"parts": parts + written, "cases": [call.arguments for call in calls]}
    )
    found: dict[int, list[list[Any]]] = {}
    for call, values in zip(calls, rendered, strict=True):
        answer = _shown(call.value)
        for part, (value, text) in zip(parts, values[: len(parts)], strict=True):
            if value is None or call.is_error:
                continue
            if value in _numbers_in(call.value) if part[0] in ("linear", "units") else _shows(answer, value):
                found.setdefault(id(call), []).append([text, part])
    plain = [values[0][1] for values in rendered]
    for at, pieces in _significant(calls, plain, [values[len(parts) :] for values in rendered], written).items():
        found.setdefault(at, []).extend(pieces)
    return found


def _significant(
    calls: list[RecordedCall], plain: list[Any], rendered: list[list[list[Any]]], written: list[list[Any]]
) -> dict[int, list[list[Any]]]:
    """The converted number written with as many significant digits as the answers' texts show it (C's
    `%.12g`: "150906418.466 lb" beside the JSON number 150906418.4655487): the count that writes it standing
    whole in the most successes' texts, the fewest of those, where in one of them it is not the number's own
    text (which its own piece writes); and the number so written followed by its unit, as a quantity (a unit's
    name too short to be read as an argument's piece on its own: "84 ft"), where two successes show it. Per
    call (by id), its pieces."""
    shown: dict[int, list[int]] = {}
    telling: set[int] = set()
    for call, own, values in zip(calls, plain, rendered, strict=True):
        if call.is_error:
            continue
        texts = _shown(call.value)[0]
        for index, (_, text) in enumerate(values):
            if not isinstance(text, str):
                continue
            if len(written[index]) > _NUMBER_ONLY:
                if any(text in inside for inside in texts):
                    shown.setdefault(index, []).append(id(call))
            elif _stands_whole(texts, text):
                shown.setdefault(index, []).append(id(call))
                telling |= {index} if text != own else set()
    found: dict[int, list[list[Any]]] = {}
    alone = [index for index in shown if index in telling]
    quantities = [index for index in shown if len(written[index]) > _NUMBER_ONLY and len(shown[index]) >= 2]
    for choices in (alone, quantities):
        if not choices:
            continue
        # The most calls; of as many, the first tried (JavaScript's own text, then the fewest digits).
        chosen = max(choices, key=lambda index: (len(shown[index]), -index))
        writes = {id(call): values[chosen][1] for call, values in zip(calls, rendered, strict=True)}
        for at in shown[chosen]:
            found.setdefault(at, []).append([writes[at], written[chosen]])
    return found


def _quantities(library: TwinLibrary, texts: list[str], successes: list[RecordedCall]) -> dict[str, dict[int, Any]]:
    """The text arguments that write a quantity (a number and a unit, `units.twin_quantity`) in two successes
    at least and in most of those that give them: per argument, per call (by id), its number and unit."""
    found: dict[str, dict[int, Any]] = {}
    for name in texts:
        given = [call for call in successes if isinstance(call.arguments.get(name), str)]
        readings = library.call("twin_bridge_quantities", {"texts": [call.arguments[name] for call in given]})
        read = {id(call): tuple(pair) for call, pair in zip(given, readings, strict=True) if pair is not None}
        if len(read) >= 2 and 2 * len(read) > len(given):
            found[name] = read
    return found


def _through_units(
    name: str, selector: list[str], successes: list[RecordedCall], given: dict[int, Any], reading: str | None = None
) -> tuple[int, list[Any]] | None:
    """`["units", name, selector, table, digits]` and how many successes it reproduces: the table per unit
    (`units.fit_units`) under the rounding that reproduces the most (first: none, then fewest decimals), on
    doubles or, where doubles reproduce fewer, on the decimals the numbers write (`[..., reading, "exact"]`: a
    server that computes in fractions or decimals). Each call's number and first unit are `given` (by id): the
    arguments `name` and `selector[0]`, or (`reading` "quantity") the two a quantity's text writes."""
    calls = []
    for call in successes:
        x, first = given.get(id(call), (None, None))
        second = call.arguments.get(selector[1])
        if isinstance(x, int | float) and _number(x) and _choices_of([first, second]):
            shown = tuple(y for y in _numbers_in(call.value) if y != x or first == second)
            calls.append(UnitCall(float(x), str(first), str(second), shown))
    if len(calls) < 2:
        return None
    best: tuple[int, list[Any]] | None = None
    for digits, exact in itertools.product(_DIGITS, (False, True)):
        table = fit_units(calls, digits, exact)
        count = units_reproduced(calls, table, digits, exact)
        if count >= 2 and (best is None or count > best[0]):
            read = [reading] if reading is not None or exact else []
            best = (count, ["units", name, selector, table, digits, *read, *(["exact"] if exact else [])])
        if best is not None and best[0] == len(calls):
            break
    return best


def _lookup(successes: list[RecordedCall], selector: list[str]) -> dict[str, str]:
    """The text each value of a line's selector shows beside its line where no argument gives it (a
    conversion's category, from its unit pair): one text of the answers of two of its calls or more, the
    same in all, that some of them were not given; only where it is the one such text."""
    groups: dict[str, list[RecordedCall]] = {}
    for call in successes:
        chosen = [call.arguments.get(name) for name in selector]
        if _choices_of(chosen):
            groups.setdefault(_PAIR.join(str(value) for value in chosen), []).append(call)
    table: dict[str, str] = {}
    for key, group in groups.items():
        if len(group) < 2:
            continue
        common = set.intersection(*(set(_shown(call.value)[0]) for call in group))
        unsaid = [
            text
            for text in sorted(common)
            if len(text) >= _SHORTEST_TEXT and any(text not in call.arguments.values() for call in group)
        ]
        if len(unsaid) == 1:
            table[key] = unsaid[0]
    return table


def _choices_of(values: list[Any]) -> bool:
    """Whether a selector's values are all given, as short texts (a unit's name, a kind)."""
    return all(isinstance(value, str) and len(value) <= _LONGEST_CHOICE for value in values)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _numbers_in(value: Any) -> list[float]:
    """The JSON numbers of an answer, and the answer itself where it is one number's text."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return []
    if _number(value):
        return [value]
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [number for item in inner for number in _numbers_in(item) if not isinstance(item, str)]


def _fit(points: list[tuple[float, list[float]]]) -> dict[int | None, tuple[float, float]]:
    """The line (a, b) through recorded points (x, the numbers its answer shows), by the decimals its value
    is rounded to: fitted through the origin from the point of largest x, or through the two points farthest
    apart, and kept where every point's answer shows a*x + b so rounded. Two x at least: one point fits any line."""
    if len({x for x, _ in points}) < 2:
        return {}
    ordered = sorted(points, key=lambda point: abs(point[0]))
    (x1, ys1), (x2, ys2) = min(points, key=lambda point: point[0]), max(points, key=lambda point: point[0])
    far_x, far_ys = ordered[-1]
    candidates = [(y / far_x, 0.0) for y in far_ys if far_x]
    candidates += [((y2 - y1) / (x2 - x1), y1 - (y2 - y1) / (x2 - x1) * x1) for y1 in ys1 for y2 in ys2]
    found: dict[int | None, tuple[float, float]] = {}
    for a, b in candidates:
        for digits in _DIGITS:
            if digits not in found and all(_rounded(a * x + b, digits) in ys for x, ys in points):
                found[digits] = (a, b)
    return found


def _rounded(y: float, digits: int | None) -> float:
    """As `twin_fn_linear` rounds: halves up, as JavaScript's Math.round(y * 10^digits) / 10^digits."""
    if digits is None:
        return y
    scale: int = 10**digits
    return float(math.floor(y * scale + 0.5)) / scale


def _hints(value: Any) -> dict[str, Any]:
    """What an answer may show of a function (`twin_bridge_functions`): the lengths of its hex runs (a digest),
    the numbers it shows (a length, a distance), whether it holds `\\u` escapes, a `%` or a `+` (a URL's)."""
    texts, numbers = _shown(value)
    hexes = {len(run) for text in texts for run in _HEX_RUN.findall(text)}
    shown = numbers | {int(found) for text in texts for found in _WHOLE_NUMBER.findall(text) if len(found) < 10}
    escaped, percent = any("\\u" in text for text in texts), any("%" in text or "+" in text for text in texts)
    return {"hex": sorted(hexes), "numbers": sorted(shown), "escaped": escaped, "percent": percent}


def _same_as_given(value: Any, part: list[Any], arguments: dict[str, Any]) -> bool:
    """Whether a function's value is its argument as given (the lower case of a lower-case text, a decimal
    read in base 10): it tells nothing of the call, though it writes an argument whose own piece does not
    (one that is a string or a number)."""
    name = part[1] if part[0] == "radix" else part[2] if part[0] in ("fn", "measure") else None
    return name is not None and isinstance(value, str) and value == str(arguments.get(name))


def _shown(value: Any) -> tuple[list[str], set[int]]:
    """An answer's texts and its JSON integers."""
    texts: list[str] = []
    numbers: set[int] = set()

    def walk(item: Any) -> None:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, bool):
            return
        elif isinstance(item, int):
            numbers.add(item)
        elif isinstance(item, dict):
            for inner in item.values():
                walk(inner)
        elif isinstance(item, list):
            for inner in item:
                walk(inner)

    walk(value)
    return texts, numbers


def _shows(shown: tuple[list[str], set[int]], value: Any) -> bool:
    """Whether an answer shows a function's value: a text (long enough to mean something) inside one of
    its texts; a number (2 or more) as a JSON integer or standing whole in a text."""
    texts, numbers = shown
    if isinstance(value, str):
        return len(value.strip()) >= _SHORTEST_TEXT and any(value in text for text in texts)
    if not isinstance(value, int) or value < _SMALLEST_MEASURE:
        return False
    return value in numbers or any(str(value) in _WHOLE_NUMBER.findall(text) for text in texts)


def _whole_short(shown: tuple[list[str], set[int]], value: Any, part: list[Any], arguments: dict[str, Any]) -> bool:
    """Whether a text function's value, too short to be looked for inside a text, is one whole text of the
    answer other than the argument as given (`"country": "FR"` for `fr`)."""
    return (
        part[0] == "fn"
        and isinstance(value, str)
        and 0 < len(value.strip()) < _SHORTEST_TEXT
        and value in shown[0]
        and value != arguments.get(part[2])
    )


def _stands_whole(texts: list[str], value: str) -> bool:
    """Whether a number's digits stand whole in a text, however short (the `ff` of 255 in base 16)."""
    whole = re.compile(rf"(?<![0-9A-Za-z.]){re.escape(value)}(?![0-9A-Za-z]|\.[0-9])")
    return any(whole.search(text) for text in texts)


def _choices(properties: dict[str, Any]) -> list[list[Any]]:
    """`["is", name, value]` for each value of each enumerated string argument, and None (not given)."""
    found: list[list[Any]] = []
    for name, schema in properties.items():
        options = [schema, *schema.get("anyOf", [])] if isinstance(schema, dict) else []
        values = [v for option in options if isinstance(option, dict) for v in option.get("enum", [])]
        if values and all(isinstance(v, str) for v in values):
            found += [["is", name, value] for value in [*values, None]]
    return found
