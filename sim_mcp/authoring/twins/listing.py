"""Listings of stored records written as text, drawn from a recorded answer: one line (or block of lines)
per record, each a template of that record's fields, joined by a separator, with whatever the answer says
before and after it left to the answer's own template (a markdown table's header, "Found 2 results:").

The placeholder is `["lines", pred, order, line, sep]` (`library.twin_lines` renders it): the records the
predicate picks, in an order, each written through `line`, a list of literal texts and fields
(`["field", name]`, or `["field", name, map]`: the value written through a map keyed by its JSON, absent
being null, and as it is where the map has no entry; a day alone in the literal text, not part of a time,
is the server's clock, `["made_up", "today", day]`, which the twin writes as its own today). A record's
fields are its key (`$key`), the
arguments stored with it and the record an answer showed for it (`library.twin_fields`); a key under
another (`work/plan`) has its last part too (`$name`).

Drawing one from an answer is a search bounded by the recorded text: each record's key must be written,
records in the order given, each on a line of its own; a record's block is the line of its key and the
lines after it that show more of its fields; what lies between blocks is the separator, the same every
time. Fields are written where their text stands whole. Where blocks differ in text no field writes as it
is (a boolean shown as "✅ Done", a missing category as "none"), the blocks are aligned token by token and
each stretch that differs is a field whose null, true or false values are written through a map; so is
a string field's where each value is shown as a mark of a character or two (a status `in-progress` as
`~`), or every value, two at least, as one text that it is there (`$any`: a description as " (...)"); a
longer text is never a string's, nor is a key mapped, so one answer cannot make up a map that renames
values. The blocks of every call are aligned into one line template where they can be, so that a
map learns true from one call and false from another. A block may show its place in the listing (`$i`, from
1: `[2] #7`), a list of texts joined by `, `, and the server's clock when the record was stored (a date-time,
compared by its form, `["made_up", "date", text]`); where blocks differ in which lines they show (a record's
notes, shown only where it has some), each block's lines are told apart by what they start with and aligned
line by line, a line some blocks lack written only where the record holds the field whose presence tells it
(`["when", name, parts]`, `_lined`). A listing of one record shows no order: it is read in the order the
tool's longer listings show (newest first) before the order stored. Like every template, one holding a listing belongs
to the recorded calls the twin's own Starlark renders exactly with it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from sim_mcp.state.values import strings_in

__all__ = ["listing_pieces", "may_list"]

# Text split into words, runs of space and single marks: the units two blocks are aligned by.
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
# A field's text shorter than this (but for the key) is not looked for in a block: "a" is found everywhere.
_SHORTEST = 2
# The longest mark a string field's value may be shown as (`~` for a status): longer is a renaming.
_MARK = 2
# Where a listing of one record gives no separator to copy.
_ONE_SEPARATOR = "\n"
_SLOT = "\x00"
# A day alone in a line's literal text, not part of a time: the server's clock.
_DAY = re.compile(r"(?<![0-9A-Za-z])\d{4}-\d{2}-\d{2}(?![T ]?\d)(?![0-9A-Za-z])")
# The fields that write a record's key.
_KEYS = ("$key", "$name")
# The field that is a record's place in the listing, from 1 (`library.twin_lines` gives it).
_PLACE = "$i"
# What a list of texts is written with, joined (`files: a, b`), as `library.twin_shown` writes it.
_ITEM_JOIN = ", "
# A time of day with its day, to the minute or finer, in a block's literal text: the server's clock when the
# record was stored, compared by form (`["made_up", "date", text]`), never by value.
_CLOCK = re.compile(
    r"(?<![0-9A-Za-z])\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![0-9A-Za-z])"
)
_CLOCK_SLOT = "\x01"
# Distinct blocks one shared line template is drawn from, at most: the alignment is quadratic in them.
_POOL = 96

Record = dict[str, Any]


def may_list(value: Any) -> bool:
    """Whether an answer may list records as lines: it has a text of several lines. Only such answers are
    searched for listings (a search is dear: every predicate, every order)."""
    return any("\n" in text for text in strings_in(value))


def listing_pieces(calls: list[tuple[Any, dict[str, Any], list[list[Any]]]]) -> list[list[tuple[str, list[Any]]]]:
    """The listings of stored records found in each call's answer, as (text, placeholder) pieces. A call is
    its answer, its arguments and what the twin's Starlark picks in its world (`[placed, records]`: the
    records, each as its fields, and the (predicate, order) pairs that pick them in that order). One line
    template is drawn from the blocks of every call that it writes (a value map needs the values of many
    calls: a task done in one, not in another); a call whose blocks it cannot write keeps a line of its own."""
    found: list[_Found] = []
    for index, (value, arguments, listings) in enumerate(calls):
        given = {item for item in arguments.values() if isinstance(item, str)}
        for text in strings_in(value):
            for placed, records in listings:
                if len(records) == 1 and records[0].get("$key") in given:
                    # One record the call named is that record shown, not a listing of what is stored.
                    continue
                # A record's place in the listing (`$i`, from 1): a numbered block, `[2] #7`.
                numbered = [{**record, _PLACE: place + 1} for place, record in enumerate(records)]
                entry = _found(index, text, numbered)
                if entry is not None:
                    entry.placed = [(pred, order) for pred, order in placed]
                    found.append(entry)
    # The orders the tool's listings of several records show (newest first): a listing of one record shows
    # none, and is read in those first, so that one template writes a filter's listings of one and of more.
    orders = Counter(order for entry in found if len(entry.records) > 1 for _, order in entry.placed)
    shown = [order for order, _ in orders.most_common() if order != "added"]
    for entry in found:
        if len(entry.records) == 1:
            entry.placed = [(pred, order) for pred, _ in entry.placed for order in shown] + entry.placed
    shared = _shared_line(found)
    taken = shared[1] if shared is not None else []
    # A listing of one record shows no separator: it takes the one the longer listings show.
    between = Counter(entry.separator for entry in taken if len(entry.blocks) > 1).most_common(1)
    pieces: list[list[tuple[str, list[Any]]]] = [[] for _ in calls]
    for entry in found:
        line = shared[0] if shared is not None and entry in taken else _template(entry.blocks, entry.records)
        if line is None or not any(isinstance(part, list) and part[1] not in _KEYS for part in line):
            continue  # a listing of keys alone is `list`'s
        separator = between[0][0] if between and entry in taken and len(entry.blocks) == 1 else entry.separator
        line = _dated(line)
        for pred, order in entry.placed:
            pieces[entry.call].append((entry.region, ["lines", pred, order, line, separator]))
    return pieces


def _dated(line: list[Any]) -> list[Any]:
    """A line template with each day alone in its literal text (not part of a time) written as the server's
    clock, `["made_up", "today", day]`: a listing's "updated" column, which the twin writes as its own today,
    as it does a day alone anywhere in an answer (`keyed_world._made_up`)."""
    found: list[Any] = []
    for part in line:
        if not isinstance(part, str):
            found.append(part)
            continue
        last = 0
        for match in _DAY.finditer(part):
            found += [part[last : match.start()], ["made_up", "today", match.group(0)]]
            last = match.end()
        found.append(part[last:])
    return [part for part in found if part != ""]


@dataclass(eq=False)
class _Found:
    """One listing found in one call's text: its blocks (as tokens), their records, the separator."""

    call: int
    region: str
    separator: str
    blocks: list[list[tuple[str, str]]]
    records: list[Record]
    placed: list[tuple[list[Any], str]] = field(default_factory=list)


