"""Asking a backend's model for one JSON object until an answer is usable, feeding each problem back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import InvalidOutcome, JsonRequest
from sim_mcp.state.session import TokenUsage

T = TypeVar("T")


@dataclass
class Answer(Generic[T]):
    """The first usable value (None when no attempt gave one), the tokens all attempts cost, and the
    problems of the rejected ones, in order."""

    value: T | None
    usage: TokenUsage = field(default_factory=TokenUsage)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class JsonForm:
    """What one kind of question asks for: the JSON Schema of the answer, its name and what it is. It never
    changes between questions, so each kind is declared once, beside its schema."""

    schema: dict[str, Any]
    name: str
    description: str

    def request(self, prompt: tuple[str, str]) -> JsonRequest:
        """The request for one question, from its prompt as (system, user)."""
        system, user = prompt
        return JsonRequest(system=system, user=user, schema=self.schema, name=self.name, description=self.description)


@dataclass(frozen=True)
class Problem:
    """What `read` returns for an unusable reply: the explanation fed back to the model."""

    text: str


async def ask_json(
    backend: Backend,
    request: JsonRequest,
    read: Callable[[dict[str, Any]], T | Problem],
    *,
    attempts: int,
    what: str = "answer",
) -> Answer[T]:
    """Ask up to `attempts` times; `read` turns a reply into a value or a `Problem`. A reply that is not
    a JSON object at all (`InvalidOutcome`) is a problem too; other backend errors propagate."""
    answer: Answer[T] = Answer(None)
    for _ in range(attempts):
        asked = request
        if answer.problems:
            again = f"\n\nYour previous {what} was unusable: {answer.problems[-1]}. Give it again as one JSON object."
            asked = replace(request, user=request.user + again)
        try:
            reply = await backend.complete_json(asked)
        except InvalidOutcome as e:
            answer.usage = answer.usage + e.usage
            answer.problems.append(e.reason)
            continue
        answer.usage = answer.usage + reply.usage
        value = read(reply.value)
        if isinstance(value, Problem):
            answer.problems.append(value.text)
            continue
        answer.value = value
        return answer
    return answer
