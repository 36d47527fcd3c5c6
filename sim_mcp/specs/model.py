"""The one spec model every format is read into: an `Environment` with its `ToolSpec`s."""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

JsonObject = dict[str, Any]


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


class ModelSettings(BaseModel):
    """Per-environment LLM settings; unset fields fall back to the server's settings."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, gt=0)


class Environment(BaseModel):
    """One simulated world: its rules, its initial state and its tools."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_\-]{1,64}$")
    description: str = ""
    instructions: str = ""
    initial_state: JsonObject = Field(default_factory=dict)
    tools: list[ToolSpec] = Field(default_factory=list)
    model_settings: ModelSettings | None = None
    source: str = Field(default="", exclude=True, description="The file this environment was read from.")

    def tool(self, name: str) -> ToolSpec | None:
        return next((tool for tool in self.tools if tool.name == name), None)

    @cached_property
    def version(self) -> str:
        """A short content hash: changes whenever the spec changes (keys caches and recordings)."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]
