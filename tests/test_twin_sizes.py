"""Sizes of stored documents: a bank of Markdown documents kept as files, each written with a header of its tags,
whose listing shows each document's size on disk (its text's length, its tags' and the header's) and whose
append adds a paragraph to a document (a blank line between) and answers the length of its text after. Sessions
of a Python model of it are compiled by the real learner, and the twin's Starlark answers documents it never
saw: their sizes as listed, after an append too."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules import CallContext, Limits, compile_program, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec
from sim_mcp.state.patch import apply_patch
from tests.twin_learning import compile_recorded, played

_TEXT = {"type": "string"}
_TAGS = {"type": "array", "items": {"type": "string"}}
TOOLS = [
    ToolSpec(
        name="write_doc",
        input_schema={
            "type": "object",
            "properties": {"name": _TEXT, "content": _TEXT, "tags": _TAGS},
            "required": ["name", "content", "tags"],
        },
    ),
    ToolSpec(
        name="append_doc",
        input_schema={
            "type": "object",
            "properties": {"name": _TEXT, "content": _TEXT},
            "required": ["name", "content"],
        },
    ),
    ToolSpec(name="list_docs", input_schema={"type": "object", "properties": {}}),
]
NAMES = ["plan.md", "notes.md", "progress.md", "ideas.md", "backlog.md"]
TEXTS = ["# Plan\n\nship the beta", "kept the cache", "review on friday", "- [ ] fix the login", "two more tests"]
TAGS = ["core", "backend", "ui", "release", "docs"]
UNSEEN_NAMES = ["roadmap.md", "retro.md"]
UNSEEN_TEXTS = ["# Roadmap\n\nquarter three goals", "what went well this sprint", "moved the deadline"]


class DocServer:
    """Each document a file: a header of its tags (`---\\ntags: a, b\\n---\\n`) before its text."""

    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, args: dict[str, Any]) -> tuple[str, bool]:
        if tool == "write_doc":
            self.docs[args["name"]] = {"content": args["content"], "tags": list(args["tags"])}
            return json.dumps({"success": True, "name": args["name"]}), False
        if tool == "append_doc":
            doc = self.docs.get(args["name"])
            if doc is None:
                return json.dumps({"error": f"no document {args['name']}"}), True
            doc["content"] = doc["content"] + "\n\n" + args["content"]
            return json.dumps({"success": True, "contentLength": len(doc["content"])}), False
        rows = [
            {
                "name": name,
                "tags": doc["tags"],
                "size": len(f"---\ntags: {', '.join(doc['tags'])}\n---\n") + len(doc["content"]),
            }
            for name, doc in self.docs.items()
        ]
        return json.dumps({"documents": rows}), False


def sessions(seed: int, count: int) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    recorded = []
    for number in range(count):
        written: list[str] = []
        calls: list[tuple[str, dict[str, Any]]] = []
        for _ in range(10):
            pick = rng.random()
            if pick < 0.4 or not written:
                name = rng.choice(NAMES)
                if name not in written:
                    written.append(name)
                tags = rng.sample(TAGS, 2)
                calls.append(("write_doc", {"name": name, "content": rng.choice(TEXTS), "tags": tags}))
            elif pick < 0.7:
                calls.append(("append_doc", {"name": rng.choice(written), "content": rng.choice(TEXTS)}))
            else:
                calls.append(("list_docs", {}))
        server = DocServer()
        recorded.append(played(server.call, f"s{number}", calls))
    return recorded


def test_a_listed_size_counts_the_text_its_tags_and_a_header_and_an_append_adds_a_paragraph(tmp_path: Path) -> None:
    report = compile_recorded(tmp_path, TOOLS, sessions(0, 16))
    for name in ("write_doc", "append_doc", "list_docs"):
        assert report[name]["status"] in ("guarded", "exact"), report[name]
    program = compile_program((tmp_path / "spec.rules.star").read_text(), "<twin>", [tool.name for tool in TOOLS])
    state: dict[str, Any] = {"_twin": {"keys": {}}}
    server = DocServer()

    def agree(tool: str, args: dict[str, Any]) -> None:
        nonlocal state
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool=tool)
        outcome = run_tool(program, tool, state, args, context, Limits(), handing_on=True)
        assert outcome.declined is None, f"{tool}({args}) was handed on: {outcome.declined}"
        real = server.call(tool, args)
        verdict = compare_answers(Answer(json.loads(real[0]), real[1]), Answer(outcome.result, outcome.is_error))
        assert verdict.agree, f"{tool}({args}): twin {outcome.result}, server {real[0]}"
        state = apply_patch(state, outcome.state_patch) if outcome.state_patch else state

    agree("write_doc", {"name": UNSEEN_NAMES[0], "content": UNSEEN_TEXTS[0], "tags": ["plans", "q3"]})
    agree("write_doc", {"name": UNSEEN_NAMES[1], "content": UNSEEN_TEXTS[1], "tags": ["team", "sprint"]})
    agree("list_docs", {})
    agree("append_doc", {"name": UNSEEN_NAMES[0], "content": UNSEEN_TEXTS[2]})
    agree("list_docs", {})
