"""Keys made of two arguments (`keyed_world`, `library.twin_paired`): a store that names an entry by a
namespace and a name together (a project's file) is learned from recorded sessions by the real learner and
answered by the real Starlark: what was written is read back under both parts, a second write to a file
keeps its text where the server does, "project not found" differs from "file not found", a project's
files are listed under it, and the projects themselves. A store one argument explains is never joined."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

_FILE = {"project": {"type": "string"}, "file": {"type": "string"}}
TOOLS = [
    ToolSpec(
        name="write_file",
        input_schema={
            "type": "object",
            "properties": {**_FILE, "content": {"type": "string"}},
            "required": ["project", "file", "content"],
        },
    ),
    ToolSpec(
        name="update_file",
        input_schema={
            "type": "object",
            "properties": {**_FILE, "content": {"type": "string"}},
            "required": ["project", "file", "content"],
        },
    ),
    ToolSpec(name="read_file", input_schema={"type": "object", "properties": _FILE, "required": ["project", "file"]}),
    ToolSpec(
        name="list_files",
        input_schema={"type": "object", "properties": {"project": {"type": "string"}}, "required": ["project"]},
    ),
    ToolSpec(name="list_projects", input_schema={"type": "object", "properties": {}}),
]
NAMES = [tool.name for tool in TOOLS]


def bank(session: int, steps: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    """What a project-and-file store answers to `steps` (written plainly), as recorded calls: a write
    never replaces a file that is there (it says it wrote all the same), an update does."""
    projects: dict[str, dict[str, str]] = {}
    calls: list[RecordedCall] = []
    for tool, args in steps:
        project, file = args.get("project", ""), args.get("file", "")
        error = False
        if tool == "list_projects":
            text = ",".join(sorted(projects))
        elif tool == "write_file":
            projects.setdefault(project, {}).setdefault(file, args["content"])
            text = f"File {file} written to project {project}"
        elif project not in projects:
            text, error = f"Project {project} not found", True
        elif tool == "list_files":
            text = ",".join(sorted(projects[project]))
        elif file not in projects[project]:
            text, error = f"File {file} not found", True
        elif tool == "update_file":
            projects[project][file] = args["content"]
            text = f"File {file} updated in project {project}"
        else:
            text = projects[project][file]
        result = {"content": [{"type": "text", "text": text}], "isError": error}
        calls.append(RecordedCall(f"s{session}", len(calls) + 1, tool, args, result, error))
    return calls


def _write(project: str, file: str, content: str) -> tuple[str, dict[str, Any]]:
    return ("write_file", {"project": project, "file": file, "content": content})


def _at(tool: str, project: str, file: str | None = None, content: str | None = None) -> tuple[str, dict[str, Any]]:
    args = {"project": project} | ({"file": file} if file else {}) | ({"content": content} if content else {})
    return (tool, args)


RECORDED = [
    bank(
        0,
        [
            _write("api", "brief.md", "# Goals"),
            _write("web", "brief.md", "# Web goals"),
            _at("read_file", "api", "brief.md"),
            _at("read_file", "web", "brief.md"),
            _write("api", "notes.md", "- ship"),
            _at("list_files", "api"),
            _at("list_projects", "api"),
            _at("read_file", "api", "todo.md"),
            _at("read_file", "docs", "brief.md"),
            _at("list_files", "docs"),
            _at("update_file", "api", "brief.md", "# New goals"),
            _at("read_file", "api", "brief.md"),
            _write("api", "brief.md", "# Ignored"),
            _at("read_file", "api", "brief.md"),
        ],
    ),
    bank(
        1,
        [
            _write("site", "plan.md", "plan one"),
            _write("cli", "plan.md", "plan two"),
            _at("read_file", "cli", "plan.md"),
            _at("update_file", "cli", "todo.md", "nothing"),
            _at("update_file", "tools", "plan.md", "nothing"),
            _at("update_file", "site", "plan.md", "plan three"),
            _at("read_file", "site", "plan.md"),
            _write("site", "alpha.md", "first"),
            _at("list_files", "site"),
            _at("list_projects", "site"),
            _write("site", "plan.md", "plan four"),
            _at("read_file", "site", "plan.md"),
            _at("read_file", "cli", "alpha.md"),
        ],
    ),
]


def test_a_file_named_by_its_project_and_its_name_is_read_back_listed_and_missed_apart() -> None:
    found = infer_guards(TOOLS, RECORDED, NAMES)
    assert all(found.answers_all(tool, sum(c.tool == tool for s in RECORDED for c in s)) for tool in NAMES)
    plans = found.plans
    assert plans["read_file"]["pairs"] == [["project", "file"]]

    def call(tool: str, **args: str) -> Any:
        return run_guard(plans[tool], tool, state, args)

    # Names the recordings never showed: one file name in two projects is two files.
    state: dict[str, Any] = {}
    assert call("list_projects") is None or call("list_projects") == ("", False)
    call("write_file", project="zeta", file="readme.md", content="zeta text")
    call("write_file", project="omega", file="readme.md", content="omega text")
    assert call("read_file", project="zeta", file="readme.md") == ("zeta text", False)
    assert call("read_file", project="omega", file="readme.md") == ("omega text", False)
    assert call("read_file", project="zeta", file="other.md") == ("File other.md not found", True)
    assert call("read_file", project="gamma", file="readme.md") == ("Project gamma not found", True)
    call("update_file", project="zeta", file="readme.md", content="zeta two")
    call("write_file", project="omega", file="readme.md", content="kept out")
    assert call("read_file", project="zeta", file="readme.md") == ("zeta two", False)
    assert call("read_file", project="omega", file="readme.md") == ("omega text", False)
    call("write_file", project="zeta", file="a.md", content="a")
    assert call("list_files", project="zeta") == ("a.md,readme.md", False)
    assert call("list_files", project="omega") == ("readme.md", False)
    assert call("list_files", project="gamma") == ("Project gamma not found", True)
    # The projects, not their files, are what the store's own listing shows.
    assert call("list_projects") == ("omega,zeta", False)
    assert call("update_file", project="omega", file="b.md", content="x") == ("File b.md not found", True)


def test_a_joined_key_is_no_one_argument_key() -> None:
    plans = infer_guards(TOOLS, RECORDED, NAMES).plans
    state: dict[str, Any] = {}
    # A project named as another's project and file joined by any printable text stays a project of its own.
    run_guard(plans["write_file"], "write_file", state, {"project": "a", "file": "b", "content": "one"})
    run_guard(plans["write_file"], "write_file", state, {"project": "a b", "file": "b", "content": "two"})
    run_guard(plans["write_file"], "write_file", state, {"project": "a/b", "file": "b", "content": "three"})
    listed = run_guard(plans["list_projects"], "list_projects", state, {})
    assert listed == ("a,a b,a/b", False)
    assert run_guard(plans["read_file"], "read_file", state, {"project": "a", "file": "b"}) == ("one", False)


def test_a_store_one_argument_explains_is_never_joined() -> None:
    # Each note is named by its title alone: the folder argument is only shown back.
    tools = [
        ToolSpec(
            name="put_note",
            input_schema={
                "type": "object",
                "properties": {"title": {"type": "string"}, "folder": {"type": "string"}, "text": {"type": "string"}},
                "required": ["title", "folder", "text"],
            },
        ),
        ToolSpec(
            name="get_note",
            input_schema={"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
        ),
    ]
    calls: list[RecordedCall] = []
    stored: dict[str, str] = {}
    steps = [
        ("put_note", {"title": t, "folder": f, "text": x})
        for t, f, x in [("alpha", "inbox", "one"), ("beta", "work", "two"), ("delta", "work", "three")]
    ]
    steps += [("get_note", {"title": t}) for t in ("alpha", "beta", "gamma", "delta")]
    for tool, args in steps:
        if tool == "put_note":
            stored[args["title"]] = args["text"]
            text, error = f"Saved {args['title']} in {args['folder']}", False
        else:
            text, error = stored.get(args["title"], f"No note {args['title']}"), args["title"] not in stored
        result = {"content": [{"type": "text", "text": text}], "isError": error}
        calls.append(RecordedCall("s0", len(calls) + 1, tool, args, result, error))
    plans = infer_guards(tools, [calls], ["put_note", "get_note"]).plans
    assert all("pairs" not in plan for plan in plans.values())
    assert plans["put_note"]["rules"][0]["effect"] == ["put", "title"]


def test_a_namespace_listed_as_json_shows_each_name_with_what_is_stored_under_it() -> None:
    # A collection's documents by id, listed as JSON objects (the id and the text), in the order stored.
    doc = {"collection": {"type": "string"}, "id": {"type": "string"}}
    tools = [
        ToolSpec(
            name="put_doc",
            input_schema={
                "type": "object",
                "properties": {**doc, "body": {"type": "string"}},
                "required": ["collection", "id", "body"],
            },
        ),
        ToolSpec(name="get_doc", input_schema={"type": "object", "properties": doc, "required": ["collection", "id"]}),
        ToolSpec(
            name="list_docs",
            input_schema={
                "type": "object",
                "properties": {"collection": {"type": "string"}},
                "required": ["collection"],
            },
        ),
    ]

    def store(session: int, steps: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
        docs: dict[str, dict[str, str]] = {}
        calls: list[RecordedCall] = []
        for tool, args in steps:
            found = docs.get(args["collection"], {})
            error = False
            if tool == "put_doc":
                docs.setdefault(args["collection"], {})[args["id"]] = args["body"]
                text = f"Stored {args['id']} in {args['collection']}"
            elif tool == "list_docs":
                text = json.dumps([{"id": key, "body": body} for key, body in found.items()])
            elif args["id"] in found:
                text = found[args["id"]]
            else:
                text, error = f"No document {args['id']} in {args['collection']}", True
            result = {"content": [{"type": "text", "text": text}], "isError": error}
            calls.append(RecordedCall(f"s{session}", len(calls) + 1, tool, args, result, error))
        return calls

    def put(collection: str, key: str, body: str) -> tuple[str, dict[str, Any]]:
        return ("put_doc", {"collection": collection, "id": key, "body": body})

    recorded = [
        store(
            0,
            [
                put("users", "u-zed", "Zed"),
                put("teams", "u-zed", "Team Zed"),
                put("users", "u-amy", "Amy"),
                ("get_doc", {"collection": "users", "id": "u-zed"}),
                ("get_doc", {"collection": "teams", "id": "u-zed"}),
                ("get_doc", {"collection": "teams", "id": "u-amy"}),
                ("list_docs", {"collection": "users"}),
                ("list_docs", {"collection": "teams"}),
            ],
        ),
        store(
            1,
            [
                put("orders", "o-77", "seven"),
                put("orders", "o-12", "twelve"),
                put("items", "o-12", "an item"),
                ("get_doc", {"collection": "items", "id": "o-12"}),
                ("get_doc", {"collection": "orders", "id": "o-12"}),
                ("list_docs", {"collection": "orders"}),
            ],
        ),
    ]
    plans = infer_guards(tools, recorded, ["put_doc", "get_doc", "list_docs"]).plans
    assert plans["put_doc"]["rules"][0]["effect"] == ["put", "collection+id"]
    state: dict[str, Any] = {}
    for collection, key, body in [("books", "b-9", "Nine"), ("books", "b-1", "One"), ("maps", "b-9", "A map")]:
        run_guard(plans["put_doc"], "put_doc", state, {"collection": collection, "id": key, "body": body})
    listed = run_guard(plans["list_docs"], "list_docs", state, {"collection": "books"})
    assert listed is not None
    shown = json.loads(listed[0]) if isinstance(listed[0], str) else listed[0]
    # The names under the namespace, not the joined keys: each as its second part.
    assert shown == [{"id": "b-9", "body": "Nine"}, {"id": "b-1", "body": "One"}]
    assert run_guard(plans["get_doc"], "get_doc", state, {"collection": "maps", "id": "b-9"}) == ("A map", False)
