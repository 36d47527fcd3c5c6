"""Tasks: an environment, a starting state, and the checks that decide whether an episode succeeded.

Task files live beside the specs, in a folder named `tasks` (e.g. `tool_specs/tasks/*.yaml`); the spec
registry never reads them as environments. A file holds one task (a mapping, whose `name` defaults to
the file's stem) or a list of them::

    name: close-login-loop
    env: tickets
    description: Close the SSO login-loop ticket with a resolution that mentions the fix.
    difficulty: 1
    initial_state: {tickets: {T-1004: {status: open}}}     # RFC 7386 merge patch over initial_state
    checks:
      - {path: /tickets/T-1004/status, equals: closed}
      - {path: /tickets/T-1004/resolution, contains: okta, name: resolution mentions Okta}
      - {path: "$.tickets[?(@.status == 'open')]", count: {max: 2}, weight: 0.5}
    judge: {rubric: "The resolution explains the fix to the customer.", weight: 1}
    reward: gain         # doing nothing earns 0 (default absolute: the share of checks passed)
    user:                # the simulated user the agent serves (episodes/user.py)
      persona: Ines, IT admin at Copperfield; short, precise messages.
      goal: Get the SSO login loop on her team's workspace fixed, or know when it will be.
      known: ["The ticket is T-1004."]              # shared when the agent asks for it
      withheld: [{about: your Okta admin password, value: hunter2}]   # never revealed, never shown to a model
      messages: ["Hi, our SSO login still loops.", "It's T-1004."]    # what the offline user says, in order
      tool: true         # also reachable over MCP, as the ask_user tool
    solution:            # a reference solution (task generation writes one and replays it)
      - {tool: close_ticket, arguments: {ticket_id: T-1004, resolution: Fixed in Okta}}

A check reads the final state of the task's environment at `path`, a JSON Pointer (`/tickets/T-1001`)
or a JSONPath (`$.tickets[*].status`), and holds exactly one kind of condition: `equals`, `contains`,
`count`, `exists`, `absent` (`episodes/check_kinds.py`), or one the table of check kinds gains
(`sim_mcp.plugins.CHECK_KINDS`). How they are evaluated: `episodes/checks.py` and docs/rewards.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import yaml
from jsonpath_ng import JSONPath
from jsonpath_ng.ext.parser import parse as parse_jsonpath
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StrictInt,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)

from sim_mcp.episodes.checks import check_kind
from sim_mcp.errors import SpecError
from sim_mcp.plugins import CHECK_KINDS
from sim_mcp.specs.formats import SPEC_SUFFIXES, parse_document, visible_files
from sim_mcp.specs.formats.checks import pydantic_reason
from sim_mcp.specs.registry import TASKS_FOLDER, in_tasks_folder
from sim_mcp.specs.schema import json_path, type_name

__all__ = [
    "Check",
    "CountBounds",
    "JudgeSpec",
    "ScriptedMessage",
    "SolutionStep",
    "Task",
    "UserSpec",
    "WithheldFact",
    "load_tasks",
    "parse_task",
    "reveals",
    "task_files",
    "task_yaml",
    "withheld_leaks",
]

TASK_NAME_PATTERN = r"^[A-Za-z0-9_.\-]{1,128}$"
_POINTER_ESCAPE = re.compile(r"~(?![01])")


class CountBounds(BaseModel):
    """How many values a `count` check accepts: exactly `equals`, or between `min` and `max`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    equals: StrictInt | None = Field(default=None, ge=0)
    min: StrictInt | None = Field(default=None, ge=0)
    max: StrictInt | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> CountBounds:
        if self.equals is None and self.min is None and self.max is None:
            raise ValueError("expected at least one of equals, min, max")
        if self.equals is not None and (self.min is not None or self.max is not None):
            raise ValueError("expected either equals or min/max, not both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        return self

    def describe(self) -> str:
        if self.equals is not None:
            return f"exactly {self.equals}"
        if self.min is not None and self.max is not None:
            return f"between {self.min} and {self.max}"
        return f"at least {self.min}" if self.min is not None else f"at most {self.max}"


class Check(BaseModel):
    """One success condition on a JSON document (a task's final state, or a benchmark step's result).

    The conditions of sim-mcp's own kinds are fields (typed, so a file's mistakes are named at their place);
    a check of a kind the table of check kinds gained (`register_check_kind`) keeps its condition, as the
    kind parsed it, beside them (`condition`), and writes it back under its own key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(description="A JSON Pointer (/tickets/T-1001/status) or a JSONPath ($.tickets[*].status).")
    name: str | None = Field(default=None, description="Shown in results; default: the path and the condition.")
    weight: float = Field(default=1.0, ge=0, description="Share of the reward, relative to the other checks.")
    match: Literal["all", "any"] = Field(
        default="all", description="JSONPath with equals/contains: must every value found satisfy it, or one?"
    )
    equals: Any = None
    contains: Any = None
    count: CountBounds | None = Field(default=None, description="A number, or {equals | min | max}.")
    exists: bool | None = None
    absent: bool | None = None

    _jsonpath: JSONPath | None = PrivateAttr(default=None)
    _added: tuple[str, Any] | None = PrivateAttr(default=None)

    @field_validator("count", mode="before")
    @classmethod
    def _count_shorthand(cls, count: Any) -> Any:
        # `count: 3` is `count: {equals: 3}`.
        if isinstance(count, int) and not isinstance(count, bool):
            return {"equals": count}
        if count is not None and not isinstance(count, dict | CountBounds):
            raise ValueError(f"expected a number or {{equals | min | max: number}}, got {type_name(count)}")
        return count

    @field_validator("path")
    @classmethod
    def _path_syntax(cls, path: str) -> str:
        if path == "" or path.startswith("/"):
            if _POINTER_ESCAPE.search(path):
                raise ValueError(f"invalid JSON Pointer {path!r}: '~' must be followed by 0 or 1 (~0 is ~, ~1 is /)")
            return path
        if path.startswith("$"):
            compile_jsonpath(path)
            return path
        raise ValueError(
            f"expected a JSON Pointer (e.g. /tickets/T-1001/status) or a JSONPath (e.g. $.tickets[*].status), "
            f"got {path!r}"
        )

    @model_validator(mode="wrap")
    @classmethod
    def _one_kind(cls, data: Any, handler: ModelWrapValidatorHandler[Check]) -> Check:
        added: dict[str, Any] = {}
        if isinstance(data, dict):
            added = {key: data[key] for key in data if key not in cls.model_fields and key in CHECK_KINDS}
            data = {key: value for key, value in data.items() if key not in added}
        check = handler(data)
        given = [kind for kind in CHECK_KINDS.builtin() if kind in check.model_fields_set] + list(added)
        if len(given) != 1:
            got = f"got {' and '.join(given)}" if given else "got none"
            raise ValueError(f"expected exactly one of {', '.join(CHECK_KINDS)}; {got}")
        if given[0] == "count" and check.count is None:
            raise ValueError("count: expected a number or {equals|min|max: number}, got null")
        if given[0] in ("exists", "absent") and getattr(check, given[0]) is None:
            raise ValueError(f"{given[0]}: expected true or false, got null")
        if added:
            ((key, condition),) = added.items()
            try:
                check._added = (key, check_kind(key).parse(condition))
            except ValueError as e:
                raise ValueError(f"{key}: {e}") from None
        return check

    @model_serializer(mode="wrap")
    def _with_added_kind(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        document = handler(self)
        if self._added is not None and isinstance(document, dict):
            document[self._added[0]] = self._added[1]
        return document

    def model_post_init(self, context: Any) -> None:
        if self.path.startswith("$"):
            self._jsonpath = compile_jsonpath(self.path)

    @property
    def kind(self) -> str:
        """The name of the check's kind of condition (`equals`, `count`...)."""
        if self._added is not None:
            return self._added[0]
        return next(kind for kind in CHECK_KINDS.builtin() if kind in self.model_fields_set)

    @property
    def condition(self) -> Any:
        """What the check's kind holds the values found to: `equals`'s value, `count`'s bounds..."""
        return self._added[1] if self._added is not None else getattr(self, self.kind)

    @property
    def jsonpath(self) -> JSONPath | None:
        """The compiled JSONPath, or None when `path` is a JSON Pointer."""
        return self._jsonpath

    @property
    def label(self) -> str:
        """`name`, or a description such as `/tickets/T-1001/status equals 'closed'`."""
        if self.name:
            return self.name
        return f"{self.path} {check_kind(self.kind).labelled(self.condition)}"


class JudgeSpec(BaseModel):
    """An LLM judge: a rubric, scored 0..1 from the final state and the event log."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rubric: str = Field(min_length=1)
    weight: float = Field(default=1.0, ge=0, description="Share of the reward, against the checks' total weight.")
    pass_score: float = Field(default=0.5, ge=0, le=1, description="The lowest score that counts as passed.")


class WithheldFact(BaseModel):
    """Something the user knows and never tells (a password, a card number). `value` is never shown to any
    model: the user simulator sees only `about`, so that it can refuse plainly, and a reply that holds the
    value anyway is rejected. A plain string is the value, with nothing said about it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    about: str = Field(default="", description="What it is, as the user simulator is told: 'your account password'.")
    value: str = Field(min_length=1, description="The secret itself: never shown to a model, never in a reply.")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"value": value} if isinstance(value, str) else value