def _found(call: int, text: str, records: list[Record]) -> _Found | None:
    """The stretch of `text` that lists `records` in this order, as blocks, with its separator."""
    blocks = _blocks(text, records)
    if blocks is None:
        return None
    starts, ends = blocks
    separators = {text[end:start] for end, start in zip(ends, starts[1:], strict=False)}
    if len(separators) > 1:
        return None
    tokens = [_tokens(text[start:end], record) for start, end, record in zip(starts, ends, records, strict=True)]
    region = text[starts[0] : ends[-1]]
    return _Found(call, region, separators.pop() if separators else _ONE_SEPARATOR, tokens, records)


def _shared_line(found: list[_Found]) -> tuple[list[Any], list[_Found]] | None:
    """The one line template that writes the blocks of the most listings found, largest listings first,
    and those listings; a listing it cannot take is left to its own line."""
    taken: list[_Found] = []
    blocks: dict[str, tuple[list[tuple[str, str]], Record]] = {}
    line: list[Any] | None = None
    for entry in sorted(found, key=lambda entry: -len(entry.blocks)):
        more = {
            json.dumps([block, record], sort_keys=True): (block, record)
            for block, record in zip(entry.blocks, entry.records, strict=True)
        }
        pool = {**blocks, **more}
        if len(pool) > _POOL:
            continue
        trial = _template([block for block, _ in pool.values()], [record for _, record in pool.values()])
        if trial is not None:
            line, blocks = trial, pool
            taken.append(entry)
    return (line, taken) if line is not None else None


