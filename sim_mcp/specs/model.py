"""The one spec model every format is read into: an `Environment` with its `ToolSpec`s."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cached_property
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sim_mcp.plugins import OUTPUT_MODES
from sim_mcp.specs.stamps import latest_timestamp

JsonObject = dict[str, Any]


def _output_mode(name: str) -> str:
    if name not in OUTPUT_MODES:
        raise ValueError(f"expected one of {', '.join(OUTPUT_MODES)}, got {name!r}")
    return name


# How an LLM answers one call: an RFC 6902 patch of the state, a rules program run on it (docs/formats.md), or
# another output mode of the table of output modes (`sim_mcp.plugins.OUTPUT_MODES`).
LlmOutput = Annotated[str, AfterValidator(_output_mode)]


class ToolAnnotations(BaseModel):
    """MCP tool annotations (hints for clients, never enforced)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    title: str | None = None
    read_only_hint: bool | None = Field(default=None, alias="readOnlyHint")
    destructive_hint: bool | None = Field(default=None, alias="destructiveHint")
    idempotent_hint: bool | None = Field(default=None, alias="idempotentHint")
    open_world_hint: bool | None = Field(default=None, alias="openWorldHint")


class ToolExample(BaseModel):
    """A worked call, shown to LLM simulators as a hint of realistic output."""

    model_config = ConfigDict(extra="forbid")

    arguments: JsonObject = Field(default_factory=dict)
    result: Any = None
    is_error: bool = False
    description: str | None = None


class Latency(BaseModel):
    """Added latency drawn from a distribution, in milliseconds (draws below 0 count as 0):
    `{distribution: uniform, min: 100, max: 500}`, `{distribution: normal, mean: 200, stddev: 50}` or
    `{distribution: exponential, mean: 200}`. A fixed latency is a plain number instead."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    distribution: Literal["uniform", "normal", "exponential"]
    mean: float | None = Field(default=None, ge=0)
    stddev: float | None = Field(default=None, ge=0)
    min: float | None = Field(default=None, ge=0)
    max: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _parameters(self) -> Latency:
        needed = latency_parameters(self.distribution)
        for name in ("mean", "stddev", "min", "max"):
            given = getattr(self, name) is not None
            if given != (name in needed):
                wrong = f"missing {name}" if not given else f"{name} does not apply"
                raise ValueError(f"a {self.distribution} latency takes {' and '.join(needed)} (ms): {wrong}")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"uniform latency: min ({self.min:g}) is over max ({self.max:g})")
        return self

    @classmethod
    def parse(cls, text: str) -> float | Latency:
        """The flag form: `200` (fixed), `uniform:100:500`, `normal:200:50`, `exponential:200`."""
        name, _, rest = text.strip().partition(":")
        expected = (
            "expected milliseconds (e.g. 200) or DISTRIBUTION:PARAMS (uniform:MIN:MAX, normal:MEAN:STDDEV, "
            f"exponential:MEAN), got {text!r}"
        )
        try:
            numbers = [float(part) for part in (rest.split(":") if rest else [name])]
        except ValueError:
            raise ValueError(expected) from None
        if not all(math.isfinite(number) and number >= 0 for number in numbers):
            raise ValueError(f"expected milliseconds of 0 or more, got {text!r}")
        if not rest:
            return numbers[0]
        if name not in ("uniform", "normal", "exponential"):
            raise ValueError(f"unknown latency distribution {name!r}: {expected}")
        needed = latency_parameters(name)
        if len(numbers) != len(needed):
            raise ValueError(f"{name} latency takes {name}:{':'.join(part.upper() for part in needed)}, got {text!r}")
        return cls.of({"distribution": name, **dict(zip(needed, numbers, strict=True))})

    @classmethod
    def of(cls, value: Any) -> float | Latency:
        """A fixed latency (a number), a distribution (a mapping) or the flag form (text); ValueError if none."""
        if isinstance(value, Latency):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, bool) or not isinstance(value, (int, float, dict)):
            raise ValueError(
                "expected milliseconds or {distribution: uniform|normal|exponential, ...}, "
                f"got {type(value).__name__}"
            )
        if not isinstance(value, dict):
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"expected milliseconds of 0 or more, got {value!r}")
            return float(value)
        try:
            return cls.model_validate(value)
        except ValidationError as e:
            first = e.errors()[0]
            place = ".".join(str(part) for part in first["loc"])
            raise ValueError(
                f"{place}: {first['msg']}" if place else first["msg"].removeprefix("Value error, ")
            ) from None


def latency_parameters(distribution: str) -> tuple[str, ...]:
    """The parameters a latency distribution takes, in the order the flag form gives them."""
    match distribution:
        case "uniform":
            return ("min", "max")
        case "normal":
            return ("mean", "stddev")
        case _:
            return ("mean",)


class Faults(BaseModel):
    """Injected faults, for agents that must cope with flaky tools (see docs/training.md).

    Each call draws at most one of: an error result (`error_rate`), a timeout (`timeout_rate`: the call
    takes `timeout_ms`, then fails), a malformed result (`malformed_rate`: the call happens, its result
    arrives truncated); and, unless it timed out, `latency_ms` of added delay. Draws are seeded by
    `seed` with the session, its event number and the tool, so a run is reproducible. Blocks combine
    field by field: flags, then the environment's block, then the tool's.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    error_rate: float = Field(default=0.0, ge=0, le=1)
    timeout_rate: float = Field(default=0.0, ge=0, le=1)
    timeout_ms: float = Field(default=10_000.0, ge=0)
    malformed_rate: float = Field(default=0.0, ge=0, le=1)
    latency_ms: float | Latency | None = Field(default=None)
    seed: int | None = None

    @field_validator("latency_ms", mode="before")
    @classmethod
    def _latency(cls, value: Any) -> float | Latency | None:
        return None if value is None else Latency.of(value)

    @model_validator(mode="after")
    def _rates(self, info: ValidationInfo) -> Faults:
        total = self.error_rate + self.timeout_rate + self.malformed_rate
        # Each block holds its rates to at most 1; combined blocks may go over, and then the faults drawn
        # first (error, then timeout, then malformed) take precedence.
        combined = isinstance(info.context, dict) and info.context.get("combined") is True
        if total > 1 + 1e-9 and not combined:
            raise ValueError(
                f"error_rate + timeout_rate + malformed_rate is {total:g}: expected at most 1 (one fault per call)"
            )
        return self

    def over(self, base: Faults | None) -> Faults:
        """This block's fields, over `base`'s where this block leaves them unset."""
        if base is None:
            return self
        merged = {**base.model_dump(exclude_unset=True), **self.model_dump(exclude_unset=True)}
        return Faults.model_validate(merged, context={"combined": True})


class ToolSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_.\-]{1,128}$")
    title: str | None = None
    description: str = ""
    # camelCase accepted too, as MCP writes it.
    input_schema: JsonObject = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        validation_alias=AliasChoices("input_schema", "inputSchema"),
    )
    output_schema: JsonObject | None = Field(
        default=None, validation_alias=AliasChoices("output_schema", "outputSchema")
    )
    examples: list[ToolExample] = Field(default_factory=list)
    annotations: ToolAnnotations | None = None
    faults: Faults | None = Field(default=None, description="Injected faults for this tool (over the environment's).")


class ModelSettings(BaseModel):
    """Per-environment LLM settings; unset fields fall back to the server's settings."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, gt=0)
    llm_output: LlmOutput | None = Field(
        default=None,
        description="How the model answers a call: a JSON patch of the state, a short program that the engine "
        "runs on the state (exact arithmetic), or auto (a program for a call that changes the state, a patch for "
        "a read); unset: the server's --llm-output.",
    )


class Environment(BaseModel):
    """One simulated world: its rules, its initial state and its tools."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_\-]{1,64}$")
    description: str = ""
    instructions: str = ""
    initial_state: JsonObject = Field(default_factory=dict)
    now: str | None = Field(
        default=None,
        description="The world's current time, an ISO 8601 date or date-time (`2025-03-14T10:00:00Z`): the "
        "clock of its sessions starts there, not after the seeded world's latest timestamp.",
    )
    tools: list[ToolSpec] = Field(default_factory=list)
    model_settings: ModelSettings | None = None
    faults: Faults | None = Field(default=None, description="Injected faults for every tool of this environment.")
    user_tool: bool = Field(
        default=False, description="Offer every session the simulated user as the MCP tool ask_user (docs/users.md)."
    )
    rules: str | None = Field(
        default=None,
        description="A rules program (Starlark, one function per tool: docs/formats.md), inline; or in a file "
        "`<spec name>.rules.star` beside the spec.",
    )
    source: str = Field(default="", exclude=True, description="The file this environment was read from.")
    rules_source: str = Field(default="", exclude=True, description="The file (or spec key) the rules came from.")

    @field_validator("now")
    @classmethod
    def _iso_now(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"now must be an ISO 8601 date or date-time such as 2025-03-14T10:00:00Z, got {value!r}"
            ) from None
        moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    def tool(self, name: str) -> ToolSpec | None:
        return next((tool for tool in self.tools if tool.name == name), None)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Environment:
        """A copy, with what is derived from the fields (`version`, `latest_stamp`) found again: pydantic copies
        the instance's dictionary, where a cached property keeps its value, and an update would leave it stale."""
        copied = super().model_copy(update=update, deep=deep)
        for name, attribute in vars(Environment).items():
            if isinstance(attribute, cached_property):
                copied.__dict__.pop(name, None)
        return copied

    @cached_property
    def latest_stamp(self) -> datetime | None:
        """The latest ISO 8601 timestamp of the initial state (a session's clock starts after it), scanned once
        per environment: on a large world, scanning on every call cost more than the call."""
        return latest_timestamp(self.initial_state)

    @cached_property
    def version(self) -> str:
        """A short content hash: changes whenever the spec changes (keys caches and recordings). Faults are
        left out: they are the simulator's doing, not the world's, so changing them keeps recordings valid."""
        dumped = self.model_dump(mode="json", exclude={"faults": True, "tools": {"__all__": {"faults"}}})
        canonical = json.dumps(dumped, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]