class ScriptedMessage(BaseModel):
    """One message of the offline user (a backend without a model replays them in order)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    message: str = Field(min_length=1)
    done: bool = Field(default=False, description="This message ends the conversation.")
    reason: Literal["goal_met", "abandoned"] | None = Field(default=None, description="Why it ends (with done).")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"message": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _reason_ends(self) -> ScriptedMessage:
        if self.reason is not None and not self.done:
            raise ValueError(f"reason {self.reason!r} is only given with done: true")
        return self


class UserSpec(BaseModel):
    """The simulated user an episode's agent serves: who they are, what they want, what they know."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    persona: str = Field(default="", description="Who the user is and how they write.")
    goal: str = Field(min_length=1, description="What the user wants from the conversation.")
    known: list[str] = Field(
        default_factory=list, description="Facts the user knows (the agent doesn't) and shares when asked for them."
    )
    withheld: list[WithheldFact] = Field(default_factory=list, description="Private facts: never revealed.")
    instructions: str = Field(default="", description="More rules for the user: 'accept a refund, not a voucher'.")
    messages: list[ScriptedMessage] = Field(
        default_factory=list, description="What the user says with no model (offline), in order."
    )
    max_turns: int = Field(default=20, ge=1, le=1000, description="Replies before the user gives up (abandoned).")
    tool: bool = Field(default=False, description="Also offer the user to the agent as the MCP tool ask_user.")