def _blocks(text: str, records: list[Record]) -> tuple[list[int], list[int]] | None:
    """Where each record's block starts and ends: from the start of the line its key is on, through the
    lines after it that show another of its fields."""
    # Each record's key anchors its block: the whole key, or for keys under another, their last parts
    # (a folder's entries by name).
    anchor = "$name" if all(isinstance(record.get("$name"), str) for record in records) else "$key"
    if anchor == "$name" and all(_whole(record["$key"]).search(text) for record in records):
        anchor = "$key"
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for index, record in enumerate(records):
        key = record.get(anchor)
        if not isinstance(key, str) or not key:
            return None
        following = records[index + 1].get(anchor) if index + 1 < len(records) else None
        shown = [_whole(item) for item in _texts(record) if item != key]
        block: tuple[int, int] | None = None
        for found in _whole(key).finditer(text, at):
            newline = text.rfind("\n", at, found.start())
            if newline < 0 and index:
                break  # two records on one line: not a listing of lines
            start, end = newline + 1, _line_end(text, found.end())
            own = any(pattern.search(text[start:end]) for pattern in shown)
            while end < len(text):
                after = _line_end(text, end + 1)
                line = text[end + 1 : after]
                if isinstance(following, str) and _whole(following).search(line):
                    break
                if not any(pattern.search(line) for pattern in shown):
                    break
                end, own = after, True
            if block is None:
                block = (start, end)
            if own or not shown:
                # The key where the record's other fields are shown with it: a short key (`4`) may also
                # stand in a header before the listing ("4 entries").
                block = (start, end)
                break
        if block is None:
            return None
        starts.append(block[0])
        ends.append(block[1])
        at = block[1]
    return starts, ends


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _whole(item: str) -> re.Pattern[str]:
    """`item` where it stands whole: not the start or end of a longer word."""
    before = r"(?<!\w)" if re.match(r"\w", item) else ""
    after = r"(?!\w)" if re.search(r"\w$", item) else ""
    return re.compile(before + re.escape(item) + after)


