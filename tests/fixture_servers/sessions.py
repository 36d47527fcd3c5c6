"""Sessions an agent would run against the fixture servers, drawn from a seed and a pool of names, so
that the sessions a twin is checked on can use names that those it was built from never showed."""

from __future__ import annotations

import random
from typing import Any

Call = tuple[str, dict[str, Any]]

# Names for building (train) and for checking (check): disjoint, so that a twin that memorised fails.
POOLS: dict[str, dict[str, list[str]]] = {
    "train": {
        "spaces": ["user", "cfg", "job"],
        "names": ["alice", "bob", "carol", "dave", "erin"],
        "words": ["red", "blue", "seven", "oak", "river", "lamp"],
    },
    "check": {
        "spaces": ["acct", "prefs", "cache"],
        "names": ["zoe", "yuri", "xena", "walt", "vera"],
        "words": ["amber", "nine", "pine", "stone", "cloud", "kite"],
    },
}


def kv_sessions(pool: str, seed: int, sessions: int, calls: int) -> list[list[Call]]:
    names = POOLS[pool]
    out: list[list[Call]] = []
    for number in range(sessions):
        rng = random.Random(f"kv-{pool}-{seed}-{number}")
        stored: list[str] = []
        session: list[Call] = []
        for _ in range(calls):
            roll = rng.random()
            if roll < 0.4 or not stored:
                if stored and rng.random() < 0.25:
                    key = rng.choice(stored)
                else:
                    key = f"{rng.choice(names['spaces'])}:{rng.choice(names['names'])}"
                session.append(("set_value", {"key": key, "value": rng.choice(names["words"])}))
                if key not in stored:
                    stored.append(key)
            elif roll < 0.65:
                missing = f"{rng.choice(names['spaces'])}:{rng.choice(names['names'])}x"
                key = rng.choice(stored) if rng.random() < 0.8 else missing
                session.append(("get_value", {"key": key}))
            elif roll < 0.85:
                session.append(("list_keys", {}))
            else:
                prefix = rng.choice(names["spaces"]) + ":"
                session.append(("delete_prefix", {"prefix": prefix}))
                stored = [key for key in stored if not key.startswith(prefix)]
        out.append(session)
    return out


def todo_sessions(pool: str, seed: int, sessions: int, calls: int) -> list[list[Call]]:
    names = POOLS[pool]
    out: list[list[Call]] = []
    for number in range(sessions):
        rng = random.Random(f"todo-{pool}-{seed}-{number}")
        made = 0
        live: list[int] = []
        session: list[Call] = []
        for _ in range(calls):
            roll = rng.random()
            title = f"{rng.choice(names['words'])} {rng.choice(names['names'])}"
            if roll < 0.3 or not live:
                session.append(("add_todo", {"title": title}))
                made += 1
                live.append(made)
                continue
            todo = rng.choice(live) if rng.random() < 0.85 else made + 5
            if roll < 0.45:
                session.append(("get_todo", {"id": todo}))
            elif roll < 0.6:
                session.append(("rename_todo", {"id": todo, "title": title}))
            elif roll < 0.72:
                session.append(("complete_todo", {"id": todo}))
            elif roll < 0.82:
                session.append(("delete_todo", {"id": todo}))
                live = [item for item in live if item != todo]
            else:
                session.append(("list_todos", {}))
        out.append(session)
    return out


def folder_sessions(pool: str, seed: int, sessions: int, calls: int) -> list[list[Call]]:
    """Notes named by a folder and a name together: the same names in several folders, reads of a note
    written, of one never written in a folder that exists, and of a folder that does not."""
    names = POOLS[pool]
    out: list[list[Call]] = []
    for number in range(sessions):
        rng = random.Random(f"folder-{pool}-{seed}-{number}")
        notes: list[tuple[str, str]] = []
        session: list[Call] = []
        for _ in range(calls):
            roll = rng.random()
            folder, name = rng.choice(names["spaces"]), rng.choice(names["names"])
            if roll < 0.35 or not notes:
                session.append(("write_note", {"folder": folder, "name": name, "text": rng.choice(names["words"])}))
                if (folder, name) not in notes:
                    notes.append((folder, name))
                continue
            known = rng.choice(notes)
            if rng.random() < 0.2:
                # A note never written: in a folder that exists, or in one that does not.
                known = (known[0], name + "x") if rng.random() < 0.6 else (folder + "x", name)
            if roll < 0.55:
                session.append(("read_note", {"folder": known[0], "name": known[1]}))
            elif roll < 0.68:
                session.append(("list_notes", {"folder": known[0]}))
            elif roll < 0.78:
                session.append(("delete_note", {"folder": known[0], "name": known[1]}))
                notes = [note for note in notes if note != known]
            else:
                session.append(("list_folders", {}))
        out.append(session)
    return out