class SolutionStep(BaseModel):
    """One tool call of a reference solution."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(min_length=1, description="A tool of the task's environment, by its plain name.")
    arguments: dict[str, Any] = Field(default_factory=dict)


class Task(BaseModel):
    """What an episode is for, and how its success is measured."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=TASK_NAME_PATTERN)
    env: str = Field(min_length=1, description="The environment the task runs in.")
    description: str = ""
    difficulty: int | str | None = None
    initial_state: dict[str, Any] | None = Field(
        default=None, description="Changes to the environment's initial_state (see state_mode)."
    )
    state_mode: Literal["merge", "replace"] = Field(
        default="merge", description="merge: initial_state is an RFC 7386 merge patch; replace: the whole state."
    )
    checks: list[Check] = Field(default_factory=list)
    judge: JudgeSpec | None = None
    reward: Literal["absolute", "gain"] = Field(
        default="absolute",
        description="absolute: the share of the checks the final state passes; gain: the share of what the "
        "starting state did not yet pass that the episode achieved (0 for doing nothing). docs/rewards.md.",
    )
    user: UserSpec | None = Field(default=None, description="The simulated user the agent serves.")
    solution: list[SolutionStep] = Field(
        default_factory=list, description="A reference solution: tool calls that achieve the task."
    )
    metadata: dict[str, Any] = Field(default_factory=dict, description="Free-form: tags, provenance...")
    source: str = Field(default="", exclude=True, description="The file this task was read from.")

    @model_validator(mode="after")
    def _scored(self) -> Task:
        if not self.checks and self.judge is None:
            raise ValueError("a task needs at least one check or a judge")
        total = sum(check.weight for check in self.checks) + (self.judge.weight if self.judge else 0)
        if total <= 0:
            raise ValueError("the weights of the checks and the judge add up to 0: give one of them a weight above 0")
        return self

    def summary(self) -> dict[str, Any]:
        """What a listing shows of the task: its name, env, difficulty and description, and what scores it."""
        shown = self.model_dump(include={"name", "env", "difficulty", "description"})
        return {**shown, "checks": len(self.checks), "judge": self.judge is not None, "user": self.user is not None}