def _text(value: Any) -> str | None:
    """How a field's value is written as it is: a string, an integer's digits; else it is not."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return _ITEM_JOIN.join(value)
    return None


def _texts(record: Record) -> list[str]:
    found = [(name, _text(item)) for name, item in record.items()]
    return [item for name, item in found if item is not None and (name in _KEYS or len(item) >= _SHORTEST)]


def _tokens(block: str, record: Record) -> list[tuple[str, str]]:
    """A block as tokens (what is compared, the text): each field written whole one token, each clock one
    token compared by its form, the rest split into words and marks."""
    fields = sorted(
        ((name, text) for name, item in record.items() if (text := _text(item)) is not None),
        key=lambda pair: (-len(pair[1]), pair[0] not in _KEYS, pair[0]),
    )
    # A clock first, so that a short field (a key `12`) is not found inside its day; but not one a field's
    # own text holds (a stored due time).
    stored = [text for _, text in fields]
    parts: list[tuple[str | None, str]] = []
    last = 0
    for clock in _CLOCK.finditer(block):
        if not any(clock.group(0) in text for text in stored):
            parts += [(None, block[last : clock.start()]), (_CLOCK_SLOT, clock.group(0))]
            last = clock.end()
    parts.append((None, block[last:]))
    for name, text in fields:
        if name not in _KEYS and len(text) < _SHORTEST:
            continue
        pattern = _whole(text)
        split: list[tuple[str | None, str]] = []
        for shown, chunk in parts:
            if shown is not None:
                split.append((shown, chunk))
                continue
            last = 0
            for found in pattern.finditer(chunk):
                split += [(None, chunk[last : found.start()]), (name, text)]
                last = found.end()
            split.append((None, chunk[last:]))
        parts = split
    tokens: list[tuple[str, str]] = []
    for shown, chunk in parts:
        if shown == _CLOCK_SLOT:
            # Compared by its form alone: each record's time differs, its shape does not.
            tokens.append((_CLOCK_SLOT + re.sub(r"[0-9]", "9", chunk), chunk))
        elif shown is not None:
            tokens.append((_SLOT + shown, chunk))
        else:
            tokens += [(token, token) for token in _TOKEN.findall(chunk)]
    return tokens


def _template(blocks: list[list[tuple[str, str]]], records: list[Record]) -> list[Any] | None:
    """The one line template that writes every block from its record: aligned token by token, else line by
    line, a line some blocks leave out shown only where its record has a field (`_lined`)."""
    return _line(blocks, records) or _lined(blocks, records)


def _lined(blocks: list[list[tuple[str, str]]], records: list[Record]) -> list[Any] | None:
    """A template of blocks of several lines where some lines show only in some blocks (a record's notes,
    shown where it has some): each block's lines told apart by what they start with (`_opening`), the same
    line of every block aligned as `_line` aligns blocks, one some blocks lack written only where its record
    holds the field whose presence tells it, `["when", name, parts]`. None where a block shows a line twice,
    two blocks show lines in different orders, or no field tells a line."""
    split = [_split_lines(block) for block in blocks]
    openings: list[list[tuple[str, ...]]] = []
    for lines in split:
        opened = [("",)] + [_opening(line) for line in lines[1:]]
        if len(set(opened)) < len(opened):
            return None
        openings.append(opened)
    if all(opened == openings[0] for opened in openings):
        return None  # every block has every line: `_line`'s, which wrote none
    order = _merged(openings)
    if order is None:
        return None
    template: list[Any] = []
    for opening in order:
        having = [
            (dict(zip(opened, lines, strict=True))[opening], record)
            for opened, lines, record in zip(openings, split, records, strict=True)
            if opening in opened
        ]
        line = _line([tokens for tokens, _ in having], [record for _, record in having])
        if line is None:
            return None
        if len(having) == len(blocks):
            template += line
            continue
        shown = {id(record) for _, record in having}
        tellers = [
            name
            for name in sorted({name for record in records for name in record})
            if all(_present(record.get(name)) == (id(record) in shown) for record in records)
        ]
        used = [name for name in tellers if any(isinstance(part, list) and part[1:2] == [name] for part in line)]
        if not tellers:
            return None
        template.append(["when", (used or tellers)[0], line])
    merged: list[Any] = []
    for part in template:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)
    return merged


def _present(value: Any) -> bool:
    """Whether a record holds a field, as a server that leaves out a line for it tells: not null, not empty."""
    return value is not None and value != "" and value != []


def _split_lines(block: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """A block's tokens by line, each line after the first opening with the break before it."""
    lines: list[list[tuple[str, str]]] = [[]]
    for token in block:
        compare, text = token
        if not compare.startswith((_SLOT, _CLOCK_SLOT)) and "\n" in text:
            lines.append([])
        lines[-1].append(token)
    return lines


def _opening(line: list[tuple[str, str]]) -> tuple[str, ...]:
    """What a line starts with, that tells it from a block's other lines: its literal tokens before its first
    field, clock or number (`  Files     : `)."""
    opening: list[str] = []
    for compare, _ in line:
        if compare.startswith((_SLOT, _CLOCK_SLOT)) or any(c.isdigit() for c in compare):
            break
        opening.append(compare)
    return tuple(opening)


def _merged(orders: list[list[tuple[str, ...]]]) -> list[tuple[str, ...]] | None:
    """One order of every block's lines that each block's order keeps (each line after those some block shows
    before it, else as first seen), or None where two blocks disagree."""
    seen: list[tuple[str, ...]] = []
    before: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    for order in orders:
        for at, item in enumerate(order):
            if item not in before:
                seen.append(item)
                before[item] = set()
            before[item] |= set(order[:at])
    merged: list[tuple[str, ...]] = []
    while len(merged) < len(seen):
        ready = [item for item in seen if item not in merged and before[item] <= set(merged)]
        if not ready:
            return None
        merged.append(ready[0])
    return merged


