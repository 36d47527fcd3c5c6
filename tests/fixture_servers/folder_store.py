"""A store of notes in folders (`python -m tests.fixture_servers.folder_store`): a note is named by two
arguments together, its folder and its name (the same name in two folders is two notes), as a project's
files or a namespace's keys are. Writing a note makes its folder; a folder's notes are listed sorted, with
their count; the folders themselves are listed too. "Folder not found" and "note not found" differ."""

from __future__ import annotations

from typing import Any

from tests.fixture_servers._stdio import serve, tool

_NOTE = {"folder": {"type": "string"}, "name": {"type": "string"}}
TOOLS = [
    tool(
        "write_note",
        "Write a note in a folder (replacing the text it had); makes the folder.",
        {**_NOTE, "text": {"type": "string"}},
        ["folder", "name", "text"],
    ),
    tool("read_note", "The text of a note in a folder.", _NOTE, ["folder", "name"]),
    tool("delete_note", "Delete a note from a folder (the folder stays).", _NOTE, ["folder", "name"]),
    tool(
        "list_notes",
        "How many notes a folder holds, and their names, sorted.",
        {"folder": {"type": "string"}},
        ["folder"],
    ),
    tool("list_folders", "Every folder, sorted.", {}, []),
]


def main() -> None:
    folders: dict[str, dict[str, str]] = {}

    def handle(name: str, args: dict[str, Any]) -> tuple[str, bool]:
        folder = str(args.get("folder", ""))
        if name == "list_folders":
            return ("Folders: " + ", ".join(sorted(folders))) if folders else "No folders", False
        if name == "write_note":
            folders.setdefault(folder, {})[str(args["name"])] = str(args["text"])
            return f"Wrote {args['name']} in {folder}", False
        if folder not in folders:
            return f"Folder {folder} not found", True
        notes = folders[folder]
        if name == "list_notes":
            return f"{len(notes)} notes in {folder}: " + ", ".join(sorted(notes)), False
        note = str(args["name"])
        if note not in notes:
            return f"No note {note} in {folder}", True
        if name == "read_note":
            return notes[note], False
        if name == "delete_note":
            del notes[note]
            return f"Deleted {note} from {folder}", False
        return f"Unknown tool {name}", True

    serve("folder-store", TOOLS, handle)


if __name__ == "__main__":
    main()
