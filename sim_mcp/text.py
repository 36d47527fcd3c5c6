"""Text cut to a length, saying how much was left out.

One form wherever a long value is shown (on the dashboard, in a prompt, in a trajectory, in an error), so that
a reader, person or model, always sees that the text was cut and by how much: `shorten` for text, `shown` for
a value quoted as JSON. `clip` is for the one place a count would be noise: a name or label in a sentence;
`clip_words` the same for a value quoted in a message, cut between words, never inside one.
"""

from __future__ import annotations

import json
from typing import Any


def shorten(text: str, limit: int, *, separator: str = " ") -> str:
    """`text` if it has at most `limit` characters, else its first `limit` and how many more there were.

    `separator` goes between the kept text and the note: a newline suits multi-line JSON.
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{separator}… ({len(text) - limit:,} more characters)"


def shown(value: Any, limit: int) -> str:
    """`value` as one line of JSON (what JSON cannot hold, as its `str`), cut by `shorten`: how an error, a
    report or a prompt quotes a value."""
    return shorten(json.dumps(value, ensure_ascii=False, default=str), limit)


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, ending in "..." when cut: for a name or a label inside a sentence,
    where a count of what was left out would be noise."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def clip_words(text: str, limit: int) -> str:
    """`text` whole if it has at most `limit` characters, else cut before the word the limit falls in, and
    ending in " …": `{'type': 'object', 'properties': {'title': {'type': …`, not `{'type': 'stri`."""
    if len(text) <= limit:
        return text
    kept = text[:limit]
    space = kept.rfind(" ")
    if space > limit // 2:
        kept = kept[:space]
    return kept.rstrip() + " …"
