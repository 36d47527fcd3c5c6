"""Operations on texts and sequences (`strings.py`): twins of string tools learned from recordings by the real
learner and answered by the twin's Starlark on calls never recorded: the n-th occurrence of a piece (-1
where there is none) and every occurrence, a text spliced at indices, split at indices, the text between
markers and where it stands, counts of a class of characters, and an error where the needle is not one
character. Each server here is written with Python's own string methods, not the twin's, and words its
answers its own way."""

from __future__ import annotations

import itertools
import json
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

TEXTS = ["the cat sat on the mat", "banana bandana", "a (b) c (de) f", "Grüße aus Köln 2026!", "aaaa"]


def tool(name: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    return ToolSpec(name=name, input_schema={"type": "object", "properties": properties, "required": required})


def recorded(name: str, answers: list[tuple[dict[str, Any], Any, bool]]) -> list[list[RecordedCall]]:
    """Each call a session of its own, its answer a JSON text (a text content, as a server writes it)."""
    sessions = []
    for number, (arguments, value, is_error) in enumerate(answers):
        text = value if isinstance(value, str) else json.dumps(value)
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        sessions.append([RecordedCall(f"s{number}", 1, name, arguments, result, is_error)])
    return sessions


def learned(spec: ToolSpec, server: Any, calls: list[dict[str, Any]]) -> Any:
    answers = [(arguments, *server(arguments)) for arguments in calls]
    inference = infer_guards([spec], recorded(spec.name, answers), [spec.name])
    assert inference.answered[spec.name] == len(calls), inference.answered
    return inference.plans[spec.name]


def assert_answers(spec: ToolSpec, plan: Any, server: Any, arguments: dict[str, Any]) -> None:
    value, is_error = server(arguments)
    got = run_guard(plan, spec.name, {}, arguments)
    assert got is not None, arguments
    assert got[1] == is_error, (arguments, got)
    if not is_error:
        assert got[0] == value, (arguments, got[0], value)


LOCATE = tool(
    "locate",
    {"haystack": {"type": "string"}, "letter": {"type": "string"}, "which": {"type": "integer", "default": 1}},
    ["haystack", "letter"],
)


def locate_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    """The which-th place of one letter, non-overlapping, `{"position": -1}` where there is none."""
    text, letter, which = arguments["haystack"], arguments["letter"], arguments.get("which", 1)
    if len(letter) != 1:
        return "Error: letter must be exactly one character", True
    places = [i for i, c in enumerate(text) if c == letter]
    return {"position": places[which - 1] if len(places) >= which else -1, "letter": letter}, False


def test_the_nth_occurrence_of_a_character_and_its_error_for_several() -> None:
    calls: list[dict[str, Any]] = [
        {"haystack": "the cat sat on the mat", "letter": "a"},
        {"haystack": "the cat sat on the mat", "letter": "t", "which": 3},
        {"haystack": "banana bandana", "letter": "n", "which": 4},
        {"haystack": "banana", "letter": "z"},
        {"haystack": "Grüße aus Köln", "letter": "ö"},
        {"haystack": "banana", "letter": "an"},
        {"haystack": "the mat", "letter": "at", "which": 2},
    ]
    plan = learned(LOCATE, locate_server, calls)
    for arguments in (
        {"haystack": "mississippi", "letter": "s", "which": 3},
        {"haystack": "never recorded", "letter": "e"},
        {"haystack": "never recorded", "letter": "q"},
        {"haystack": "never recorded", "letter": "re"},
    ):
        assert_answers(LOCATE, plan, locate_server, arguments)


OCCURRENCES = tool("occurrences", {"source": {"type": "string"}, "piece": {"type": "string"}}, ["source", "piece"])


def occurrences_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    """Every start of a piece, overlapping ones too, and how many."""
    text, piece = arguments["source"], arguments["piece"]
    starts = [i for i in range(len(text)) if text.startswith(piece, i)]
    return {"starts": starts, "total": len(starts)}, False


def test_every_occurrence_overlapping_and_how_many() -> None:
    pieces = ["at", "ana", "(", "ü", "aa"]
    calls: list[dict[str, Any]] = [{"source": text, "piece": piece} for text, piece in zip(TEXTS, pieces, strict=True)]
    calls.append({"source": "banana", "piece": "zz"})
    plan = learned(OCCURRENCES, occurrences_server, calls)
    for arguments in ({"source": "abababa", "piece": "aba"}, {"source": "xyz", "piece": "q"}):
        assert_answers(OCCURRENCES, plan, occurrences_server, arguments)


SPLICE = tool(
    "splice",
    {"s": {"type": "string"}, "from": {"type": "integer"}, "to": {"type": "integer"}, "with": {"type": "string"}},
    ["s", "from", "to", "with"],
)


def splice_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    text = arguments["s"]
    return {"edited": text[: arguments["from"]] + arguments["with"] + text[arguments["to"] :]}, False


def test_a_stretch_replaced_by_another_text() -> None:
    calls = [
        {"s": "the cat sat on the mat", "from": 4, "to": 7, "with": "dog"},
        {"s": "banana bandana", "from": 0, "to": 6, "with": "mango"},
        {"s": "Grüße aus Köln", "from": 10, "to": 14, "with": "Bonn"},
    ]
    plan = learned(SPLICE, splice_server, calls)
    assert_answers(SPLICE, plan, splice_server, {"s": "never recorded here", "from": 6, "to": 14, "with": "seen"})


CUT = tool("cut", {"value": {"type": "string"}, "at": {"type": "array", "items": {"type": "integer"}}}, ["value", "at"])


def cut_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    text, cuts = arguments["value"], sorted(set(arguments["at"]))
    if any(i < 0 or i > len(text) for i in cuts):
        return "Error: an index is outside the text", True
    edges = [0, *cuts, len(text)]
    return {"pieces": [text[a:b] for a, b in itertools.pairwise(edges)]}, False


def test_a_text_split_at_indices_and_an_index_outside_it() -> None:
    calls = [
        {"value": "the cat sat on the mat", "at": [3, 7]},
        {"value": "banana bandana", "at": [6]},
        {"value": "a (b) c (de) f", "at": [9, 2, 2]},
        {"value": "banana", "at": [10]},
    ]
    plan = learned(CUT, cut_server, calls)
    for arguments in ({"value": "never recorded", "at": [5, 1]}, {"value": "short", "at": [6]}):
        assert_answers(CUT, plan, cut_server, arguments)


BETWEEN = tool(
    "between",
    {"body": {"type": "string"}, "left": {"type": "string"}, "right": {"type": "string"}, "k": {"type": "integer"}},
    ["body", "left", "right"],
)


def between_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    """The k-th text between markers, each search after the last close; its span; nulls where none."""
    text, left, right, k = arguments["body"], arguments["left"], arguments["right"], arguments.get("k", 1)
    at = 0
    for _ in range(k):
        start = text.find(left, at)
        end = text.find(right, start + len(left)) if start >= 0 else -1
        if start < 0 or end < 0:
            return {"found": None, "from": None, "until": None}, False
        at = end + len(right)
    return {"found": text[start + len(left) : end], "from": start + len(left), "until": end}, False


def test_the_text_between_markers_where_it_stands_and_none() -> None:
    calls: list[dict[str, Any]] = [
        {"body": "a (b) c (de) f", "left": "(", "right": ")", "k": 2},
        {"body": "call <main> then <exit>", "left": "<", "right": ">"},
        {"body": "{alpha} and {beta} and {gamma}", "left": "{", "right": "}", "k": 3},
        {"body": "no markers here", "left": "[", "right": "]"},
    ]
    plan = learned(BETWEEN, between_server, calls)
    for arguments in (
        {"body": "x [first] y [second] z", "left": "[", "right": "]", "k": 2},
        {"body": "x [first] y", "left": "[", "right": "]", "k": 2},
    ):
        assert_answers(BETWEEN, plan, between_server, arguments)


STATS = tool("stats", {"input": {"type": "string"}}, ["input"])


def stats_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    text = arguments["input"]
    return {
        "letters": sum(c.isalpha() for c in text),
        "numerals": sum(c.isdigit() for c in text),
        "blanks": sum(c.isspace() for c in text),
        "uppercase": sum(c.isupper() for c in text),
    }, False


def test_counts_of_a_class_of_characters() -> None:
    calls: list[dict[str, Any]] = [
        {"input": text} for text in ["The Cat 42 sat", "Grüße aus Köln 2026!", "ABC def 7", "x Y z 123 W"]
    ]
    plan = learned(STATS, stats_server, calls)
    assert_answers(STATS, plan, stats_server, {"input": "Never Recorded 99 Times"})


PIECES = tool(
    "pieces",
    {"doc": {"type": "string"}, "spans": {"type": "array", "items": {"type": "object"}}},
    ["doc", "spans"],
)


def pieces_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    """Per span (a start, an optional end; negative ones from the end), the text it takes and its length."""
    text, found = arguments["doc"], []
    for span in arguments["spans"]:
        start = span["from"] if span["from"] >= 0 else max(0, len(text) + span["from"])
        end = span.get("to", len(text))
        found.append({"text": text[start:end], "size": len(text[start:end]), "begin": start})
    return {"spans": found}, False


def test_a_substring_per_item_of_an_array_of_ranges() -> None:
    calls: list[dict[str, Any]] = [
        {"doc": "the cat sat on the mat", "spans": [{"from": 4, "to": 7}, {"from": -3}]},
        {"doc": "banana bandana", "spans": [{"from": 0, "to": 6}]},
        {"doc": "Grüße aus Köln 2026!", "spans": [{"from": 10}, {"from": 2, "to": 5}, {"from": -5, "to": 19}]},
    ]
    plan = learned(PIECES, pieces_server, calls)
    arguments = {"doc": "never recorded here", "spans": [{"from": 6, "to": 14}, {"from": -4}, {"from": 0, "to": 5}]}
    assert_answers(PIECES, plan, pieces_server, arguments)


SEARCH = tool("search", {"in": {"type": "string"}, "for": {"type": "string"}}, ["in", "for"])


def search_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    """Answers in words: where a piece first occurs and how often, or that it does not occur."""
    text, piece = arguments["in"], arguments["for"]
    at = text.find(piece)
    if at < 0:
        return f"'{piece}' does not occur in the text", False
    return f"Found '{piece}' at position {at} ({text.count(piece)} times in all)", False


def test_a_search_answered_in_words_and_its_wording_when_nothing_is_found() -> None:
    calls: list[dict[str, Any]] = [
        {"in": "one two three two one", "for": "two"},
        {"in": "Grüße aus Köln, Grüße aus Bonn", "for": "aus"},
        {"in": "the cat sat on the mat", "for": "dog"},
        {"in": "xx abc yy abc zz abc", "for": "abc"},
        {"in": "banana", "for": "zzz"},
    ]
    plan = learned(SEARCH, text_answers(search_server), calls)
    for arguments in ({"in": "never recorded: never, never", "for": "never"}, {"in": "never recorded", "for": "qqq"}):
        assert run_guard(plan, "search", {}, arguments) == (search_server(arguments)[0], False)


def text_answers(server: Any) -> Any:
    """A server whose answers are plain texts, not JSON."""
    return lambda arguments: server(arguments)


def test_a_number_shown_somewhere_in_each_answer_or_an_argument_written_back_is_no_operation() -> None:
    """A store's answers hold small numbers in varying places, and may echo a text whole: a count of a class
    of characters that one of those numbers happens to equal, in another place each time, and a text cut
    from an offset that is always 0 (the text itself), tell nothing of a computation."""
    from sim_mcp.authoring.twins.library import TwinLibrary
    from sim_mcp.authoring.twins.strings import read_strings

    note = tool("note", {"body": {"type": "string"}, "offset": {"type": "integer"}}, ["body", "offset"])
    answers: list[tuple[dict[str, Any], Any, bool]] = [
        ({"body": "room 12 at 3", "offset": 0}, {"saved": "room 12 at 3", "id": 3, "total": 7}, False),
        ({"body": "plain words", "offset": 0}, {"saved": "plain words", "id": 4, "total": 0}, False),
        ({"body": "4 or 5", "offset": 0}, {"saved": "4 or 5", "id": 2, "total": 9}, False),
    ]
    calls = [call for session in recorded("note", answers) for call in session]
    pieces, atoms = read_strings(TwinLibrary(), note, calls)
    assert not pieces, pieces
    assert not atoms


INSERT = tool(
    "insert", {"s": {"type": "string"}, "at": {"type": "integer"}, "add": {"type": "string"}}, ["s", "at", "add"]
)


def insert_server(arguments: dict[str, Any]) -> tuple[Any, bool]:
    """A negative point counts from past the end: -1 appends."""
    text, at = arguments["s"], arguments["at"]
    at = max(0, len(text) + at + 1) if at < 0 else at
    return {"text": text[:at] + arguments["add"] + text[at:]}, False


def test_an_insertion_whose_negative_point_counts_from_past_the_end() -> None:
    calls: list[dict[str, Any]] = [
        {"s": "the cat sat", "at": 4, "add": "big "},
        {"s": "banana", "at": -1, "add": "s!"},
        {"s": "Grüße aus Köln", "at": -5, "add": "dem "},
    ]
    plan = learned(INSERT, insert_server, calls)
    for arguments in (
        {"s": "never recorded", "at": -1, "add": " here"},
        {"s": "never recorded", "at": 6, "add": "ok "},
    ):
        assert_answers(INSERT, plan, insert_server, arguments)


TODO_TOOLS = [
    tool("add_todo", {"title": {"type": "string"}}, ["title"]),
    tool("rename_todo", {"id": {"type": "integer"}, "title": {"type": "string"}}, ["id", "title"]),
    tool("get_todo", {"id": {"type": "integer"}}, ["id"]),
    tool("list_todos", {}, []),
]


class TodoServer:
    """A to-do store that answers every change with the record, its title written back as given, or with its
    first letter in upper case (`capitalize`)."""

    def __init__(self, capitalize: bool = False) -> None:
        self.todos: dict[int, dict[str, Any]] = {}
        self.capitalize = capitalize

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        title = arguments.get("title", "")
        title = title.capitalize() if self.capitalize else title
        if name == "add_todo":
            made = {"id": len(self.todos) + 1, "title": title, "done": False}
            self.todos[made["id"]] = made
            return json.dumps(made), False
        if name == "list_todos":
            return json.dumps({"todos": list(self.todos.values())}), False
        found = self.todos.get(arguments["id"])
        if found is None:
            return f"To-do {arguments['id']} not found", True
        if name == "rename_todo":
            found["title"] = title
        return json.dumps(found), False


def todo_sessions(capitalize: bool) -> list[list[RecordedCall]]:
    """Sessions that rename the first two to-dos (ids 1 and 2) and read them back, each title long enough for
    its tail from the id to stand inside the answer."""
    titles = ["lamp bob", "blue", "river carol at noon", "oak dave", "seven erin eve", "amber", "stone grace"]
    sessions = []
    for number in range(8):
        server = TodoServer(capitalize)
        first, second, fifth = (titles[(number + k) % len(titles)] for k in range(3))
        third, fourth = (titles[(number + k) % len(titles)] + " later" for k in range(3, 5))
        calls: list[tuple[str, dict[str, Any]]] = [
            ("add_todo", {"title": first}),
            ("add_todo", {"title": second}),
            ("add_todo", {"title": fifth}),
            ("rename_todo", {"id": 1, "title": third}),
            ("get_todo", {"id": 1}),
            ("rename_todo", {"id": 2, "title": fourth}),
            ("list_todos", {}),
            ("get_todo", {"id": 2}),
            ("get_todo", {"id": 4}),
        ]
        session = []
        for seq, (name, arguments) in enumerate(calls, start=1):
            text, is_error = server.call(name, arguments)
            result = {"content": [{"type": "text", "text": text}], "isError": is_error}
            session.append(RecordedCall(f"s{number}", seq, name, arguments, result, is_error))
        sessions.append(session)
    return sessions


def test_a_piece_of_an_argument_written_back_is_no_operation_and_the_store_keeps_its_read_back() -> None:
    """A rename answers its record with the new title written back, and the ids are small: the title's tail
    from the index that is the id stands inside every answer, within the title written back. That explains
    nothing the title does not; read as an operation, it made the rename a computation that stores nothing,
    and the read-back and the listing after a rename were lost."""
    plans = infer_guards(TODO_TOOLS, todo_sessions(False), [spec.name for spec in TODO_TOOLS]).plans
    server, state = TodoServer(), dict[str, Any]()
    for name, arguments in (
        ("add_todo", {"title": "never recorded"}),
        ("add_todo", {"title": "nor this one"}),
        ("rename_todo", {"id": 2, "title": "renamed since"}),
        ("get_todo", {"id": 2}),
        ("list_todos", {}),
    ):
        text, is_error = server.call(name, arguments)
        assert name in plans, f"{name}: no behaviour learned"
        got = run_guard(plans[name], name, state, arguments)
        assert got is not None, (name, arguments)
        assert (json.loads(got[0]) if isinstance(got[0], str) else got[0], got[1]) == (json.loads(text), is_error)


def test_an_operation_that_explains_a_stores_answers_by_chance_takes_away_no_read_back() -> None:
    """The server writes each title back with its first letter in upper case, which the learner does not
    compute: the title's tail from the id then stands in the answer outside any argument as given, and is
    kept as an operation. The rename is still read as a store where a read-back elsewhere tells it (the store
    answers more recorded calls than none; the rename itself is handed on, its case not computed): the read
    of a to-do and the listing keep the rules they have without any operation on texts."""
    sessions = todo_sessions(True)
    plans = infer_guards(TODO_TOOLS, sessions, [spec.name for spec in TODO_TOOLS]).plans
    assert "list_todos" in plans, plans
    assert "get_todo" in plans, plans
    assert any(not rule["error"] for rule in plans["get_todo"]["rules"]), plans["get_todo"]
