"""Text cut to a length, saying how much was left out.

One form wherever a long value is shown (on the dashboard, in a prompt, in a trajectory), so that a
reader, person or model, always sees that the text was cut and by how much.
"""

from __future__ import annotations


def shorten(text: str, limit: int, *, separator: str = " ") -> str:
    """`text` if it has at most `limit` characters, else its first `limit` and how many more there were.

    `separator` goes between the kept text and the note: a newline suits multi-line JSON.
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{separator}… ({len(text) - limit:,} more characters)"
