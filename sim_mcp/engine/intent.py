"""What a tool most likely does, read from its name: a CRUD action on a collection of the world state.

`create_ticket` -> (CREATE, "ticket"); `listOrders` -> (LIST, "orders"); `cancel_booking` ->
(SET_STATUS "cancelled", "booking"). Collections are found in the state by noun, singular or plural.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sim_mcp.state.values import pointer


class Action(Enum):
    CREATE = "create"
    GET = "get"
    LIST = "list"
    UPDATE = "update"
    DELETE = "delete"
    SET_STATUS = "set_status"
    UNKNOWN = "unknown"


_VERBS: dict[str, Action] = {
    **dict.fromkeys(
        (
            "create",
            "add",
            "book",
            "register",
            "new",
            "insert",
            "make",
            "schedule",
            "open",
            "submit",
            "post",
            "place",
            "reserve",
            "enroll",
            "issue",
            "upload",
            "write",
            "save",
            "generate",
        ),
        Action.CREATE,
    ),
    **dict.fromkeys(
        ("get", "read", "show", "fetch", "retrieve", "view", "describe", "lookup", "load", "inspect"), Action.GET
    ),
    **dict.fromkeys(("list", "search", "find", "query", "browse", "filter", "all"), Action.LIST),
    **dict.fromkeys(
        ("update", "modify", "set", "edit", "change", "patch", "rename", "reschedule", "assign", "move", "put", "mark"),
        Action.UPDATE,
    ),
    **dict.fromkeys(("delete", "remove", "destroy", "erase", "purge", "drop", "unregister"), Action.DELETE),
    **dict.fromkeys(
        ("cancel", "close", "archive", "complete", "approve", "reject", "resolve", "finish", "suspend", "refund"),
        Action.SET_STATUS,
    ),
}

# The status a SET_STATUS verb leaves behind, in the spelling most APIs use.
STATUS_OF_VERB = {
    "cancel": "cancelled",
    "close": "closed",
    "archive": "archived",
    "complete": "completed",
    "approve": "approved",
    "reject": "rejected",
    "resolve": "resolved",
    "finish": "finished",
    "suspend": "suspended",
    "refund": "refunded",
}


@dataclass(frozen=True, slots=True)
class Intent:
    action: Action
    verb: str
    noun: tuple[str, ...]
    # Whether the verb is the name's first word (`create_ticket`), not a later one (`ticket_create`).
    leading: bool = True

    @property
    def status(self) -> str | None:
        return STATUS_OF_VERB.get(self.verb)


@dataclass(frozen=True, slots=True)
class Collection:
    """A set of records in the state: a mapping id -> record, or a list of records."""

    path: tuple[str, ...]
    records: dict[str, Any] | list[Any]
    singular: str

    @property
    def pointer(self) -> str:
        return pointer(self.path)

    @property
    def key(self) -> str:
        return self.path[-1]


def read_intent(tool_name: str, state: Any = None) -> Intent:
    """The action and noun of a tool's name. With the world's `state`, a verb-like word after the first
    that names a collection there is read as that noun, not as a verb: `borrow_book` beside `books` is no
    booking (and, `borrow` being no verb we know, its intent is unknown)."""
    words = split_words(tool_name)
    nouns = _collection_nouns(state) if isinstance(state, dict) else set()
    for index, word in enumerate(words):
        if (action := _VERBS.get(word)) is not None and (index == 0 or singular(word) not in nouns):
            noun = tuple(words[index + 1 :] or words[:index])
            return Intent(action, word, noun, leading=index == 0)
    return Intent(Action.UNKNOWN, "", tuple(words))


# Words a description puts between its verb and its noun ("Close the issue"), and words that end the noun
# ("Close the issue with a comment").
_ARTICLES = frozenset({"the", "a", "an", "this", "that", "one", "given", "specified", "existing", "selected"})
_NOUN_ENDS = frozenset({"of", "by", "with", "for", "in", "to", "from", "and", "or", "on", "at", "as", "its", "if"})


def tool_intent(tool_name: str, description: str, state: Any = None) -> Intent:
    """What a tool does, from its name, else from its description where the name says nothing: a tool
    `resolve` described as "Close the issue" closes an issue. A description is read only for what the name
    lacks (no verb we know, or no noun), so removal still takes a delete/remove-like word in the name or
    the description."""
    by_name = read_intent(tool_name, state)
    if by_name.action is not Action.UNKNOWN and by_name.noun:
        return by_name
    by_text = _description_intent(description, state)
    return by_text if by_text is not None else by_name


def only_reads(tool_name: str, description: str, read_only_hint: bool | None, state: Any = None) -> bool:
    """Whether a tool says it changes nothing: marked `readOnlyHint`, or a get or list verb in its name
    (else in its description, where the name has none)."""
    if read_only_hint:
        return True
    return tool_intent(tool_name, description, state).action in (Action.GET, Action.LIST)


def _description_intent(description: str, state: Any = None) -> Intent | None:
    sentence = re.split(r"[.;:\n]", description.strip(), maxsplit=1)[0]
    words = split_words(sentence)
    # As in a name, a verb-like word after the first that names a collection is that noun: "Take a book
    # back" beside `books` books nothing.
    nouns = _collection_nouns(state) if isinstance(state, dict) else set()
    for index, word in enumerate(words[:3]):
        verb = next((form for form in (word, word[:-1], word[:-2]) if form in _VERBS), None) if word else None
        if verb is None or (index > 0 and singular(word) in nouns):
            continue
        noun: list[str] = []
        for later in words[index + 1 :]:
            if later in _ARTICLES and not noun:
                continue
            if later in _NOUN_ENDS or len(noun) == 2:
                break
            noun.append(later)
        return Intent(_VERBS[verb], verb, tuple(noun)) if noun else None
    return None


def _collection_nouns(state: dict[str, Any]) -> set[str]:
    return {singular(_normal(path[-1])) for path, _records in collections_in(state)}


_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[\s_\-.:/]+")
# A name of lowercase words and underscores (most tool names and state keys) splits on "_" alone.
_SNAKE = re.compile(r"[a-z0-9_]*")


def split_words(name: str) -> list[str]:
    # Called for the tool's name and every state key several times a call: the regular expressions are
    # compiled once, and a snake_case name (no hump, no other separator) skips them.
    if _SNAKE.fullmatch(name):
        return [word for word in name.split("_") if word]
    spaced = _CAMEL_HUMP.sub(" ", name)
    return [word.lower() for word in _SEPARATORS.split(spaced) if word]


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plural(word: str) -> str:
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    return word + "s"


def find_collection(state: Any, noun: tuple[str, ...]) -> Collection | None:
    """The collection named by the noun: the whole noun first, then its last word, then its first."""
    if not noun or not isinstance(state, dict):
        return None
    candidates = ["_".join(noun), "".join(noun), noun[-1], noun[0]]
    wanted = [singular(candidate) for candidate in candidates]
    found = {singular(_normal(path[-1])): (path, records) for path, records in collections_in(state)}
    for name in wanted:
        if name in found:
            path, records = found[name]
            return Collection(path, records, name)
    return None


def collections_in(state: dict[str, Any], depth: int = 2) -> list[tuple[tuple[str, ...], dict[str, Any] | list[Any]]]:
    """Every mapping of records or list of records, at the top level or one level down."""
    result: list[tuple[tuple[str, ...], dict[str, Any] | list[Any]]] = []
    for key, value in state.items():
        if is_collection(value):
            result.append(((key,), value))
        elif isinstance(value, dict) and depth > 1:
            result.extend(((key, *path), records) for path, records in collections_in(value, depth - 1))
    return result


def is_collection(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(item, dict) for item in value.values())
    if isinstance(value, list):
        return all(isinstance(item, dict) for item in value)
    return False


def _normal(key: str) -> str:
    return "_".join(split_words(key))