# Every field name of the models above: what an error's location may name besides list indexes.
_FIELDS = frozenset().union(
    *(
        model.model_fields
        for model in (Task, Check, CountBounds, JudgeSpec, UserSpec, WithheldFact, ScriptedMessage, SolutionStep)
    )
)
_NOT_WORD = re.compile(r"[\W_]+")
_SPACES = re.compile(r"\s+")
# A withheld value this long (letters and digits only) or longer is also found with its separators changed.
_COMPACT_MIN = 4


def reveals(text: str, value: str) -> bool:
    """Whether `text` holds the withheld `value`: case-insensitively, whatever the spacing, and for values of
    4 letters and digits or more, whatever the separators (`4417-2290` in `4417 2290`)."""
    if not value.strip():
        return False
    folded = _SPACES.sub(" ", text.casefold())
    if _SPACES.sub(" ", value.casefold().strip()) in folded:
        return True
    compact = _NOT_WORD.sub("", value.casefold())
    return len(compact) >= _COMPACT_MIN and compact in _NOT_WORD.sub("", folded)


def withheld_leaks(task: Task) -> list[tuple[list[str | int], str]]:
    """Places of the task that hold a withheld value (the description, the rubric, what the user simulator or
    the offline user says): (field path, reason). A task with any is refused."""
    user = task.user
    if user is None or not user.withheld:
        return []
    texts: list[tuple[list[str | int], str]] = [(["description"], task.description)]
    if task.judge is not None:
        texts.append((["judge", "rubric"], task.judge.rubric))
    texts += [(["user", "persona"], user.persona), (["user", "goal"], user.goal)]
    texts += [(["user", "known", index], fact) for index, fact in enumerate(user.known)]
    texts.append((["user", "instructions"], user.instructions))
    texts += [(["user", "messages", index], item.message) for index, item in enumerate(user.messages)]
    texts += [(["user", "withheld", index, "about"], fact.about) for index, fact in enumerate(user.withheld)]
    leaks: list[tuple[list[str | int], str]] = []
    for loc, text in texts:
        for index, fact in enumerate(user.withheld):
            if text and reveals(text, fact.value):
                what = f" ({fact.about})" if fact.about else ""
                leaks.append(
                    (
                        loc,
                        f"holds the value of user.withheld[{index}]{what}: a withheld fact must appear nowhere that "
                        "a model or the agent reads",
                    )
                )
                break
    return leaks