def _line(blocks: list[list[tuple[str, str]]], records: list[Record]) -> list[Any] | None:
    """The one line template that writes every block from its record, or None."""
    base = max(range(len(blocks)), key=lambda b: (sum(c.startswith(_SLOT) for c, _ in blocks[b]), -b))
    compared = [c for c, _ in blocks[base]]
    alignments = [
        SequenceMatcher(None, compared, [c for c, _ in block], autojunk=False).get_opcodes() for block in blocks
    ]
    spans = sorted((i1, i2) for opcodes in alignments for tag, i1, i2, _, _ in opcodes if tag != "equal")
    gaps: list[list[int]] = []
    for first, last in spans:
        if gaps and first <= gaps[-1][1]:
            gaps[-1][1] = max(gaps[-1][1], last)
        else:
            gaps.append([first, last])
    slots: dict[int, tuple[int, list[Any]]] = {}
    for first, last in gaps:
        texts = [
            "".join(text for _, text in block[_start(opcodes, first) : _end(opcodes, last)])
            for block, opcodes in zip(blocks, alignments, strict=True)
        ]
        slot = _explained(texts, records)
        if slot is None:
            return None
        slots[first] = (last, slot)
    line: list[Any] = []
    index = 0
    while index <= len(compared):
        if index in slots:
            last, slot = slots[index]
            line.append(slot)
            if last > index:
                index = last
                continue
        if index == len(compared):
            break
        compare, text = blocks[base][index]
        if compare.startswith(_CLOCK_SLOT):
            line.append(["made_up", "date", text])
        else:
            line.append(["field", compare[1:]] if compare.startswith(_SLOT) else text)
        index += 1
    merged: list[Any] = []
    for part in line:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        elif part != "":
            merged.append(part)
    return _joined(merged)


def _joined(line: list[Any]) -> list[Any]:
    """`line` with two mapped slots of one field around a literal made one ("🔄" " " "In Progress" is
    "🔄 In Progress"): a value written through one map."""
    out: list[Any] = []
    for part in line:
        if (
            isinstance(part, list)
            and part[0] == "field"
            and len(part) == 3
            and len(out) >= 2
            and isinstance(out[-1], str)
            and isinstance(out[-2], list)
            and out[-2][0] == "field"
            and len(out[-2]) == 3
            and out[-2][1] == part[1]
            and set(out[-2][2]) == set(part[2])
        ):
            between = out.pop()
            before = out.pop()
            part = ["field", part[1], {code: before[2][code] + between + part[2][code] for code in part[2]}]
        out.append(part)
    return out


def _start(opcodes: Sequence[tuple[str, int, int, int, int]], at: int) -> int:
    """Where, in an aligned block, the stretch starting at `at` of the base block starts."""
    for tag, i1, i2, j1, _ in opcodes:
        if i1 == at or (tag == "equal" and i1 <= at < i2):
            return j1 + (at - i1 if tag == "equal" else 0)
    return opcodes[-1][4] if opcodes else 0


def _end(opcodes: Sequence[tuple[str, int, int, int, int]], at: int) -> int:
    """Where, in an aligned block, the stretch ending at `at` of the base block ends."""
    for tag, i1, i2, j1, j2 in reversed(opcodes):
        if i2 == at or (tag == "equal" and i1 < at <= i2):
            return j1 + (at - i1) if tag == "equal" else j2
    return 0


def _marks(strings: dict[str, str]) -> dict[str, str]:
    """A string field's values written as marks (by their JSON): a mark per value, of a character or two that
    no value is written as (a status `in-progress` shown as `~`); or one text for every value, two at least,
    that it is there at all (`$any`: a description shown as " (...)"). Else none: a value is written as it
    is, never renamed."""
    texts = set(strings.values())
    if len(strings) > 1 and len(texts) == 1:
        return {"$any": texts.pop()}
    # A number is no mark: a record's place (`[2]`) written through a map of its other fields would be a
    # listing's place read off one answer.
    if all(0 < len(text.strip()) <= _MARK and text.strip() == text and not text.isdigit() for text in texts):
        return strings
    return {}


def _explained(texts: list[str], records: list[Record]) -> list[Any] | None:
    """The field that writes `texts` (one per record): as it is, else through a map of its null, true and
    false values; of several, one written as it is somewhere first, then by name."""
    names = sorted({name for record in records for name in record})
    mapped: list[tuple[int, str, dict[str, str]]] = []
    for name in names:
        entries: dict[str, str] = {}
        strings: dict[str, str] = {}
        plain = 0
        for record, text in zip(records, texts, strict=True):
            item = record.get(name)
            if _text(item) == text:
                plain += 1
            elif item is None or isinstance(item, bool):
                code = json.dumps(item)
                if entries.setdefault(code, text) != text:
                    break
            elif isinstance(item, str) and name not in _KEYS:
                strings.setdefault(json.dumps(item), text)
                if strings[json.dumps(item)] != text:
                    break
            else:
                break
        else:
            if strings and not (marks := _marks(strings)):
                continue
            entries.update(marks if strings else {})
            if not entries:
                return ["field", name]
            mapped.append((-int(plain > 0), name, entries))
    if not mapped:
        return None
    _, name, entries = min(mapped, key=lambda found: (found[0], found[1]))
    return ["field", name, entries]
