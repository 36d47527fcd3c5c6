"""`LLMBackend`: a backend that answers a call by asking a model, through one provider's `Wire`.

One call's path: the model and limits its environment asks for, the call's output mode (llm/modes/) and
the model's profile (llm/profiles/), the prompt (its static part built once per environment version, tool
and mode), the request (`Requester`: limit, deadline, retries, response forms), the reply read, and the
mode's finishing step: what comes back is a finished `Outcome`, which the simulator checks and commits.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar, Self

from sim_mcp.config import LlmConfig
from sim_mcp.engine.backends.base import Backend
from sim_mcp.engine.contract import InvalidOutcome, JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.errors import BackendError, ConfigError
from sim_mcp.llm.modes import Mode, ModeContext, answering, prompt_for, system_prompt
from sim_mcp.llm.profiles import ModelProfile, profile_for
from sim_mcp.llm.reply import outcome_from_object, parse_json_object, parse_outcome
from sim_mcp.llm.request import Call, Reply, Requester, Wire, json_text
from sim_mcp.rules import Limits

__all__ = ["LLMBackend"]

# Static prompts kept per backend (one per environment version, tool, mode and profile; a reload makes a
# new version).
_STATIC_PROMPTS = 256

# A static prompt, its JSON encoding, and the reply schema of its tool and mode.
_Static = tuple[str, bytes, dict[str, Any]]


class LLMBackend(Backend):
    """A backend that asks a model through a provider SDK. A provider (`llm/providers/`) names its SDK's
    variables (`key_variable`, `url_variable`) and connects (`_connect`: its SDK client, inside its `Wire`)."""

    cacheable = True
    # The SDK's environment variables of its API key and its base URL, read when the settings give none.
    key_variable: ClassVar[str]
    url_variable: ClassVar[str]

    @classmethod
    def from_config(cls, settings: LlmConfig, limits: Limits | None = None) -> Self:
        return cls(settings, limits=limits)

    def __init__(self, settings: LlmConfig, *, limits: Limits | None = None, api_key: str | None = None) -> None:
        """`limits`: those of the programs the model writes, the engine's (None: the default limits); `api_key`:
        the key to send, instead of the SDK's variable's."""
        config = LlmConfig.of(settings)
        base_url = config.base_url or os.environ.get(self.url_variable) or None
        api_key = api_key if api_key is not None else os.environ.get(self.key_variable) or None
        wire, missing = self._connect(config, base_url, api_key)
        self.config = config
        self.limits = limits if limits is not None else Limits()
        self._missing = missing
        self.model = config.model
        self._requests = Requester(self.name, config, wire, base_url=base_url, api_key=api_key)
        # Checked now, so that a bad --model-profile stops the server before it serves.
        profile_for(config.model, config.model_profile)
        self._static: OrderedDict[tuple[str, str, str, str, str], _Static] = OrderedDict()

    @abstractmethod
    def _connect(self, config: LlmConfig, base_url: str | None, api_key: str | None) -> tuple[Wire, str | None]:
        """The wire to the provider (its SDK client made, when a request can be sent), and why no request can
        be sent (no key and no base URL), naming what to set; None when one can."""

    # -- Backend -----------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._missing is not None:
            raise ConfigError(self._missing)
        if self.model is None:
            raise ConfigError(f"backend {self.name} needs a model: give --model / SIM_MCP_MODEL")
        await self._requests.probe()

    async def aclose(self) -> None:
        await self._requests.aclose()

    def can_complete(self) -> bool:
        return True

    def profile(self, model: str) -> ModelProfile:
        """The profile of `model`, as `--model-profile` says (llm/profiles)."""
        return profile_for(model, self.config.model_profile)

    async def simulate(self, request: SimulationRequest) -> Outcome:
        model = self._model_for(request)
        answer_as = answering(request, self.config.llm_output)
        mode, request = answer_as.mode, answer_as.request
        profile = self.profile(model)
        system, system_json, schema = self._static_prompt(request, mode, profile)
        prompt = prompt_for(
            request,
            mode,
            history_events=self.config.history_events,
            state_budget_chars=self.config.state_budget_chars,
            profile=profile,
            system=system,
        )
        settings = request.environment.model_settings
        call = Call(
            purpose="simulate",
            model=model,
            system=prompt.system,
            system_json=system_json,
            user=prompt.user,
            max_tokens=self.config.max_tokens
            if settings is None or settings.max_tokens is None
            else settings.max_tokens,
            temperature=(
                self.config.temperature if settings is None or settings.temperature is None else settings.temperature
            ),
            name="outcome",
            schema=schema,
            seed=request.seed,
            cache_key=f"sim-mcp-{request.environment.name}-{request.environment.version}",
        )
        try:
            reply = await self._ask(call, shorter=mode.shorter)
        except InvalidOutcome as e:  # a reply cut off or not read: still this attempt's
            e.fallback = answer_as.fallback
            raise
        try:
            read = outcome_from_object(reply.tool_input) if reply.tool_input is not None else parse_outcome(reply.text)
            read.usage = reply.usage
            finished = mode.finish(read, request, ModeContext(profile, self.limits))
        except InvalidOutcome as e:
            answer = e.answer or reply.written
            raise InvalidOutcome(
                self.name, e.reason, model=model, usage=reply.usage, answer=answer, fallback=answer_as.fallback
            ) from None
        return finished.model_copy(update={"fallback": True}) if answer_as.fallback else finished

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        model = self.model
        if model is None:
            raise BackendError(self.name, "no model: give --model / SIM_MCP_MODEL")
        call = Call(
            purpose="complete",
            model=model,
            system=request.system,
            system_json=json_text(request.system),
            user=request.user,
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature,
            name=request.name,
            schema=request.schema,
            description=request.description,
        )
        reply = await self._ask(call, shorter="a shorter reply")
        required: Sequence[str] = request.schema.get("required", ())
        tool_input = reply.tool_input
        try:
            if isinstance(tool_input, dict) and all(key in tool_input for key in required):
                value: dict[str, Any] = tool_input
            else:
                value = parse_json_object(reply.text, required)
        except InvalidOutcome as e:
            raise InvalidOutcome(self.name, e.reason, model=model, usage=reply.usage, answer=reply.written) from None
        return JsonReply(value, reply.usage)

    # -- one call ------------------------------------------------------------------------------------

    def _model_for(self, request: SimulationRequest) -> str:
        """The environment's `model_settings.model`, else the server's `--model`."""
        settings = request.environment.model_settings
        model = (settings.model if settings is not None else None) or self.model
        if model is None:
            raise BackendError(self.name, "no model: give --model / SIM_MCP_MODEL")
        return model

    def _static_prompt(self, request: SimulationRequest, mode: Mode, profile: ModelProfile) -> _Static:
        """The call's static prompt, its JSON encoding and the mode's reply schema, built once per environment
        version, tool, mode and profile (the called tool is shown in full, the others by name: llm/context.py).
        The schema is kept too so that every call hands the wire the same object, whose encoding it keeps."""
        environment = request.environment
        key = (environment.name, environment.version, request.tool.name, mode.name, profile.name)
        found = self._static.get(key)
        if found is None:
            text = system_prompt(environment, request.tool, mode, profile)
            found = self._static[key] = (text, json_text(text), mode.schema(request))
            while len(self._static) > _STATIC_PROMPTS:
                self._static.popitem(last=False)
        return found

    async def _ask(self, call: Call, *, shorter: str) -> Reply:
        if self._missing is not None:
            raise BackendError(self.name, self._missing, model=call.model)
        return await self._requests.ask(call, shorter=shorter)