def task_yaml(task: Task, *, header: str = "") -> str:
    """The task as a task file's YAML (its fields as given; `header` lines first, as comments)."""
    document = task.model_dump(mode="json", exclude_unset=True)
    user = document.get("user")
    if isinstance(user, dict):
        # The short forms, where they say it all: a message as its text, a withheld fact as its value.
        user["messages"] = [_short_form(item, "message") for item in user.get("messages", [])]
        user["withheld"] = [_short_form(item, "value") for item in user.get("withheld", [])]
        user = {key: value for key, value in user.items() if value != []}
        document["user"] = user
    text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    comments = "".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())
    return comments + text


def compile_jsonpath(path: str) -> JSONPath:
    """A JSONPath (the extended syntax of `jsonpath-ng`: filters, `len`...); ValueError naming the problem."""
    try:
        return parse_jsonpath(path)
    except Exception as e:  # JSONPathError, and bare Exceptions from its lexer
        raise ValueError(f"invalid JSONPath {path!r}: {e}") from None


def parse_task(document: Any, source: str, *, default_name: str | None = None, place: str = "") -> Task:
    """One task from a decoded document; `SpecError` naming `source`, the field path and the reason."""
    if not isinstance(document, dict):
        raise SpecError(source, f"expected a task (a mapping with env and checks), got {type_name(document)}", place)
    fields = dict(document)
    if "name" not in fields and default_name is not None:
        fields["name"] = default_name
    try:
        task = Task.model_validate({**fields, "source": source})
    except ValidationError as e:
        first = e.errors()[0]
        loc = _document_loc(first["loc"], first["type"])
        where = json_path(loc, place)
        reason = pydantic_reason(first) if first["type"] != "value_error" else _value_error(first)
        raise SpecError(source, reason, where) from e
    for loc, reason in withheld_leaks(task)[:1]:
        raise SpecError(source, reason, json_path(loc, place))
    return task


def task_files(root: Path) -> list[Path]:
    """The task files under `root`: those in a folder named `tasks` (or `root` itself, when it is one)."""
    if root.is_file():
        return [root] if root.parent.name == TASKS_FOLDER and root.suffix in SPEC_SUFFIXES else []
    if not root.is_dir():
        return []
    return [path for path in visible_files(root) if in_tasks_folder(root, path)]


def load_tasks(*paths: Path) -> tuple[dict[str, Task], list[SpecError]]:
    """Every task under `paths` (spec folders, `tasks` folders or task files), by name, and the errors
    of the files or entries that failed (those are skipped; a name defined twice keeps the first)."""
    tasks: dict[str, Task] = {}
    errors: list[SpecError] = []
    for root in paths:
        for path in task_files(root):
            source = str(path)
            try:
                document = parse_document(path)
            except SpecError as e:
                errors.append(e)
                continue
            entries = list(enumerate(document)) if isinstance(document, list) else [(None, document)]
            for index, entry in entries:
                place = f"[{index}]" if index is not None else ""
                try:
                    task = parse_task(entry, source, default_name=path.stem if index is None else None, place=place)
                except SpecError as e:
                    errors.append(e)
                    continue
                if (other := tasks.get(task.name)) is not None:
                    reason = f"task {task.name!r} is already defined in {other.source}"
                    errors.append(SpecError(source, reason, json_path(["name"], place)))
                    continue
                tasks[task.name] = task
    return tasks, errors


def _short_form(item: Any, key: str) -> Any:
    return item[key] if isinstance(item, dict) and list(item) == [key] else item


def _document_loc(loc: tuple[str | int, ...], kind: str) -> list[str | int]:
    """An error's location as a path in the document: without the union members pydantic names in it
    (`difficulty.int`, `count.function-after[...]`), which are no keys of the document."""
    last = len(loc) - 1
    return [
        part
        for index, part in enumerate(loc)
        if isinstance(part, int) or part in _FIELDS or (index == last and kind == "extra_forbidden")
    ]


def _value_error(error: Any) -> str:
    message = str(error["msg"])
    return message.removeprefix("Value error, ")
