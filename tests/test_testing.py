"""`sim_mcp.testing`: the scripted backend, as a user's test would use it."""

from __future__ import annotations

from pathlib import Path

from sim_mcp.config import Settings
from sim_mcp.engine.contract import JsonRequest, Outcome, SimulationRequest
from sim_mcp.runtime import Runtime
from sim_mcp.testing import FunctionBackend, scripted

SPEC = """
name: notes
initial_state: {notes: {}}
tools:
  - {name: add_note, input_schema: {type: object, properties: {text: {type: string}}}}
"""


async def test_a_function_scripts_each_outcome_and_sees_each_request(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text(SPEC)

    async def answer(request: SimulationRequest) -> Outcome:
        text = request.arguments["text"]
        return Outcome(result={"saved": text}, state_patch=[{"op": "add", "path": f"/notes/{text}", "value": 1}])

    backend = FunctionBackend(answer)
    async with Runtime(Settings(specs=[tmp_path], watch=False), backend=backend) as runtime:
        first = await runtime.simulator.call("s", "add_note", {"text": "milk"})
        await runtime.simulator.call("s", "add_note", {"text": "eggs"})
        state = runtime.simulator.world_of(await runtime.sessions.get("s"), "notes")
    assert first.result == {"saved": "milk"}
    assert state == {"notes": {"milk": 1, "eggs": 1}}
    assert [request.arguments for request in backend.requests] == [{"text": "milk"}, {"text": "eggs"}]


async def test_a_bad_reply_is_fed_back_and_a_spent_script_is_an_honest_error(tmp_path: Path) -> None:
    (tmp_path / "notes.yaml").write_text(SPEC)
    backend = scripted({"result": "ok", "state_patch": "not a patch"}, {"result": "ok", "state_patch": []})
    settings = Settings(specs=[tmp_path], watch=False, max_attempts=2)
    async with Runtime(settings, backend=backend) as runtime:
        fixed = await runtime.simulator.call("s", "add_note", {"text": "x"})
        spent = await runtime.simulator.call("s", "add_note", {"text": "y"})
    assert not fixed.is_error
    assert backend.requests[1].feedback  # the first reply's problem, fed back
    assert spent.is_error
    assert "answers are spent" in str(spent.event.rejected if spent.event else spent.result)


async def test_complete_answers_the_judge_and_task_generation() -> None:
    backend = FunctionBackend(lambda request: Outcome(result=None), complete=lambda request: {"score": 1})
    assert backend.can_complete()
    reply = await backend.complete_json(JsonRequest(system="s", user="u", schema={"type": "object"}, name="v"))
    assert reply.value == {"score": 1}
    assert len(backend.completions) == 1
